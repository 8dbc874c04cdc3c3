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

import re

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pandas.api.types import is_object_dtype, is_string_dtype

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")
NUMBER = r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_RISKY_START = "^[" + re.escape("".join(FORMULA_STARTS)) + "]"


def escape_cell(value: str) -> str:
    """One text cell as written to CSV."""
    risky = value.startswith(FORMULA_STARTS) and not re.fullmatch(NUMBER, value)
    return "'" + value if risky else value


def escape_text(values: pd.Series) -> pd.Series:
    """A column's text cells as written to CSV (missing values and non-text cells stay)."""
    try:  # a column of text: in Arrow's compiled kernels, a million cells in a fraction of a second
        text = pa.array(values, type=pa.string(), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):  # text mixed with other values: cell by cell
        return values.map(lambda v: escape_cell(v) if isinstance(v, str) else v)
    risky = pc.and_not(
        pc.match_substring_regex(text, _RISKY_START),
        pc.match_substring_regex(text, f"^(?:{NUMBER})$"),
    )
    risky = risky.fill_null(False).to_numpy(zero_copy_only=False)
    escaped = values.astype(object)
    if risky.any():  # rarely: a masked assignment costs more than the search
        escaped[risky] = "'" + escaped[risky]
    return escaped


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
