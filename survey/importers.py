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

from survey import wmt
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


def import_wmt(
    root: Path,
    *,
    year: int | None = None,
    lps: Iterable[str] | None = None,
    ref: str = "A",
    systems: Iterable[str] | None = None,
    progress: Progress = _no_progress,
) -> Report:
    """Import sources, references and hypotheses from the WMT plain-text layout."""
    test_sets = wmt.find_test_sets(root, year=year, lps=lps, ref=ref, systems=systems)
    texts = [(ts, *wmt.read_test_set(ts)) for ts in test_sets]  # validates every file first
    report = Report()
    with transaction.atomic():
        for ts, sources, references, hypotheses in texts:
            segments = _segments(ts, ref, sources, references, report)
            for system, lines in hypotheses.items():
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
                    if seg_pk not in have
                ]
                Triple.objects.bulk_create(new, batch_size=BATCH)
                report.created["triples"] += len(new)
                progress(len(lines))
    return report


def _update_triples(fields: list[str], rows: list[tuple]) -> None:
    """UPDATE triples by primary key; rows are (value per field…, pk).

    One executemany statement: Django's bulk_update builds CASE expressions that grow
    quadratically slow on 100,000 rows.
    """
    columns = ", ".join(f"{Triple._meta.get_field(f).column} = %s" for f in fields)
    with connection.cursor() as cursor:
        cursor.executemany(f"UPDATE {Triple._meta.db_table} SET {columns} WHERE id = %s", rows)


def _segments(ts: wmt.TestSet, ref: str, sources, references, report: Report) -> list[int]:
    """Primary keys of the test set's segments in line order, creating the missing ones."""
    key = dict(
        testset=ts.testset, source_lang=ts.source_lang, target_lang=ts.target_lang, ref_name=ref
    )
    existing = dict(Segment.objects.filter(**key).values_list("number", "pk"))
    new = [
        Segment(
            **key,
            year=ts.year,
            number=n,
            source=src,
            reference=reference,
            source_length=wmt.text_length(src, ts.source_lang),
            reference_length=wmt.text_length(reference, ts.target_lang),
        )
        for n, (src, reference) in enumerate(zip(sources, references, strict=True), start=1)
        if n not in existing
    ]
    Segment.objects.bulk_create(new, batch_size=BATCH)
    report.created["segments"] += len(new)
    if new:
        existing = dict(Segment.objects.filter(**key).values_list("number", "pk"))
    return [existing[n] for n in range(1, len(sources) + 1)]


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
    rows = Triple.objects.filter(corpus__in=corpora).order_by("segment__number")
    for corpus_id, pk in rows.values_list("corpus_id", "pk").iterator(chunk_size=BATCH):
        members[corpus_id].append(pk)
    small = [f"{c} ({len(members[c.pk])})" for c in corpora if len(members[c.pk]) < per_corpus]
    if small:
        raise PoolError(
            f"{len(small)} corpora have fewer than {per_corpus} triples: " + ", ".join(small[:10])
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
