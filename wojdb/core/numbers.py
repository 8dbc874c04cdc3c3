"""The one rule for a number written as text, wherever the program reads one: an input file
(wojdb.core.io.parse_number, the release's tables), a command's argument (wojdb.arguments), an
environment variable (wojdb.environment) and a form (survey.participants.forms).

A number is ASCII digits with an optional minus sign and nothing around them; a decimal may
also have a fraction and an exponent (``-0.25``, ``.5``, ``1e-05``). Python's int() and float()
also take ``1_0`` (as 10), ``٣`` (as 3), `` 3``, ``+3``, ``nan`` and ``inf``, none of which is
how the files, commands or settings of a study write a number. A whole number fits 64 bits
(the database's widest column and numpy's integers); a decimal is finite.

Imports nothing of the project, so the lowest modules (wojdb.environment, below the budgets of
wojdb.core.io) can take it.
"""

from __future__ import annotations

import math
import re

INTEGER = re.compile(r"-?[0-9]+", re.ASCII)
DECIMAL = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def read_number(
    text, kind: type = float, minimum: float | None = None, maximum: float | None = None
) -> int | float:
    """`text` as an int (`kind=int`) or a finite float, by the module's rule, within `minimum`
    and `maximum` (a whole number's missing bound: the 64-bit one); else a ValueError saying
    what is wrong with the text, which it quotes."""
    shown = repr(text[:20] + "…" if isinstance(text, str) and len(text) > 24 else text)
    if not isinstance(text, str) or not (INTEGER if kind is int else DECIMAL).fullmatch(text):
        whole = kind is int and isinstance(text, str) and DECIMAL.fullmatch(text)
        raise ValueError(f"{shown} is not a {'whole ' if whole else ''}number")
    if kind is int:
        minimum = INT64_MIN if minimum is None else minimum
        maximum = INT64_MAX if maximum is None else maximum
        # Past 19 digits it is out of range anyway; int() refuses 4,300 with its own error.
        number = int(text) if len(text.removeprefix("-").lstrip("0")) <= 19 else None
    else:
        number = float(text)
        if not math.isfinite(number):  # 1e999
            raise ValueError(f"{shown} is not a finite number")
    if (
        number is None
        or (minimum is not None and number < minimum)
        or (maximum is not None and number > maximum)
    ):
        bounds = (
            f"at least {minimum:,}" if maximum is None
            else f"at most {maximum:,}" if minimum is None
            else f"{minimum:,} to {maximum:,}"
        )  # fmt: skip
        raise ValueError(f"{shown} is out of range ({bounds})")
    return number
