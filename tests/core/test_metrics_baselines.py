"""The thesis's baselines (§3.5) on its running example, with the errata of the thesis spec."""

import itertools
import math

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from wojdb.core.metrics.alignment import EXACT, STEM, WordAlignment, wordnet_stage
from wojdb.core.metrics.baselines import (
    METEOR_2005,
    METEOR_THESIS,
    MeteorStats,
    aligned_percentage,
    meteor_chunk_score,
    meteor_fmean,
    meteor_match,
    meteor_penalty,
    meteor_score,
    meteor_stages,
    sentence_bleu,
    sentence_chrf,
    sentence_ter,
    thesis_kendall_tau,
)

HYP = ["the", "mat", "had", "sat", "on", "the", "cat"]
REF = ["cats", "had", "sat", "on", "a", "mat"]
# Thesis L932-934, 0-based (hypothesis, reference).
ALIGNMENT_1 = WordAlignment(((6, 0), (2, 1), (3, 2), (4, 3), (1, 5)), 7, 6)
ALIGNMENT_2_FIRST_THE = WordAlignment(((6, 5), (2, 1), (3, 2), (4, 3), (0, 4), (1, 0)), 7, 6)
ALIGNMENT_2_SECOND_THE = WordAlignment(((6, 5), (2, 1), (3, 2), (4, 3), (5, 4), (1, 0)), 7, 6)


def test_aligned_percentage():
    # Thesis L936: 10/13 ≈ 0.769 and 12/13 ≈ 0.923.
    assert aligned_percentage(ALIGNMENT_1) == pytest.approx(10 / 13)
    assert aligned_percentage(ALIGNMENT_2_FIRST_THE) == pytest.approx(12 / 13)
    assert aligned_percentage(WordAlignment((), 0, 0)) == 0.0


def test_thesis_kendall_tau_running_example():
    # Table 3.2: 3 concordant, 7 discordant pairs. The thesis prints (7 − 3)/(7 + 3) = 0.4;
    # Eq. 3.2 gives (3 − 7)/(3 + 7) = −0.4 (sign erratum, thesis spec §1.4).
    assert thesis_kendall_tau(ALIGNMENT_1) == pytest.approx(-0.4)
    # Alignment 2, which "the" maps to "a" unstated: C = 11, D = 4 or C = 15, D = 0.
    assert thesis_kendall_tau(ALIGNMENT_2_FIRST_THE) == pytest.approx(7 / 15)
    assert thesis_kendall_tau(ALIGNMENT_2_SECOND_THE) == pytest.approx(1.0)


def _algorithm_1(links):
    """Algorithm 1 transcribed line by line, with τ counted pair by pair."""
    a_hyp = sorted(h for h, _ in links)
    a_ref = sorted({r for _, r in links})
    a_mix = []
    for i_ref in a_ref:
        a_mix += sorted(h for h, r in links if r == i_ref)
    concordant = discordant = 0
    for i, j in itertools.combinations(range(len(a_hyp)), 2):
        product = (a_hyp[i] - a_hyp[j]) * (a_mix[i] - a_mix[j])
        concordant += product > 0
        discordant += product < 0
    total = concordant + discordant
    return (concordant - discordant) / total if total else 0.0


@settings(max_examples=80, deadline=None)
@given(st.sets(st.tuples(st.integers(0, 8), st.integers(0, 8)), max_size=14))
def test_thesis_kendall_tau_equals_algorithm_1(links):
    alignment = WordAlignment(tuple(links), 9, 9)
    assert thesis_kendall_tau(alignment) == pytest.approx(_algorithm_1(links))
    assert -1.0 <= thesis_kendall_tau(alignment) <= 1.0


def test_thesis_kendall_tau_ties_and_zero_denominator():
    # Hypothesis word 0 linked to reference words 0 and 1 adds a tied pair only.
    assert thesis_kendall_tau(WordAlignment(((0, 0), (0, 1), (1, 2)), 2, 3)) == 1.0
    assert thesis_kendall_tau(WordAlignment(((0, 0),), 1, 1)) == 0.0  # 0/0 counts as 0 (L1194)
    assert thesis_kendall_tau(WordAlignment((), 1, 1)) == 0.0


def test_bleu_running_example():
    # Table 3.3 prints BLEU 0.322 with recall-style p_n = 4/6, 2/5, 1/4 (which would give
    # 0.4055). Standard BLEU-3 precisions are 4/7, 2/6, 1/5 and BP = 1 (c = 7 > r = 6).
    expected = (4 / 7 * 2 / 6 * 1 / 5) ** (1 / 3)
    assert expected == pytest.approx(0.3365, abs=1e-4)
    assert sentence_bleu(HYP, REF, max_order=3, smooth="none") == pytest.approx(expected)


def test_sacrebleu_wrappers():
    hyp, ref = ["a", "b", "c", "d"], ["a", "c", "b", "d"]
    assert sentence_bleu(ref, ref) == pytest.approx(1.0)
    assert sentence_chrf(ref, ref) == pytest.approx(1.0)
    assert sentence_ter(ref, ref) == 0.0
    assert sentence_ter(hyp, ref) == pytest.approx(
        sacrebleu.sentence_ter("a b c d", ["a c b d"]).score / 100
    )
    assert sentence_chrf(hyp, ref) == pytest.approx(
        sacrebleu.sentence_chrf("a b c d", ["a c b d"]).score / 100
    )


def test_meteor_running_example():
    # Table 3.4: exact (mat, had, sat, on) and stem (cat, cats) matches; chunks mat / had sat on
    # / cat; P = 5/7, R = 5/6.
    stats = meteor_match(HYP, REF)
    assert stats == MeteorStats(matches=5, chunks=3, hyp_len=7, ref_len=6)
    # Printed Fmean 0.843; 10PR/(R + 9P) gives 0.8197 (thesis spec §1.6).
    assert meteor_fmean(stats) == pytest.approx(0.8197, abs=1e-4)
    # Penalty as printed, 0.5 · 3/5 = 0.3; printed score 0.590, recomputed 0.8197 × 0.7.
    assert meteor_penalty(stats, METEOR_THESIS) == pytest.approx(0.3)
    assert meteor_score(stats, METEOR_THESIS) == pytest.approx(0.5738, abs=1e-4)
    # Original Meteor cubes the fragmentation: Pen = 0.108, score 0.7311.
    assert meteor_penalty(stats, METEOR_2005) == pytest.approx(0.108)
    assert meteor_score(stats, METEOR_2005) == pytest.approx(0.7311, abs=1e-4)
    # 'Meteor (chnk)': 1 − Penalty.
    assert meteor_chunk_score(stats, METEOR_THESIS) == pytest.approx(0.7)
    assert meteor_chunk_score(stats, METEOR_2005) == pytest.approx(0.892)


def test_meteor_without_matches_and_perfect():
    none = meteor_match(["x"], ["y"])
    assert none == MeteorStats(0, 0, 1, 1)
    assert meteor_score(none) == 0.0
    assert meteor_chunk_score(none) == 1.0  # no fragmentation without matches (0/0 = 0)
    perfect = meteor_match(REF, REF)
    assert (perfect.matches, perfect.chunks) == (6, 1)
    assert meteor_fmean(perfect) == pytest.approx(1.0)
    assert meteor_score(perfect) == pytest.approx(1 - 0.5 / 6**3)


def test_meteor_synonyms_only_with_wordnet():
    stages = meteor_stages()
    assert stages[:2] == (EXACT, STEM)
    assert len(stages) == (2 if wordnet_stage() is None else 3)


def test_chunks_need_adjacency_on_both_sides():
    stats = MeteorStats.from_alignment(WordAlignment(((0, 0), (1, 1), (2, 3), (3, 2)), 4, 4))
    assert stats.chunks == 3
    assert math.isclose(meteor_penalty(stats, 1), 0.5 * 3 / 4)
