"""Loading WMT files into the sentence pool.

Every importer reads and validates all its input first (survey.wmt raises `InputError` naming
file, line and field), then writes in one transaction; re-importing the same files adds nothing.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.db import connection, transaction

from survey import formats, wmt
from survey.models import Corpus, ExternalJudgment, Questionnaire, Segment, Triple

BATCH = 5000
Progress = Callable[[int], None]


def _no_progress(_: int) -> None:
    pass


@dataclass
class Report:
    """What an import did, in lines a researcher can read."""

    created: Counter = field(default_factory=Counter)
    unmatched: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{what}: {n:,}" for what, n in self.created.items()]
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
    report: Report = field(default_factory=Report)


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
            raise wmt.InputError(
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


def _check_texts(ts: formats.TestSetText, report: Report) -> None:
    """Refuse unusable text; count blank lines (stored, but `sample_pool` never draws them) and
    over-long ones (kept out); refuse text that differs from what is stored for the same
    segment or triple (a changed file is never silently ignored)."""
    if not ts.sources:
        raise wmt.InputError(ts.files["source"], "is empty")
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
            raise wmt.InputError(
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
                raise wmt.InputError(
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
            raise wmt.InputError(
                ts.files[system],
                f"differs from the stored hypothesis ({hypothesis[:60]!r}); "
                "a changed system output needs a new system name",
                line=number,
                field=f"hypothesis of {system}",
            )


def write_wmt(plan: WmtPlan, progress: Progress = _no_progress) -> Report:
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
                    Triple(
                        corpus=corpus,
                        segment_id=seg_pk,
                        hypothesis=text,
                        hypothesis_length=wmt.text_length(text, ts.target_lang),
                    )
                    for seg_pk, text in zip(segments, lines, strict=True)
                    if seg_pk is not None
                    and seg_pk not in have
                    and len(text) <= formats.common.MAX_TEXT_CHARS
                ]
                Triple.objects.bulk_create(new, batch_size=BATCH)
                report.created["triples"] += len(new)
                progress(len(lines))
    return report


def import_wmt(root: Path, *, progress: Progress = _no_progress, **selection) -> Report:
    """Import sources, references and hypotheses from any test-set layout under `root`
    (`survey.formats`): validate everything first, then write in one transaction."""
    return write_wmt(prepare_wmt(root, **selection), progress)


def _update_triples(fields: list[str], rows: list[tuple]) -> None:
    """UPDATE triples by primary key; rows are (value per field…, pk).

    One executemany statement: Django's bulk_update builds CASE expressions that grow
    quadratically slow on 100,000 rows.
    """
    columns = ", ".join(f"{Triple._meta.get_field(f).column} = %s" for f in fields)
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {Triple._meta.db_table} SET {columns} WHERE id = %s", rows)


def _segments(ts: formats.TestSetText, report: Report) -> list[int | None]:
    """Primary keys of the test set's segments in line order (None for a line kept out),
    creating the missing ones and filling in document ids where the stored ones are empty."""
    key = _segment_key(ts)
    existing = dict(Segment.objects.filter(**key).values_list("number", "pk"))
    new = [
        Segment(
            **key,
            year=ts.year,
            number=n,
            source=src,
            reference=reference,
            document=ts.documents[n - 1],
            domain=ts.domains[n - 1],
            source_length=wmt.text_length(src, ts.source_lang),
            reference_length=wmt.text_length(reference, ts.target_lang),
        )
        for n, (src, reference) in enumerate(zip(ts.sources, ts.references, strict=True), start=1)
        if n not in existing and n not in ts.skipped_lines
    ]
    Segment.objects.bulk_create(new, batch_size=BATCH)
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


def _triple_index(testset: str | None, lps: set[tuple[str, str]]) -> dict[tuple, int]:
    """(source, target, system, segment id) → triple pk, for the test set of each pair."""
    rows = Triple.objects.filter(
        corpus__source_lang__in={s for s, _ in lps}, corpus__target_lang__in={t for _, t in lps}
    )
    if testset:
        if not Corpus.objects.filter(testset=testset).exists():
            known = sorted(set(Corpus.objects.values_list("testset", flat=True)))
            raise wmt.InputError(
                "--testset", f"no imported test set {testset!r} (there are {', '.join(known)})"
            )
        rows = rows.filter(corpus__testset=testset)
    found = rows.values_list(
        "corpus__testset",
        "corpus__source_lang",
        "corpus__target_lang",
        "corpus__system",
        "segment__number",
        "pk",
    )
    index, testsets = {}, defaultdict(set)
    for ts, src, tgt, system, sid, pk in found.iterator(chunk_size=BATCH):
        testsets[(src, tgt)].add(ts)
        index[(src, tgt, system, sid)] = pk
    ambiguous = {f"{s}-{t}": sorted(v) for (s, t), v in testsets.items() if len(v) > 1}
    if ambiguous:
        raise wmt.InputError(
            "--testset", f"several test sets hold these pairs, name one: {ambiguous}"
        )
    return index


def _unmatched_label(lp: str, system: str) -> str:
    name = wmt.canonical_system(system)
    if name in wmt.HUMAN_SYSTEMS:
        return f"{lp} {system} (the second human reference, not a system in the pool)"
    return f"{lp} {system} (no such system imported)"


def import_da(paths: Iterable[Path], *, testset: str | None = None) -> Report:
    """Import DA segment scores (ad-seg-scores-LP.csv) and judgments (ad-XXen-good-stnd.csv)."""
    scores, judgments = [], []
    for path in paths:
        if wmt.SEG_SCORES_FILE.match(path.name):
            scores += wmt.read_segment_scores(path)
        elif path.name.endswith("-good-stnd.csv"):
            judgments += [(path, j) for j in wmt.read_judgments(path)]
        else:
            raise wmt.InputError(
                path, "not a DA file (ad-seg-scores-LP.csv or ad-XXen-good-stnd.csv)", field="name"
            )
    lps = {(s.source_lang, s.target_lang) for s in scores}
    lps |= {(j.source_lang, j.target_lang) for _, j in judgments}
    index = _triple_index(testset, lps)
    report = Report()
    with transaction.atomic():
        updates = []
        for s in scores:
            key = (s.source_lang, s.target_lang, wmt.canonical_system(s.system), s.segment_id)
            pk = index.get(key)
            if pk is None:
                report.unmatched[
                    _unmatched_label(f"{s.source_lang}-{s.target_lang}", s.system)
                ] += 1
                continue
            updates.append((s.raw, s.z, s.n, pk))
        _update_triples(["da_raw", "da_z", "da_count"], updates)
        report.created["triples with DA scores"] += len(updates)
        report.created["judgments"] += _store_judgments(judgments, index, report)
    return report


def _store_judgments(judgments, index, report: Report) -> int:
    by_file = defaultdict(list)
    for path, j in judgments:
        by_file[path.name].append(j)
    stored = 0
    for name, rows in by_file.items():
        have = set(ExternalJudgment.objects.filter(source_file=name).values_list("line", flat=True))
        new = []
        for j in rows:
            if j.line in have:
                continue
            key = (j.source_lang, j.target_lang, wmt.canonical_system(j.system), j.segment_id)
            pk = index.get(key)
            if pk is None:
                report.unmatched[
                    _unmatched_label(f"{j.source_lang}-{j.target_lang}", j.system)
                ] += 1
            new.append(
                ExternalJudgment(
                    source_lang=j.source_lang,
                    target_lang=j.target_lang,
                    system=j.system,
                    segment_id=j.segment_id,
                    triple_id=pk,
                    hit_id=j.hit_id,
                    rater=j.rater,
                    item_type=j.item_type,
                    score=j.score,
                    seconds=j.seconds,
                    source_file=name,
                    line=j.line,
                )
            )
        ExternalJudgment.objects.bulk_create(new, batch_size=BATCH)
        stored += len(new)
    if report.unmatched:
        report.notes.append("unmatched judgments are stored with no link to a triple")
    return stored


def import_ranks(path: Path, *, testset: str | None = None) -> Report:
    """WMT relative rankings → eq. 6.1 scores, averaged per triple over its rankings."""
    rankings = wmt.read_rankings(path)
    index = _triple_index(testset, {(r.source_lang, r.target_lang) for r in rankings})
    texts = dict(Triple.objects.filter(pk__in=set(index.values())).values_list("pk", "hypothesis"))
    report, totals = Report(), defaultdict(list)
    for r in rankings:
        lp = f"{r.source_lang}-{r.target_lang}"
        # Identical outputs are one s ∈ S (thesis §6.1.1): group slots by hypothesis text.
        groups: dict[str, tuple[set[int], list[int]]] = {}
        for systems, rank in r.ranks:
            for system in systems:
                pk = index.get((r.source_lang, r.target_lang, _ranked_system(system), r.segment_id))
                if pk is None:
                    report.unmatched[f"{lp} {system}"] += 1
                    continue
                members, ranks = groups.setdefault(texts[pk].strip(), (set(), []))
                members.add(pk)
                ranks.append(rank)
        if not groups:
            continue
        group_ranks = [sum(ranks) / len(ranks) for _, ranks in groups.values()]
        for (members, _), score in zip(groups.values(), wmt.rank_scores(group_ranks), strict=True):
            for pk in members:
                totals[pk].append(score)
    with transaction.atomic():
        updates = [(sum(s) / len(s), len(s), pk) for pk, s in totals.items()]
        _update_triples(["rank_score", "rank_count"], updates)
    report.created["rankings"] = len(rankings)
    report.created["triples with rank scores"] = len(updates)
    return report


def _ranked_system(name: str) -> str:
    """Ranking files may name systems `newstest2016.uedin-nmt.4361.cs-en`: keep the system."""
    parts = name.split(".")
    if parts[0].startswith("newstest"):
        parts = parts[1:]
    if parts and len(parts[-1]) == 5 and parts[-1][2] == "-":
        parts = parts[:-1]
    return wmt.canonical_system(".".join(parts))


class PoolError(ValueError):
    pass


def sample_pool(per_corpus: int, seed: int, *, lps: Iterable[str] | None = None) -> Report:
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
    report = Report()
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
