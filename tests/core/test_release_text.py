"""The release schema in pure terms: participants' free text escaped in CSV against formula
injection and read back exactly; a schema for every format read, each with the columns it had."""

import pandas as pd

from wojdb.core.release.schema import (
    FORMAT_VERSION,
    PARTICIPANTS,
    SCHEMAS,
    TABLES,
    escape_text,
    typed,
    unescape_text,
    upgraded,
)

TEXTS = ["=1+1", "+44 7700", "-3", "@SUM(A1)", "\tx", "\rx", "'quoted", "''=x", "plain", "a=b", ""]


def test_cells_a_spreadsheet_would_run_get_a_leading_apostrophe():
    escaped = escape_text(pd.Series([*TEXTS, None], dtype=object))
    assert list(escaped[:8]) == ["'" + t for t in TEXTS[:8]]
    assert list(escaped[8:11]) == ["plain", "a=b", ""]
    assert escaped[11] is None


def test_reading_gives_back_exactly_what_was_typed():
    values = pd.Series([*TEXTS, None], dtype=object)
    assert unescape_text(escape_text(values)).equals(values)


def test_only_participants_text_columns_are_free_text():
    free = {(t.name, f.name) for t in TABLES for f in t.fields if f.free_text}
    assert free == {
        ("participants", "nationality"),
        ("participants", "reading_disability"),
        ("participant_languages", "language"),
        ("participant_languages", "qualifications"),
    }


def test_every_format_this_software_reads_has_its_schema():
    assert set(SCHEMAS) == set(range(1, FORMAT_VERSION + 1))


def test_each_format_has_the_columns_it_had_and_an_earlier_one_is_read_as_all_web():
    def columns(version):
        return next(t for t in SCHEMAS[version] if t.name == "participants").names

    assert "mode" not in columns(1)
    assert (
        "mode" in columns(2) and "english_first" in columns(2) and "target_first" not in columns(2)
    )
    assert columns(3) == PARTICIPANTS.names
    people = pd.DataFrame(
        {
            "participant": [1, 2],
            "questionnaire": [1, 1],
            "status": ["completed"] * 2,
            "english_first": [True, False],
            "english_years": [None, 4],
        }
    ).reindex(columns=columns(1))
    people[["simulated", "reading_mode"]] = False
    people["languages_score"] = 0
    tables = upgraded({"participants": people}, 1)
    assert list(tables["participants"]["mode"]) == ["web", "web"]
    assert list(tables["participants"].columns) == PARTICIPANTS.names
    assert list(tables["participants"]["target_first"]) == [True, False]
    assert list(tables["participants"]["target_years"].fillna(-1)) == [-1, 4]
    current = typed(tables["participants"].assign(mode="paper"), PARTICIPANTS)
    assert list(upgraded({"participants": current}, 3)["participants"]["mode"]) == ["paper"] * 2
