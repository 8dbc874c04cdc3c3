"""The sentence pool: triples drawn per corpus with a fixed seed."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction

from survey.models import (
    Corpus,
    Questionnaire,
    Triple,
)
from survey.testsets import BATCH
from wojdb.core.io import ImportReport


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
