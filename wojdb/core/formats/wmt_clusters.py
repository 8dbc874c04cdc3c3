"""WMT21's and WMT23's system-level human results as Appraise printed them
(`wmt21clusters.*.txt`, `WMT23.results.txt`).

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

WMT23 ranked by the raw score (humaneval/DA+SQM/ of wmt-conference/wmt23-news-systems): the
result lines lead with the raw score to two places, `83.67 ('ONLINE-B', 1672, 0.1617…,
83.665…, 3.923…)`, and the table is `Wins System ID ↓ Ave Score`, its rows `11  ONLINE-B  83.7`
(the raw score to one place). After the blocks the file repeats the tables in LaTeX (not read)
and as a tab-separated summary `pair system rank ave`, whose `ave` is checked against the raw
score; its `rank` (the range of ranks) is not kept.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from wojdb.core.io import MAX_INT, InputError, check_language, parse_number, read_lines

NAME = "WMT21 system-level clusters"  # stored with each import; WMT23's results share it
FIRST_LINE = "Processing annotations in file "
BLOCK = re.compile(r"\[([a-z]{2,3})-->([a-z]{2,3})\]")
COUNT = re.compile(r"(.+?)(: |-->)([^\s)]+)")  # the count checked by parse_number
RESULT = re.compile(r"(-?\d+\.\d\d) (\(.*\))")
DASHES = re.compile(r"-{20,}")
# The table of each year: its header, and which scores its rows give after the system, to how
# many places (the result lines lead with the first of them to two).
TABLES = {
    "WMT21": (["Wins", "System", "ID", "Z", "Score", "H", "Score", "R", "Score"],
              (("Z Score", "z", 5), ("H Score", "h", 5), ("R Score", "raw", 5))),
    "WMT23": (["Wins", "System", "ID", "↓", "Ave", "Score"], (("Ave Score", "raw", 1),)),
}  # fmt: skip
LATEX_START, LATEX_END = "{\\bf", "\\end{tabular}"
SUMMARY_HEADER = ["pair", "system", "rank", "ave"]


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
        if lines[no].startswith(LATEX_START) and seen:
            _check_summary(path, lines, no, results)
            break
        header = no + 1
        block, no = _block(path, lines, no)
        pair = (block[0].source_lang, block[0].target_lang)
        if pair in seen:
            raise InputError(path, f"a second block of {pair[0]}-{pair[1]}", line=header)
        seen.add(pair)
        results += block
    return [r for r in results if not lp or f"{r.source_lang}-{r.target_lang}" == lp]


def _check_summary(path, lines: list[str], start: int, results: list[SystemResult]) -> None:
    """WMT23's trailer from index `start`: LaTeX tables, then per pair a header `pair system
    rank ave` and its rows, each system of each block once, `ave` its raw score to one place."""
    first = next((i for i in range(start, len(lines)) if lines[i].split("\t") == SUMMARY_HEADER),
                 None)  # fmt: skip
    if first is None:
        raise InputError(path, "after the LaTeX tables, expected the summary header "
                         "'pair system rank ave'", line=start + 1)  # fmt: skip
    raw = {(f"{r.source_lang}-{r.target_lang}", r.system): r.raw for r in results}
    for no in range(first + 1, len(lines)):
        fields = lines[no].split("\t")
        if not lines[no].strip() or fields == SUMMARY_HEADER:
            continue
        if len(fields) != len(SUMMARY_HEADER):
            raise InputError(path, f"expected 4 tab-separated fields, found {len(fields)}",
                             line=no + 1)  # fmt: skip
        key = (fields[0], fields[1].replace("\\_", "_"))  # LaTeX's \_ for _
        if key not in raw:
            raise InputError(path, f"{key[0]} {key[1]} has no block result, or is summarised "
                             "twice", line=no + 1, field="system")  # fmt: skip
        if fields[3] != f"{raw.pop(key):.1f}":
            raise InputError(path, f"{fields[3]} is not the raw score to one place",
                             line=no + 1, field="ave")  # fmt: skip
    if raw:
        raise InputError(path, "the summary lacks " + ", ".join(f"{lp} {s}" for lp, s in raw),
                         line=len(lines))  # fmt: skip


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
        system, kind, n = c[1], c[2], parse_number(c[3], path, no + 1, "count", int)
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
    leading = []  # (the rounded score leading each result line, its line, the tuple)
    while no < len(lines) and not DASHES.fullmatch(lines[no]):
        system, n, z, raw, h, rounded = _result(path, lines[no], no + 1)
        if system in tuples:
            raise InputError(path, f"{system} is listed twice", line=no + 1, field="system")
        if counted.get(system) != n:
            raise InputError(path, f"n {n} of {system} is not its count "
                             f"({counted.get(system, 'none')})", line=no + 1,
                             field="n")  # fmt: skip
        tuples[system] = (n, z, raw, h, no + 1)
        leading.append((rounded, no + 1, {"z": z, "raw": raw}))
        no += 1
    if set(tuples) != set(counted):
        missing = ", ".join(sorted(set(counted) - set(tuples)))
        raise InputError(path, f"no result line for {missing}", line=no + 1, field="system")
    header = lines[no + 1].split() if no + 2 < len(lines) else []
    table = next((columns for head, columns in TABLES.values() if head == header), None)
    if table is None or not DASHES.fullmatch(lines[no + 2]):
        raise InputError(path, "expected a table header between dashed lines: " + " or ".join(
            f"'{' '.join(head)}'" for head, _ in TABLES.values()), line=no + 2)  # fmt: skip
    first, score = table[0][0], table[0][1]
    for rounded, line, scores in leading:
        if f"{scores[score]:.2f}" != rounded:
            raise InputError(path, f"the rounded {score} {rounded} is not {score} "
                             f"{scores[score]} to two places (the table ranks by {first})",
                             line=line, field=score)  # fmt: skip
    no += 3
    results, cluster, rows = [], 1, 0
    while no < len(lines) and lines[no].strip():
        if DASHES.fullmatch(lines[no]):
            if rows:
                cluster, rows = cluster + 1, 0
            no += 1
            continue
        system, wins = _table_row(path, lines[no], no + 1, tuples, table)
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


def _result(path, text: str, line: int) -> tuple[str, int, float, float, float, str]:
    """`0.16 ('Online-B', 1913, 0.1595…, 87.878…, 4.0)`: (system, n, z, raw, H, the leading
    rounded score); its numbers are read by the one number parser, not as Python literals
    (which take 1_913 and 1e999)."""
    if not (m := RESULT.fullmatch(text)):
        raise InputError(path, f"expected a result like 0.16 ('SYSTEM', n, z, raw, H), found "
                         f"{text!r}", line=line)  # fmt: skip
    fields = ("system", "n", "z", "raw", "H")
    try:
        node = ast.parse(m[2], mode="eval").body
    except SyntaxError:
        node = None
    if not isinstance(node, ast.Tuple) or len(node.elts) != len(fields):
        raise InputError(path, f"{m[2]!r} is not a tuple of {', '.join(fields)}", line=line)
    texts = [ast.get_source_segment(m[2], element) for element in node.elts]
    named = node.elts[0]
    if not (isinstance(named, ast.Constant) and isinstance(named.value, str)):
        raise InputError(path, f"{texts[0]} is not a quoted name", line=line, field="system")
    system = named.value
    n = parse_number(texts[1], path, line, "n", int, 1, MAX_INT)
    z, h = (parse_number(texts[i], path, line, fields[i]) for i in (2, 4))
    raw = parse_number(texts[3], path, line, "raw", minimum=0, maximum=100)
    if not system.strip():
        raise InputError(path, "empty system name", line=line, field="system")
    return system, n, z, raw, h, m[1]


def _table_row(path, text: str, line: int, tuples: dict, columns) -> tuple[str, int]:
    """`07  Online-B  0.15951 4.00000 87.87845` (WMT21) or `11  ONLINE-B  83.7` (WMT23): the
    system and its wins, checked against its result line."""
    parts = text.split()
    if len(parts) < 2 + len(columns):
        raise InputError(path, "expected 'Wins System " + " ".join(c[0] for c in columns)
                         + f"', found {text!r}", line=line)  # fmt: skip
    system = " ".join(parts[1 : -len(columns)])
    if system not in tuples:
        raise InputError(path, f"{system!r} has no result line above, or is in the table twice",
                         line=line, field="System ID")  # fmt: skip
    n, z, raw, h, _ = tuples[system]
    scores = {"z": z, "h": h, "raw": raw}
    for (name, score, places), given in zip(columns, parts[-len(columns) :], strict=True):
        if given != f"{scores[score]:.{places}f}":
            raise InputError(path, f"{given} is not {scores[score]} to {places} places",
                             line=line, field=name)  # fmt: skip
    return system, parse_number(parts[0], path, line, "Wins", int)
