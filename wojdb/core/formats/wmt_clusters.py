"""WMT21's system-level human results as Appraise printed them (`wmt21clusters.*.txt`).

The file (humaneval/newstest2021-EX_and_XY/ of wmt-conference/wmt21-news-systems) opens with
`Processing annotations in file …` and holds one block per language pair, `[deu-->fra]`
(ISO 639-3 codes, stored in their standard form: `de`, `fr`):

1. `SYSTEM: N`, then the same counts again as `SYSTEM-->N`;
2. one line per system, best z first: `0.16 ('Online-B', 1913, 0.1595…, 87.878…, 4.0)`, the z
   rounded to two places, then (system, n, z, raw, H score);
3. between dashed lines, the table `Wins System ID Z Score H Score R Score`, its rows
   `07  Online-B  0.15951 4.00000 87.87845` grouped into significance clusters by dashed lines.

What each field is was checked against the content, and the reader checks it again on every
file: n equals the system's count in both count lists, and counts annotations, not segments
(de-fr's 1,913 for Online-B exceeds the 1,000 lines of newstest2021 de-fr); the table's
Z Score, R Score and H Score are the tuple's z, raw and H score to five places, so z is the
mean z-score and raw the mean 0-100 score. Wins is how many systems of the pair a system
beats (WMT21's make_rankings.py: a one-sided Mann-Whitney test at p < 0.05 and a higher z);
a cluster is a group between dashed lines, numbered from 1 (best). The H score is not
described in the release; it is checked for agreement and not kept.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from wojdb.core.io import InputError, check_language, read_lines

NAME = "WMT21 system-level clusters"
FIRST_LINE = "Processing annotations in file "
BLOCK = re.compile(r"\[([a-z]{2,3})-->([a-z]{2,3})\]")
COUNT = re.compile(r"(.+?)(: |-->)(\d+)")
RESULT = re.compile(r"(-?\d+\.\d\d) (\(.*\))")
DASHES = re.compile(r"-{20,}")
TABLE_HEADER = ["Wins", "System", "ID", "Z", "Score", "H", "Score", "R", "Score"]


@dataclass(frozen=True)
class SystemResult:
    """One system's human result in one language pair, as published."""

    source_lang: str
    target_lang: str
    system: str
    n: int  # annotations
    z: float
    raw: float
    wins: int
    cluster: int  # 1 = best
    line: int  # of its (system, n, z, raw, H) line


def sniff(path: Path) -> bool:
    try:
        lines = read_lines(path)
    except (InputError, OSError):
        return False
    return bool(lines) and lines[0].startswith(FIRST_LINE)


def read(path: Path, lp: str | None = None) -> list[SystemResult]:
    """Every block's systems (only the pair `lp`, as `de-fr`, when given)."""
    lines = read_lines(path)
    if not lines or not lines[0].startswith(FIRST_LINE):
        raise InputError(path, f"does not begin with {FIRST_LINE.strip()!r}", line=1)
    results, no, seen = [], 1, set()
    while no < len(lines):
        if not lines[no].strip():
            no += 1
            continue
        header = no + 1
        block, no = _block(path, lines, no)
        pair = (block[0].source_lang, block[0].target_lang)
        if pair in seen:
            raise InputError(path, f"a second block of {pair[0]}-{pair[1]}", line=header)
        seen.add(pair)
        if not lp or f"{pair[0]}-{pair[1]}" == lp:
            results += block
    return results


def _block(path, lines: list[str], start: int) -> tuple[list[SystemResult], int]:
    """The systems of the block whose header is at index `start`, and the index after it."""
    if not (m := BLOCK.fullmatch(lines[start].strip())):
        raise InputError(path, f"expected a block header like [deu-->fra], found "
                         f"{lines[start]!r}", line=start + 1, field="language pair")  # fmt: skip
    src = check_language(m[1], path, line=start + 1)
    tgt = check_language(m[2], path, line=start + 1)
    no = start + 1
    counts: dict[str, dict[str, int]] = {": ": {}, "-->": {}}
    while no < len(lines) and (c := COUNT.fullmatch(lines[no])):
        system, kind, n = c[1], c[2], int(c[3])
        if system in counts[kind]:
            raise InputError(path, f"{system} is counted twice", line=no + 1, field="count")
        if kind == "-->" and counts[": "].get(system) != n:
            raise InputError(path, f"{system}-->{n} is not its count in the list above "
                             f"({counts[': '].get(system, 'none')})", line=no + 1,
                             field="count")  # fmt: skip
        counts[kind][system] = n
        no += 1
    if counts[": "] != counts["-->"] or not counts[": "]:
        raise InputError(path, "expected the counts twice, as SYSTEM: N and as SYSTEM-->N, "
                         "before the results", line=no + 1, field="count")  # fmt: skip
    counted = counts[": "]
    tuples: dict[str, tuple] = {}
    while no < len(lines) and not DASHES.fullmatch(lines[no]):
        system, n, z, raw, h = _result(path, lines[no], no + 1)
        if system in tuples:
            raise InputError(path, f"{system} is listed twice", line=no + 1, field="system")
        if counted.get(system) != n:
            raise InputError(path, f"n {n} of {system} is not its count "
                             f"({counted.get(system, 'none')})", line=no + 1,
                             field="n")  # fmt: skip
        tuples[system] = (n, z, raw, h, no + 1)
        no += 1
    if set(tuples) != set(counted):
        missing = ", ".join(sorted(set(counted) - set(tuples)))
        raise InputError(path, f"no result line for {missing}", line=no + 1, field="system")
    header = lines[no + 1].split() if no + 2 < len(lines) else []
    if header != TABLE_HEADER or not DASHES.fullmatch(lines[no + 2]):
        raise InputError(path, "expected the table header 'Wins System ID Z Score H Score "
                         "R Score' between dashed lines", line=no + 2)  # fmt: skip
    no += 3
    results, cluster, rows = [], 1, 0
    while no < len(lines) and lines[no].strip():
        if DASHES.fullmatch(lines[no]):
            if rows:
                cluster, rows = cluster + 1, 0
            no += 1
            continue
        system, wins = _table_row(path, lines[no], no + 1, tuples)
        if wins >= len(counted):
            raise InputError(path, f"{wins} wins, but the pair has {len(counted)} systems",
                             line=no + 1, field="Wins")  # fmt: skip
        n, z, raw, _, line = tuples.pop(system)
        results.append(SystemResult(src, tgt, system, n, z, raw, wins, cluster, line))
        rows += 1
        no += 1
    if tuples:
        raise InputError(path, f"the table lacks {', '.join(sorted(tuples))}", line=no + 1,
                         field="System ID")  # fmt: skip
    return results, no


def _result(path, text: str, line: int) -> tuple[str, int, float, float, float]:
    """`0.16 ('Online-B', 1913, 0.1595…, 87.878…, 4.0)`, checked."""
    if not (m := RESULT.fullmatch(text)):
        raise InputError(path, f"expected a result like 0.16 ('SYSTEM', n, z, raw, H), found "
                         f"{text!r}", line=line)  # fmt: skip
    try:
        value = ast.literal_eval(m[2])
    except (ValueError, SyntaxError):
        value = None
    fields = ("system", "n", "z", "raw", "H")
    types = (str, int, float, float, float)
    if not isinstance(value, tuple) or len(value) != len(fields):
        raise InputError(path, f"{m[2]!r} is not a tuple of {', '.join(fields)}", line=line)
    for name, kind, v in zip(fields, types, value, strict=True):
        if not isinstance(v, kind) or isinstance(v, bool):
            raise InputError(path, f"{v!r} is not a {kind.__name__}", line=line, field=name)
    system, n, z, raw, h = value
    if not system.strip():
        raise InputError(path, "empty system name", line=line, field="system")
    if n < 1:
        raise InputError(path, f"n {n} is not a positive count", line=line, field="n")
    if not 0 <= raw <= 100:
        raise InputError(path, f"raw {raw} is outside 0-100", line=line, field="raw")
    if f"{z:.2f}" != m[1]:
        raise InputError(path, f"the rounded z {m[1]} is not z {z} to two places", line=line,
                         field="z")  # fmt: skip
    return system, n, z, raw, h


def _table_row(path, text: str, line: int, tuples: dict) -> tuple[str, int]:
    """`07  Online-B  0.15951 4.00000 87.87845`: the system and its wins, checked against its
    result line."""
    parts = text.split()
    if len(parts) < 5 or not parts[0].isdigit():
        raise InputError(path, f"expected 'Wins System Z H R', found {text!r}", line=line)
    system = " ".join(parts[1:-3])
    if system not in tuples:
        raise InputError(path, f"{system!r} has no result line above, or is in the table twice",
                         line=line, field="System ID")  # fmt: skip
    _, z, raw, h, _ = tuples[system]
    for name, given, value in zip(("Z Score", "H Score", "R Score"), parts[-3:], (z, h, raw),
                                  strict=True):  # fmt: skip
        if given != f"{value:.5f}":
            raise InputError(path, f"{given} is not {value} to five places", line=line,
                             field=name)  # fmt: skip
    return system, int(parts[0])
