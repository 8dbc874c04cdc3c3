"""The compiled TER equals sacrebleu's sentence TER exactly, on real WMT21 pairs, random word
lists and edge cases."""

import json
import random
from pathlib import Path

import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics.lib_ter import translation_edit_rate as sacrebleu_edit_rate

from wojdb.core.metrics.baselines import sentence_ter
from wojdb.core.metrics.ter import translation_edit_rate

#: sacreBLEU's sentence TER of 300 WMT21 into-English pairs, made by make_ter_reference.py
#: (sacreBLEU's pure-Python TER takes seconds a long sentence).
REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "ter-sacrebleu-wmt21.json").read_text(encoding="utf-8")
)


def test_equals_sacrebleu_on_wmt21_pairs():
    assert REFERENCE["sacrebleu"] == sacrebleu.__version__
    assert len(REFERENCE["pairs"]) == 300
    for pair in REFERENCE["pairs"]:
        assert sentence_ter(pair["hyp"].split(), pair["ref"].split()) == pair["ter"], pair


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from("abcde"), max_size=30),
    st.lists(st.sampled_from("abcdef"), max_size=30),
)
def test_edit_rate_equals_sacrebleu_on_small_vocabularies(hyp, ref):
    # Few distinct words give many ties between edit operations and between shifts.
    assert translation_edit_rate(hyp, ref) == sacrebleu_edit_rate(hyp, ref)


@st.composite
def shuffled_pairs(draw):
    """A reference and a hypothesis made of its blocks reordered, with a few words replaced:
    shifts that pay off, often several in a row, and ties between them."""
    ref = draw(st.lists(st.sampled_from("abcd"), min_size=1, max_size=40))
    cuts = sorted(draw(st.lists(st.integers(0, len(ref)), max_size=5)))
    blocks = [ref[a:b] for a, b in zip([0, *cuts], [*cuts, len(ref)], strict=True)]
    order = draw(st.permutations(range(len(blocks))))
    hyp = [word for k in order for word in blocks[k]]
    for position in draw(st.lists(st.integers(0, len(hyp)), max_size=3)):
        hyp[position : position + 1] = [draw(st.sampled_from("abcx"))]
    return hyp, ref


@settings(max_examples=200, deadline=None)
@given(shuffled_pairs())
def test_edit_rate_equals_sacrebleu_on_reordered_hypotheses(pair):
    hyp, ref = pair
    assert translation_edit_rate(hyp, ref) == sacrebleu_edit_rate(hyp, ref)


def test_empty_sides():
    assert translation_edit_rate([], []) == sacrebleu_edit_rate([], [])
    assert translation_edit_rate(["a", "b"], []) == (2, 0)
    assert translation_edit_rate([], ["a", "b"]) == sacrebleu_edit_rate([], ["a", "b"])


def test_very_unequal_lengths_widen_the_beam_as_sacrebleu():
    rng = random.Random(3)
    for n_hyp, n_ref in ((1, 120), (2, 130), (3, 200), (130, 2)):
        hyp = [rng.choice("abcd") for _ in range(n_hyp)]
        ref = [rng.choice("abcd") for _ in range(n_ref)]
        assert translation_edit_rate(hyp, ref) == sacrebleu_edit_rate(hyp, ref)
