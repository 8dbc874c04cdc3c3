"""Test sets into the database: sources, references and system outputs of every layout
(wojdb.core.formats), checked first, then written in one transaction; re-importing adds nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction

from survey.bulk import insert_rows
from survey.models import (
    Corpus,
    Segment,
    Triple,
)
from wojdb.core import formats
from wojdb.core.io import ImportReport, InputError, Progress, no_progress, text_length

BATCH = 5000


@dataclass
class WmtPlan:
    """Test sets read and checked, ready to write; `triples` (lines × systems) sizes a progress
    bar."""

    found: formats.Found
    triples: int = 0
    report: ImportReport = field(default_factory=ImportReport)


def prepare_wmt(
    root: Path,
    *,
    year: int | None = None,
    lps: Iterable[str] | None = None,
    refs: Iterable[str] | str | None = None,
    systems: Iterable[str] | None = None,
    testset: str | None = None,
) -> WmtPlan:
    """Read every test set under `root` in whichever layout it is, and check it against the
    database; nothing is written. Raises `InputError` naming file, line and field."""
    selection = formats.Selection.of(
        year=year, lps=lps, refs=refs, systems=systems, testset=testset
    )
    found = formats.find(root, selection)
    plan = WmtPlan(found)
    report = plan.report
    report.notes.append(f"layout: {found.layout}")
    first: dict[tuple, formats.TestSetText] = {}
    for ts in found.test_sets:
        # e.g. the WMT24 release's txt/ and txt-ts/: the same test set twice, different lines
        other = first.setdefault((ts.testset, ts.lp, ts.ref_name), ts)
        if other is not ts:
            raise InputError(
                root,
                f"{ts.testset} {ts.lp} is here twice ({other.files['source']} and "
                f"{ts.files['source']}); import one of the folders",
            )
    for ts in found.test_sets:
        _check_texts(ts, report)
        report.notes.append(
            f"{ts.testset} {ts.lp}: reference {ts.ref_name}, {len(ts.hypotheses)} systems"
            + (", document ids kept" if any(ts.documents) else ", no document ids")
        )
        plan.triples += len(ts.sources) * len(ts.hypotheses)
    report.notes += [f"skipped {s}" for s in found.skipped] + found.notes
    if found.unmatched_files:
        report.notes.append(
            f"{len(found.unmatched_files)} files match no {found.layout} name and were not read:"
        )
        report.notes += [f"  {p}" for p in found.unmatched_files[:50]]
        if len(found.unmatched_files) > 50:
            report.notes.append(f"  … and {len(found.unmatched_files) - 50} more")
    return plan


def _too_long(text: str, where, line: int, what: str) -> bool:
    """Whether a line stays out of the database for its length, after refusing line breaks."""
    formats.common.check_text(text, where, line, what)
    return len(text) > formats.common.MAX_TEXT_CHARS


def _check_texts(ts: formats.TestSetText, report: ImportReport) -> None:
    """Refuse unusable text; count blank lines (stored, but `sample_pool` never draws them) and
    over-long ones (kept out); refuse text that differs from what is stored for the same
    segment or triple (a changed file is never silently ignored)."""
    if not ts.sources:
        raise InputError(ts.files["source"], "is empty")
    too_long, blank = Counter(), Counter()
    limit = f"over {formats.common.MAX_TEXT_CHARS:,} characters, kept out"
    for what, lines in (("source", ts.sources), ("reference", ts.references)):
        for n, text in enumerate(lines, start=1):
            if _too_long(text, ts.files[what], n, what):
                ts.skipped_lines.add(n)
                too_long[f"{ts.lp} {what} lines {limit}"] += 1
            elif not text.strip():
                blank[f"{ts.lp} blank {what} lines"] += 1
    # WMT24 marks its contamination-check line (a CANARY GUID) with the domain "canary".
    canary = {n for n, d in enumerate(ts.domains, start=1) if d == "canary"}
    if canary:
        report.notes.append(f"{ts.lp}: {len(canary)} canary line(s) left out")
    ts.skipped_lines |= canary
    for system, lines in ts.hypotheses.items():
        for n, text in enumerate(lines, start=1):
            if n in ts.skipped_lines:
                continue
            if _too_long(text, ts.files[system], n, f"hypothesis of {system}"):
                too_long[f"{ts.lp} {system} hypotheses {limit}"] += 1
            elif not text.strip():
                blank[f"{ts.lp} {system} blank hypotheses"] += 1
    report.notes += [f"{what}: {n:,}" for what, n in sorted(too_long.items())]
    report.notes += [
        f"{what}: {n:,} (stored, never drawn into the pool)" for what, n in sorted(blank.items())
    ]
    _check_stored(ts)


def _segment_key(ts: formats.TestSetText) -> dict:
    return dict(
        testset=ts.testset,
        source_lang=ts.source_lang,
        target_lang=ts.target_lang,
        ref_name=ts.ref_name,
    )


def _check_stored(ts: formats.TestSetText) -> None:
    stored = Segment.objects.filter(**_segment_key(ts)).values_list(
        "number", "source", "reference", "document", "domain"
    )
    for number, source, reference, document, domain in stored.iterator(chunk_size=BATCH):
        i = number - 1
        if i >= len(ts.sources):
            raise InputError(
                ts.files["source"],
                f"has {len(ts.sources)} lines but {number} segments of this test set are stored",
            )
        for what, old, new in (
            ("source", source, ts.sources[i]),
            ("reference", reference, ts.references[i]),
            ("document", document, ts.documents[i]),
            ("domain", domain, ts.domains[i]),
        ):
            if old != new and (what in ("source", "reference") or (old and new)):
                raise InputError(
                    ts.files["reference" if what == "reference" else "source"],
                    f"differs from the stored {what} ({old[:60]!r} → {new[:60]!r}); "
                    "a changed test set needs a new --testset name",
                    line=number,
                    field=what,
                )
    triples = Triple.objects.filter(
        corpus__testset=ts.testset,
        corpus__source_lang=ts.source_lang,
        corpus__target_lang=ts.target_lang,
        corpus__system__in=list(ts.hypotheses),
        segment__ref_name=ts.ref_name,
    ).values_list("corpus__system", "segment__number", "hypothesis")
    for system, number, hypothesis in triples.iterator(chunk_size=BATCH):
        if ts.hypotheses[system][number - 1] != hypothesis:
            raise InputError(
                ts.files[system],
                f"differs from the stored hypothesis ({hypothesis[:60]!r}); "
                "a changed system output needs a new system name",
                line=number,
                field=f"hypothesis of {system}",
            )


def write_wmt(plan: WmtPlan, progress: Progress = no_progress) -> ImportReport:
    """Write a prepared plan in one transaction; what is already stored is left as it is."""
    report = plan.report
    with transaction.atomic():
        for ts in plan.found.test_sets:
            segments = _segments(ts, report)
            for system, lines in ts.hypotheses.items():
                corpus, created = Corpus.objects.get_or_create(
                    testset=ts.testset,
                    year=ts.year,
                    source_lang=ts.source_lang,
                    target_lang=ts.target_lang,
                    system=system,
                )
                report.created["corpora"] += created
                have = set(
                    Triple.objects.filter(corpus=corpus).values_list("segment_id", flat=True)
                )
                new = [
                    {
                        "corpus_id": corpus.pk,
                        "segment_id": seg_pk,
                        "hypothesis": text,
                        "hypothesis_length": text_length(text, ts.target_lang),
                    }
                    for seg_pk, text in zip(segments, lines, strict=True)
                    if seg_pk is not None
                    and seg_pk not in have
                    and len(text) <= formats.common.MAX_TEXT_CHARS
                ]
                insert_rows(Triple, new)
                report.created["triples"] += len(new)
                progress(len(lines))
    return report


def import_wmt(root: Path, *, progress: Progress = no_progress, **selection) -> ImportReport:
    """Import sources, references and hypotheses from any test-set layout under `root`
    (`wojdb.core.formats`): validate everything first, then write in one transaction."""
    return write_wmt(prepare_wmt(root, **selection), progress)


def update_triples(fields: list[str], rows: list[tuple]) -> None:
    """UPDATE triples by primary key; rows are (value per field…, pk).

    One executemany statement: Django's bulk_update builds CASE expressions that grow
    quadratically slow on 100,000 rows.
    """
    columns = ", ".join(f"{Triple._meta.get_field(f).column} = %s" for f in fields)
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {Triple._meta.db_table} SET {columns} WHERE id = %s", rows)


def _segments(ts: formats.TestSetText, report: ImportReport) -> list[int | None]:
    """Primary keys of the test set's segments in line order (None for a line kept out),
    creating the missing ones and filling in document ids where the stored ones are empty."""
    key = _segment_key(ts)
    existing = dict(Segment.objects.filter(**key).values_list("number", "pk"))
    new = [
        {
            **key,
            "year": ts.year,
            "number": n,
            "source": src,
            "reference": reference,
            "document": ts.documents[n - 1],
            "domain": ts.domains[n - 1],
            "source_length": text_length(src, ts.source_lang),
            "reference_length": text_length(reference, ts.target_lang),
        }
        for n, (src, reference) in enumerate(zip(ts.sources, ts.references, strict=True), start=1)
        if n not in existing and n not in ts.skipped_lines
    ]
    insert_rows(Segment, new)
    report.created["segments"] += len(new)
    if any(ts.documents) and existing:
        filled = Segment.objects.filter(**key, number__in=list(existing), document="")
        for number, pk in filled.values_list("number", "pk"):
            Segment.objects.filter(pk=pk).update(
                document=ts.documents[number - 1], domain=ts.domains[number - 1]
            )
            report.created["segments given their document id"] += 1
    if new:
        existing = dict(Segment.objects.filter(**key).values_list("number", "pk"))
    return [existing.get(n) for n in range(1, len(ts.sources) + 1)]


def testset_for(testset: str | None, src: str, tgt: str, where) -> str:
    """The test set whose sentences of the pair a judgment file refers to, checked to exist."""
    held = set(
        Segment.objects.filter(source_lang=src, target_lang=tgt)
        .values_list("testset", flat=True)
        .distinct()
    )
    if testset:
        if testset in held:
            return testset
        known = sorted(set(Segment.objects.values_list("testset", flat=True).distinct()))
        if testset not in known:
            raise InputError(
                "--testset",
                f"unknown test set {testset!r} (imported: {', '.join(known) or 'none'})",
            )
        raise InputError(where, f"test set {testset} has no {src}-{tgt} sentences")
    if not held:
        raise InputError(where, f"no test set holds {src}-{tgt}: import its texts first")
    if len(held) > 1:
        raise InputError(
            where, f"several test sets hold {src}-{tgt} ({', '.join(sorted(held))}): name one "
            "with --testset",
        )  # fmt: skip
    return held.pop()
