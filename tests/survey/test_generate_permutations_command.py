"""generate_permutations: parse what has no parse, generate, insert only what is missing."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from survey.models import Corpus, Permutation, PoolEntry, Segment, Study, Triple
from wojdb.core.language.nlp import Parse
from wojdb.core.permutations import VERSION, Sentence, Truecaser, generate_all
from wojdb.core.permutations.truth import fixed_words, restore

SENTENCES = [
    (
        "At the same time she's a usurper and wants to cook him to death, adds Bajgar.",
        "But at the same time, he's an usurper, and he wants to take care of his husband to "
        "death, Bajgar said.",
    ),
    (
        "The government announced new measures on Tuesday.",
        "On Tuesday the government has announced new rules.",
    ),
    ("She reads a long book every evening.", "Every evening she is reading a thick book."),
]


@pytest.fixture
def pool(db):
    corpus = Corpus.objects.create(
        testset="newstest2021", year=2021, source_lang="de", target_lang="en", system="SysA"
    )
    triples = []
    for number, (reference, hypothesis) in enumerate(SENTENCES, start=1):
        segment = Segment.objects.create(
            testset="newstest2021",
            year=2021,
            source_lang="de",
            target_lang="en",
            number=number,
            source=f"Quelle {number}",
            reference=reference,
            source_length=2,
            reference_length=len(reference.split()),
        )
        triples.append(
            Triple.objects.create(
                corpus=corpus,
                segment=segment,
                hypothesis=hypothesis,
                hypothesis_length=len(hypothesis.split()),
            )
        )
    study = Study.objects.create(name="Study", slug="study")
    for triple in triples[:2]:  # the third triple is outside the pool
        PoolEntry.objects.create(study=study, triple=triple)
    return triples


def run(**options):
    call_command("generate_permutations", jobs=1, verbosity=0, **options)


def test_parses_once_and_stores_the_parses(pool):
    run(types="order")
    segment = Segment.objects.get(number=1)
    parse = Parse.from_dict(segment.parse)
    assert parse.tokens[:4] == ("At", "the", "same", "time")
    assert segment.parser == parse.parser and segment.parser.startswith("spacy-")
    # 'order' does not need the hypotheses, so they stay unparsed until a type needs them.
    assert Triple.objects.filter(parse__isnull=False).count() == 0
    assert Segment.objects.get(number=3).parse is None  # outside the pool
    run(types="choice")
    assert Triple.objects.filter(pool_entries__isnull=False, parse__isnull=True).count() == 0
    assert Triple.objects.get(segment__number=3).parse is None


def test_generates_every_possible_degree_of_the_pool_triples(pool):
    run(seed=4)
    first = pool[0]
    stored = Permutation.objects.filter(triple=first)
    # The Table 6.1 reference has 16 words: order degrees 1-15.
    orders = sorted(stored.filter(perm_type="order").values_list("degree", flat=True))
    assert orders == list(range(1, 16))
    assert set(stored.values_list("perm_type", flat=True)) == {"order", "swap", "phrase", "choice"}
    assert not Permutation.objects.filter(triple=pool[2]).exists()
    example = stored.get(perm_type="order", degree=5)
    assert example.tokens == example.text.split()
    assert len(example.moved) == 5 and sorted(example.mapping) == list(range(16))
    assert example.quality == pytest.approx(1 - 4 / 17)
    assert (example.seed, example.software_version) == (4, VERSION)


def test_stores_the_words_out_of_place(pool):
    run(seed=4)
    stored = Permutation.objects.filter(triple__in=pool[:2])
    assert stored.filter(displaced__isnull=True).count() == 0
    for p in stored:
        fixed = fixed_words(p.tokens)
        reference = list(range(len(p.tokens)))
        assert restore(p.mapping, p.displaced, fixed) == reference, (p.perm_type, p.degree)
        assert restore(p.mapping, p.minimal_moves, fixed) == reference, (p.perm_type, p.degree)
        assert len(p.minimal_moves) <= len(p.displaced)
        if p.perm_type in ("order", "swap", "choice"):
            assert len(p.displaced) == p.degree
    # Table 6.1's reference: at degree 1, 'order' moves a single word, which is out of place.
    first = stored.get(triple=pool[0], perm_type="order", degree=1)
    assert len(first.displaced) == len(first.minimal_moves) == 1
    assert first.mapping[first.displaced[0]] == first.moved[0]


def test_matches_the_pure_generator(pool):
    run(seed=4, types="phrase,choice", max_degree=6)
    triple = Triple.objects.select_related("segment").get(pk=pool[1].pk)
    reference = Sentence.from_parse(Parse.from_dict(triple.segment.parse), triple.segment.reference)
    hypothesis = Sentence.from_parse(Parse.from_dict(triple.parse), triple.hypothesis)
    truecaser = Truecaser.from_corpus(
        s.split() for s in Segment.objects.values_list("reference", flat=True)
    )
    expected = generate_all(
        reference,
        hypothesis,
        4,
        types=("phrase", "choice"),
        degrees=range(1, 7),
        truecaser=truecaser,
    )
    stored = Permutation.objects.filter(triple=triple).order_by("-perm_type", "degree")
    assert [(p.perm_type, p.degree, p.text, p.mapping) for p in stored] == [
        (p.perm_type, p.degree, p.text, list(p.mapping)) for p in expected
    ]


def test_permutations_are_stored_as_django_stores_them(pool):
    # Inserted without the ORM: JSON read back as the lists it was, an absent parse SQL NULL
    # (not JSON null) and the time of creation set, as a model's save would leave them.
    started = timezone.now()
    run(seed=4, types="order")
    stored = Permutation.objects.filter(triple=pool[0])
    assert stored.count() == stored.filter(parse__isnull=True).count() > 0
    assert not Permutation.objects.filter(parse=None, parse__isnull=False).exists()
    assert all(started <= p.created <= timezone.now() for p in stored)
    first = stored.get(degree=1)
    assert first.tokens == first.text.split() and isinstance(first.mapping, list)
    assert stored.filter(tokens__0=first.tokens[0], mapping__0=first.mapping[0]).exists()


def test_is_idempotent_and_resumable(pool):
    run(seed=4)
    before = {(p.triple_id, p.perm_type, p.degree): p.text for p in Permutation.objects.all()}
    run(seed=4)
    assert Permutation.objects.count() == len(before)
    Permutation.objects.filter(perm_type="phrase", degree__gt=2).delete()  # an interrupted run
    run(seed=4)
    after = {(p.triple_id, p.perm_type, p.degree): p.text for p in Permutation.objects.all()}
    assert after == before


def test_a_rerun_with_other_settings_keeps_what_is_stored_and_says_so(pool):
    def output(**options) -> str:
        out = StringIO()
        call_command("generate_permutations", jobs=1, verbosity=0, stdout=out, **options)
        return out.getvalue()

    def stored():
        orders = Permutation.objects.filter(perm_type="order")
        return sorted(orders.values_list("triple_id", "degree", "text", "seed"))

    output(seed=4, types="swap")  # not asked for below, so not counted
    output(seed=4, types="order")
    before = stored()
    kept = f"\n{len(before)} of the stored permutations were made with another seed"
    assert kept in output(seed=5, types="order")
    assert stored() == before
    assert "another seed" not in output(seed=4, types="order")
    # eq. 6.2's scores depend on the maximum degree, except degree 1's, which is always 1
    rescored = sum(degree > 1 for _, degree, _, _ in before)
    assert 0 < rescored < len(before)
    assert f"\n{rescored} of the stored" in output(seed=4, types="order", max_degree=30)


def test_two_jobs_give_the_same_permutations(pool):
    run(seed=8, types="order,swap")
    serial = sorted(Permutation.objects.values_list("triple_id", "perm_type", "degree", "text"))
    Permutation.objects.all().delete()
    call_command("generate_permutations", jobs=2, verbosity=0, seed=8, types="order,swap")
    parallel = sorted(Permutation.objects.values_list("triple_id", "perm_type", "degree", "text"))
    assert parallel == serial


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"types": "order,shuffle"}, "--types must name"),
        (["--max-degree", "0"], "--max-degree: 0 is outside the allowed range"),
        (["--seed", str(2**64)], "--seed: .* whole number from 0 to 9223372036854775807"),
    ],
)
def test_rejects_bad_options(pool, options, message):
    with pytest.raises(CommandError, match=message):
        if isinstance(options, dict):
            run(**options)
        else:
            call_command("generate_permutations", *options, verbosity=0)


def test_an_empty_pool_is_an_error(db):
    with pytest.raises(CommandError, match="no study yet"):
        run()
    Study.objects.create(name="Study", slug="study")
    with pytest.raises(CommandError, match="pool is empty"):
        run()
