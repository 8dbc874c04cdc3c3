"""The release schema in pure terms: participants' free text escaped in CSV against formula
injection and read back exactly; a schema for every format read."""

import pandas as pd

from analysis.release.schema import FORMAT_VERSION, SCHEMAS, TABLES, escape_text, unescape_text

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
