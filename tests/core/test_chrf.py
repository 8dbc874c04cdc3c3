"""The compiled sentence chrF against sacrebleu's own, on real sentences and made-up texts."""

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from sacrebleu.metrics import CHRF

from wojdb import bundled
from wojdb.core.metrics.chrf import sentence_chrf

DATA = Path(__file__).parent / "data"


def sacrebleu_chrf(pairs):
    chrf = CHRF()
    return [chrf.sentence_score(hyp, [ref]).score for hyp, ref in pairs]


def test_real_sentence_pairs_score_as_sacrebleu_scores_them():
    # WMT21 de-en: every system's line against reference A, and against the next line's.
    txt = bundled.wmt21_toen() / "txt"
    ref = (txt / "references/newstest2021.de-en.ref.A.en").read_text().splitlines()[:150]
    pairs = []
    for hyp_file in sorted(txt.glob("system-outputs/newstest2021.de-en.hyp.*.en"))[:6]:
        hyp = hyp_file.read_text().splitlines()[:150]
        pairs += list(zip(hyp, ref, strict=True)) + list(zip(hyp[1:], ref, strict=False))
    # Chinese and Japanese targets: many distinct characters per pair.
    for lang in ("zh", "ja"):
        ref = (DATA / f"newstest2021.en-{lang}.ref.A.{lang}.10").read_text().splitlines()
        hyp = (DATA / f"newstest2021.en-{lang}.hyp.Online-B.{lang}.10").read_text().splitlines()
        pairs += list(zip(hyp, ref, strict=True)) + list(zip(ref, ref[1:], strict=False))
    assert list(sentence_chrf(pairs)) == sacrebleu_chrf(pairs)


def test_a_pair_of_very_many_distinct_characters_scores_as_sacrebleu_scores_it():
    # Over 1,023 distinct characters: six of them do not fit one 63-bit key.
    text = "".join(chr(0x4E00 + i) for i in range(1500))
    pairs = [(text, text[::-1]), (text, text[:700] + text[800:]), (text[:3], text)]
    assert list(sentence_chrf(pairs)) == sacrebleu_chrf(pairs)


def test_empty_and_short_texts_score_as_sacrebleu_scores_them():
    pairs = [("", ""), ("", "abc"), ("abc", ""), (" ", "a"), ("a", "a"), ("aaaa", "aaaaaaa"),
             ("x y z", "xyz"), ("ab", "ba")]  # fmt: skip
    assert list(sentence_chrf(pairs)) == sacrebleu_chrf(pairs)
    assert len(sentence_chrf([])) == 0


TEXT = st.text(
    alphabet=st.sampled_from(list("aab cde\tfg,.!é中文字\u3000") + ["\U0001f600"]), max_size=40
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT), max_size=8))
def test_any_texts_score_as_sacrebleu_scores_them(pairs):
    assert list(sentence_chrf(pairs)) == sacrebleu_chrf(pairs)
