"""Permutations stored before the truth fields existed, or imported from a release before the
import stored them, get them from their own stored words."""

from tests.migrations import at_migration, migrate

BEFORE = [("survey", "0023_platform_plugins")]
AFTER = [("survey", "0024_permutation_truth")]
IMPORTED = [("survey", "0026_crossing_words")]
FILLED = [("survey", "0027_imported_permutation_truth")]

at_the_previous_migration = at_migration(BEFORE)
before_imports_stored_them = at_migration(IMPORTED)


def store_permutation(apps, **fields):
    """'a - b c d' permuted by an 'order' of degree 2 on the slots a b c d: 'a' two slots
    right (b c a d), then 'd' one slot left (b c d a); the dash keeps its place."""
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
    return Permutation.objects.create(
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
        **fields,
    )


def test_stored_permutations_are_filled(at_the_previous_migration):
    store_permutation(at_the_previous_migration)
    apps = migrate(AFTER)
    permutation = apps.get_model("survey", "Permutation").objects.get()
    assert permutation.displaced == [3, 4]
    assert permutation.minimal_moves == [4]  # putting 'a' back is enough


def test_imported_permutations_are_filled_and_the_others_kept(before_imports_stored_them):
    imported = store_permutation(before_imports_stored_them, displaced=None, minimal_moves=None)
    Permutation = before_imports_stored_them.get_model("survey", "Permutation")
    kept = Permutation.objects.create(
        **{f.name: getattr(imported, f.name) for f in Permutation._meta.concrete_fields[1:]}
        | {"perm_type": "swap", "displaced": [0, 3], "minimal_moves": [0]}
    )
    apps = migrate(FILLED)
    rows = apps.get_model("survey", "Permutation").objects
    assert (rows.get(pk=imported.pk).displaced, rows.get(pk=imported.pk).minimal_moves) == (
        [3, 4],
        [4],
    )
    assert (rows.get(pk=kept.pk).displaced, rows.get(pk=kept.pk).minimal_moves) == ([0, 3], [0])
