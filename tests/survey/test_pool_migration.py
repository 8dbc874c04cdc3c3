"""The move from one global pool (Triple.in_pool) to a pool per study keeps every study's
sentences and questionnaires exactly."""

from tests.migrations import at_migration, migrate

BEFORE = [("survey", "0014_segment_scores")]
AFTER = [("survey", "0015_study_pools")]

at_the_previous_migration = at_migration(BEFORE)


def old_database(apps):
    """Two studies, four triples of which three are in the pool, and a questionnaire of the
    first study holding two of them (one through a permutation)."""
    Segment, Corpus, Triple, Study, Item, Permutation, Questionnaire = (
        apps.get_model("survey", name)
        for name in ("Segment", "Corpus", "Triple", "Study", "Item", "Permutation", "Questionnaire")
    )
    corpus = Corpus.objects.create(
        testset="newstest2021", year=2021, source_lang="de", target_lang="en", system="S"
    )
    triples = []
    for n in range(1, 5):
        segment = Segment.objects.create(
            testset="newstest2021", year=2021, source_lang="de", target_lang="en", number=n,
            source=f"Quelle {n}", reference=f"reference {n}", source_length=2,
            reference_length=2,
        )  # fmt: skip
        triples.append(
            Triple.objects.create(
                corpus=corpus,
                segment=segment,
                hypothesis=f"hypothesis {n}",
                hypothesis_length=2,
                in_pool=n != 4,
            )  # fmt: skip
        )
    first = Study.objects.create(name="First", slug="first")
    Study.objects.create(name="Second", slug="second")
    permutation = Permutation.objects.create(
        triple=triples[1], perm_type="swap", degree=2, seed=1, text="2 reference",
        tokens=["2", "reference"], moved=[0, 1], mapping=[1, 0], quality=1.0,
        software_version="test",
    )  # fmt: skip
    items = [
        Item.objects.create(triple=triples[0]),
        Item.objects.create(triple=triples[1], permutation=permutation),
    ]
    q = Questionnaire.objects.create(study=first, number=1, seed=5, software_version="test")
    for position, item in enumerate(items, start=1):
        q.entries.create(position=position, item=item, shared=position == 1)
    return [t.pk for t in triples]


def test_every_study_keeps_the_pool_and_its_questionnaires(at_the_previous_migration):
    triples = old_database(at_the_previous_migration)
    apps = migrate(AFTER)
    Study, PoolEntry = apps.get_model("survey", "Study"), apps.get_model("survey", "PoolEntry")
    Entry = apps.get_model("survey", "QuestionnaireEntry")
    for slug in ("first", "second"):
        pool = PoolEntry.objects.filter(study__slug=slug).values_list("triple_id", flat=True)
        assert sorted(pool) == triples[:3], slug
    entries = Entry.objects.filter(questionnaire__study__slug="first").order_by("position")
    assert [
        (e.position, e.item.triple_id, e.item.permutation.degree if e.item.permutation else None,
         e.shared)
        for e in entries
    ] == [(1, triples[0], None, True), (2, triples[1], 2, False)]  # fmt: skip
    assert Study.objects.count() == 2
    # And back: the triples of any study's pool are the pool again.
    apps = migrate(BEFORE)
    Triple = apps.get_model("survey", "Triple")
    assert sorted(Triple.objects.filter(in_pool=True).values_list("pk", flat=True)) == triples[:3]
