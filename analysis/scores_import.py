"""Importing automatic scores: WMT metrics-task segment files and plain CSV files.

Formats (tab-separated WMT files may be gzip-compressed, `.gz`):
- WMT segment scores: `metric lp testset refset system [doc] seg score` (7 or 8 columns);
- CSV with a header `lp,system,segment,metric,score` (optionally `testset`, `variant`);
- CSV with a header `item_id,metric,score` (optionally `variant`) for WOJ-DB item ids;
- MQM segment scores as google/wmt-mqm-human-evaluation publishes them,
  `mqm_TESTSET_SRCTGT.avg_seg_scores.tsv` (header `system mqm_avg_score seg_id`; the language
  pair and test set come from the file name; `None` marks an unrated segment), stored as the
  metric ``MQM`` (higher is better: the scores are negative error weights).
Every file is read and checked before anything is written; rows whose item is unknown are
reported with counts.
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from analysis.models import Metric, MetricScore
from survey.importers import Report
from survey.models import Item, Triple
from survey.wmt import InputError, read_lines


@dataclass(frozen=True)
class ScoreRow:
    metric: str
    variant: str
    score: float
    line: int
    lp: str = ""
    testset: str = ""
    system: str = ""
    segment: int = 0
    item_id: int | None = None


#: Imported metrics whose lower scores are better (error rates and edit distances, as named in
#: WMT metrics-task files); every other imported metric is taken as higher-is-better.
LOWER_IS_BETTER = frozenset({"ter", "character", "eed", "wer", "per", "cder"})


def _float(value: str, path, line: int, field: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise InputError(path, f"{value!r} is not a number", line, field) from None
    if not math.isfinite(number):
        raise InputError(path, f"{value!r} is not a finite number", line, field)
    return number


def _int(value: str, path, line: int, field: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise InputError(path, f"{value!r} is not a whole number", line, field) from None


MQM_HEADER = ["system", "mqm_avg_score", "seg_id"]
MQM_FILE = re.compile(r"mqm_(?P<testset>[a-z]+\d{4})_(?P<src>[a-z]{2,3})(?P<tgt>[a-z]{2,3})\.")


def _read_mqm(path: Path, lines: list[str]) -> list[ScoreRow]:
    named = MQM_FILE.match(path.name)
    if named is None:
        raise InputError(path, "an MQM file is named mqm_TESTSET_SRCTGT.avg_seg_scores.tsv")
    lp = f"{named['src']}-{named['tgt']}"
    rows = []
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cols = line.split()
        if len(cols) != 3:
            raise InputError(path, f"expected 3 columns ({' '.join(MQM_HEADER)})", no)
        if cols[1] == "None":
            continue
        rows.append(
            ScoreRow(
                metric="MQM",
                variant="",
                score=_float(cols[1], path, no, "mqm_avg_score"),
                line=no,
                lp=lp,
                testset=named["testset"],
                system=cols[0],
                segment=_int(cols[2], path, no, "seg_id"),
            )
        )
    return rows


def read_scores(path: Path) -> list[ScoreRow]:
    lines = read_lines(path)
    if not lines:
        raise InputError(path, "is empty")
    if lines[0].split() == MQM_HEADER:
        return _read_mqm(path, lines)
    first = lines[0].split(",")
    if "metric" in first and "score" in first:
        return _read_csv(path, lines)
    return _read_wmt(path, lines)


def _read_wmt(path: Path, lines: list[str]) -> list[ScoreRow]:
    rows = []
    for no, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) not in (7, 8):
            raise InputError(
                path,
                f"expected 7 or 8 tab-separated columns "
                f"(metric lp testset refset system [doc] seg score), found {len(cols)}",
                no,
            )
        metric, lp, testset, refset, system = cols[:5]
        if "-" not in lp:
            raise InputError(path, f"{lp!r} is not a language pair like de-en", no, "lp")
        rows.append(
            ScoreRow(
                metric=metric,
                variant=refset,
                score=_float(cols[-1], path, no, "score"),
                line=no,
                lp=lp,
                testset=testset,
                system=system,
                segment=_int(cols[-2], path, no, "seg"),
            )
        )
    return rows


def _read_csv(path: Path, lines: list[str]) -> list[ScoreRow]:
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
    for no, row in enumerate(reader, start=2):
        if None in row or any(v is None for v in row.values()):
            raise InputError(path, "wrong number of columns", no)
        if not row["metric"].strip():
            raise InputError(path, "metric name is empty", no, "metric")
        common = dict(
            metric=row["metric"].strip(),
            variant=(row.get("variant") or "").strip(),
            score=_float(row["score"], path, no, "score"),
            line=no,
        )
        if by_item:
            rows.append(ScoreRow(**common, item_id=_int(row["item_id"], path, no, "item_id")))
        else:
            rows.append(
                ScoreRow(
                    **common,
                    lp=row["lp"].strip(),
                    testset=(row.get("testset") or "").strip(),
                    system=row["system"].strip(),
                    segment=_int(row["segment"], path, no, "segment"),
                )
            )
    return rows


def _hypothesis_items(rows: list[ScoreRow]) -> dict[tuple, int]:
    """(lp, testset, system, segment) → hypothesis item id, creating items for known triples."""
    wanted = {(r.lp, r.system) for r in rows if r.item_id is None}
    triples = {}
    for lp, system in wanted:
        src, tgt = lp.split("-", 1)
        for pk, testset, number in Triple.objects.filter(
            corpus__source_lang=src, corpus__target_lang=tgt, corpus__system=system
        ).values_list("pk", "corpus__testset", "segment__number"):
            triples[(lp, testset, system, number)] = pk
            triples.setdefault((lp, "", system, number), pk)
    needed = {
        triples[k]
        for r in rows
        if r.item_id is None and (k := (r.lp, r.testset, r.system, r.segment)) in triples
    }
    have = dict(
        Item.objects.filter(triple_id__in=needed, permutation=None).values_list("triple_id", "pk")
    )
    Item.objects.bulk_create([Item(triple_id=pk) for pk in needed - have.keys()])
    have = dict(
        Item.objects.filter(triple_id__in=needed, permutation=None).values_list("triple_id", "pk")
    )
    return {key: have[pk] for key, pk in triples.items() if pk in have}


def import_scores(paths: list[Path]) -> Report:
    rows = [(path, row) for path in paths for row in read_scores(path)]
    report, unknown = Report(), Counter()
    with transaction.atomic():
        items = _hypothesis_items([row for _, row in rows])
        known_ids = set(
            Item.objects.filter(
                pk__in={row.item_id for _, row in rows if row.item_id is not None}
            ).values_list("pk", flat=True)
        )
        scores: dict[tuple[str, str], dict[int, float]] = {}
        for path, row in rows:
            if row.item_id is not None:
                item = row.item_id if row.item_id in known_ids else None
                label = f"{path.name}: item ids not in the database"
            else:
                item = items.get((row.lp, row.testset, row.system, row.segment))
                label = f"{path.name}: {row.lp} {row.system} (no such triple)"
            if item is None:
                unknown[label] += 1
                continue
            scores.setdefault((row.metric, row.variant), {})[item] = row.score
        for (name, variant), by_item in scores.items():
            metric, created = Metric.objects.get_or_create(
                name=name,
                variant=variant,
                defaults={"higher_is_better": name.lower() not in LOWER_IS_BETTER},
            )
            report.created["metrics"] += created
            MetricScore.objects.bulk_create(
                [MetricScore(metric=metric, item_id=i, score=s) for i, s in by_item.items()],
                update_conflicts=True,
                unique_fields=["metric", "item"],
                update_fields=["score"],
                batch_size=5000,
            )
            report.created["scores"] += len(by_item)
    report.unmatched.update(unknown)
    return report
