"""Building, extending and revising questionnaires in the database
(survey.design.questionnaires)."""

import itertools
import random
from collections import Counter

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from survey.design.questionnaires import (
    QuestionnaireError,
    build_questionnaires,
    entries_frame,
    extend_questionnaires,
    is_frozen,
    load_pool,
    revise,
)
from survey.models import (
    Corpus,
    Item,
    Participant,
    Permutation,
    PoolEntry,
    Questionnaire,
    QuestionnaireEntry,
    Rating,
    Segment,
    Study,
    Triple,
)
from survey.participants.assignment import enrol
from wojdb.core.design import composition
from wojdb.core.design.balance import ENTRY_COLUMNS

LANGUAGES = ("cs", "de", "ha", "is", "ja", "ru", "zh")
TYPES = ("order", "swap", "phrase", "choice")
_testsets = itertools.count(1)


def make_pool(size=560, systems=2, degrees=(2, 6, 10, 14), types=TYPES, seed=0):
    """`size` in-pool triples, `systems` per reference, each with permutations of every type
    at every degree; about one in four has no WMT score. Written in bulk to stay fast."""
    rng = random.Random(seed)
    testset = f"pooltest{next(_testsets)}"
    corpora = {
        (lang, s): Corpus.objects.create(
            testset=testset, year=2021, source_lang=lang, target_lang="en", system=f"sys{s}"
        )
        for lang in LANGUAGES
        for s in range(systems)
    }
    segments = Segment.objects.bulk_create(
        Segment(
            testset=testset,
            year=2021,
            source_lang=LANGUAGES[n % len(LANGUAGES)],
            target_lang="en",
            number=n + 1,
            source=f"Quelle {n}",
            reference=f"reference sentence number {n} .",
            source_length=8 + n % 17,
            reference_length=9 + n % 19,
        )
        for n in range(size // systems)
    )
    triples = Triple.objects.bulk_create(
        Triple(
            corpus=corpora[(segment.source_lang, s)],
            segment=segment,
            hypothesis=f"hypothesis {s} of {segment.number}",
            hypothesis_length=segment.reference_length + rng.randint(-3, 3),
            da_raw=None if rng.random() < 0.25 else rng.uniform(5, 95),
        )
        for segment in segments
        for s in range(systems)
    )
    Permutation.objects.bulk_create(
        Permutation(
            triple=t,
            perm_type=perm_type,
            degree=d,
            seed=1,
            text="permuted",
            tokens=["permuted"],
            moved=[0],
            mapping=[0],
            quality=1 - (d - 1) / 17,
            software_version="test",
        )
        for t in triples
        for perm_type in types
        for d in degrees
    )
    return triples


def make_study(**fields):
    """A study whose pool is every triple made so far."""
    n = next(_testsets)
    study = Study.objects.create(**{"name": f"Study {n}", "slug": f"study-{n}", **fields})
    PoolEntry.objects.bulk_create(PoolEntry(study=study, triple=t) for t in Triple.objects.all())
    return study


def snapshot(study):
    return [
        (q.number, q.version, q.seed, [(e.position, e.item_id, e.shared) for e in q.entries.all()])
        for q in study.questionnaires.order_by("number", "version")
    ]


@pytest.mark.django_db
def test_36_questionnaires_from_the_pool_meet_table_6_3():
    make_pool()
    study = make_study()
    saved = build_questionnaires(study, 36, seed=6)
    assert [q.number for q in saved] == list(range(1, 37))
    assert {(q.seed, q.version, q.software_version) for q in saved} == {(6, 1, composition.VERSION)}
    shared_sets, unique_items = set(), []
    for q in saved:
        entries = list(q.entries.select_related("item__permutation"))
        assert [e.position for e in entries] == list(range(1, 51))
        shared_sets.add(frozenset(e.item_id for e in entries if e.shared))
        unique_items += [e.item_id for e in entries if not e.shared]
        hypotheses = {e.item.triple_id: e.shared for e in entries if e.item.permutation is None}
        assert Counter(hypotheses.values()) == {True: 10, False: 15}
        carried = Counter()
        for e in entries:
            if e.item.permutation is not None:
                # built on a hypothesis of the same part of this questionnaire
                assert hypotheses[e.item.triple_id] == e.shared
                carried[(e.shared, e.item.triple_id, e.item.permutation.perm_type)] += 1
        pairs = Counter((shared, t) for (shared, _, t), n in carried.items() if n == 2)
        assert pairs == {(s, t): 1 for s in (True, False) for t in TYPES}
        singles = Counter(shared for (shared, _, _), n in carried.items() if n == 1)
        assert singles == {True: 2, False: 7}
    assert len(shared_sets) == 1 and len(next(iter(shared_sets))) == 20
    assert len(unique_items) == 36 * 30 == len(set(unique_items))


@pytest.mark.django_db
def test_the_same_seed_builds_the_same_questionnaires_again():
    make_pool(size=120)
    study = make_study()
    build_questionnaires(study, 4, seed=11)
    first = snapshot(study)
    study.questionnaires.all().delete()
    build_questionnaires(study, 4, seed=11)
    assert snapshot(study) == first
    study.questionnaires.all().delete()
    build_questionnaires(study, 4, seed=12)
    assert snapshot(study) != first


@pytest.mark.django_db
def test_the_researchers_shared_items_are_used():
    triples = make_pool(size=120)
    study = make_study()
    chosen = triples[0:20:2]  # ten hypotheses, one per reference
    items = [Item.objects.create(triple=t) for t in chosen]
    for t, perm_type in zip(chosen, TYPES, strict=False):
        for p in t.permutations.filter(perm_type=perm_type)[:2]:
            items.append(Item.objects.create(triple=t, permutation=p))
    for t in chosen[4:6]:
        items.append(Item.objects.create(triple=t, permutation=t.permutations.first()))
    study.shared_items.set(items)
    for q in build_questionnaires(study, 3, seed=1):
        assert set(q.entries.filter(shared=True).values_list("item", flat=True)) == {
            i.pk for i in items
        }


@pytest.mark.django_db
def test_building_twice_is_refused_and_extending_needs_questionnaires():
    make_pool(size=120)
    study = make_study()
    with pytest.raises(QuestionnaireError, match="no questionnaires to extend"):
        extend_questionnaires(study, 2, seed=1)
    build_questionnaires(study, 2, seed=1)
    with pytest.raises(QuestionnaireError, match="already has 2 questionnaire"):
        build_questionnaires(study, 2, seed=1)


@pytest.mark.django_db
def test_extending_leaves_existing_questionnaires_untouched():
    make_pool(size=200)
    study = make_study()
    build_questionnaires(study, 3, seed=1)
    before = snapshot(study)
    added = extend_questionnaires(study, 2, seed=2)
    assert [q.number for q in added] == [4, 5]
    assert snapshot(study)[:3] == before
    shared = {
        frozenset(q.entries.filter(shared=True).values_list("item", flat=True))
        for q in study.questionnaires.all()
    }
    assert len(shared) == 1
    unique = list(
        QuestionnaireEntry.objects.filter(
            questionnaire__study=study, shared=False, item__permutation__isnull=True
        ).values_list("item__triple", flat=True)
    )
    assert len(unique) == 5 * 15 == len(set(unique))


@pytest.mark.django_db
def test_a_pool_too_small_names_the_rule_and_writes_nothing():
    make_pool(size=60)  # 10 shared + 4 × 15 unique = 70 hypotheses needed
    study = make_study()
    with pytest.raises(
        composition.CompositionError,
        match=r"for 4 questionnaires, needs 70 .* has 60 \(short by 10\)",
    ):
        build_questionnaires(study, 4, seed=1)
    assert not Questionnaire.objects.filter(study=study).exists()
    assert not Item.objects.exists()


@pytest.mark.django_db
def test_the_pool_leaves_out_the_sample_reference_and_degrees_beyond_the_maximum():
    triples = make_pool(size=40, degrees=(2, 6, 10, 14))
    sample = Item.objects.create(triple=triples[0])
    study = make_study(max_degree=10, sample_item=sample)
    pool = load_pool(study).hypotheses
    # triples 0 and 1 translate the sample's reference, line 1 of the test set
    lines = {(h.key[0], h.key[4]) for h in pool}
    assert ("h", 1) not in lines and ("h", 2) in lines
    assert len(pool) == 38
    assert {p.degree for h in pool for p in h.permutations} == {2, 6, 10}


@pytest.mark.django_db
def test_type_counts_are_validated_against_the_study_numbers():
    study = make_study(type_counts={"shared": {"order": 2, "random": 8}, "unique": {"order": 3}})
    with pytest.raises(ValidationError, match="unique type counts add up to 3 permutations"):
        study.full_clean()
    study.type_counts = {}
    study.full_clean()
    assert study.layout().unique.random == 7


# --- freezing and versions -------------------------------------------------------------------


@pytest.fixture
def built(db):
    make_pool(size=80)
    study = make_study()
    build_questionnaires(study, 2, seed=3)
    return study


def reversed_entries(q):
    return [(e.item, e.shared) for e in reversed(list(q.entries.select_related("item")))]


def test_an_unstarted_questionnaire_is_edited_in_place(built):
    q = built.questionnaires.get(number=1)
    assert revise(q, reversed_entries(q)).pk == q.pk
    assert built.questionnaires.filter(number=1).count() == 1


def test_a_started_questionnaire_gets_a_new_version_and_keeps_its_answers(built):
    Study.objects.filter(pk=built.pk).update(launched_at=timezone.now())  # real participants
    participant = enrol(built, rng=random.Random(0))
    q = participant.questionnaire
    Participant.objects.filter(pk=participant.pk).update(status="in_progress")
    first = q.entries.first()
    Rating.objects.create(participant=participant, item=first.item, position=1, holistic=4)
    before = [(e.position, e.item_id) for e in q.entries.all()]
    new = revise(q, reversed_entries(q))
    q.refresh_from_db()
    assert (q.version, q.frozen, q.active) == (1, True, False)
    assert (new.number, new.version, new.active) == (q.number, 2, True)
    assert [(e.position, e.item_id) for e in q.entries.all()] == before
    assert [e.item_id for e in new.entries.all()] == [i for _, i in reversed(before)]
    # New participants get the new version; the old one still counts for balance.
    others = [enrol(built, rng=random.Random(n)) for n in range(3)]
    assert {p.questionnaire.version for p in others if p.questionnaire.number == q.number} <= {2}
    with pytest.raises(QuestionnaireError, match="has a newer version"):
        revise(q, reversed_entries(q))


def test_answers_freeze_a_questionnaire_even_without_the_flag(built):
    q = built.questionnaires.get(number=2)
    participant = Participant.objects.create(study=built, questionnaire=q)
    assert not is_frozen(q)
    Rating.objects.create(participant=participant, item=q.entries.first().item, position=1)
    assert is_frozen(q)


def test_a_revision_needs_distinct_items(built):
    q = built.questionnaires.get(number=1)
    entry = q.entries.first()
    with pytest.raises(QuestionnaireError, match="each item once"):
        revise(q, [(entry.item, False), (entry.item, False)])
    with pytest.raises(QuestionnaireError, match="at least one item"):
        revise(q, [])


def test_the_entries_table_has_one_row_per_entry(built):
    frame = entries_frame(built)
    assert list(frame.columns) == ENTRY_COLUMNS
    assert len(frame) == 2 * 50
    assert frame.groupby("questionnaire")["shared"].sum().tolist() == [20, 20]
    permutations = frame[frame["kind"] == "permutation"]
    assert (permutations["quality"] == 1 - (permutations["degree"] - 1) / 17).all()
    hypotheses = frame[frame["kind"] == "hypothesis"]
    scores = dict(Triple.objects.values_list("pk", "da_raw"))
    for triple, quality in zip(hypotheses["triple"], hypotheses["quality"], strict=True):
        expected = scores[triple]
        assert (
            (quality != quality) if expected is None else quality == pytest.approx(expected / 100)
        )
