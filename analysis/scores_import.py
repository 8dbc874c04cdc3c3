"""Automatic scores into the database: the records of `wojdb.core.formats.scores` matched to
rated items (by item id, or by language pair, system and segment through the stored test sets)
and stored; every file is read and checked before anything is written; a key scored twice is
refused unless an aggregation is asked for; rows whose item is unknown are reported with counts,
and a file none of whose rows names a stored hypothesis is refused.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

from django.db import transaction

from analysis.models import Metric, MetricScore
from survey.models import ExternalSegmentScore, Item, JudgmentImport, Segment, Triple
from survey.sources.testsets import testset_for
from wojdb.core.formats.scores import AGGREGATIONS, LOWER_IS_BETTER, ImportedScore, read_scores
from wojdb.core.formats.segment_ids import ERROR_ANNOTATION
from wojdb.core.formats.wmt import human_reference, imported_system
from wojdb.core.io import ImportReport, InputError


def _document_lines(rows: list[ImportedScore], report: ImportReport) -> dict[tuple, int]:
    """(lp, testset, document, n) → line number, for rows that count within documents.

    The document ids come from the test set as imported or, where it has none, from the score
    files' own doc column when that settles them (`_documents_from_rows`). A document's lines
    are the block after the previous document's last stored line (the layouts keep documents
    contiguous), so a line kept out of the database does not shift the others."""
    wanted = {(r.lp, r.testset) for r in rows if r.document is not None}
    mapping = {}
    for lp, testset in wanted:
        src, tgt = lp.split("-")
        segments = Segment.objects.filter(source_lang=src, target_lang=tgt)
        if testset:
            segments = segments.filter(testset=testset)
        found = list(segments.values_list("testset", "document", "number").order_by("number"))
        if len({t for t, _, _ in found}) > 1:
            raise InputError(
                "score files",
                f"{lp}: several test sets match {testset!r}: "
                + ", ".join(sorted({t for t, _, _ in found})),
            )
        if found and not all(doc for _, doc, _ in found):
            documents = _documents_from_rows(rows, lp, testset, found[-1][2])
            if documents is not None:
                testset_name = found[0][0]
                for number, doc in enumerate(documents, start=1):
                    Segment.objects.filter(
                        testset=testset_name,
                        source_lang=src,
                        target_lang=tgt,
                        number=number,
                        document="",
                    ).update(document=doc)
                found = [(t, documents[number - 1], number) for t, _, number in found]
                report.notes.append(
                    f"document ids of {testset_name} {lp} read off the score files' doc column "
                    f"(every system's rows run through its {len(documents):,} lines in order) "
                    "and stored"
                )
        if not found or not all(doc for _, doc, _ in found):
            row = next(r for r in rows if (r.lp, r.testset) == (lp, testset))
            problem = (
                f"no test set {testset} {lp} is stored"
                if not found
                else f"the document ids of {testset} {lp} are unknown"
            )
            raise InputError(
                row.path,
                f"segments are numbered within documents, but {problem}: import the test set "
                "with its documents first (XML, SGML, mt-metrics-eval documents/, or a .docids "
                "file beside plain text)",
                row.line,
                "doc",
            )
        previous_end, blocks = 0, {}
        for doc, numbers in _runs(found):
            blocks[doc] = (previous_end + 1, numbers[-1])
            previous_end = numbers[-1]
        for doc, (start, end) in blocks.items():
            for n in range(1, end - start + 2):
                mapping[(lp, testset, doc, n)] = start + n - 1
    return mapping


def _documents_from_rows(
    rows: list[ImportedScore], lp: str, testset: str, lines: int
) -> list[str] | None:
    """Each line's document, from the rows' doc column, if every (file, variant, system)
    block of rows has one row per line and numbers each document's rows 1, 2, … in one run, and
    all blocks agree (WMT20's files list every system's segments in test-set order)."""
    blocks: dict[tuple, list[ImportedScore]] = defaultdict(list)
    for r in rows:
        if (r.lp, r.testset) == (lp, testset) and r.document is not None:
            blocks[(r.path, r.variant, r.system)].append(r)
    orders = set()
    for block in blocks.values():
        if len(block) != lines:
            return None
        seen, previous = set(), None
        for r in block:
            expected = previous.segment + 1 if previous and previous.document == r.document else 1
            if r.segment != expected or (expected == 1 and r.document in seen):
                return None
            seen.add(r.document)
            previous = r
        orders.add(tuple(r.document for r in block))
    return list(orders.pop()) if len(orders) == 1 else None


def _runs(found):
    runs: list[tuple[str, list[int]]] = []
    for _, doc, number in found:
        if runs and runs[-1][0] == doc:
            runs[-1][1].append(number)
        else:
            runs.append((doc, [number]))
    return runs


def _hypothesis_items(rows: list[ImportedScore], report: ImportReport) -> dict[ImportedScore, int]:
    """The hypothesis item of each row that names a known triple, creating items as needed."""
    lines = _document_lines(rows, report)
    wanted = {(r.lp, r.system) for r in rows if r.item_id is None}
    triples, corpora, testsets = {}, defaultdict(set), defaultdict(set)
    for lp in {lp for lp, _ in wanted}:
        src, tgt = lp.split("-")
        for pk, testset, system, number in Triple.objects.filter(
            corpus__source_lang=src, corpus__target_lang=tgt
        ).values_list("pk", "corpus__testset", "corpus__system", "segment__number"):
            corpora[lp].add(system)
            testsets[lp].add(testset)
            triples[(lp, testset, system, number)] = pk
            triples.setdefault((lp, "", system, number), pk)
    names, mapped = {}, Counter()
    for lp, system in wanted:
        names[(lp, system)] = imported_system(system, corpora[lp])
        if names[(lp, system)] != system:
            mapped[f"{system} → {names[(lp, system)]}"] += 1
    if mapped:
        report.notes.append("system names mapped: " + ", ".join(sorted(mapped)))
    triple_of = {}
    for r in rows:
        if r.item_id is not None:
            continue
        number = r.segment
        if r.document is not None:
            number = lines.get((r.lp, r.testset, r.document, r.segment))
        # A row of a stored test set scores that test set only (newstest2020's Human-B is not
        # the TED talks' refB); a test set not stored, or none, may be any that holds the triple.
        testset = r.testset if r.testset in testsets[r.lp] else ""
        if (pk := triples.get((r.lp, testset, names[(r.lp, r.system)], number))) is not None:
            triple_of[r] = pk
    needed = set(triple_of.values())
    have = dict(
        Item.objects.filter(triple_id__in=needed, permutation=None).values_list("triple_id", "pk")
    )
    Item.objects.bulk_create([Item(triple_id=pk) for pk in needed - have.keys()])
    have = dict(
        Item.objects.filter(triple_id__in=needed, permutation=None).values_list("triple_id", "pk")
    )
    return {r: have[pk] for r, pk in triple_of.items()}


def _mqm_testsets(rows: list[ImportedScore], testset: str | None) -> list[ImportedScore]:
    """MQM rows with the test set they score: `testset`, else the one their file names where a
    test set of the pair is so named (`newstest2021`), else the one test set holding the pair
    (Google's TED files are named `ted`, without a year)."""
    chosen = {}
    for r in rows:
        key = (r.path, r.lp)
        if r.metric == "MQM" and r.path.name.startswith("mqm_") and key not in chosen:
            src, tgt = r.lp.split("-")
            named = Segment.objects.filter(testset=r.testset, source_lang=src, target_lang=tgt)
            chosen[key] = (
                r.testset
                if not testset and named.exists()
                else testset_for(testset, src, tgt, r.path)
            )
    return [replace(r, testset=chosen[r.path, r.lp]) if (r.path, r.lp) in chosen else r
            for r in rows]  # fmt: skip


def import_scores(
    paths: list[Path], *, aggregate: str | None = None, testset: str | None = None
) -> ImportReport:
    """Import metric scores; a (metric, variant, item) scored twice is refused naming the
    lines, unless `aggregate` ("mean") says how to combine them. `testset` is the test set of
    MQM files (`_mqm_testsets`)."""
    if aggregate is not None and aggregate not in AGGREGATIONS:
        raise InputError("--aggregate", f"unknown aggregation {aggregate!r}; use: mean")
    rows = _mqm_testsets([row for path in paths for row in read_scores(path)], testset)
    report, unknown, matched, references = ImportReport(), Counter(), set(), []
    with transaction.atomic():
        items = _hypothesis_items([r for r in rows if r.item_id is None], report)
        known_ids = set(
            Item.objects.filter(
                pk__in={row.item_id for row in rows if row.item_id is not None}
            ).values_list("pk", flat=True)
        )
        scores: dict[tuple[str, str], dict[int, list[ImportedScore]]] = {}
        for row in rows:
            name = row.path.name
            if row.item_id is not None:
                item = row.item_id if row.item_id in known_ids else None
                label = f"{name}: item ids not in the database"
            else:
                item = items.get(row)
                label = f"{name}: {row.lp} {row.system} (no such triple)"
            if item is None and row.metric == "MQM" and human_reference(row.system):
                references.append(row)
                continue
            if item is None:
                unknown[label] += 1
                continue
            matched.add(row.path)
            scores.setdefault((row.metric, row.variant), {}).setdefault(item, []).append(row)
        _refuse_unmatched(paths, rows, matched, unknown)
        _check_repeats(scores, aggregate, report)
        _keep_reference_scores(references, report)
        for (name, variant), by_item in scores.items():
            metric, created = Metric.objects.get_or_create(
                name=name,
                variant=variant,
                defaults={"higher_is_better": name.lower() not in LOWER_IS_BETTER},
            )
            report.created["metrics"] += created
            combine = AGGREGATIONS[aggregate] if aggregate else lambda s: s[0]
            stored = set(metric.scores.values_list("item_id", flat=True))
            if replaced := len(stored & by_item.keys()):
                report.notes.append(f"{replaced:,} stored score(s) of {metric} were replaced")
            MetricScore.objects.bulk_create(
                [
                    MetricScore(metric=metric, item_id=i, score=combine([r.score for r in rs]))
                    for i, rs in by_item.items()
                ],
                update_conflicts=True,
                unique_fields=["metric", "item"],
                update_fields=["score"],
                batch_size=5000,
            )
            report.created["scores"] += len(by_item)
    report.unmatched.update(unknown)
    return report


MQM_SEGMENT_SCORES = "MQM segment scores"


def _keep_reference_scores(rows: list[ImportedScore], report: ImportReport) -> None:
    """MQM scores of a human reference judged as a system (Google's `ref-A`, `ref-C`): the
    reference has no sentences of its own to score, so its scores are kept as the published
    segment scores of a system (`ExternalSegmentScore`, one import record per file and pair),
    ranked in the MQM system tables with the systems. A file imported before is not again."""
    by_file = defaultdict(list)
    for row in rows:
        by_file[row.path, row.testset, row.lp].append(row)
    for (path, testset, lp), part in sorted(by_file.items(), key=lambda kv: kv[0][1:]):
        src, tgt = lp.split("-")
        testset = testset_for(testset or None, src, tgt, path)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        record = JudgmentImport(
            sha256=digest, file_name=path.name, file_format=MQM_SEGMENT_SCORES, testset=testset,
            source_lang=src, target_lang=tgt, mapping="lines", level=JudgmentImport.SEGMENT,
            kind=ERROR_ANNOTATION,
        )  # fmt: skip
        if JudgmentImport.objects.filter(
            sha256=digest, file_format=MQM_SEGMENT_SCORES, testset=testset,
            source_lang=src, target_lang=tgt,
        ).exists():  # fmt: skip
            report.notes.append(f"{path.name}: {testset} {lp} references' scores already kept")
            continue
        record.save()
        ExternalSegmentScore.objects.bulk_create(
            [
                ExternalSegmentScore(
                    source=record, source_lang=src, target_lang=tgt, system=r.system,
                    segment_id=r.segment, document=r.document or "", z=r.score, line=r.line,
                )
                for r in part
            ],
            batch_size=5000,
        )  # fmt: skip
        names = ", ".join(sorted({r.system for r in part}))
        report.created["human reference scores"] += len(part)
        report.notes.append(
            f"{path.name}: {testset} {lp}: {len(part):,} scores of human references judged as "
            f"systems ({names}) kept for the MQM system tables"
        )


def _refuse_unmatched(paths, rows: list[ImportedScore], matched: set, unknown: Counter) -> None:
    """A file none of whose rows names a hypothesis in the database is refused: importing it
    would do nothing, which is most likely a wrong file, pair or system naming."""
    for path in paths:
        if path in matched:
            continue
        count = sum(row.path == path for row in rows)
        if not count:
            raise InputError(path, "holds no scores")
        what = "; ".join(
            f"{label.removeprefix(path.name + ': ')}: {n:,}"
            for label, n in sorted(unknown.items())
            if label.startswith(path.name + ": ")
        )
        raise InputError(
            path, f"none of its {count:,} scores is of a hypothesis in the database ({what}); "
            "import the test set and its systems first (import_wmt)",
        )  # fmt: skip


def _check_repeats(scores, aggregate: str | None, report: ImportReport) -> None:
    repeats = [
        (name, variant, rs)
        for (name, variant), by_item in scores.items()
        for rs in by_item.values()
        if len(rs) > 1
    ]
    if not repeats:
        return
    if aggregate is None:
        examples = "; ".join(
            f"{name}{'/' + variant if variant else ''}: "
            + ", ".join(f"{r.path.name} line {r.line}" for r in rs)
            for name, variant, rs in repeats[:5]
        )
        raise InputError(
            repeats[0][2][0].path,
            f"{len(repeats):,} hypotheses are scored more than once by the same metric "
            f"({examples}{'; …' if len(repeats) > 5 else ''}); give --aggregate mean to "
            "combine them",
            repeats[0][2][1].line,
        )
    rows = sum(len(rs) for _, _, rs in repeats)
    report.notes.append(
        f"aggregated ({aggregate}): {len(repeats):,} hypotheses scored more than once, "
        f"from {rows:,} rows"
    )
