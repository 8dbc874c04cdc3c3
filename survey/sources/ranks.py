"""WMT relative rankings of stored test sets (WMT's 5-way CSV and WMT15-16's pairwise export)
as eq. 6.1 scores of their triples."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from django.db import transaction

from survey.models import Triple
from survey.sources.human_judgments import unmatched_label
from survey.sources.testsets import BATCH, testset_for, update_triples
from wojdb.core.formats import pairwise, wmt
from wojdb.core.io import ImportReport, InputError


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
    index, texts, imported = {}, {}, defaultdict(set)
    for src, tgt in sorted({(r.source_lang, r.target_lang) for r in rankings}):
        ts = testset_for(testset, src, tgt, path)
        rows = Triple.objects.filter(
            corpus__testset=ts, corpus__source_lang=src, corpus__target_lang=tgt
        ).values_list("corpus__system", "segment__number", "pk", "hypothesis")
        for system, number, pk, hypothesis in rows.iterator(chunk_size=BATCH):
            index[src, tgt, system, number] = pk
            texts[pk] = hypothesis.strip()
            imported[src, tgt].add(system)
    report, totals = ImportReport(), defaultdict(list)
    for r in rankings:
        lp = f"{r.source_lang}-{r.target_lang}"
        outputs: dict[object, tuple[set[int], list[float]]] = {}
        for slot, (systems, rank) in enumerate(r.ranks):
            pks = []
            for system in systems:
                name = wmt.imported_system(system, imported[r.source_lang, r.target_lang])
                if name != system:
                    report.mapped[system] = name
                pk = index.get((r.source_lang, r.target_lang, name, r.segment_id))
                if pk is None:
                    report.unmatched[unmatched_label(lp, system)] += 1
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
        update_triples(["rank_score", "rank_count"], updates)
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
