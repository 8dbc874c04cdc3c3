"""Drawing a study's pool (wojdb.core.design.pool) and telling one sentence from several
(wojdb.core.language.sentences), without Django."""

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wojdb.core.design.pool import (
    BLANK,
    EXCLUDED,
    FRAGMENT,
    LONG,
    SENTENCES,
    SHORT,
    Candidate,
    CorpusName,
    Exclusion,
    PoolRule,
    TooFew,
    draw,
    left_out,
)
from wojdb.core.language.sentences import ends_as_sentence, sentence_count

# Lines of the WMT21 slices in fixtures/ (references and system outputs), and how many
# sentences a reader sees in each.
WORKED = [
    ("The gothic Cathedral of St. Peter and St. Paul of Nantes was heavily damaged after a fire "
     "last Saturday.", "en", 1),
    ("Berlin. Michael Hüther pourrait avoir raison dans sa déclaration optimiste.", "fr", 2),
    ("Le roi Carl XVI. Gustaf : Des pertes financières causées par la crise du coronavirus ?",
     "fr", 1),
    ("Récemment, une étude du Professeur Kathleen M. Carley (université de Carnegie Mellon) a "
     "démontré que plus de la moitié des votes sur Twitter", "fr", 1),
    ("2. Making the most of your curls:  when those with curlier hair try to thin out volume, it "
     "may make it more difficult to tame.", "en", 1),
    ('With smiles, Yoshikawa Sayuri said, "I\'m relieved. I\'m incredibly happy to have four '
     'titles between the boys and girls," and Takamine Tomoe said, "I didn\'t want to lose no '
     'matter what."', "en", 2),
    ("Am 3. Oktober 2020 kam er zurück.", "de", 1),
    ("He came back in 2020. Then he left.", "en", 2),
    ("Where is it? Nobody knows!", "en", 2),
    ("The U.S. Army said so.", "en", 1),
    ("他来了。她也来了。", "zh", 2),
    ("「来た。」と彼は言った。", "ja", 1),
    ("Он пришёл. Она ушла.", "ru", 2),
    ("ذهب إلى السوق. ثم عاد.", "ar", 2),
]  # fmt: skip


@pytest.mark.parametrize("text, lang, count", WORKED)
def test_sentences_are_counted_as_a_reader_sees_them(text, lang, count):
    assert sentence_count(text, lang) == count


@given(st.text(max_size=80), st.sampled_from(["en", "de", "fr", "zh", "ar"]))
def test_every_text_holds_at_least_one_sentence(text, lang):
    assert sentence_count(text, lang) >= 1


def candidate(system="A", segment=1, reference="The cat sat .", hypothesis="A cat sat .", **kw):
    corpus = CorpusName(kw.pop("testset", "newstest2021"), kw.pop("lp", "de-en"), system)
    fields = dict(
        key=(corpus, segment), corpus=corpus, segment=segment, document=kw.pop("document", "d1"),
        target_lang="en", reference=reference, hypothesis=hypothesis, source_length=3,
        reference_length=len(reference.split()), hypothesis_length=len(hypothesis.split()),
    )  # fmt: skip
    return Candidate(**(fields | kw))


def corpora(systems="ABC", lines=30):
    out = {}
    for system in systems:
        members = [candidate(system, n) for n in range(1, lines + 1)]
        out[members[0].corpus] = members
    return out


def test_each_corpus_gives_the_same_number_and_a_seed_gives_the_same_draw():
    first = draw(corpora(), PoolRule(per_corpus=10, seed=3))
    assert [len(keys) for keys in first.chosen.values()] == [10, 10, 10]
    assert draw(corpora(), PoolRule(per_corpus=10, seed=3)).keys == first.keys
    assert draw(corpora(), PoolRule(per_corpus=10, seed=4)).keys != first.keys


@given(st.lists(st.sampled_from("ABCDEFG"), min_size=1, unique=True), st.integers(0, 2**63 - 1))
def test_a_corpus_draws_the_same_whatever_else_is_drawn_and_in_whatever_order(systems, seed):
    rule = PoolRule(per_corpus=5, seed=seed)
    alone = draw(corpora("A"), rule).chosen
    together = corpora("A" + "".join(s for s in systems if s != "A"))
    shuffled = {name: list(reversed(members)) for name, members in reversed(together.items())}
    assert draw(shuffled, rule).chosen[next(iter(alone))] == next(iter(alone.values()))


def test_a_triple_is_left_out_for_the_first_reason_that_holds():
    rule = PoolRule(min_length=3, max_length=6, exclude=(Exclusion(system="A", segment=9),))
    assert left_out(candidate(hypothesis=""), rule) == BLANK
    assert left_out(candidate(reference="Two words"), rule) == SHORT
    assert left_out(candidate(hypothesis="one two three four five six seven"), rule) == LONG
    assert left_out(candidate(reference="Go . Stay ."), rule) == SENTENCES
    assert left_out(candidate(reference="Go . Stay ."), PoolRule()) == SENTENCES
    several = PoolRule(single_sentence=False)
    assert left_out(candidate(reference="Go . Stay ."), several) is None
    assert left_out(candidate(segment=9), rule) == EXCLUDED
    assert left_out(candidate(system="B", segment=9), rule) is None


def test_too_few_triples_name_the_corpus_the_counts_and_the_keys_behind_them():
    data = corpora("AB", lines=5)
    name = CorpusName("newstest2021", "de-en", "B")
    data[name][0] = candidate("B", 1, hypothesis="far too long a hypothesis for the limit here")
    with pytest.raises(TooFew) as error:
        draw(data, PoolRule(per_corpus=5, max_length=6))
    assert str(error.value) == (
        "per_corpus = 5, but 1 corpora have fewer triples that qualify: newstest2021 de-en B: "
        "4 of 5 (1 over max_length)"
    )
    assert error.value.keys == ["max_length"]


# Lines 117-119 of WMT22's de-en test set (tests/core/data/README.md): line 118 is cut after
# "seit ca." (ca. taken for a sentence's end), and its sentence ends on line 119.
DATA = Path(__file__).parent / "data"
WMT22_REFERENCE = (DATA / "generaltest2022.de-en.ref.A.en.117-119").read_text().splitlines()
WMT22_ONLINE_B = (DATA / "generaltest2022.de-en.hyp.Online-B.en.117-119").read_text().splitlines()

ENDINGS = [
    (WMT22_REFERENCE[0], "en", True),
    (WMT22_REFERENCE[1], "en", False),
    (WMT22_REFERENCE[2], "en", True),
    ("Récemment, une étude du Professeur Kathleen M. Carley (université de Carnegie Mellon) a "
     "démontré que plus de la moitié des votes sur Twitter", "fr", False),
    ("Where is it?", "en", True),
    ('He said: "I\'m relieved."', "en", True),
    ("(See the figure.)  ", "en", True),
    ("The list: apples, pears and", "en", False),
    ("他来了。", "zh", True),
    ("「来た。」", "ja", True),
    ("他来了吗？", "zh", True),
    ("他来了，", "zh", False),
    ("هل ذهب إلى السوق؟", "ar", True),
    ("وقال إن", "ar", False),
    ("वह बाज़ार गया।", "hi", True),
    ("वह बाज़ार", "hi", False),
    ("Πού είναι;", "el", True),
    ("Where is it;", "en", False),
    ("เขาไปตลาด", "th", True),  # Thai ends a sentence with a space, not a mark
    ("", "en", False),
]  # fmt: skip


@pytest.mark.parametrize("text, lang, ends", ENDINGS)
def test_a_segment_ends_as_a_sentence_ends_with_its_languages_terminal_mark(text, lang, ends):
    assert ends_as_sentence(text, lang) is ends


def test_wmt22s_cut_line_is_left_out_of_the_pool_unless_the_study_keeps_fragments():
    lines = {n: candidate("Online-B", n, WMT22_REFERENCE[n - 117], WMT22_ONLINE_B[n - 117])
             for n in (117, 118, 119)}  # fmt: skip
    verdicts = {n: left_out(c, PoolRule()) for n, c in lines.items()}
    assert verdicts == {117: None, 118: FRAGMENT, 119: None}
    assert left_out(lines[118], PoolRule(sentence_end=False)) is None
    assert left_out(lines[118], PoolRule(single_sentence=False)) is None
    drawn = draw({lines[117].corpus: list(lines.values())}, PoolRule(per_corpus=2))
    assert sorted(drawn.keys) == [lines[117].key, lines[119].key]
    assert drawn.reasons[lines[117].corpus] == {FRAGMENT: 1}
    with pytest.raises(TooFew) as error:
        draw({lines[117].corpus: list(lines.values())}, PoolRule(per_corpus=3))
    assert "2 of 3 (1 not ending as a sentence ends (sentence_end))" in str(error.value)
    assert error.value.keys == ["sentence_end"]
