"""Loading WMT files into the sentence pool.

Every importer reads and validates all its input first (wojdb.core.formats.wmt raises `InputError`
naming
file, line and field), then writes in one transaction; re-importing the same files adds nothing.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction

from survey.models import (
    Corpus,
    ErrorAnnotation,
    ExternalJudgment,
    JudgmentImport,
    Questionnaire,
    Segment,
    SystemScore,
    Triple,
)
from wojdb.core import formats
from wojdb.core.formats import pairwise, wmt
from wojdb.core.formats import segment_ids as alignment
from wojdb.core.formats.common import document_lines
from wojdb.core.formats.judgments import APPRAISE, CLUSTERS, MQM, read_judgment_file
from wojdb.core.io import InputError, read_input, text_length

BATCH = 5000
Progress = Callable[[int], None]


def _no_progress(_: int) -> None:
    pass


@dataclass
class ImportReport:
    """What an import did, in lines a researcher can read."""

    created: Counter = field(default_factory=Counter)
    unmatched: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    mapped: dict[str, str] = field(default_factory=dict)  # system name as given → canonical

    def lines(self) -> list[str]:
        out = [f"{what}: {n:,}" for what, n in self.created.items()]
        if self.mapped:
            out.append(
                "system names mapped: "
                + ", ".join(f"{a} → {b}" for a, b in sorted(self.mapped.items()))
            )
        if self.unmatched:
            total = sum(self.unmatched.values())
            out.append(f"unmatched rows: {total:,} (kept out of the pool's scores)")
            out += [f"  {what}: {n:,}" for what, n in sorted(self.unmatched.items())]
        return out + self.notes


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


def write_wmt(plan: WmtPlan, progress: Progress = _no_progress) -> ImportReport:
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
                _insert(Triple, new)
                report.created["triples"] += len(new)
                progress(len(lines))
    return report


def import_wmt(root: Path, *, progress: Progress = _no_progress, **selection) -> ImportReport:
    """Import sources, references and hypotheses from any test-set layout under `root`
    (`wojdb.core.formats`): validate everything first, then write in one transaction."""
    return write_wmt(prepare_wmt(root, **selection), progress)


def _update_triples(fields: list[str], rows: list[tuple]) -> None:
    """UPDATE triples by primary key; rows are (value per field…, pk).

    One executemany statement: Django's bulk_update builds CASE expressions that grow
    quadratically slow on 100,000 rows.
    """
    columns = ", ".join(f"{Triple._meta.get_field(f).column} = %s" for f in fields)
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {Triple._meta.db_table} SET {columns} WHERE id = %s", rows)


def _insert(model, rows: list[dict]) -> None:
    """INSERT rows (attribute name → value; the fields not given take their defaults) with one
    executemany per batch. Django's bulk_create spends most of an import building model
    instances and SQL for hundreds of thousands of rows."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} "
        f"({', '.join(quote(f.column) for f in fields)}) VALUES ({', '.join(['%s'] * len(fields))})"
    )
    defaults = [(f.attname, f.get_default()) for f in fields]
    with connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH):
            cursor.executemany(
                sql,
                [tuple(row.get(a, d) for a, d in defaults) for row in rows[start : start + BATCH]],
            )


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
    _insert(Segment, new)
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


def _testset_for(testset: str | None, src: str, tgt: str, where) -> str:
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


@dataclass
class _JudgmentPlan:
    """One file's rows of one pair, validated and mapped, ready to be written."""

    record: JudgmentImport
    da_updates: list[tuple] = field(default_factory=list)
    judgments: list[dict] = field(default_factory=list)  # ExternalJudgment fields
    # the errors of each judgment (same order as `judgments`), for MQM and ESA
    errors: list[tuple] = field(default_factory=list)
    systems: list[SystemScore] = field(default_factory=list)

    def write(self) -> None:
        self.record.save()
        _update_triples(["da_raw", "da_z", "da_count"], self.da_updates)
        for j in self.judgments:
            j["source_id"] = self.record.pk
        _insert(ExternalJudgment, self.judgments)
        for s in self.systems:
            s.source = self.record
        SystemScore.objects.bulk_create(self.systems, batch_size=BATCH)
        if not any(self.errors):
            return
        pks = dict(self.record.judgments.values_list("line", "pk"))
        _insert(
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
) -> ImportReport:
    """Import human-judgment files of any known format (JUDGMENT_FORMATS), recognised by content.

    Segment ids are mapped to lines by the test set's document ids (`sid_mapping="documents"`,
    wojdb.core.formats.segment_ids) or taken as line numbers (`"lines"`); every mapping is checked
    by content
    and refused when it fails, unless `accept_unverified_alignment` (recorded on the import).
    Without document ids, segment scores are kept as system-level scores only.
    """
    if sid_mapping not in SID_MAPPINGS:
        raise InputError("--sid-mapping", f"must be one of {', '.join(SID_MAPPINGS)}")
    report, plans, seen, loaded, chrf = ImportReport(), [], {}, {}, {}
    files = [(path, *read_judgment_file(path, lp), _sha256(path)) for path in paths]
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
            ts = _testset_for(testset, src, tgt, path)
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
    scored = Counter(
        (p.record.testset, p.record.source_lang, p.record.target_lang)
        for p in plans
        if p.record.file_format == wmt.SEGMENT_SCORES
    )
    for (ts, src, tgt), n in scored.items():
        if n > 1:
            raise InputError(
                "FILE", f"{n} different segment-score files for {ts} {src}-{tgt}: import one"
            )
    with transaction.atomic():
        for plan in plans:
            plan.write()
            for what, rows in (
                ("triples with DA scores", plan.da_updates),
                ("judgments", plan.judgments),
                ("error annotations", [a for e in plan.errors for a in e]),
                ("system-level scores", plan.systems),
            ):
                if rows:
                    report.created[what] += len(rows)
    return report


def _match_systems(path, rows, sentences: _Sentences, testset: str, report: ImportReport):
    """Each system name of the rows → its canonical name, and the names matching an imported
    system; refused where two names are one system or none matches."""
    lp = f"{rows[0].source_lang}-{rows[0].target_lang}"
    names: dict[str, str] = {}
    for row in rows:
        if row.system not in names:  # a name imported as it is stays (WMT24's Claude-3.5)
            names[row.system] = (
                row.system if row.system in sentences.systems else wmt.canonical_system(row.system)
            )
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
            report.unmatched[_unmatched_label(lp, row.system)] += 1
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
        lines, unmapped = dict(enumerate(alignment.sid_lines(sentences.documents), start=1)), ""
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
    )
    plan = _JudgmentPlan(record)
    if lines is None:
        kept = (
            "only system-level scores are kept"
            if file_format == wmt.SEGMENT_SCORES
            else "the judgments are kept without a link to a sentence"
        )
        report.notes.append(
            f"{path.name}: {testset} {lp} {unmapped}, so its segment ids cannot be "
            f"mapped to sentences; {kept} (import the document ids with import_documents, or "
            "use --sid-mapping lines where SID is the line number)"
        )
    triple_of = {}
    for row in rows:
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
            triple_of[row] = sentences.triples.get((names[row.system], lines[key]))
    if file_format == wmt.SEGMENT_SCORES:
        z_by_triple = {triple_of[r][0]: r.z for r in rows if triple_of.get(r)}
        plan.da_updates = [
            (r.raw, r.z, r.n, pk) for r in rows if triple_of.get(r) for pk, _, _ in triple_of[r]
        ]
        if lines is None:
            plan.systems = _system_scores(testset, src, tgt, rows, names)
    else:
        z_sets = defaultdict(list)
        for r in rows:  # the segment z of WMT: mean of a system's SYSTEM and REPEAT judgments
            if triple_of.get(r) and r.item_type in ("SYSTEM", "REPEAT"):
                z_sets[triple_of[r][0]].append(r.score)
        z_by_triple = {t: sum(v) / len(v) for t, v in z_sets.items()}
        plan.judgments = [
            dict(
                source_lang=src, target_lang=tgt, system=r.system, segment_id=r.segment_id,
                triple_id=triple_of[r][0][0] if triple_of.get(r) else None, hit_id=r.hit_id,
                rater=r.rater, item_type=r.item_type, score=r.score, seconds=r.seconds,
                source_file=path.name, line=r.line,
            )
            for r in rows
        ]  # fmt: skip
        unlinked = sum(j["triple_id"] is None for j in plan.judgments)
        if lines is not None and unlinked:
            report.notes.append(
                f"{path.name}: {unlinked:,} judgments of systems not imported are kept without "
                "a link to a sentence"
            )
    if lines is None:
        return plan
    scored = [(z, hyp, ref) for (_, hyp, ref), z in z_by_triple.items()]
    _check(path, record, scored, testset, lp, sid_mapping, accept, report, chrf)
    return plan


def _check(path, record, scored, testset, lp, mapping, accept, report, chrf, documents=(0, 0),
           ids="SID"):  # fmt: skip
    """The alignment check of one import (wojdb.core.formats.segment_ids), its figures printed and
    stored on
    the record; refused when it fails unless `accept` (then recorded).

    `documents` is (items that name a document, of them naming another than their line's).
    Where items name their document, that is the stronger test: one wrong document fails the
    check, and agreement over at least MIN_SEGMENTS items passes it whatever the chrF figures
    (source-based ESA follows chrF with the reference only loosely: WMT24 en-hi r = 0.12, its
    lines shifted by one 0.05-0.07 with a quarter of the documents wrong)."""
    check = alignment.check_alignment(scored, cache=chrf)
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
    elif compared >= alignment.MIN_SEGMENTS:
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


def _rater_z(rows, scores: dict) -> dict:
    """Each row's score standardised within its rater (WMT's z), for the alignment check."""
    by_rater = defaultdict(list)
    for r in rows:
        by_rater[r.rater].append(scores[r])
    stats = {}
    for rater, values in by_rater.items():
        mean = sum(values) / len(values)
        sd = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
        stats[rater] = (mean, sd)
    return {r: (scores[r] - stats[r.rater][0]) / stats[r.rater][1] if stats[r.rater][1] else 0.0
            for r in rows}  # fmt: skip


def _plan_rater_judgments(
    path, file_format, digest, testset, rows, sentences: _Sentences, _sid_mapping, accept,
    report, chrf,
) -> _JudgmentPlan:  # fmt: skip
    """Appraise CSV and MQM: per-rater judgments located by test-set line or by (document,
    n-th segment), the latter through the stored document ids."""
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
    line_of, compared, wrong_document = {}, 0, 0
    for r in rows:
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
        line_of[r] = line
    triple_of = {r: sentences.triples.get((names[r.system], n)) for r, n in line_of.items()}
    record = JudgmentImport(
        sha256=digest, file_name=path.name, file_format=file_format, testset=testset,
        source_lang=src, target_lang=tgt, mapping="documents" if by_document else "lines",
        level=JudgmentImport.SEGMENT,
    )  # fmt: skip
    plan = _JudgmentPlan(record)
    plan.judgments = [
        dict(
            source_lang=src, target_lang=tgt, system=r.system, segment_id=r.item_id,
            document=r.published_document, document_score=r.document_score,
            triple_id=triple_of[r][0][0] if triple_of.get(r) else None, rater=r.rater,
            item_type=r.item_type, score=r.score, seconds=r.seconds, source_file=path.name,
            line=r.line,
        )
        for r in rows
    ]  # fmt: skip
    plan.errors = [r.errors for r in rows]
    unlinked = sum(j["triple_id"] is None and not j["document_score"] for j in plan.judgments)
    if unlinked:
        report.notes.append(
            f"{path.name}: {testset} {lp}: {unlinked:,} judgments of systems or lines not "
            "imported are kept without a link to a sentence"
        )
    # The check: real judgments (TGT; every MQM segment) standardised per rater, higher = better
    # (MQM's score is minus its error weights, so already so), averaged per output.
    judged = [r for r in rows if r.item_type in ("TGT", "MQM") and not r.document_score]
    z = _rater_z(judged, {r: r.score for r in judged})
    z_sets = defaultdict(list)
    for r in judged:
        if triple_of.get(r):
            z_sets[triple_of[r][0]].append(z[r])
    scored = [(sum(v) / len(v), hyp, ref) for (_, hyp, ref), v in z_sets.items()]
    _check(path, record, scored, testset, lp, record.mapping, accept, report, chrf,
           documents=(compared, wrong_document), ids="item ids")  # fmt: skip
    return plan


def _plan_system_results(
    path, file_format, digest, testset, rows, sentences: _Sentences, _sid_mapping, _accept,
    report, _chrf,
) -> _JudgmentPlan:  # fmt: skip
    """Published system-level results (WMT21's clusters file): every system's scores kept, as
    the DA system-level path keeps them, under its canonical name; systems not imported are
    counted as unmatched. There are no segments, so no alignment check."""
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


def _system_scores(testset, src, tgt, rows, names) -> list[SystemScore]:
    """WMT's system score: the mean over the system's segments of their mean scores."""
    per_system = defaultdict(list)
    for r in rows:
        per_system[names[r.system]].append(r)
    return [
        SystemScore(
            testset=testset, source_lang=src, target_lang=tgt, system=system,
            raw=sum(r.raw for r in scores) / len(scores),
            z=sum(r.z for r in scores) / len(scores),
            n=len(scores), judgments=sum(r.n for r in scores),
        )
        for system, scores in sorted(per_system.items())
    ]  # fmt: skip


def _unmatched_label(lp: str, system: str) -> str:
    letter = wmt.human_reference(system)
    if letter:
        return f"{lp} {system} (reference {letter}, a human translation judged as a system)"
    return f"{lp} {system} (no such system imported)"


def import_documents(paths: Iterable[Path], *, testset: str | None = None) -> ImportReport:
    """Document ids of each line (`TESTSET.LP.docids`) into the test set's segments."""
    files = [(path, wmt.read_documents(path, testset)) for path in paths]
    report, updates = ImportReport(), []
    for path, docs in files:
        ts = _testset_for(docs.testset, docs.source_lang, docs.target_lang, path)
        segments = list(
            Segment.objects.filter(
                testset=ts, source_lang=docs.source_lang, target_lang=docs.target_lang
            ).values_list("pk", "number", "document")
        )
        count = max(number for _, number, _ in segments)
        if count != len(docs.ids):
            raise InputError(
                path, f"has {len(docs.ids)} lines but {ts} {docs.source_lang}-{docs.target_lang} "
                f"has {count} sentences",
            )  # fmt: skip
        for pk, number, document in segments:
            new = docs.ids[number - 1]
            if document and document != new:
                raise InputError(
                    path, f"gives {new!r}, but the sentence already belongs to {document!r}",
                    line=number,
                )  # fmt: skip
            if not document:
                updates.append((new, pk))
    with transaction.atomic(), connection.cursor() as cursor:
        column = Segment._meta.get_field("document").column
        cursor.executemany(
            f"UPDATE {Segment._meta.db_table} SET {column} = %s WHERE id = %s", updates
        )
    report.created["segments given a document id"] = len(updates)
    return report


def import_ranks(path: Path, *, testset: str | None = None) -> ImportReport:
    """WMT relative rankings → eq. 6.1 scores, averaged per triple over its rankings.

    S is the set of distinct outputs a judge ranked: each slot is one output (systems joined by
    '+' share it), and outputs whose stored hypotheses are identical are one (thesis §6.1.1),
    given the mean of their ranks. Unmatched systems stay in S (they were ranked) but get no
    score; wmt.rank_scores renumbers the ranks over S. The file is recognised by content: WMT's
    5-way ranking CSV, or WMT15-16's pairwise export (wojdb.core.formats.pairwise), whose rows are
    grouped back into rankings.
    """
    pairwise_file = pairwise.sniff(path)
    rankings = pairwise.read(path) if pairwise_file else wmt.read_rankings(path)
    if not rankings:
        raise InputError(path, "holds no rankings")
    index, texts = {}, {}
    for src, tgt in sorted({(r.source_lang, r.target_lang) for r in rankings}):
        ts = _testset_for(testset, src, tgt, path)
        rows = Triple.objects.filter(
            corpus__testset=ts, corpus__source_lang=src, corpus__target_lang=tgt
        ).values_list("corpus__system", "segment__number", "pk", "hypothesis")
        for system, number, pk, hypothesis in rows.iterator(chunk_size=BATCH):
            index[src, tgt, system, number] = pk
            texts[pk] = hypothesis.strip()
    report, totals = ImportReport(), defaultdict(list)
    for r in rankings:
        lp = f"{r.source_lang}-{r.target_lang}"
        outputs: dict[object, tuple[set[int], list[float]]] = {}
        for slot, (systems, rank) in enumerate(r.ranks):
            pks = []
            for system in systems:
                name = wmt.canonical_system(system)
                if name != system:
                    report.mapped[system] = name
                pk = index.get((r.source_lang, r.target_lang, name, r.segment_id))
                if pk is None:
                    report.unmatched[_unmatched_label(lp, system)] += 1
                else:
                    pks.append(pk)
            members, ranks = outputs.setdefault(texts[pks[0]] if pks else slot, (set(), []))
            members.update(pks)
            ranks.append(rank)
        mean_ranks = [sum(ranks) / len(ranks) for _, ranks in outputs.values()]
        for (members, _), score in zip(outputs.values(), wmt.rank_scores(mean_ranks), strict=True):
            for pk in members:
                totals[pk].append(score)
    if not totals:
        raise InputError(path, "none of the ranked systems is imported for its test set")
    with transaction.atomic():
        updates = [(sum(s) / len(s), len(s), pk) for pk, s in totals.items()]
        _update_triples(["rank_score", "rank_count"], updates)
    report.notes.append(
        f"{path.name}: "
        + (
            "pairwise rankings (WMT15-16), grouped by rankingID"
            if pairwise_file
            else "5-way rankings"
        )
    )
    report.created["rankings"] = len(rankings)
    report.created["triples with rank scores"] = len(updates)
    return report


class PoolError(ValueError):
    pass


def sample_pool(per_corpus: int, seed: int, *, lps: Iterable[str] | None = None) -> ImportReport:
    """Draw the study's pool: the same number of triples at random from every corpus (§6.2.3).

    The new pool replaces the whole earlier one, so every argument is checked against the
    database first: a language pair no corpus has is refused, and the report says what was
    replaced.
    """
    if Questionnaire.objects.exists():
        raise PoolError("questionnaires already use the pool; it cannot be redrawn")
    corpora = list(Corpus.objects.order_by("testset", "source_lang", "target_lang", "system"))
    if not corpora:
        raise PoolError("no corpora are imported yet (import_wmt); the pool is unchanged")
    if lps:
        wanted, have = set(lps), {c.lp for c in corpora}
        if unknown := sorted(wanted - have):
            raise PoolError(
                f"no imported corpus has the language pair(s) {', '.join(unknown)} (there are "
                f"{', '.join(sorted(have))}); the pool is unchanged"
            )
        corpora = [c for c in corpora if c.lp in wanted]
    members = defaultdict(list)
    # Blank hypotheses, sources or references (length 0) are stored but never drawn.
    rows = Triple.objects.filter(
        corpus__in=corpora,
        hypothesis_length__gt=0,
        segment__source_length__gt=0,
        segment__reference_length__gt=0,
    ).order_by("segment__number")
    for corpus_id, pk in rows.values_list("corpus_id", "pk").iterator(chunk_size=BATCH):
        members[corpus_id].append(pk)
    small = [f"{c} ({len(members[c.pk])})" for c in corpora if len(members[c.pk]) < per_corpus]
    if small:
        raise PoolError(
            f"{len(small)} corpora have fewer than {per_corpus} non-blank triples: "
            + ", ".join(small[:10])
        )
    chosen = []
    for c in corpora:
        # Seeded per corpus by name, so adding a corpus does not change the others' samples.
        rng = random.Random(f"{seed}:{c.testset}:{c.lp}:{c.system}")
        chosen += rng.sample(members[c.pk], per_corpus)
    report = ImportReport()
    with transaction.atomic():
        earlier = Triple.objects.filter(in_pool=True)
        replaced = earlier.values("corpus").distinct().count(), earlier.count()
        earlier.update(in_pool=False)
        for i in range(0, len(chosen), BATCH):
            Triple.objects.filter(pk__in=chosen[i : i + BATCH]).update(in_pool=True)
    report.created["corpora sampled"] = len(corpora)
    report.created["triples in the pool"] = len(chosen)
    if replaced[1]:
        report.notes.append(
            f"replaced the earlier pool of {replaced[1]:,} triples from {replaced[0]:,} corpora"
        )
    return report
