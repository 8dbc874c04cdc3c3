"""WMT15-16 relative rankings exported pairwise (cfedermann/wmt16 `data/wmt16.LP.csv`).

Header `srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,
system2rank,rankingID`: each row compares two outputs of one 5-way ranking task, which
`rankingID` names (per language pair). Rows are grouped back into rankings: one rank per system,
the same in every row that names it. Collapsed files (`data/collapsed/`) join systems with
identical output by `+`; they share one slot. srcIndex is the 1-based test-set line; language
codes are ISO 639-2 (`deu`, `cze`), stored in their standard form (`de`, `cs`).

The result is `wojdb.core.formats.wmt.Ranking`, the record the 5-way ranking reader returns, so
`import_ranks` scores both alike (eq. 6.1).
"""

from __future__ import annotations

import csv
from pathlib import Path

from wojdb.core.formats.common import language
from wojdb.core.formats.wmt import Ranking
from wojdb.core.io import MAX_INT, InputError, read_lines

HEADER = [
    "srclang", "trglang", "srcIndex", "segmentId", "judgeID",
    "system1Id", "system1rank", "system2Id", "system2rank", "rankingID",
]  # fmt: skip


def sniff(path: Path) -> bool:
    try:
        lines = read_lines(path)
    except (InputError, OSError):
        return False
    return bool(lines) and lines[0].split(",") == HEADER


def _int(value: str, path, line: int, field: str, low: int = 1, high: int = MAX_INT) -> int:
    if not value.strip().isdigit() or not low <= int(value) <= high:
        raise InputError(path, f"{value!r} is not a number in {low}–{high}", line=line, field=field)
    return int(value)


def read(path: Path) -> list[Ranking]:
    lines = read_lines(path)
    if not lines or lines[0].split(",") != HEADER:
        raise InputError(path, "header is not '" + ",".join(HEADER) + "'", line=1)
    groups: dict[tuple, dict] = {}
    reader = csv.reader(lines[1:])
    try:
        rows = list(reader)
    except csv.Error as e:
        raise InputError(path, f"is not valid CSV ({e})", line=reader.line_num + 1) from None
    for no, row in enumerate(rows, start=2):
        if not row:
            continue
        if len(row) != len(HEADER):
            raise InputError(path, f"expected {len(HEADER)} fields, found {len(row)}", line=no)
        f = dict(zip(HEADER, row, strict=True))
        langs = []
        for field in ("srclang", "trglang"):
            if (code := language(f[field])) is None:
                raise InputError(path, f"{f[field]!r} is not an ISO 639 code", line=no,
                                 field=field)  # fmt: skip
            langs.append(code)
        key = (*langs, f["rankingID"])
        segment = _int(f["srcIndex"], path, no, "srcIndex")
        g = groups.setdefault(key, {"judge": f["judgeID"], "segment": segment, "ranks": {},
                                    "line": no})  # fmt: skip
        if (g["judge"], g["segment"]) != (f["judgeID"], segment):
            raise InputError(
                path, f"ranking {f['rankingID']} (from line {g['line']}) changes judge or "
                "segment", line=no, field="rankingID",
            )  # fmt: skip
        for i in ("1", "2"):
            system = f[f"system{i}Id"].strip()
            rank = _int(f[f"system{i}rank"], path, no, f"system{i}rank", 1, 5)
            if g["ranks"].setdefault(system, rank) != rank:
                raise InputError(
                    path, f"ranking {f['rankingID']} gives {system} rank {rank} here and "
                    f"{g['ranks'][system]} before", line=no, field=f"system{i}rank",
                )  # fmt: skip
    return [
        Ranking(
            src,
            tgt,
            g["segment"],
            g["judge"],
            tuple(
                (tuple(s for s in system.split("+") if s), rank)
                for system, rank in sorted(g["ranks"].items())
            ),
            g["line"],
        )  # fmt: skip
        for (src, tgt, _), g in groups.items()
    ]
