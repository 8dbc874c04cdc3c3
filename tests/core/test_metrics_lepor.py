"""LEPOR and hLEPOR against the worked examples of the metrics spec §5.4."""

import math

import pytest

from wojdb.core.metrics.lepor import (
    LeporFactors,
    hlepor,
    length_penalty,
    lepor,
    lepor_alignment,
    lepor_factors,
)


def _words(text):
    return text.split(" ")


def test_example_1_context_decides_between_two_candidates():
    # Han's Fig. 3-2/3-3: the first output "A" has the context "stone", "on" of the reference's
    # fifth word "a", so it takes that one; the fourth output "a" then takes the first "A".
    hyp, ref = _words("A stone on a bird ."), _words("A bird is on a stone .")
    assert lepor_alignment(hyp, ref) == [4, 5, 3, 0, 1, 6]
    factors = lepor_factors(hyp, ref)
    assert factors.npd == pytest.approx(31 / 84)
    assert factors.npos_penalty == pytest.approx(0.691392, abs=1e-6)
    assert factors.length_penalty == pytest.approx(0.846482, abs=1e-6)
    assert factors.hpr() == pytest.approx(20 / 23)
    assert lepor(factors) == pytest.approx(0.508914, abs=1e-6)
    assert hlepor(factors) == pytest.approx(0.843236, abs=1e-6)


def test_example_2_words():
    # Han's Fig. 4-2 (also a unit test of hlepor-python-port).
    factors = lepor_factors(_words("They claim at least ."), _words("At least they say so ."))
    assert (factors.precision, factors.recall) == (pytest.approx(4 / 5), pytest.approx(4 / 6))
    assert factors.length_penalty == pytest.approx(math.exp(-0.2))
    assert factors.hpr() == pytest.approx(40 / 59)
    assert factors.npd == pytest.approx(6 / 25)
    expected = 10 / (2 / math.exp(-1 / 5) + 1 / math.exp(-6 / 25) + 7 * 59 / 40)
    assert expected == pytest.approx(0.712299, abs=1e-6)
    assert hlepor(factors) == pytest.approx(expected)
    assert lepor(factors) == pytest.approx(0.436635, abs=1e-6)


def test_example_2_part_of_speech_tags():
    # The same pair as tags: "least" (RBS vs JJS) no longer matches; NPD = 0.2.
    factors = lepor_factors(_words("PRP VBP IN RBS ."), _words("IN JJS PRP VBP RB ."))
    assert factors.npd == pytest.approx(0.2)
    assert factors.hpr() == pytest.approx(40 / 59)
    assert hlepor(factors) == pytest.approx(0.714837, abs=1e-6)


@pytest.mark.parametrize(
    ("hyp", "ref", "lp", "hpr", "pd_sum"),
    [
        ("They claim at least and say so .", "At least they say and say so .", 1, 7 / 8, 3 / 4),
        ("They say so and claim at least .", "At least they say and say so .", 1, 7 / 8, 19 / 8),
        # One "say" in the reference, two in the output: the first output "say" takes it,
        # output words being aligned left to right (PD sum 33/15 if the nearer one did).
        (
            "They say and say so and claim at least .",
            "At least they say so .",
            math.exp(-2 / 3),
            15 / 16,
            36 / 15,
        ),
    ],
)
def test_port_vectors(hyp, ref, lp, hpr, pd_sum):
    # Metrics spec §5.4, "More hlepor-port vectors" (punctuation split off, lowercased).
    factors = lepor_factors(_words(hyp), _words(ref))
    assert factors.length_penalty == pytest.approx(lp)
    assert factors.hpr() == pytest.approx(hpr)
    assert factors.npd * len(_words(hyp)) == pytest.approx(pd_sum)


def test_length_penalty_both_ways_and_empty():
    assert length_penalty(5, 6) == pytest.approx(math.exp(-0.2))
    assert length_penalty(6, 5) == pytest.approx(math.exp(-0.2))
    assert length_penalty(4, 4) == 1.0
    assert length_penalty(0, 4) == 0.0


def test_no_match_scores_zero():
    factors = lepor_factors(["x"], ["y"])
    assert factors == LeporFactors(length_penalty=1.0, npd=0.0, precision=0.0, recall=0.0)
    assert lepor(factors) == 0.0
    assert hlepor(factors) == 0.0
    assert lepor(lepor_factors([], ["y"])) == 0.0


def test_identical_sentences_score_one():
    words = _words("At least they say so .")
    assert lepor(lepor_factors(words, words)) == pytest.approx(1.0)
    assert hlepor(lepor_factors(words, words)) == pytest.approx(1.0)


def test_weights_and_ratio():
    factors = LeporFactors(length_penalty=0.5, npd=0.0, precision=0.5, recall=1.0)
    assert factors.hpr(1, 1) == pytest.approx(2 / 3)
    assert hlepor(factors, {"hpr": 1, "lp": 1, "npp": 1}, 1, 1) == pytest.approx(
        3 / (1 / 0.5 + 1 / 1 + 1 / (2 / 3))
    )
