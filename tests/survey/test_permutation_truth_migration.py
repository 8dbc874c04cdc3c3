"""Permutations stored before the truth fields existed get them from their own stored words."""

from tests.migrations import at_migration, migrate

BEFORE = [("survey", "0023_platform_plugins")]
AFTER = [("survey", "0024_permutation_truth")]

at_the_previous_migration = at_migration(BEFORE)


def test_stored_permutations_are_filled(at_the_previous_migration):
    apps = at_the_previous_migration
    Corpus, Segment, Triple, Permutation = (
        apps.get_model("survey", name) for name in ("Corpus", "Segment", "Triple", "Permutation")
    )
    corpus = Corpus.objects.create(
        testset="newstest2021", year=2021, source_lang="de", target_lang="en", system="S"
    )
    segment = Segment.objects.create(
        testset="newstest2021",
        year=2021,
        source_lang="de",
        target_lang="en",
        number=1,
        source="Quelle",
        reference="a - b c d",
        source_length=1,
        reference_length=5,
    )
    triple = Triple.objects.create(
        corpus=corpus, segment=segment, hypothesis="a b c d", hypothesis_length=4
    )
    # 'order' of degree 2 on the slots a b c d: 'a' two slots right (b c a d), then 'd' one
    # slot left (b c d a); the dash keeps its place.
    Permutation.objects.create(
        triple=triple,
        perm_type="order",
        degree=2,
        seed=1,
        text="b - c d a",
        tokens=["b", "-", "c", "d", "a"],
        moved=[0, 4],
        mapping=[2, 1, 3, 4, 0],
        quality=1.0,
        software_version="permutations-1",
    )
    apps = migrate(AFTER)
    permutation = apps.get_model("survey", "Permutation").objects.get()
    assert permutation.displaced == [3, 4]
    assert permutation.minimal_moves == [4]  # putting 'a' back is enough
