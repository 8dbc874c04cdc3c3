"""Cells bound for a spreadsheet: what would run as a formula gets a leading apostrophe, and
reading drops exactly one, so the text comes back as it was."""

import re

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from wojdb.core.spreadsheet import (
    FORMULA_STARTS,
    NUMBER,
    escape_frame,
    escape_text,
    unescape_text,
)

RUN = [
    '=HYPERLINK("http://example.org/x","click")', "-2+3+cmd|' /C calc'!A0", "+44 7700",
    "@SUM(A1)", "\tx", "\rx", "'quoted", "''=x", "- Yes, he said.", "=1+1",
]  # fmt: skip
KEPT = ["plain", "a=b", "", "-3", "+3", "-0.5", "1e-5", ".5", "10", "-3."]


def test_cells_a_spreadsheet_would_run_get_a_leading_apostrophe_and_numbers_stay():
    escaped = escape_text(pd.Series([*RUN, *KEPT, None], dtype=object))
    assert list(escaped[: len(RUN)]) == ["'" + t for t in RUN]
    assert list(escaped[len(RUN) : -1]) == KEPT
    assert escaped.iloc[-1] is None


@given(st.lists(st.one_of(st.none(), st.text())))
def test_reading_gives_back_exactly_what_was_written(texts):
    values = pd.Series(texts, dtype=object)
    escaped = escape_text(values)
    assert unescape_text(escaped).equals(values)
    for cell in escaped.dropna():
        # what is written starts with no formula character, but for a quote or a number
        safe = cell.startswith("'") or re.fullmatch(NUMBER, cell)
        assert not cell.startswith(FORMULA_STARTS) or safe


def test_a_frame_has_its_text_columns_escaped_and_its_numbers_left_alone():
    frame = pd.DataFrame(
        {
            "system": ['=HYPERLINK("http://x")', "Online-B"],
            "z": [-0.25, 1.0],
            "label": pd.Series(["@x", None], dtype="string"),
        }
    )
    out = escape_frame(frame)
    assert list(out["system"]) == ['\'=HYPERLINK("http://x")', "Online-B"]
    assert list(out["z"]) == [-0.25, 1.0] and out["z"].dtype == frame["z"].dtype
    assert out["label"].iloc[0] == "'@x" and pd.isna(out["label"].iloc[1])
    assert frame["system"].iloc[0] == '=HYPERLINK("http://x")'  # the frame itself is kept


def test_a_column_mixing_text_and_numbers_has_only_its_text_escaped():
    mixed = escape_text(pd.Series(["=x", 3, None, "-1", -2.5, "@y"], dtype=object))
    assert list(mixed) == ["'=x", 3, None, "-1", -2.5, "'@y"]
