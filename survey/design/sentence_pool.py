"""A study's sentence pool in the database: drawn by the study's rule (wojdb.core.design.pool)
from the imported corpora, replaced whole on a redraw, and redrawn only while no real person has
taken part in the study."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from django.db import transaction
from django.db.models import QuerySet

from survey.design.plan import record_plan
from survey.design.questionnaires import discard_questionnaires
from survey.design.shown import real_participation
from survey.models import Corpus, PoolEntry, Study, Triple
from survey.sources.testsets import BATCH
from wojdb.core.design.pool import (
    Candidate,
    CorpusName,
    PoolRule,
    TooFew,
    draw,
    unmatched_exclusions,
)
from wojdb.core.io import ImportReport
from wojdb.core.study_file import rule_table


class PoolError(ValueError):
    """A pool that cannot be drawn; `key` is the [pool] key of the study file at fault."""

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key


def pool_triples(study: Study) -> QuerySet[Triple]:
    return Triple.objects.filter(pool_entries__study=study)


def sample_pool(
    study: Study,
    rule: PoolRule,
    *,
    within: Iterable[tuple[str, str, str]] | None = None,
) -> ImportReport:
    """Draw the study's pool by `rule`, replacing its earlier pool whole.

    Every part of the rule is checked against the database first (a test set, language pair or
    system no corpus has, an exclusion matching nothing, a corpus with too few triples that
    qualify), each refusal naming its key. `within` — (test set, source, target) of the study's
    sources — is the default selection when the rule names no test set and no language pair.
    Questionnaires built from the earlier pool, and simulated participants' answers to them,
    go with it, which is refused once real people have taken part.
    """
    if reason := real_participation(study):
        raise PoolError(f"study {study.slug!r}: {reason}, so its pool can no longer be redrawn")
    corpora = selected_corpora(rule, within)
    candidates = _candidates(corpora)
    everything = (c for members in candidates.values() for c in members)
    if unmatched := unmatched_exclusions(rule, everything):
        raise PoolError(
            ", ".join(x.describe() for x in unmatched) + " matches no triple of the pool's "
            "corpora; the pool is unchanged",
            key="exclude",
        )
    try:
        drawn = draw(candidates, rule)
    except TooFew as e:
        raise PoolError(f"{e}; the pool is unchanged", key=(e.keys or ["per_corpus"])[0]) from None
    report = ImportReport()
    with transaction.atomic():
        questionnaires, cleared = discard_questionnaires(study)
        earlier = PoolEntry.objects.filter(study=study)
        replaced = earlier.values("triple__corpus").distinct().count(), earlier.count()
        earlier.delete()
        PoolEntry.objects.bulk_create(
            (PoolEntry(study=study, triple_id=pk) for pk in drawn.keys), batch_size=BATCH
        )
        record_plan(study, pool=rule_table(rule))
    report.created["corpora sampled"] = len(drawn.chosen)
    report.created["triples in the pool"] = len(drawn.keys)
    if replaced[1]:
        report.notes.append(
            f"replaced the earlier pool of {replaced[1]:,} triples from {replaced[0]:,} corpora"
        )
    if questionnaires:
        report.notes.append(
            f"removed the {questionnaires} questionnaire(s) built from it"
            + (f" and {cleared.simulated} simulated participant(s)" if cleared.simulated else "")
            + (f" and {cleared.pilot} pilot participant(s)" if cleared.pilot else "")
        )
    left = Counter()
    for reasons in drawn.reasons.values():
        left.update(reasons)
    report.notes += [f"triples left out as {why}: {n:,}" for why, n in sorted(left.items())]
    return report


def selected_corpora(rule: PoolRule, within) -> list[Corpus]:
    """The corpora the rule selects, each of its names checked to exist."""
    corpora = list(Corpus.objects.order_by("testset", "source_lang", "target_lang", "system"))
    if not corpora:
        raise PoolError("no corpora are imported yet (import_wmt); the pool is unchanged")
    if within is not None and not rule.testsets and not rule.language_pairs:
        within = set(within)
        corpora = [c for c in corpora if (c.testset, c.source_lang, c.target_lang) in within]
    for key, names, of in (
        ("testsets", rule.testsets, lambda c: c.testset),
        ("language_pairs", rule.language_pairs, lambda c: c.lp),
        ("systems", rule.systems, lambda c: c.system),
    ):
        if not names:
            continue
        have = {of(c) for c in corpora}
        if unknown := sorted(set(names) - have):
            what = {"testsets": "test set", "language_pairs": "language pair"}.get(key, "system")
            raise PoolError(
                f"no imported corpus has the {what}(s) {', '.join(unknown)} (there are "
                f"{', '.join(sorted(have)) or 'none'}); the pool is unchanged",
                key=key,
            )
        corpora = [c for c in corpora if of(c) in names]
    return corpora


def _candidates(corpora: list[Corpus]) -> dict[CorpusName, list[Candidate]]:
    names = {c.pk: CorpusName(c.testset, c.lp, c.system) for c in corpora}
    out: dict[CorpusName, list[Candidate]] = {name: [] for name in names.values()}
    rows = Triple.objects.filter(corpus__in=corpora).values_list(
        "pk", "corpus_id", "segment__number", "segment__document", "segment__target_lang",
        "segment__reference", "hypothesis", "segment__source_length",
        "segment__reference_length", "hypothesis_length",
    )  # fmt: skip
    for pk, corpus, *rest in rows.iterator(chunk_size=BATCH):
        out[names[corpus]].append(Candidate(pk, names[corpus], *rest))
    return out
