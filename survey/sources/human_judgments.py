"""Human judgments into the database: WMT DA, Appraise, MQM and ESA files and WMT21's
system-level results, each checked against the stored sentences (its alignment) before anything
is written.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import transaction

from survey.bulk import insert_rows
from survey.models import (
    ErrorAnnotation,
    ExternalJudgment,
    ExternalSegmentScore,
    JudgmentImport,
    Segment,
    SystemScore,
    Triple,
)
from survey.sources.testsets import BATCH, testset_for, update_triples
from wojdb.core.formats import segment_ids, wmt
from wojdb.core.formats.common import document_lines
from wojdb.core.formats.judgments import APPRAISE, CLUSTERS, MQM, read_judgment_file
from wojdb.core.io import ImportReport, InputError, read_input


@dataclass
class _Sentences:
    """One test set's pair as stored: triples by (system, line), document ids by line."""

    # (pk, hypothesis, reference) of each triple; more than one where several references are
    # imported, the first by reference name used for the check.
    triples: dict[tuple[str, int], list[tuple[int, str, str]]]
    systems: set[str]
    count: int
    documents: list[str] | None  # None unless every line has one
    document_of: dict[int, str]  # the document of each line that has one

    @classmethod
    def load(cls, testset: str, src: str, tgt: str) -> _Sentences:
        rows = (
            Triple.objects.filter(
                corpus__testset=testset, corpus__source_lang=src, corpus__target_lang=tgt
            )
            .order_by("segment__ref_name", "pk")
            .values_list(
                "corpus__system", "segment__number", "pk", "hypothesis", "segment__reference"
            )
        )
        triples = defaultdict(list)
        for system, number, pk, hypothesis, reference in rows.iterator(chunk_size=BATCH):
            triples[system, number].append((pk, hypothesis, reference))
        docs: dict[int, str] = {}
        segments = Segment.objects.filter(testset=testset, source_lang=src, target_lang=tgt)
        for number, document in segments.values_list("number", "document"):
            docs[number] = docs.get(number) or document
        count = max(docs, default=0)
        documents = [docs.get(n, "") for n in range(1, count + 1)]
        return cls(
            dict(triples),
            {system for system, _ in triples},
            count,
            documents if all(documents) else None,
            {n: d for n, d in docs.items() if d},
        )


SID_MAPPINGS = ("documents", "lines")
Progress = Callable[[str, int, int], None]  # (step, done, total)


def _no_progress(_step: str, _done: int, _total: int) -> None:
    pass


@dataclass
class _JudgmentPlan:
    """One file's rows of one pair, validated and mapped, ready to be written."""

    record: JudgmentImport
    da_updates: list[tuple] = field(default_factory=list)
    segment_scores: list[dict] = field(default_factory=list)  # ExternalSegmentScore fields
    judgments: list[dict] = field(default_factory=list)  # ExternalJudgment fields
    # the errors of each judgment (same order as `judgments`), for MQM and ESA
    errors: list[tuple] = field(default_factory=list)
    systems: list[SystemScore] = field(default_factory=list)

    def write(self) -> None:
        self.record.save()
        update_triples(["da_raw", "da_z", "da_count"], self.da_updates)
        for row in (*self.segment_scores, *self.judgments):
            row["source_id"] = self.record.pk
        insert_rows(ExternalSegmentScore, self.segment_scores)
        insert_rows(ExternalJudgment, self.judgments)
        for s in self.systems:
            s.source = self.record
        SystemScore.objects.bulk_create(self.systems, batch_size=BATCH)
        if not any(self.errors):
            return
        pks = dict(self.record.judgments.values_list("line", "pk"))
        insert_rows(
            ErrorAnnotation,
            [
                {"judgment_id": pks[j["line"]], "category": a.category, "severity": a.severity,
                 "side": a.side, "start": a.start, "end": a.end, "span": a.span,
                 "weight": a.weight}
                for j, annotations in zip(self.judgments, self.errors, strict=True)
                for a in annotations
            ],
        )  # fmt: skip


def _sha256(path: Path) -> str:
    return hashlib.sha256(read_input(path)).hexdigest()


def import_judgments(
    paths: Iterable[Path],
    *,
    testset: str | None = None,
    lp: str | None = None,
    sid_mapping: str = "documents",
    accept_unverified_alignment: bool = False,
    progress: Progress = _no_progress,
) -> ImportReport:
    """Import human-judgment files of any known format (JUDGMENT_FORMATS), recognised by content.

    Segment ids are mapped to lines by the test set's document ids (`sid_mapping="documents"`,
    wojdb.core.formats.segment_ids) or taken as line numbers (`"lines"`); every mapping is checked
    by content and refused when it fails, unless `accept_unverified_alignment` (recorded on the
    import). Without document ids, segment scores and judgments are kept without a link to a
    sentence. `progress(step, done, total)` is told how far each step is.
    """
    if sid_mapping not in SID_MAPPINGS:
        raise InputError("--sid-mapping", f"must be one of {', '.join(SID_MAPPINGS)}")
    report, plans, seen, loaded, chrf = ImportReport(), [], {}, {}, {}
    paths = list(paths)
    files = []
    for n, path in enumerate(paths):
        progress(f"reading {path.name}", n, len(paths))
        files.append((path, *read_judgment_file(path, lp), _sha256(path)))
    total, done = sum(len(records) for _, _, records, _ in files), 0
    for path, file_format, records, digest in files:
        by_lp = defaultdict(list)
        for row in records:
            by_lp[row.source_lang, row.target_lang].append(row)
        if not by_lp:
            raise InputError(path, "holds no judgments" + (f" of {lp}" if lp else ""))
        if len(by_lp) > 1:  # an Appraise export of many pairs: pairs not imported are skipped
            held = {
                pair: rows
                for pair, rows in by_lp.items()
                if Segment.objects.filter(source_lang=pair[0], target_lang=pair[1]).exists()
            }
            if not held:
                raise InputError(
                    path, "no test set holds any of its language pairs ("
                    + ", ".join(f"{s}-{t}" for s, t in sorted(by_lp))
                    + "): import their texts first",
                )  # fmt: skip
            if skipped := sorted(set(by_lp) - set(held)):
                report.notes.append(
                    f"{path.name}: skipped {', '.join(f'{s}-{t}' for s, t in skipped)} "
                    f"({sum(len(by_lp[p]) for p in skipped):,} rows): no test set holds them"
                )
            by_lp = held
        for (src, tgt), rows in sorted(by_lp.items()):
            progress(f"checking {path.name}", done, total)
            done += len(rows)
            ts = testset_for(testset, src, tgt, path)
            key = (digest, ts, src, tgt)
            if key in seen:
                report.notes.append(f"{path.name}: the same content as {seen[key]}, read once")
                continue
            seen[key] = path.name
            if JudgmentImport.objects.filter(
                sha256=digest, testset=ts, source_lang=src, target_lang=tgt
            ).exists():
                report.notes.append(f"{path.name}: {ts} {src}-{tgt} already imported")
                continue
            if (ts, src, tgt) not in loaded:
                loaded[ts, src, tgt] = _Sentences.load(ts, src, tgt)
            plan = {
                APPRAISE: _plan_rater_judgments,
                MQM: _plan_rater_judgments,
                CLUSTERS: _plan_system_results,
            }.get(file_format, _plan_judgments)
            plans.append(
                plan(
                    path, file_format, digest, ts, rows, loaded[ts, src, tgt],
                    sid_mapping, accept_unverified_alignment, report, chrf,
                )
            )  # fmt: skip
    _one_segment_score_file(plans)
    progress("writing", 0, len(plans))
    with transaction.atomic():
        for n, plan in enumerate(plans, start=1):
            plan.write()
            progress("writing", n, len(plans))
            for what, rows in (
                ("triples with DA scores", plan.da_updates),
                ("segment scores", plan.segment_scores),
                ("judgments", plan.judgments),
                ("error annotations", [a for e in plan.errors for a in e]),
                ("system-level scores", plan.systems),
            ):
                if rows:
                    report.created[what] += len(rows)
    return report


def _one_segment_score_file(plans: list[_JudgmentPlan]) -> None:
    """A pair's system scores are means over its segment scores: a second segment-score file of
    the same pair, in this import or an earlier one, is refused."""
    pairs = Counter(
        (p.record.testset, p.record.source_lang, p.record.target_lang)
        for p in plans
        if p.record.file_format == wmt.SEGMENT_SCORES
    )
    for (ts, src, tgt), n in pairs.items():
        if n > 1:
            raise InputError(
                "FILE", f"{n} different segment-score files for {ts} {src}-{tgt}: import one"
            )
        earlier = JudgmentImport.objects.filter(
            file_format=wmt.SEGMENT_SCORES, testset=ts, source_lang=src, target_lang=tgt
        ).first()
        if earlier:
            raise InputError(
                "FILE", f"{ts} {src}-{tgt} already has segment scores, from {earlier.file_name} "
                f"(imported {earlier.imported_at:%Y-%m-%d}): a pair takes one segment-score file",
            )  # fmt: skip


def _match_systems(path, rows, sentences: _Sentences, testset: str, report: ImportReport):
    """Each system name of the rows → its canonical name, and the names matching an imported
    system; refused where two names are one system or none matches."""
    lp = f"{rows[0].source_lang}-{rows[0].target_lang}"
    names: dict[str, str] = {}
    for row in rows:
        if row.system not in names:
            names[row.system] = wmt.imported_system(row.system, sentences.systems)
    by_canonical = defaultdict(set)
    for raw, name in names.items():
        by_canonical[name].add(raw)
        if raw != name:
            report.mapped[raw] = name
    for name, raws in by_canonical.items():
        if len(raws) > 1:
            raise InputError(path, f"{' and '.join(sorted(raws))} are both {name}", field="SYS")
    matched = {raw for raw, name in names.items() if name in sentences.systems}
    if not matched:
        raise InputError(
            path, f"none of its systems ({', '.join(sorted(names))}) is imported for "
            f"{testset} {lp} (imported: {', '.join(sorted(sentences.systems))})",
        )  # fmt: skip
    for row in rows:
        if row.system not in matched:
            report.unmatched[unmatched_label(lp, row.system)] += 1
    return names, matched


def _document_sid_lines(rows, sentences: _Sentences) -> tuple[dict | None, str]:
    """(document, n counted from 0) → line for document-style SIDs, through the stored document
    ids; None, and why, where the test set's documents are not the ones the SIDs name."""
    if not sentences.document_of:
        return None, "has no document ids"
    known = set(sentences.document_of.values())
    if not {r.document for r in rows} & known:
        return None, "has none of the documents its segment ids name"
    ordered = [sentences.document_of.get(n, "") for n in range(1, sentences.count + 1)]
    return {(doc, k - 1): line for (doc, k), line in document_lines(ordered).items()}, ""


def _plan_judgments(
    path,
    file_format,
    digest,
    testset,
    rows,
    sentences: _Sentences,
    sid_mapping,
    accept,
    report,
    chrf,
) -> _JudgmentPlan:
    src, tgt = rows[0].source_lang, rows[0].target_lang
    lp = f"{src}-{tgt}"
    names, matched = _match_systems(path, rows, sentences, testset, report)
    by_document = {bool(r.document) for r in rows}
    if len(by_document) > 1:
        raise InputError(path, "mixes numbered and document-style (DOC_n) segment ids",
                             field="SID")  # fmt: skip
    if by_document == {True}:
        if sid_mapping == "lines":
            raise InputError(
                "--sid-mapping", f"lines cannot apply to {path.name}: its segment ids name "
                "documents (DOC_n)",
            )  # fmt: skip
        sid_mapping = "documents"
        lines, unmapped = _document_sid_lines(rows, sentences)
    elif sid_mapping == "lines":
        lines, unmapped = dict(enumerate(range(1, sentences.count + 1), start=1)), ""
    elif sentences.documents:
        lines, unmapped = dict(enumerate(segment_ids.sid_lines(sentences.documents), start=1)), ""
    else:
        lines, unmapped = None, "has no document ids"
    record = JudgmentImport(
        sha256=digest,
        file_name=path.name,
        file_format=file_format,
        testset=testset,
        source_lang=src,
        target_lang=tgt,
        mapping="none" if lines is None else sid_mapping,
        level=JudgmentImport.SYSTEM if lines is None else JudgmentImport.SEGMENT,
        kind=segment_ids.DIRECT_ASSESSMENT,
    )
    plan = _JudgmentPlan(record)
    if lines is None:
        report.notes.append(
            f"{path.name}: {testset} {lp} {unmapped}, so its segment ids cannot be "
            "mapped to sentences; its rows are kept without a link to a sentence (import the "
            "document ids with import_documents, or use --sid-mapping lines where SID is the "
            "line number)"
        )
    # The triples of each row's output (one per imported reference), where mapped and imported.
    triples: list[list | None] = [None] * len(rows)
    for i, row in enumerate(rows):
        key = (row.document, row.segment_id) if row.document else row.segment_id
        if lines is not None and key not in lines:
            problem = (
                f"document {row.document!r} of {testset} {lp} has no segment {row.segment_id} "
                "(counted from 0)"
                if row.document
                else f"segment id {row.segment_id} is beyond the {len(lines)} sentences of "
                f"{testset} {lp}"
            )
            raise InputError(path, problem, line=row.line, field="SID")
        if lines is not None and row.system in matched:
            triples[i] = sentences.triples.get((names[row.system], lines[key]))
    linked = list(zip(rows, triples, strict=True))
    if file_format == wmt.SEGMENT_SCORES:
        z_by_triple = {t[0]: (r.z, names[r.system]) for r, t in linked if t}
        plan.da_updates = [(r.raw, r.z, r.n, pk) for r, t in linked if t for pk, _, _ in t]
        plan.segment_scores = [
            dict(
                source_lang=src, target_lang=tgt, system=r.system, segment_id=r.segment_id,
                document=r.document, triple_id=t[0][0] if t else None, raw=r.raw, z=r.z,
                judgments=r.n, line=r.line,
            )
            for r, t in linked
        ]  # fmt: skip
    else:
        z_sets = defaultdict(list)
        for r, t in linked:  # WMT's segment z: mean of SYSTEM and REPEAT judgments
            if t and r.item_type in ("SYSTEM", "REPEAT"):
                z_sets[t[0], names[r.system]].append(r.score)
        z_by_triple = {t: (sum(v) / len(v), system) for (t, system), v in z_sets.items()}
        plan.judgments = [
            dict(
                source_lang=src, target_lang=tgt, system=r.system, segment_id=r.segment_id,
                document=r.document, triple_id=t[0][0] if t else None, hit_id=r.hit_id,
                rater=r.rater, item_type=r.item_type, score=r.score, seconds=r.seconds,
                source_file=path.name, line=r.line,
            )
            for r, t in linked
        ]  # fmt: skip
        unlinked = sum(j["triple_id"] is None for j in plan.judgments)
        if lines is not None and unlinked:
            report.notes.append(
                f"{path.name}: {unlinked:,} judgments of systems not imported are kept without "
                "a link to a sentence"
            )
    if lines is None:
        return plan
    scored = [(z, system, hyp, ref) for (_, hyp, ref), (z, system) in z_by_triple.items()]
    _check(path, record, scored, testset, lp, sid_mapping, accept, report, chrf)
    return plan


def _check(path, record, scored, testset, lp, mapping, accept, report, chrf, documents=(0, 0),
           ids="SID"):  # fmt: skip
    """The alignment check of one import (wojdb.core.formats.segment_ids) at the threshold of
    its kind of judgment, its figures printed and stored on the record; refused when it fails
    unless `accept` (then recorded).

    `documents` is (items that name a document, of them naming another than their line's).
    Where items name their document, that is the stronger test: one wrong document fails the
    check, and agreement over at least MIN_SEGMENTS items passes it whatever the chrF figures
    (source-based ESA follows chrF with the reference only loosely: WMT24 en-hi r = 0.12, its
    lines shifted by one 0.05-0.07 with a quarter of the documents wrong)."""
    check = segment_ids.check_alignment(scored, record.kind, cache=chrf)
    record.check_n, record.check_r, record.check_mean_z = check.n, check.r, check.mean_z
    record.check_identical_n, record.check_identical_mean_z = (
        check.identical_n,
        check.identical_mean_z,
    )
    problems = check.problems
    compared, wrong_document = documents
    if wrong_document:
        problems.append(f"{wrong_document:,} of {compared:,} items name another document than "
                        "their line's")  # fmt: skip
    elif compared >= segment_ids.MIN_SEGMENTS:
        report.notes.append(
            f"{path.name}: {testset} {lp}: all {compared:,} items name the document of their line"
        )
        problems = []
    record.check_passed = not problems
    verdict = "passed" if not problems else "FAILED (" + "; ".join(problems) + ")"
    report.notes.append(
        f"{path.name}: {testset} {lp}, {ids} by {mapping}: {check.describe()} — {verdict}"
    )
    if problems:
        if not accept:
            raise InputError(
                path, f"its segment ids do not fit {testset} {lp}'s sentences by {mapping} "
                f"({check.describe()}; {'; '.join(problems)}). If you are sure of the "
                "mapping, re-run with --accept-unverified-alignment (recorded with the import)",
            )  # fmt: skip
        record.accepted_unverified = True
        report.notes.append(f"{path.name}: imported although the check failed, as asked (recorded)")


def _plan_rater_judgments(
    path, file_format, digest, testset, rows, sentences: _Sentences, _sid_mapping, accept,
    report, chrf,
) -> _JudgmentPlan:  # fmt: skip
    """Appraise CSV and MQM: per-rater judgments located by test-set line or by (document,
    n-th segment), the latter through the stored document ids."""
    # pandas and scipy load here, not with the commands that import this module.
    import pandas as pd

    from wojdb.core.stats.system import RATER, RAW, standardise

    src, tgt = rows[0].source_lang, rows[0].target_lang
    lp = f"{src}-{tgt}"
    names, matched = _match_systems(path, rows, sentences, testset, report)
    by_document = any(r.doc_segment is not None for r in rows if r.system in matched)
    doc_lines = document_lines(
        [sentences.document_of.get(n, "") for n in range(1, sentences.count + 1)]
    )
    if by_document and not sentences.document_of:
        raise InputError(
            path, f"its segments are numbered within documents, but {testset} {lp} has no "
            "document ids: import them first (import_documents, or a layout that names "
            "documents)",
        )  # fmt: skip
    field_name = "doc_id" if file_format == MQM else "itemId"
    triples: list[list | None] = [None] * len(rows)  # each row's output, where imported
    compared, wrong_document = 0, 0
    for i, r in enumerate(rows):
        if file_format == APPRAISE and not 0 <= r.score <= 100:
            raise InputError(path, f"{r.score:g} is outside 0-100", line=r.line, field="score")
        if r.seconds is not None and r.seconds < 0:
            raise InputError(path, "ends before it starts", line=r.line, field="timeEnd")
        if r.system not in matched or r.document_score:
            continue
        if r.doc_segment is not None:
            line = doc_lines.get((r.document, r.doc_segment))
            if line is None:
                raise InputError(
                    path, f"{testset} {lp} has no segment {r.doc_segment} in document "
                    f"{r.document!r}", line=r.line, field=field_name,
                )  # fmt: skip
        else:
            line = r.test_set_line
            if not 1 <= line <= sentences.count:
                raise InputError(
                    path, f"item {r.item_id} is beyond the {sentences.count} sentences of "
                    f"{testset} {lp}", line=r.line, field=field_name,
                )  # fmt: skip
            known = sentences.document_of.get(line)
            if r.document and known:
                compared += 1
                wrong_document += known != r.document
        triples[i] = sentences.triples.get((names[r.system], line))
    linked = list(zip(rows, triples, strict=True))
    kinds = {r.kind for r in rows}
    if len(kinds) > 1:
        raise InputError(path, "mixes error annotations (ESA) with direct assessments")
    record = JudgmentImport(
        sha256=digest, file_name=path.name, file_format=file_format, testset=testset,
        source_lang=src, target_lang=tgt, mapping="documents" if by_document else "lines",
        level=JudgmentImport.SEGMENT, kind=kinds.pop(),
    )  # fmt: skip
    plan = _JudgmentPlan(record)
    plan.judgments = [
        dict(
            source_lang=src, target_lang=tgt, system=r.system, segment_id=r.item_id,
            document=r.published_document, document_score=r.document_score,
            triple_id=t[0][0] if t else None, rater=r.rater, item_type=r.item_type,
            score=r.score, seconds=r.seconds, time_end=r.time_end, source_file=path.name,
            line=r.line,
        )
        for r, t in linked
    ]  # fmt: skip
    plan.errors = [r.errors for r in rows]
    if repeated := [r for r in rows if r.repeated_at]:
        named = "; ".join(
            f"line {r.line} kept, repeated at {', '.join(map(str, r.repeated_at))}"
            for r in repeated[:3]
        )
        report.notes.append(
            f"{path.name}: {testset} {lp}: {sum(len(r.repeated_at) for r in repeated):,} rows "
            f"repeat an earlier row exactly (rater, item, score, spans and times) and are read "
            f"once, as WMT's organisers read them ({named}"
            + (f"; {len(repeated) - 3:,} more" if len(repeated) > 3 else "") + ")"
        )  # fmt: skip
    if dropped := sum(a.span_dropped for r in rows for a in r.errors):
        report.notes.append(
            f"{path.name}: {dropped:,} error span(s) dropped, their <v> marks not paired; the "
            "errors and their weights are kept"
        )
    unlinked = sum(j["triple_id"] is None and not j["document_score"] for j in plan.judgments)
    if unlinked:
        report.notes.append(
            f"{path.name}: {testset} {lp}: {unlinked:,} judgments of systems or lines not "
            "imported are kept without a link to a sentence"
        )
    # The check: real judgments (TGT; every MQM segment) standardised per rater, higher = better
    # (MQM's score is minus its error weights, so already so), averaged per output.
    judged = [i for i, r in enumerate(rows) if r.item_type in ("TGT", "MQM")
              and not r.document_score]  # fmt: skip
    z = standardise(pd.DataFrame({RATER: [rows[i].rater for i in judged],
                                  RAW: [rows[i].score for i in judged]}))  # fmt: skip
    z_sets = defaultdict(list)
    for i, zi in zip(judged, z, strict=True):
        if triples[i] and not math.isnan(zi):  # NaN: a rater whose scores do not vary
            z_sets[triples[i][0], names[rows[i].system]].append(zi)
    scored = [(sum(v) / len(v), system, hyp, ref) for ((_, hyp, ref), system), v in z_sets.items()]
    _check(path, record, scored, testset, lp, record.mapping, accept, report, chrf,
           documents=(compared, wrong_document), ids="item ids")  # fmt: skip
    _check_spans(path, linked)
    return plan


def _check_spans(path, linked) -> None:
    """ESA spans lie in the translation rated; a BAD item shows a degraded copy, not stored.
    `linked` pairs each row with its stored outputs (pk, hypothesis, reference), or None."""
    for r, triple in linked:
        if r.item_type == "TGT" and triple:
            length = len(triple[0][1])
            if far := [a for a in r.errors if a.end is not None and a.end > length]:
                raise InputError(
                    path, f"span {far[0].start}-{far[0].end} goes beyond the {length} "
                    "characters of the translation rated", line=r.line, field="spans",
                )  # fmt: skip


def _plan_system_results(
    path, file_format, digest, testset, rows, sentences: _Sentences, _sid_mapping, _accept,
    report, _chrf,
) -> _JudgmentPlan:  # fmt: skip
    """Published system-level results (WMT21's clusters file): every system's scores kept
    under its canonical name; systems not imported are counted as unmatched. There are no
    segments, so no alignment check."""
    src, tgt = rows[0].source_lang, rows[0].target_lang
    names, _ = _match_systems(path, rows, sentences, testset, report)
    plan = _JudgmentPlan(
        JudgmentImport(
            sha256=digest, file_name=path.name, file_format=file_format, testset=testset,
            source_lang=src, target_lang=tgt, mapping="none", level=JudgmentImport.SYSTEM,
        )
    )  # fmt: skip
    plan.systems = [
        SystemScore(
            testset=testset, source_lang=src, target_lang=tgt, system=names[r.system], raw=r.raw,
            z=r.z, n=None, judgments=r.n, cluster=r.cluster,
        )
        for r in rows
    ]  # fmt: skip
    return plan


def unmatched_label(lp: str, system: str) -> str:
    letter = wmt.human_reference(system)
    if letter:
        return f"{lp} {system} (reference {letter}, a human translation judged as a system)"
    return f"{lp} {system} (no such system imported)"
