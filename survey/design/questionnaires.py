"""Questionnaires in the database: build, extend, revise.

Loads the sentence pool as plain data, lets `wojdb.core.design.composition` compose by Table 6.3,
and saves questionnaires with their seed and the composition's version in one transaction. A
questionnaire
a real participant has started (or the study's launch) freezes: an edit then makes a new version
for new participants, and the answered version never changes. Pilot and simulated participants
freeze nothing (survey/design/lifecycle.py).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import transaction
from django.db.models import Max

from survey import record
from survey.design.lifecycle import Cleared, clear_pilot
from survey.models import Item, Permutation, Questionnaire, QuestionnaireEntry, Study, Triple
from wojdb.core import scales
from wojdb.core.design import composition
from wojdb.core.vocabulary import ASSIGNED

Progress = Callable[[int], None]

if TYPE_CHECKING:
    import pandas as pd


class QuestionnaireError(Exception):
    """A request the study's questionnaires cannot take (e.g. building twice)."""


def _no_progress(_: int) -> None:
    pass


# Pool keys name items by content — ("h", test set, language pair, reference, line, system) for a
# hypothesis, and its permutation's type and degree after it for a permutation — so the same
# pool composes the same questionnaires in any database, whatever ids its rows got.

HYPOTHESIS_FIELDS = (
    "segment__testset", "segment__source_lang", "segment__target_lang", "segment__ref_name",
    "segment__number", "corpus__system",
)  # fmt: skip


def _key(testset, source_lang, target_lang, ref_name, number, system, *permutation) -> tuple:
    kind = "p" if permutation else "h"
    return (kind, testset, f"{source_lang}-{target_lang}", ref_name, number, system, *permutation)


def item_key(item: Item) -> tuple:
    """The pool key of a stored item."""
    t, segment = item.triple, item.triple.segment
    key = (segment.testset, segment.source_lang, segment.target_lang, segment.ref_name)
    key += (segment.number, t.corpus.system)
    if item.permutation_id is None:
        return _key(*key)
    return _key(*key, item.permutation.perm_type, item.permutation.degree)


ITEM_RELATIONS = ("triple__segment", "triple__corpus", "permutation")


@dataclass
class LoadedPool:
    """A study's pool as composition sees it, and the row ids behind each key."""

    hypotheses: list[composition.PoolHypothesis]
    #: key -> (triple id, permutation id or None)
    ids: dict[Hashable, tuple[int, int | None]]


def load_pool(study: Study) -> LoadedPool:
    """The study's pool triples and their permutations up to the study's largest degree, minus
    the reference of the practice pair (shown to everyone before the questionnaire)."""
    triples = Triple.objects.filter(pool_entries__study=study)
    if study.sample_item_id:
        triples = triples.exclude(segment_id=study.sample_item.triple.segment_id)
    rows = triples.values_list("pk", "segment_id", "rank_score", "da_raw", *HYPOTHESIS_FIELDS)
    names = {pk: tuple(rest) for pk, _, _, _, *rest in rows}
    ids: dict[Hashable, tuple[int, int | None]] = {_key(*names[pk]): (pk, None) for pk in names}
    permutations: dict[int, list[composition.PoolPermutation]] = {}
    for pk, triple_id, perm_type, degree, quality in Permutation.objects.filter(
        triple__in=triples, degree__lte=study.max_degree
    ).values_list("pk", "triple_id", "perm_type", "degree", "quality"):
        key = _key(*names[triple_id], perm_type, degree)
        ids[key] = (triple_id, pk)
        permutations.setdefault(triple_id, []).append(
            composition.PoolPermutation(key, perm_type, degree, quality)
        )
    hypotheses = [
        composition.PoolHypothesis(
            key=_key(*names[pk]),
            segment=segment_id,
            source_lang=names[pk][1],
            quality=scales.wmt_score(rank_score, da_raw),
            permutations=tuple(permutations.get(pk, ())),
        )
        for pk, segment_id, rank_score, da_raw, *_ in rows
    ]
    return LoadedPool(hypotheses, ids)


def _items(keys: Iterable[Hashable], ids: dict[Hashable, tuple[int, int | None]]) -> dict:
    """The Item of every pool key, created where the pool has none yet."""
    wanted = {ids[key]: key for key in set(keys)}
    triple_ids = {t for t, p in wanted if p is None}
    perm_ids = {p for _, p in wanted if p is not None}
    found = {
        wanted[i.triple_id, None]: i
        for i in Item.objects.filter(triple_id__in=triple_ids, permutation__isnull=True)
    }
    found |= {
        wanted[i.triple_id, i.permutation_id]: i
        for i in Item.objects.filter(permutation_id__in=perm_ids)
    }
    missing = {
        key: Item(triple_id=t, permutation_id=p)
        for (t, p), key in sorted(wanted.items(), key=lambda row: repr(row[1]))
        if key not in found
    }
    Item.objects.bulk_create(missing.values())
    return found | missing


def current_questionnaires(study: Study) -> list[Questionnaire]:
    """The newest version of each of the study's questionnaires."""
    newest = {}
    for q in study.questionnaires.order_by("number", "version"):
        newest[q.number] = q
    return list(newest.values())


def _save(
    study: Study,
    plans: Sequence[Sequence[composition.Entry]],
    ids: dict[Hashable, tuple[int, int | None]],
    seed: int,
    progress: Progress,
) -> list[Questionnaire]:
    items = _items((e.key for plan in plans for e in plan), ids)
    first = (study.questionnaires.aggregate(n=Max("number"))["n"] or 0) + 1
    saved = []
    for number, plan in enumerate(plans, start=first):
        q = Questionnaire.objects.create(
            study=study, number=number, seed=seed, software_version=composition.VERSION
        )
        QuestionnaireEntry.objects.bulk_create(
            QuestionnaireEntry(questionnaire=q, position=i, item=items[e.key], shared=e.shared)
            for i, e in enumerate(plan, start=1)
        )
        saved.append(q)
        progress(1)
    return saved


def build_questionnaires(
    study: Study, count: int, seed: int, *, progress: Progress = _no_progress
) -> list[Questionnaire]:
    """The study's first `count` questionnaires, numbered from 1.

    Shared items are the researcher's selection (`Study.shared_items`) if there is one, else
    chosen automatically. Raises QuestionnaireError if the study has questionnaires already,
    and composition.ConfigurationError / CompositionError if its numbers or pool do not fit.
    """
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        existing = study.questionnaires.values("number").distinct().count()
        if existing:
            raise QuestionnaireError(
                f"study {study.slug!r} already has {existing} questionnaire(s); "
                "extend it instead of building again"
            )
        chosen = [item_key(i) for i in study.shared_items.select_related(*ITEM_RELATIONS)]
        pool = load_pool(study)
        plans = composition.compose(
            pool.hypotheses, study.layout(), count, seed, shared=chosen or None
        )
        saved = _save(study, plans, pool.ids, seed, progress)
        record.note(study, "questionnaires built", numbers=_span(saved), seed=seed)
        return saved


def extend_questionnaires(
    study: Study, count: int, seed: int, *, progress: Progress = _no_progress
) -> list[Questionnaire]:
    """`count` more questionnaires with the same shared items as the existing ones and unique
    items no existing questionnaire (any version) holds; existing ones are not touched."""
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        current = current_questionnaires(study)
        if not current:
            raise QuestionnaireError(f"study {study.slug!r} has no questionnaires to extend")
        shared_sets = {}
        for q in current:
            shared_sets.setdefault(
                frozenset(
                    item_key(e.item)
                    for e in q.entries.filter(shared=True).select_related(
                        *(f"item__{r}" for r in ITEM_RELATIONS)
                    )
                ),
                [],
            ).append(q.number)
        if len(shared_sets) > 1:
            groups = "; ".join(
                "questionnaires " + ", ".join(map(str, numbers)) for numbers in shared_sets.values()
            )
            raise QuestionnaireError(
                f"the existing questionnaires do not share the same items ({groups}); "
                "an extension needs one shared set"
            )
        (shared,) = shared_sets
        used = {
            _key(*names)
            for names in QuestionnaireEntry.objects.filter(
                questionnaire__study=study, shared=False
            ).values_list(*(f"item__triple__{f}" for f in HYPOTHESIS_FIELDS))
        }
        pool = load_pool(study)
        plans = composition.compose(
            pool.hypotheses, study.layout(), count, seed, shared=sorted(shared), used=used
        )
        saved = _save(study, plans, pool.ids, seed, progress)
        record.note(study, "questionnaires added", numbers=_span(saved), seed=seed)
        return saved


def _span(saved: list[Questionnaire]) -> str:
    return f"{saved[0].number}–{saved[-1].number}" if saved else "none"


def discard_questionnaires(study: Study) -> tuple[int, Cleared]:
    """Delete the study's questionnaires with its pilot and simulated participants (their
    answers, declines and withdrawals too: survey.design.lifecycle.clear_pilot), for a pool or
    design replaced before real people took part (the caller checks that:
    survey.design.shown.real_participation). Returns the questionnaires and participants
    deleted."""
    cleared = clear_pilot(study)
    questionnaires = study.questionnaires.count()
    study.questionnaires.all().delete()
    record.note(study, "questionnaires removed", questionnaires=questionnaires)
    return questionnaires, cleared


# --- freezing and versions --------------------------------------------------------------------


def is_frozen(questionnaire: Questionnaire) -> bool:
    """Frozen once its flag is set (by the study's launch, a print run) or a real participant
    has started it; pilot and simulated participants never freeze it."""
    people = questionnaire.participants.real()
    return (
        questionnaire.frozen
        or people.exclude(status=ASSIGNED).exists()
        or people.filter(ratings__isnull=False).exists()
    )


def revise(questionnaire: Questionnaire, entries: Sequence[tuple[Item, bool]]) -> Questionnaire:
    """Change a questionnaire's items to `entries` — (item, shared) in position order.

    In place while nobody has started it; otherwise as a new version that replaces it for new
    participants, leaving the answered version exactly as it was. Returns what was written.
    """
    items = [item.pk for item, _ in entries]
    if not items:
        raise QuestionnaireError("a questionnaire needs at least one item")
    if len(set(items)) < len(items):
        raise QuestionnaireError("a questionnaire lists each item once")
    with transaction.atomic():
        # The study row is the lock enrolment takes: nobody joins halfway through an edit.
        Study.objects.select_for_update().get(pk=questionnaire.study_id)
        q = Questionnaire.objects.get(pk=questionnaire.pk)
        newest = q.study.questionnaires.filter(number=q.number).order_by("-version").first()
        if newest.pk != q.pk:
            raise QuestionnaireError(f"{q} has a newer version ({newest.version}); revise that")
        if is_frozen(q):
            new = Questionnaire.objects.create(
                study_id=q.study_id,
                number=q.number,
                version=q.version + 1,
                seed=q.seed,
                software_version=q.software_version,
                active=q.active,
            )
            q.frozen, q.active = True, False  # kept as answered, offered no more
            q.save(update_fields=["frozen", "active"])
            q = new
        else:
            q.entries.all().delete()
        QuestionnaireEntry.objects.bulk_create(
            QuestionnaireEntry(questionnaire=q, position=i, item=item, shared=shared)
            for i, (item, shared) in enumerate(entries, start=1)
        )
        return q


# --- the questionnaires as one table ----------------------------------------------------------


def entries_frame(study: Study) -> pd.DataFrame:
    """One row per entry of the newest version of each questionnaire (ENTRY_COLUMNS); quality
    is the WMT score for hypotheses and eq. 6.2 for permutations."""
    import pandas as pd  # loaded on use: the admin imports this module at start-up

    from wojdb.core.design.balance import ENTRY_COLUMNS

    fields = {
        "questionnaire": "questionnaire__number",
        "version": "questionnaire__version",
        "position": "position",
        "item": "item_id",
        "perm_type": "item__permutation__perm_type",
        "degree": "item__permutation__degree",
        "shared": "shared",
        "perm_quality": "item__permutation__quality",
        "rank_score": "item__triple__rank_score",
        "da_raw": "item__triple__da_raw",
        "source_lang": "item__triple__segment__source_lang",
        "source_length": "item__triple__segment__source_length",
        "reference_length": "item__triple__segment__reference_length",
        "hypothesis_length": "item__triple__hypothesis_length",
        "triple": "item__triple_id",
        "segment": "item__triple__segment_id",
    }
    rows = QuestionnaireEntry.objects.filter(
        questionnaire__in=[q.pk for q in current_questionnaires(study)]
    ).values_list(*fields.values())
    frame = pd.DataFrame(list(rows), columns=list(fields))
    is_permutation = frame["perm_type"].notna()
    frame["kind"] = is_permutation.map({True: "permutation", False: "hypothesis"})
    wmt_score = scales.wmt_score(frame["rank_score"], frame["da_raw"])
    frame["quality"] = frame["perm_quality"].where(is_permutation, wmt_score).astype(float)
    frame["shared"] = frame["shared"].astype(bool)
    return frame[ENTRY_COLUMNS].sort_values(["questionnaire", "position"], ignore_index=True)
