"""Drawing a study's pool (wojdb.core.design.pool) and telling one sentence from several
(wojdb.core.language.sentences), without Django."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wojdb.core.design.pool import (
    BLANK,
    EXCLUDED,
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
from wojdb.core.language.sentences import sentence_count

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
