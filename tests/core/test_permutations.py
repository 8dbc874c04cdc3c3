"""Automatic permutations (thesis §6.2.3, Algorithms 3–5, Table 6.1).

Property tests run the generators over real WMT21 references (parsed once per session with the
spaCy pipeline) and check each algorithm's invariants with code independent of the generators.
"""

import gc
import hashlib
import json
import os
import subprocess
import sys
import weakref
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wojdb.bundled import wmt21_toen
from wojdb.core.language.nlp import Parse, parse_texts
from wojdb.core.permutations import (
    MAIN_TYPES,
    PERMUTATION_TYPES,
    Renderer,
    Sentence,
    SentencePair,
    Truecaser,
    generate_all,
    generate_many,
    quality,
)
from wojdb.core.permutations.algorithms import Edit, PhrasePermuter, RandomStream, order_moves
from wojdb.core.permutations.sentence import ENGLISH, split_punctuation

REPO = Path(__file__).resolve().parents[2]
PAIRS_PER_LANGUAGE = 20
PROPERTY = settings(max_examples=100, deadline=None)

# Table 6.1's reference and hypothesis.
REFERENCE = "At the same time she's a usurper and wants to cook him to death, adds Bajgar."
HYPOTHESIS = (
    "But at the same time, he's an usurper, and he wants to take care of his husband to death, "
    "Bajgar said."
)


@lru_cache(maxsize=1)
def wmt_pairs() -> tuple[tuple[Sentence, Sentence], ...]:
    """Every 50th reference of each into-English test set, with one system's hypothesis."""
    texts, wmt_txt = [], wmt21_toen() / "txt"
    for reference_file in sorted((wmt_txt / "references").glob("*.ref.A.en")):
        pair = reference_file.name.split(".")[1]
        system_file = sorted((wmt_txt / "system-outputs").glob(f"newstest2021.{pair}.hyp.*.en"))[0]
        references = reference_file.read_text().splitlines()
        hypotheses = system_file.read_text().splitlines()
        lines = range(0, 50 * PAIRS_PER_LANGUAGE, 50)
        texts += [(references[i], hypotheses[i]) for i in lines if references[i].strip()]
    parses = list(parse_texts([text for pair in texts for text in pair]))
    return tuple(
        (
            Sentence.from_parse(parses[2 * i], reference),
            Sentence.from_parse(parses[2 * i + 1], hypothesis),
        )
        for i, (reference, hypothesis) in enumerate(texts)
    )


@lru_cache(maxsize=1)
def wmt_truecaser() -> Truecaser:
    return Truecaser.from_corpus(reference.words for reference, _ in wmt_pairs())


@lru_cache(maxsize=1)
def table_6_1() -> tuple[Sentence, Sentence]:
    reference, hypothesis = parse_texts([REFERENCE, HYPOTHESIS])
    return Sentence.from_parse(reference, REFERENCE), Sentence.from_parse(hypothesis, HYPOTHESIS)


def hand_parsed(text: str, tags: str | None = None, heads: list[int] | None = None) -> Sentence:
    """A sentence whose tokens are its whitespace words, with the given tags and heads."""
    words = text.split()
    tags = tags.split() if tags else ["X"] * len(words)
    heads = heads if heads is not None else [-1] + [0] * (len(words) - 1)
    parse = Parse(tuple(words), tuple(tags), tuple(tags), tuple(heads), ("dep",) * len(words))
    return Sentence.from_parse(parse, text)


def core(word: str) -> str:
    return split_punctuation(word)[1].casefold()


def one(reference, hypothesis, perm_type, degree, seed, truecaser=None):
    """The permutation of one type and degree, or None if the sentence cannot take it."""
    results = generate_all(
        reference,
        hypothesis,
        seed,
        types=(perm_type,),
        degrees=[degree],
        max_degree=18,
        truecaser=truecaser,
    )
    assert len(results) <= 1
    return results[0] if results else None


def slot_arrangement(reference: Sentence, permutation) -> list[int]:
    """For each slot of the output, the reference slot its word came from (-1 if replaced)."""
    slot_of_word = {word: slot for slot, word in enumerate(reference.slots)}
    return [
        -1 if permutation.mapping[word] == -1 else slot_of_word[permutation.mapping[word]]
        for word in reference.slots
    ]


def check_common(reference: Sentence, permutation, degree: int, rules=ENGLISH) -> None:
    """What every permutation guarantees, whatever its type (`rules`: the target language's)."""
    words, tokens, mapping = reference.words, permutation.tokens, permutation.mapping
    assert permutation.base == reference.text
    assert len(tokens) == len(words) == len(mapping)
    assert permutation.quality == pytest.approx(1 - (degree - 1) / 17)
    # Punctuation positions are unchanged; words made of punctuation stay as they are.
    for i, (token, word) in enumerate(zip(tokens, words, strict=True)):
        lead, _, trail = split_punctuation(token, rules.leading, rules.trailing)
        assert (lead, trail) == (reference.leads[i], reference.trails[i])
        if i not in reference.slots:
            assert token == word and mapping[i] == i
    # The mapping is a permutation of the reference (less replaced words) reproducing the output.
    kept = [m for m in mapping if m != -1]
    assert len(set(kept)) == len(kept) and all(0 <= m < len(words) for m in kept)
    for i, m in enumerate(mapping):
        if m != -1:
            assert core(tokens[i]) == core(words[m])
    assert set(permutation.moved) <= set(reference.slots)


# Algorithm 3: order ----------------------------------------------------------------------------


@PROPERTY
@given(st.integers(2, 40), st.data(), st.integers(0, 2**32))
def test_order_moves_distinct_words_by_decreasing_distances(n, data, seed):
    degree = data.draw(st.integers(1, n - 1))
    moves, arrangement = order_moves(n, degree, RandomStream(str(seed).encode()))
    assert [abs(d) for _, d in moves] == list(range(degree, 0, -1))
    assert len({word for word, _ in moves}) == degree  # no word moved twice
    replay = list(range(n))  # lines 10–11: remove the word, insert it at p + d
    for word, d in moves:
        p = replay.index(word)
        assert 0 <= p + d < n
        replay.insert(p + d, replay.pop(p))
    assert replay == arrangement


def test_order_cannot_move_as_many_words_as_the_sentence_has():
    with pytest.raises(ValueError):
        order_moves(5, 5, RandomStream(b"0"))


@PROPERTY
@given(st.data(), st.integers(1, 18), st.integers(0, 2**32))
def test_order_on_real_references(data, degree, seed):
    reference, hypothesis = data.draw(st.sampled_from(wmt_pairs()))
    permutation = one(reference, hypothesis, "order", degree, seed, wmt_truecaser())
    assert (permutation is not None) == (degree < len(reference.slots))
    if permutation is None:
        return
    check_common(reference, permutation, degree)
    assert sorted(permutation.mapping) == list(range(len(reference.words)))
    assert Counter(map(core, permutation.tokens)) == Counter(map(core, reference.words))
    assert len(permutation.moved) == degree == len(set(permutation.moved))


# swap ------------------------------------------------------------------------------------------


def swap_capacity(reference: Sentence) -> int:
    """Pairs of different words with one tag: min(n // 2, n − most frequent word) per tag."""
    total = 0
    for tag in set(reference.tags):
        forms = Counter(
            c.casefold() for c, t in zip(reference.cores, reference.tags, strict=True) if t == tag
        )
        n = sum(forms.values())
        total += min(n // 2, n - max(forms.values()))
    return total


@PROPERTY
@given(st.data(), st.integers(1, 18), st.integers(0, 2**32))
def test_swap_on_real_references(data, degree, seed):
    reference, hypothesis = data.draw(st.sampled_from(wmt_pairs()))
    permutation = one(reference, hypothesis, "swap", degree, seed, wmt_truecaser())
    possible = degree % 2 == 0 and degree // 2 <= swap_capacity(reference)
    assert (permutation is not None) == possible
    if permutation is None:
        return
    check_common(reference, permutation, degree)
    assert Counter(map(core, permutation.tokens)) == Counter(map(core, reference.words))
    moved = permutation.moved
    assert len(moved) == degree == len(set(moved))
    slot_of_word = {word: slot for slot, word in enumerate(reference.slots)}
    for a, b in zip(moved[::2], moved[1::2], strict=True):
        assert reference.tags[slot_of_word[a]] == reference.tags[slot_of_word[b]]
        assert core(reference.words[a]) != core(reference.words[b])
        assert (permutation.mapping[a], permutation.mapping[b]) == (b, a)
    unmoved = set(range(len(reference.words))) - set(moved)
    assert all(permutation.mapping[i] == i for i in unmoved)


# Algorithm 4: phrase ---------------------------------------------------------------------------


def subtree(heads, top: int) -> set[int]:
    def ancestors(slot):
        while slot != -1:
            yield slot
            slot = heads[slot]

    return {slot for slot in range(len(heads)) if top in ancestors(slot)}


@PROPERTY
@given(st.data(), st.integers(1, 18), st.integers(0, 2**32))
def test_phrase_on_real_references(data, degree, seed):
    reference, hypothesis = data.draw(st.sampled_from(wmt_pairs()))
    permutation = one(reference, hypothesis, "phrase", degree, seed, wmt_truecaser())
    if permutation is None:
        return
    check_common(reference, permutation, degree)
    assert Counter(map(core, permutation.tokens)) == Counter(map(core, reference.words))
    slot_of_word = {word: slot for slot, word in enumerate(reference.slots)}
    moved = {slot_of_word[word] for word in permutation.moved}
    assert len(moved) == degree
    # Each moved slot belongs to the largest subtree above it made only of moved slots.
    phrases = []
    for slot in moved:
        assert subtree(reference.heads, slot) <= moved  # a word moves with all its dependents
        top = slot
        while (
            reference.heads[top] != -1 and subtree(reference.heads, reference.heads[top]) <= moved
        ):
            top = reference.heads[top]
        if subtree(reference.heads, top) not in phrases:
            phrases.append(subtree(reference.heads, top))
    assert sum(map(len, phrases)) == degree
    output = slot_arrangement(reference, permutation)
    for phrase in phrases:
        assert len(phrase) <= 9
        assert max(phrase) - min(phrase) + 1 == len(phrase)  # contiguous in the reference
        at = [output.index(slot) for slot in sorted(phrase)]
        assert at == list(range(at[0], at[0] + len(phrase)))  # … and intact in the output
    staying = [slot for slot in output if slot not in moved]
    assert staying == sorted(staying)


def test_phrase_degrees_that_no_set_of_subtrees_makes_yield_nothing():
    # A chain a <- b <- c <- d: subtrees are the suffixes {d}, {c d}, {b c d}; the whole
    # sentence cannot move. Only one phrase fits at a time, so degrees 1–3 exist, 4 does not.
    reference = hand_parsed("a b c d", heads=[-1, 0, 1, 2])
    results = generate_all(reference, None, 1, types=("phrase",), degrees=range(1, 5))
    assert [p.degree for p in results] == [1, 2, 3]
    for permutation in results:
        assert permutation.moved == tuple(range(4 - permutation.degree, 4))


def test_phrase_skips_a_degree_whose_only_phrases_have_nowhere_to_go():
    # b heads a and d, d heads c: the only three words that can move are a and "c d", which
    # leave no boundary but the end, where "c d" already is. No draw changes that.
    reference = hand_parsed("a b c d", heads=[1, -1, 3, 1])
    permuter = PhrasePermuter(reference, 18)
    assert [degree for degree in range(1, 4) if permuter.possible(degree)] == [1, 2]
    assert all(permuter.permute(3, RandomStream(bytes([seed]))) is None for seed in range(20))


def test_phrase_never_moves_a_discontinuous_subtree():
    # Non-projective: b (slot 1) heads e (slot 4), d (slot 3) heads b. Only the leaves c and e
    # are contiguous subtrees, so phrases of 1 and 2 words exist and nothing else.
    reference = hand_parsed("a b c d e", heads=[-1, 3, 0, 0, 1])
    results = generate_all(reference, None, 1, types=("phrase",), degrees=range(1, 5))
    assert [p.degree for p in results] == [1, 2]
    for permutation in results:
        assert set(permutation.moved) <= {2, 4}


# Algorithm 5: choice, and 'both' ---------------------------------------------------------------


def check_replacements(reference, hypothesis, permutation, degree, original_slot):
    replaced = [i for i, m in enumerate(permutation.mapping) if m == -1]
    assert len(replaced) == degree
    reference_forms = {c.casefold() for c in reference.cores}
    offered = {(c.casefold(), t) for c, t in zip(hypothesis.cores, hypothesis.tags, strict=True)}
    forms = [core(permutation.tokens[i]) for i in replaced]
    assert len(set(forms)) == degree  # never a word already in the output
    for i, form in zip(replaced, forms, strict=True):
        assert form not in reference_forms
        assert (form, reference.tags[original_slot(i)]) in offered


@PROPERTY
@given(st.data(), st.integers(1, 18), st.integers(0, 2**32))
def test_choice_on_real_references(data, degree, seed):
    reference, hypothesis = data.draw(st.sampled_from(wmt_pairs()))
    permutation = one(reference, hypothesis, "choice", degree, seed, wmt_truecaser())
    if permutation is None:
        return
    check_common(reference, permutation, degree)
    slot_of_word = {word: slot for slot, word in enumerate(reference.slots)}
    check_replacements(reference, hypothesis, permutation, degree, slot_of_word.__getitem__)
    assert sorted(permutation.moved) == [i for i, m in enumerate(permutation.mapping) if m == -1]
    assert all(m in (i, -1) for i, m in enumerate(permutation.mapping))  # nothing moves


@PROPERTY
@given(st.data(), st.integers(1, 18), st.integers(0, 2**32))
def test_both_on_real_references(data, degree, seed):
    reference, hypothesis = data.draw(st.sampled_from(wmt_pairs()))
    permutation = one(reference, hypothesis, "both", degree, seed, wmt_truecaser())
    if permutation is None:
        return
    check_common(reference, permutation, degree)
    # Replaced words may have moved since; they are still new and all different.
    forms = [core(permutation.tokens[i]) for i, m in enumerate(permutation.mapping) if m == -1]
    assert len(set(forms)) == len(forms) == degree
    assert not set(forms) & {c.casefold() for c in reference.cores}
    hypothesis_forms = {c.casefold() for c in hypothesis.cores}
    assert set(forms) <= hypothesis_forms


def test_choice_needs_a_hypothesis():
    reference, _ = table_6_1()
    assert generate_all(reference, None, 1, types=("choice", "both")) == []


def test_choice_produces_nothing_when_the_hypothesis_has_nothing_new():
    reference = hand_parsed("the cat sat", "DT NN VBD")
    hypothesis = hand_parsed("the cat sat down", "DT NN VBD RP")  # 'down': no RP to replace
    assert generate_all(reference, hypothesis, 1, types=("choice",)) == []


# Punctuation and truecasing (§6.2.3) -----------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "pieces"),
    [
        ("death,", ("", "death", ",")),
        ('"Hello', ('"', "Hello", "")),
        ("(U.S.)", ("(", "U.S", ".)")),  # an abbreviation's last dot counts as punctuation
        ("Bajgar.", ("", "Bajgar", ".")),
        ("she's", ("", "she's", "")),
        ("“Yes,”", ("“", "Yes", ",”")),
        ("–", ("–", "", "")),
    ],
)
def test_split_punctuation_uses_the_thesis_sets(word, pieces):
    assert split_punctuation(word) == pieces


def test_words_take_tag_and_head_from_their_tokens():
    reference, _ = table_6_1()
    assert reference.words[4] == "she's" and reference.cores[4] == "she's"
    assert reference.tags[4] == "VBZ"  # from "'s", the higher of its two tokens
    # "death," depends on "to", not on "adds" where the parser hung the comma.
    assert reference.words[reference.slots[reference.heads[13]]] == "to"


def test_a_lone_dash_never_moves():
    reference = hand_parsed("Paris - The cat sat .", "NNP : DT NN VBD .", [-1, 0, 3, 4, 0, 0])
    assert reference.slots == (0, 2, 3, 4)
    for permutation in generate_all(reference, None, 3, types=("order", "phrase")):
        assert permutation.tokens[1] == "-" and permutation.tokens[5] == "."


def test_a_backtick_quote_heading_a_word_stays_put_and_hands_its_word_on():
    # Backticks are thesis punctuation but a Unicode symbol; a parser may hang a word on them.
    reference = hand_parsed("He said `` hello", "PRP VBD `` UH", [-1, 0, 1, 2])
    assert reference.slots == (0, 1, 3)
    assert reference.heads == (-1, 0, 1)  # "hello" hangs on "said", the quote's own head
    for permutation in generate_all(reference, None, 3, types=("order", "swap", "phrase")):
        assert permutation.tokens[2] == "``"


def test_parse_must_spell_the_text():
    parse = Parse(("a", "b"), ("X", "X"), ("X", "X"), (-1, 0), ("dep", "dep"))
    with pytest.raises(ValueError, match="do not spell"):
        Sentence.from_parse(parse, "a c")


def test_truecasing_counts_ignore_sentence_starts():
    truecaser = Truecaser.from_corpus(
        [
            ["The", "Cook", "Islands", "met", "Cook", "."],
            ['"At', "the", "cook's", "party", ",", "Cook", "said", "."],
            ["At", "noon", "At", "least", "one", "cook", "came", "at", "one", "."],
            ["Usurper", "is", "a", "word", "."],
        ]
    )
    assert truecaser.case("cook") == "Cook"  # 3 capitalised, 1 not: at least twice as often
    assert truecaser.case("At") == "at"  # 1 capitalised (mid-sentence), 1 not: not twice
    assert truecaser.case("at") == "at"
    assert truecaser.case("Usurper") == "Usurper"  # only seen starting a sentence: unchanged
    assert truecaser.case("usurper") == "usurper"
    assert truecaser.case("the") == "the" and truecaser.case("The") == "the"


def test_truecasing_twice_as_often_is_enough():
    truecaser = Truecaser.from_corpus([["x", "Bank", "Bank", "bank"], ["x", "Rose", "rose"]])
    assert truecaser.case("bank") == "Bank"
    assert truecaser.case("Rose") == "rose"


# Table 6.1 -------------------------------------------------------------------------------------

# The thesis's reference corpora had 'Cook' mostly as a proper noun (§6.2.3, Table 6.1 note).
TABLE_CASING = Truecaser({"cook": (10, 2), "at": (1, 500), "usurper": (0, 3), "to": (0, 900)})


def table_renderer():
    reference = hand_parsed(REFERENCE)  # slots are the 16 words; no word is punctuation alone
    return reference, Renderer(reference, TABLE_CASING)


def test_table_6_1_row_1_order_1():
    reference, renderer = table_renderer()
    arrangement = list(range(16))
    arrangement[3:5] = [4, 3]  # 'time' moved one place right
    edit = Edit(tuple(arrangement), (3,))
    expected = "At the same she's time a usurper and wants to Cook him to death, adds Bajgar."
    assert renderer.text(edit) == expected


def test_table_6_1_row_4_swap_2():
    reference, renderer = table_renderer()
    arrangement = list(range(16))
    arrangement[10], arrangement[13] = 13, 10  # cook <-> death; the comma stays in place
    edit = Edit(tuple(arrangement), (10, 13))
    expected = "At the same time she's a usurper and wants to death him to Cook, adds Bajgar."
    assert renderer.text(edit) == expected
    assert renderer.mapping(edit)[10] == 13 and renderer.mapping(edit)[13] == 10


def test_table_6_1_row_5_phrase_3():
    reference, renderer = table_renderer()
    arrangement = [0, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 11, 12, 13, 14, 15]
    edit = Edit(tuple(arrangement), (1, 2, 3))  # "the same time" moved before "him"
    expected = "At she's a usurper and wants to Cook the same time him to death, adds Bajgar."
    assert renderer.text(edit) == expected


def test_table_6_1_row_7_choice():
    # Row 7 is printed as degree 3 but differs from the reference in five words (At, time,
    # she's, a, him); three of its replacements reproduce here.
    reference, renderer = table_renderer()
    replacements = {0: "of", 3: "husband", 11: "he"}
    edit = Edit(tuple(range(16)), (0, 3, 11), replacements)
    expected = "Of the same husband she's a usurper and wants to Cook he to death, adds Bajgar."
    assert renderer.text(edit) == expected
    assert [m for m in renderer.mapping(edit) if m == -1] == [-1, -1, -1]


def test_table_6_1_row_3_shape_order_15():
    # "Usurper Bajgar time to adds death to same and the at a him she's wants Cook."
    reference, hypothesis = table_6_1()
    results = generate_all(reference, hypothesis, 7, types=("order",), truecaser=TABLE_CASING)
    assert [p.degree for p in results] == list(range(1, 16))  # 16 words: order 15 is the last
    tokens = results[-1].tokens
    assert tokens[0][0].isupper() and tokens[-1].endswith(".")
    assert tokens[13].endswith(",")  # the thesis lost this comma; positions keep it here
    assert all(split_punctuation(t)[1] == "at" for t in tokens[1:] if core(t) == "at")
    assert any(t.rstrip(",.") == "Cook" for t in tokens)


def test_table_6_1_shapes_exist_for_every_type():
    reference, hypothesis = table_6_1()
    results = generate_all(reference, hypothesis, 7, types=MAIN_TYPES, truecaser=TABLE_CASING)
    shapes = {(p.perm_type, p.degree) for p in results}
    assert {("order", 1), ("order", 5), ("order", 15), ("swap", 2)} <= shapes
    assert {("phrase", 3), ("phrase", 7), ("choice", 3)} <= shapes
    for permutation in results:
        check_common(reference, permutation, permutation.degree)
        assert permutation.tokens[-1].endswith(".") and permutation.tokens[13].endswith(",")


# The thesis's punctuation edge cases (§6.2.3, §7.3.2) ------------------------------------------


def test_no_and_lot_swap_their_full_stop():
    # "No." and "lot" swapped become "lot." and "No": the full stop belongs to the position.
    reference = hand_parsed("It was No. 1 on the lot today")
    arrangement = list(range(8))
    arrangement[2], arrangement[6] = 6, 2
    tokens = Renderer(reference).text(Edit(tuple(arrangement), (2, 6))).split()
    assert tokens[2] == "lot." and tokens[6] == "No"


def test_abbreviation_swap_changes_the_token_count():
    # A tokeniser keeps an abbreviation's dot ("Mr.") but splits it from an ordinary word
    # ("lot."), so re-parsing a swap finds a different number of tokens (§7.3.2).
    text = "Ask Mr. Brown about the lot today."
    reference = hand_parsed(text)
    arrangement = list(range(7))
    arrangement[1], arrangement[5] = 5, 1
    output = Renderer(reference).text(Edit(tuple(arrangement), (1, 5)))
    assert output == "Ask lot. Brown about the Mr today."
    before, after = parse_texts([text, output])
    assert len(after) == len(before) + 1


def test_quotes_stay_in_place_and_dress_the_word_that_lands_there():
    reference = hand_parsed('He called it "madness" and left.')
    edit = Edit((0, 1, 2, 4, 5, 3), (3,))  # 'madness' two places right
    assert Renderer(reference).text(edit) == 'He called it "and" left madness.'


def test_a_moved_word_breaks_up_a_quotation():
    reference = hand_parsed('"Stop it," he said.')
    edit = Edit((1, 2, 0, 3), (0,))  # 'Stop' two places right
    renderer = Renderer(reference, Truecaser({"stop": (0, 5)}))
    assert renderer.text(edit) == '"It he," stop said.'


def test_choice_overwrites_the_punctuation_of_the_hypothesis_word():
    # Algorithm 5, line 9: punctuation(w') <- punctuation(w); the hypothesis's quotes are lost.
    reference = hand_parsed("He wants to cook it.", "PRP VBZ TO VB PRP")
    hypothesis = hand_parsed('He wants to "take" it.', "PRP VBZ TO VB PRP")
    (permutation,) = generate_all(reference, hypothesis, 1, types=("choice",), degrees=[1])
    assert permutation.text == "He wants to take it."
    assert permutation.mapping == (0, 1, 2, -1, 4)


# Determinism, degrees, quality -----------------------------------------------------------------


def test_quality_is_eq_6_2():
    assert quality(1) == 1.0
    assert quality(18) == 0.0
    assert quality(10) == pytest.approx(1 - 9 / 17)
    assert quality(3, max_degree=5) == 0.5


def test_degrees_are_configurable():
    reference, hypothesis = table_6_1()
    results = generate_all(reference, hypothesis, 3, degrees=range(1, 6))
    assert {p.degree for p in results} <= set(range(1, 6))
    assert min(p.quality for p in results) == 0.0  # eq. 6.2's maximum is now 5


def test_a_short_sentence_yields_nothing():
    reference = hand_parsed("Yes.")
    assert generate_all(reference, reference, 1, types=PERMUTATION_TYPES) == []


def test_choice_replaces_the_only_word_of_a_one_word_reference():
    reference, hypothesis = hand_parsed("Yes.", "UH"), hand_parsed("sure", "UH")
    (permutation,) = generate_all(reference, hypothesis, 1, types=("choice",), degrees=[1])
    assert (permutation.text, permutation.mapping, permutation.moved) == ("Sure.", (-1,), (0,))


def test_choice_maps_around_a_word_made_of_punctuation():
    reference = hand_parsed("Paris - the cat sat .", "NNP : DT NN VBD .")
    hypothesis = hand_parsed("London", "NNP")
    (permutation,) = generate_all(reference, hypothesis, 1, types=("choice",), degrees=[1])
    assert permutation.text == "London - the cat sat ."
    assert permutation.mapping == (-1, 1, 2, 3, 4, 5) and permutation.moved == (0,)


def test_unknown_type_is_an_error():
    reference, hypothesis = table_6_1()
    with pytest.raises(ValueError, match="unknown permutation type"):
        generate_all(reference, hypothesis, 1, types=("shuffle",))


def test_same_inputs_same_outputs_and_seeds_matter():
    reference, hypothesis = table_6_1()
    first = generate_all(reference, hypothesis, 11, types=PERMUTATION_TYPES)
    assert generate_all(reference, hypothesis, 11, types=PERMUTATION_TYPES) == first
    other = generate_all(reference, hypothesis, 12, types=PERMUTATION_TYPES)
    assert [p.text for p in other] != [p.text for p in first]
    # A degree's output does not depend on which other degrees or types were generated.
    alone = generate_all(reference, hypothesis, 11, types=("phrase",), degrees=[7], max_degree=18)
    assert alone == [p for p in first if (p.perm_type, p.degree) == ("phrase", 7)]


SCRIPT = """
import json, sys
from wojdb.core.language.nlp import Parse
from wojdb.core.permutations import Sentence, generate_all
out = []
for ref, ref_parse, hyp, hyp_parse in json.load(sys.stdin):
    r = Sentence.from_parse(Parse.from_dict(ref_parse), ref)
    h = Sentence.from_parse(Parse.from_dict(hyp_parse), hyp)
    out += [p.text for p in generate_all(r, h, 5, types=("order", "swap", "phrase", "choice"))]
print(json.dumps(out))
"""


def test_outputs_do_not_depend_on_the_process_or_its_hash_seed():
    pairs = wmt_pairs()[:10]
    parses = list(parse_texts([t for r, h in pairs for t in (r.text, h.text)]))
    payload = json.dumps(
        [
            [r.text, parses[2 * i].to_dict(), h.text, parses[2 * i + 1].to_dict()]
            for i, (r, h) in enumerate(pairs)
        ]
    )
    expected = [p.text for r, h in pairs for p in generate_all(r, h, 5)]
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(REPO)}
        result = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            input=payload,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        )
        assert json.loads(result.stdout) == expected


def test_generate_many_is_the_same_on_one_or_two_processes():
    texts = [(r.text, h.text) for r, h in wmt_pairs()[:12]]
    parses = list(parse_texts([t for pair in texts for t in pair]))
    pairs = [SentencePair(r, parses[2 * i], h, parses[2 * i + 1]) for i, (r, h) in enumerate(texts)]
    ticks = []
    serial = list(generate_many(pairs, 9, jobs=1, progress=ticks.append))
    parallel = list(generate_many(pairs, 9, jobs=2, truecaser=None, chunksize=2))
    assert parallel == serial
    assert ticks == [1] * len(pairs)
    reference, hypothesis = pairs[3].sentences()
    assert serial[3] == generate_all(reference, hypothesis, 9)


def test_generate_many_rejects_unknown_types():
    with pytest.raises(ValueError, match="unknown permutation types"):
        list(generate_many([], 1, types=("order", "shuffle")))


def test_random_stream_words_are_pinned_across_a_block_boundary():
    stream = RandomStream(b"WOJ-DB")
    words = [stream.next() for _ in range(40)]
    assert (words[0], words[31], words[32], words[39]) == (
        890610398553075075,
        13894428600524779944,
        10328074699374302265,
        5964142512465391420,
    )


def test_a_random_stream_is_freed_as_soon_as_it_is_dropped():
    class Watched(RandomStream):
        __slots__ = ("__weakref__",)

    stream = Watched(b"WOJ-DB")
    [stream.next() for _ in range(40)]  # into the second block
    dropped = weakref.ref(stream)
    gc.disable()  # only its reference count may free it, not a collection of cycles
    try:
        del stream
        assert dropped() is None
    finally:
        gc.enable()


def test_generating_makes_no_cyclic_garbage_so_pausing_the_collector_loses_nothing():
    texts = [(reference.text, hypothesis.text) for reference, hypothesis in wmt_pairs()]
    parses = list(parse_texts([text for pair in texts for text in pair]))
    pairs = [SentencePair(r, parses[2 * i], h, parses[2 * i + 1]) for i, (r, h) in enumerate(texts)]
    gc.unfreeze()  # what Django's start-up froze (survey.apps), which generating unfreezes too
    gc.collect()
    gc.disable()
    try:
        # Parsing into sentences and each type's path through the algorithms run; a cycle
        # in any of them would be found.
        generated = list(generate_many(pairs, 4, types=PERMUTATION_TYPES, jobs=1))
        assert {p.perm_type for permutations in generated for p in permutations} == set(
            PERMUTATION_TYPES
        )
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_generate_many_leaves_nothing_frozen_out_of_garbage_collection():
    pairs = [SentencePair(REFERENCE, next(parse_texts([REFERENCE])))] * 3
    before = gc.get_freeze_count()  # Django's start-up objects, when it has set up (survey.apps)
    generated = generate_many(pairs, 1, jobs=1)
    next(generated)
    assert gc.get_freeze_count() > before  # the permutations kept so far are out of its passes
    assert len(list(generated)) == 2
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()


def test_outputs_are_pinned():
    """Every field of every type's output for one hand-parsed pair, as a digest, so a change
    made for speed cannot alter permutations without VERSION being bumped."""
    reference = hand_parsed(
        '"The old man saw the dog and the cat near the river — then he said: '
        'the dog, the cat and I will walk home today."',
        "DT JJ NN VBD DT NN CC DT NN IN DT NN : RB PRP VBD DT NN DT NN CC PRP MD VB NN NN",
        [2, 2, 3, -1, 5, 3, 5, 8, 5, 3, 11, 9, 3, 15, 15, 3, 17, 22, 19, 17, 19, 23, 23, 15]
        + [23, 23],
    )
    hypothesis = hand_parsed(
        "An elderly man watched a puppy and some kitten by the stream, and then spoke.",
        "DT JJ NN VBD DT NN CC DT NN IN DT NN CC RB VBD",
        [2, 2, 3, -1, 5, 3, 5, 8, 5, 3, 11, 9, 14, 14, 3],
    )
    truecaser = Truecaser({"river": (3, 1), "dog": (0, 5)})
    permutations = generate_all(
        reference, hypothesis, 3, types=PERMUTATION_TYPES, truecaser=truecaser
    )
    assert {p.perm_type for p in permutations} == set(PERMUTATION_TYPES)
    rows = [(p.perm_type, p.degree, p.text, p.moved, p.mapping, p.quality) for p in permutations]
    digest = hashlib.sha256(json.dumps(rows).encode()).hexdigest()
    assert (len(rows), digest) == (
        62,
        "63686b011d8b4c9950be78995a6b27be92bad46c02260f99d3c34fce22247c20",
    )
