"""The release schema in pure terms: a schema for every format read, each with the columns it
had. (Its CSV text cells are escaped against formulas: tests/core/test_spreadsheet.py.)"""

import pandas as pd

from wojdb.core.release.schema import (
    FORMAT_VERSION,
    PARTICIPANTS,
    SCHEMAS,
    typed,
    upgraded,
)


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


def test_judgments_are_a_table_of_format_4_only():
    def names(version):
        return [t.name for t in SCHEMAS[version]]

    assert "judgments" not in names(3) and names(4)[-1] == "judgments"
    assert names(3) == names(4)[:-1]
