"""Readers of automatic scores: WMT metrics-task files, mt-metrics-eval files, plain CSV and
Google's MQM segment scores, as `ImportedScore` records (analysis/scores_import.py matches them
to items and stores them).

Formats (tab-separated WMT files may be gzip-compressed, `.gz`):
- WMT segment scores, 7 columns `metric lp testset refset system seg score` (WMT19 and
  earlier: `seg` is the test-set line) or 8 columns `metric lp testset refset system doc seg
  score` (WMT20: `seg` counts within document `doc`; mapped to the line through the document
  ids stored with the test set, or read off the file's own doc column where every system's
  rows run through the test set in order; refused otherwise);
- mt-metrics-eval `metric-scores/LP/METRIC-REF.seg.score` (or `LP.METRIC-REF.seg.score`):
  `SYSTEM SCORE` lines, one block per system, one line per segment in test-set order;
- CSV with a header `lp,system,segment,metric,score` (optionally `testset`, `variant`);
- CSV with a header `item_id,metric,score` (optionally `variant`) for WOJ-DB item ids;
- MQM segment scores as google/wmt-mqm-human-evaluation publishes them,
  `mqm_NAME_SRCTGT.avg_seg_scores.tsv` (header `system mqm_avg_score seg_id`; the language
  pair comes from the file name, and NAME is kept as the test set, which the importer may
  replace: Google names TED talks `ted`, without a year; `None` marks an unrated segment),
  stored as the metric ``MQM`` (higher is better: the scores are negative error weights).
System-level files (WMT `.sys.score`, 6 columns; mt-metrics-eval `.sys.score`) are recognised
and refused: scores are stored per rated item. System names go through
`wojdb.core.formats.wmt.imported_system`: the name itself where it is a corpus, else
`Online-A.1570` → `Online-A`.
Every file is read and checked before anything is written; a key scored twice is refused unless
an aggregation is asked for; rows whose item is unknown are reported with counts.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path

from wojdb.core.formats import mqm
from wojdb.core.formats.common import LINE_BREAK, LINE_BREAKS, pair
from wojdb.core.io import MAX_ID, MAX_INT, InputError, parse_number, read_lines

AGGREGATIONS = {"mean": lambda scores: sum(scores) / len(scores)}
MTME_FILE = re.compile(
    r"^(?:(?P<lp>[a-z]{2,3}-[a-z]{2,3})\.)?(?P<metric>.+)-(?P<ref>[^-]+?)\.(?P<level>seg|sys|doc|domain)\.score$"
)


@dataclass(frozen=True)
class ImportedScore:
    """One score as an external metric's file gives it, before it is matched to an item
    (`wojdb.core.metrics.compute.ScoreRow` is a built-in metric's score)."""

    metric: str
    variant: str
    score: float
    line: int
    lp: str = ""
    testset: str = ""
    system: str = ""
    segment: int = 0
    document: str | None = None  # set when `segment` counts within this document
    item_id: int | None = None
    path: Path | None = None


#: Imported metrics whose lower scores are better (error rates and edit distances, as named in
#: WMT metrics-task files); every other imported metric is taken as higher-is-better.
LOWER_IS_BETTER = frozenset({"ter", "character", "eed", "wer", "per", "cder"})


def _float(value: str, path, line: int, field: str) -> float:
    return parse_number(value.strip(), path, line, field)


def _int(value: str, path, line: int, field: str, limit: int = MAX_INT) -> int:
    return parse_number(value.strip(), path, line, field, int, minimum=1, maximum=limit)


def _lp(value: str, path, line: int) -> str:
    src, dash, tgt = value.strip().partition("-")
    langs = pair(src, tgt) if dash else None
    if langs is None:
        raise InputError(
            path, f"{value!r} is not a language pair of ISO 639 codes like de-en", line, "lp"
        )
    return "-".join(langs)


def _name(value: str, path, line: int, field: str) -> str:
    value = value.strip()
    if not value:
        raise InputError(path, f"{field} is empty", line, field)
    if m := LINE_BREAK.search(value):
        raise InputError(path, f"contains {LINE_BREAKS[m.group()]}", line, field)
    return value


MQM_FILE = re.compile(r"mqm_(?P<testset>[A-Za-z0-9]+)_(?P<src>[a-z]{2,3})(?P<tgt>[a-z]{2,3})\.")


def _read_mqm(path: Path, lines: list[str]) -> list[ImportedScore]:
    named = MQM_FILE.match(path.name)
    if named is None:
        raise InputError(path, "an MQM file is named mqm_NAME_SRCTGT.avg_seg_scores.tsv")
    lp = _lp(f"{named['src']}-{named['tgt']}", path, 1)
    return [
        ImportedScore(
            metric="MQM",
            variant="",
            score=s.score,
            line=s.line,
            lp=lp,
            testset=named["testset"],
            system=_name(s.system, path, s.line, "system"),
            segment=s.segment,
        )
        for s in mqm.read_scores(path, lines)
    ]


def read_scores(path: Path) -> list[ImportedScore]:
    lines = read_lines(path)
    if not lines:
        raise InputError(path, "is empty")
    name = path.name.removesuffix(".gz")
    # A WMT file may be named like an mt-metrics-eval one (COMET-HTER.seg.score): its tabs tell.
    mtme = MTME_FILE.match(name)
    if lines[0].split() == mqm.SCORE_HEADER:
        rows = _read_mqm(path, lines)
    elif mtme and len(lines[0].split("\t")) <= 2:
        rows = _read_mtme(path, mtme, lines)
    elif "\t" in lines[0]:
        rows = _read_wmt(path, lines)
    else:
        rows = _read_csv(path, lines)
    return [replace(r, path=path) for r in rows]


def _refuse_system_level(path, level: str) -> None:
    raise InputError(
        path,
        f"holds {level}-level scores; WOJ-DB stores metric scores per rated item, so only "
        "segment-level files are imported",
    )


def _read_mtme(path: Path, m: re.Match, lines: list[str]) -> list[ImportedScore]:
    if m["level"] != "seg":
        _refuse_system_level(path, m["level"])
    lp = m["lp"] or path.parent.name
    lp = _lp(lp, path, 0)
    rows, counts = [], Counter()
    for no, line in enumerate(lines, start=1):
        cols = line.split()
        if len(cols) != 2:
            raise InputError(path, f"expected 'SYSTEM SCORE' (2 columns), found {len(cols)}", no)
        system = _name(cols[0], path, no, "system")
        counts[system] += 1
        if cols[1] == "None":  # mt-metrics-eval's mark for a segment without a score
            continue
        rows.append(
            ImportedScore(
                metric=m["metric"], variant=m["ref"], score=_float(cols[1], path, no, "score"),
                line=no, lp=lp, system=system, segment=counts[system],
            )
        )  # fmt: skip
    if len(set(counts.values())) > 1:
        sizes = ", ".join(f"{s}: {n}" for s, n in sorted(counts.items()))
        raise InputError(path, f"systems have different numbers of segments ({sizes})")
    return rows


def _read_wmt(path: Path, lines: list[str]) -> list[ImportedScore]:
    rows = []
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) == 6 and ".sys." in path.name:
            _refuse_system_level(path, "system")
        if len(cols) not in (7, 8):
            raise InputError(
                path,
                f"expected 7 or 8 tab-separated columns "
                f"(metric lp testset refset system [doc] seg score), found {len(cols)}",
                no,
            )
        rows.append(
            ImportedScore(
                metric=_name(cols[0], path, no, "metric"),
                variant=cols[3].strip(),
                score=_float(cols[-1], path, no, "score"),
                line=no,
                lp=_lp(cols[1], path, no),
                testset=cols[2].strip(),
                system=_name(cols[4], path, no, "system"),
                segment=_int(cols[-2], path, no, "seg"),
                document=_name(cols[5], path, no, "doc") if len(cols) == 8 else None,
            )
        )
    return rows


def _read_csv(path: Path, lines: list[str]) -> list[ImportedScore]:
    reader = csv.DictReader(lines)
    fields = set(reader.fieldnames or ())
    by_item = "item_id" in fields
    needed = (
        {"item_id", "metric", "score"}
        if by_item
        else {"lp", "system", "segment", "metric", "score"}
    )
    if missing := needed - fields:
        raise InputError(path, "missing column(s) " + ", ".join(sorted(missing)), 1)
    rows = []
    try:
        for no, row in enumerate(reader, start=2):
            if None in row or any(v is None for v in row.values()):
                raise InputError(path, "wrong number of columns", no)
            common = dict(
                metric=_name(row["metric"], path, no, "metric"),
                variant=(row.get("variant") or "").strip(),
                score=_float(row["score"], path, no, "score"),
                line=no,
            )
            if by_item:
                item_id = _int(row["item_id"], path, no, "item_id", MAX_ID)
                rows.append(ImportedScore(**common, item_id=item_id))
            else:
                rows.append(
                    ImportedScore(
                        **common,
                        lp=_lp(row["lp"], path, no),
                        testset=(row.get("testset") or "").strip(),
                        system=_name(row["system"], path, no, "system"),
                        segment=_int(row["segment"], path, no, "segment"),
                    )
                )
    except csv.Error as e:
        raise InputError(path, f"is not valid CSV ({e})", reader.line_num) from None
    return rows
