"""Text cells bound for a spreadsheet: every CSV WOJ-DB writes goes through `escape_frame` (or
`escape_text` for one column), so no cell runs as a formula when the file is opened.

OWASP's advice against CSV injection: a spreadsheet runs a cell starting with = + - @, a tab or
a carriage return as a formula (`=HYPERLINK("http://…")`, `-2+3+cmd|' /C calc'!A0`), so such a
cell is written with a leading apostrophe. A text that starts with an apostrophe gets one more,
so `unescape_text` drops exactly one and gives back the text as it was. A cell that is a plain
number (-0.5, +3, 1e-5) is no formula and stays as it is. Numeric columns are not text and are
never touched; formats that keep types (Parquet) keep the exact text.
"""

from __future__ import annotations

import pandas as pd
from pandas.api.types import is_object_dtype, is_string_dtype

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")
NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"


def escape_text(values: pd.Series) -> pd.Series:
    """A column's text cells as written to CSV (missing values and non-text cells stay)."""
    text = values.astype(object)
    is_text = text.map(lambda v: isinstance(v, str)).astype(bool)
    strings = text.where(is_text, "")
    risky = is_text & strings.str.startswith(FORMULA_STARTS)
    risky &= ~strings.str.fullmatch(NUMBER).astype(bool)
    return text.where(~risky, "'" + strings)


def unescape_text(values: pd.Series) -> pd.Series:
    """The inverse of escape_text, for text cells read from CSV."""
    escaped = values.str.startswith("'").fillna(False).astype(bool)
    return values.where(~escaped, values.str[1:])


def escape_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every text column escaped, ready for `to_csv`."""
    out = frame.copy()
    for name in out.columns:
        if is_object_dtype(out[name]) or is_string_dtype(out[name]):
            out[name] = escape_text(out[name])
    return out
