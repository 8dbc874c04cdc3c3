"""DTED against the thesis's worked example (§4.5) and the flattened example of Figure 4.6."""

from pathlib import Path

import pytest

from wojdb.core.language.nlp import read_conllu
from wojdb.core.metrics import dted as dted_module
from wojdb.core.metrics.alignment import WordAlignment, read_alignments
from wojdb.core.metrics.dted import (
    FLAGS,
    PrioritisedDistance,
    basic_distance,
    counterpart_distance,
    dted,
    log_weight,
    prioritised_distance,
    score_l,
    score_o,
)
from wojdb.core.metrics.ted import flattened, sequence_edit_distance

DATA = Path(__file__).parents[1] / "analysis" / "data"


@pytest.fixture(scope="module")
def example():
    """'The cellist of Mälkki began career .' / 'Ms Mälkki started her career as a cellist .'"""
    hyp, ref = read_conllu((DATA / "thesis_trees.conllu").read_text())[:2]
    lines = (DATA / "thesis_examples.align").read_text().splitlines()
    alignment = read_alignments(lines[:1], [(len(hyp), len(ref))])[0]
    return hyp, ref, alignment


def test_section_4_5_distances(example):
    hyp, ref, alignment = example
    # Table 4.1 'b': 6 renames + 4 deletes.
    assert basic_distance(hyp.heads, ref.heads) == 10
    # 'fb': the thesis's table is garbled; one more match replacing two deletes gives 9.
    assert basic_distance(flattened(7), flattened(9)) == 9
    # Table 4.2 'c': The/Ms renamed; cellist, of, her, as, a, cellist deleted.
    assert counterpart_distance(hyp.heads, ref.heads, alignment) == 7
    assert counterpart_distance(flattened(7), flattened(9), alignment) == 7
    # 'co'/'cl': the two cellist deletions are aligned operations; flattening changes nothing.
    expected = PrioritisedDistance(aligned=2, unaligned=5)
    assert prioritised_distance(hyp.heads, ref.heads, alignment) == expected
    assert prioritised_distance(flattened(7), flattened(9), alignment) == expected


def test_section_4_5_scores(example):
    hyp, ref, alignment = example
    scores = {flag: dted(flag, hyp.heads, ref.heads, alignment) for flag in FLAGS}
    assert scores["b"] == pytest.approx(0.375)  # 1 − 10/16
    assert scores["fb"] == pytest.approx(0.4375)  # thesis ≈ 0.438
    assert scores["c"] == scores["fc"] == pytest.approx(0.5625)  # thesis ≈ 0.563
    # Printed "1 − 7/(5+5) = 0.700"; Eq. 4.2 with dist_a = 2 gives 1 − 2/10 = 0.8.
    assert scores["co"] == scores["fco"] == pytest.approx(0.8)
    # Printed ≈ 0.671 with log = 0.204; 0.1^0.625 = 0.2371 and the score is 0.6498.
    assert scores["cl"] == scores["fcl"] == pytest.approx(0.6498, abs=1e-4)


def test_section_4_5_score_l_with_the_printed_weight(example, monkeypatch):
    # With the thesis's misprinted weight forced, Eq. 4.5 gives its printed arithmetic:
    # 1 − ((1 − 0.204)·2/10 + 0.204·5/6) ≈ 0.671.
    hyp, ref, alignment = example
    distance = prioritised_distance(hyp.heads, ref.heads, alignment)
    monkeypatch.setattr(dted_module, "log_weight", lambda prop: 0.204)
    assert score_l(distance, alignment) == pytest.approx(0.6708, abs=1e-4)


def test_figure_4_6_flattened():
    # 'One rabbit was very happy' / 'He was one happy bunny': was/was and happy/happy match,
    # One/one is aligned but cannot be matched (thesis spec §2.6).
    alignment = WordAlignment(((0, 2), (2, 1), (4, 3)), 5, 5)
    chain = flattened(5)
    assert basic_distance(chain, chain) == 5
    assert counterpart_distance(chain, chain, alignment) == 4
    distance = prioritised_distance(chain, chain, alignment)
    # Renaming an aligned word into a non-counterpart costs as much as deleting both, so
    # very/one is not a free ride for 'very': dist_na = 3 (2 if it were, score_fl 0.6248).
    assert distance == PrioritisedDistance(aligned=2, unaligned=3)
    assert dted("fco", chain, chain, alignment) == pytest.approx(2 / 3)
    assert dted("fcl", chain, chain, alignment) == pytest.approx(0.5620, abs=1e-4)
    assert log_weight(0.6) == pytest.approx(0.2512, abs=1e-4)


def test_log_weight_checkpoints():
    # Thesis L1174: 0.5 when 30.1% of words are aligned, 0.178 when 75%; capped at 0.9.
    assert log_weight(0.301) == pytest.approx(0.5, abs=1e-3)
    assert log_weight(0.75) == pytest.approx(0.178, abs=1e-3)
    assert log_weight(0.01) == 0.9
    assert log_weight(0.0) == 1.0


def test_zero_denominators():
    # No aligned words: 'o' scores 1 and 'l' rests on unaligned words only (thesis L1194).
    nothing = WordAlignment((), 2, 3)
    distance = prioritised_distance((-1, 0), (-1, 0, 1), nothing)
    assert distance.aligned == 0
    assert score_o(distance, nothing) == 1.0
    assert score_l(distance, nothing) == pytest.approx(1 - distance.unaligned / 5)
    # Everything aligned: only the aligned term remains.
    everything = WordAlignment(((0, 0), (1, 1)), 2, 2)
    assert score_l(PrioritisedDistance(2, 0), everything) == pytest.approx(1 - 0.9 * 2 / 4)


def test_basic_flag_range_and_identity():
    # Under 'b' even identical trees cost one rename per word: the best score is 0.5.
    heads = (1, -1, 1, 2)
    alignment = WordAlignment(tuple((i, i) for i in range(4)), 4, 4)
    assert dted("b", heads, heads, alignment) == 0.5
    for flag in ("c", "co", "cl", "fc", "fco", "fcl"):
        assert dted(flag, heads, heads, alignment) == 1.0


def test_basic_distance_of_chains_is_the_longer_length():
    for n_h in range(7):
        for n_r in range(7):
            rename = [[1] * n_r for _ in range(n_h)]
            expected = sequence_edit_distance([1] * n_h, [1] * n_r, rename)
            assert basic_distance(flattened(n_h), flattened(n_r)) == expected == max(n_h, n_r)


def test_unknown_flag():
    with pytest.raises(ValueError, match="unknown DTED flag 'x'"):
        dted("x", (-1,), (-1,), WordAlignment((), 1, 1))
