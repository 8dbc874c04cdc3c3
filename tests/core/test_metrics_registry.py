"""The registry: property tests over every permutation up to length 7, and whole-pair scoring."""

import itertools
from pathlib import Path

import pytest

from wojdb.core.language.nlp import Parse, read_conllu
from wojdb.core.metrics.alignment import WordAlignment, align, read_alignments
from wojdb.core.metrics.registry import (
    BY_KEY,
    METRICS,
    PairContext,
    score_pair,
    score_permutation,
    select,
)

DATA = Path(__file__).parents[1] / "analysis" / "data"
PERMUTATION_METRICS = select(kind="permutation")
# Metrics whose least possible score is the inverted permutation's. Not Hamming (an odd
# reversal keeps its middle word), the flat PET (rescaled below 0) and the PET-shape metrics
# (#PETs, |PET|, MAX|Op| give the inverted permutation, fully binarizable, a 1).
REVERSAL_MINIMUM = {
    ("kendall", "paper"),
    ("spearman", "paper"),
    ("ulam", "paper"),
    ("fuzzy", "paper"),
    ("pef", "paper"),
    ("pef", "beer"),
    ("pef", "beer-old"),
    ("pet", "paper"),
    ("pet", "beer"),
    ("pet", "beer-viterbi"),
}
ALL_UP_TO_7 = [p for n in range(1, 8) for p in itertools.permutations(range(1, n + 1))]


@pytest.fixture(scope="module")
def exhaustive_scores():
    return {perm: score_permutation(perm) for perm in ALL_UP_TO_7}


def test_every_score_in_range(exhaustive_scores):
    for perm, scores in exhaustive_scores.items():
        for key, value in scores.items():
            metric = BY_KEY[key]
            assert metric.lower is None or value >= metric.lower - 1e-12, (key, perm)
            assert metric.upper is None or value <= metric.upper + 1e-12, (key, perm)


def test_identity_scores_the_maximum(exhaustive_scores):
    for n in range(1, 8):
        identity = tuple(range(1, n + 1))
        for key, value in exhaustive_scores[identity].items():
            assert value == pytest.approx(1.0), (key, n)


def test_reversal_scores_the_minimum_where_defined(exhaustive_scores):
    for n in range(2, 8):
        reversal = tuple(range(n, 0, -1))
        group = [scores for perm, scores in exhaustive_scores.items() if len(perm) == n]
        for key in REVERSAL_MINIMUM:
            least = min(scores[key] for scores in group)
            assert exhaustive_scores[reversal][key] == pytest.approx(0.0, abs=1e-12)
            assert least == pytest.approx(0.0, abs=1e-12), (key, n)


def test_the_other_metrics_on_the_reversal(exhaustive_scores):
    # Bracketing freedom and simplicity: the inverted permutation is as simple as the identity.
    for n in range(3, 8):
        scores = exhaustive_scores[tuple(range(n, 0, -1))]
        for name in ("pet_count", "pet_nodes", "pet_max_arity"):
            assert scores[(name, "paper")] == 1.0
        assert scores[("pet", "beer-flat")] == pytest.approx(0.0, abs=1e-12)
        assert scores[("hamming", "paper")] == (1 / n if n % 2 else 0.0)


def test_score_permutation_validates_and_selects():
    assert score_permutation([2, 1], ["kendall"]) == {("kendall", "paper"): 0.0}
    assert score_permutation([], ["pef:beer"]) == {("pef", "beer"): 0.0}
    with pytest.raises(ValueError, match="not a permutation"):
        score_permutation([1, 3])
    with pytest.raises(ValueError, match="unknown metric 'dted'"):
        score_permutation([1], ["dted"])


def test_select():
    assert [m.variant for m in select(["dted"])] == ["b", "c", "co", "cl", "fb", "fc", "fco", "fcl"]
    assert [m.key for m in select(["dted:co", "bleu", "dted:co"])] == [
        ("dted", "co"),
        ("bleu", "sacrebleu"),
    ]
    assert len(select()) == len(METRICS) == len(BY_KEY)
    with pytest.raises(ValueError, match="unknown metric 'dted:z'"):
        select(["dted:z"])


def test_registry_entries_are_complete():
    for metric in METRICS:
        assert metric.kind in ("permutation", "pair")
        assert metric.version and metric.description
        assert metric.higher_is_better == (metric.name != "ter")


# --- whole pairs --------------------------------------------------------------------------------


def _parse(text, heads, deps=None):
    tokens = tuple(text.split(" "))
    n = len(tokens)
    return Parse(tokens, ("X",) * n, ("X",) * n, heads, deps or ("dep",) * n, "hand")


@pytest.fixture(scope="module")
def dted_example():
    hyp, ref = read_conllu((DATA / "thesis_trees.conllu").read_text())[:2]
    lines = (DATA / "thesis_examples.align").read_text().splitlines()
    return hyp, ref, read_alignments(lines[:1], [(len(hyp), len(ref))], aligner="thesis")[0]


def test_score_pair_with_a_given_alignment(dted_example):
    hyp, ref, alignment = dted_example
    scores = score_pair(hyp, ref, alignment)
    assert set(scores) == set(BY_KEY)
    assert scores[("dted", "b")] == pytest.approx(0.375)
    assert scores[("dted", "co")] == pytest.approx(0.8)
    assert scores[("dted", "cl")] == pytest.approx(0.6498, abs=1e-4)
    assert scores[("aligned_pct", "thesis")] == pytest.approx(10 / 16)
    for key, value in scores.items():
        metric = BY_KEY[key]
        assert metric.lower is None or value >= metric.lower, key
        assert metric.upper is None or value <= metric.upper, key


def test_meteor_uses_its_own_matcher_whatever_the_alignment(dted_example):
    hyp, ref, alignment = dted_example
    assert PairContext(hyp, ref, alignment).meteor == PairContext(hyp, ref).meteor


def test_score_pair_defaults_to_the_built_in_aligner():
    hyp = _parse("the mat had sat on the cat", (1, 3, 3, -1, 3, 6, 4))
    ref = _parse("cats had sat on a mat", (2, 2, -1, 2, 5, 3))
    context = PairContext(hyp, ref)
    assert context.alignment == align(hyp.tokens, ref.tokens)
    scores = score_pair(hyp, ref, metrics=["aligned_pct", "kendall_tau", "kendall"])
    assert scores[("aligned_pct", "thesis")] == pytest.approx(10 / 13)
    assert scores[("kendall_tau", "thesis")] == pytest.approx(-0.4)
    # Permutation (5, 2, 3, 4, 1): 3 of 10 pairs kept.
    assert scores[("kendall", "paper")] == pytest.approx(0.3)


def test_identical_sentences_score_the_best():
    parse = _parse("the keen loud dog did it .", (3, 3, 3, 4, -1, 4, 4))
    scores = score_pair(parse, parse)
    n = len(parse)
    exceptions = {
        ("dted", "b"): 0.5,  # every rename costs 1 (Eq. 4.1 note)
        ("dted", "fb"): 0.5,
        ("meteor", "2005"): 1 - 0.5 / n**3,  # one chunk is still a fragment
        ("meteor", "thesis"): 1 - 0.5 / n,
        ("meteor_chunk", "2005"): 1 - 0.5 / n**3,
        ("meteor_chunk", "thesis"): 1 - 0.5 / n,
        ("ter", "sacrebleu"): 0.0,
    }
    for key, value in scores.items():
        assert value == pytest.approx(exceptions.get(key, 1.0)), key


def test_context_records_its_inputs():
    hyp = _parse("a b", (-1, 0))
    ref = Parse(("a", "b"), ("X", "X"), ("X", "X"), (1, -1), ("dep", "root"), "other")
    context = PairContext(hyp, ref)
    assert context.parser == "hypothesis: hand; reference: other"
    assert PairContext(hyp, hyp).parser == "hand"
    with pytest.raises(ValueError, match="alignment is for 3 and 2 words"):
        PairContext(hyp, ref, WordAlignment((), 3, 2))


def test_table_3_1_pairs_are_scored_in_range():
    # Thesis Table 3.1, with flat parses (each word under the first): every metric is defined.
    pairs = [
        ("The cat sat on the mat .", "The mat sat on the cat ."),
        ("I spoke to him there .", "There I spoke to him ."),
        ("She let it be and left .", "She let it and be left ."),
        ("Then was it done .", "It was done then ."),
        ("Jill gave it to Bob .", "Bob gave it to Jill ."),
    ]
    for reference, hypothesis in pairs:
        n_h, n_r = len(hypothesis.split(" ")), len(reference.split(" "))
        hyp = _parse(hypothesis, (-1,) + (0,) * (n_h - 1))
        ref = _parse(reference, (-1,) + (0,) * (n_r - 1))
        for key, value in score_pair(hyp, ref).items():
            metric = BY_KEY[key]
            assert metric.lower is None or value >= metric.lower, key
            assert metric.upper is None or value <= metric.upper, key
