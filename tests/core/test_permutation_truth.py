"""The truth about out-of-place words: what each permutation displaced, a smallest set of moves
that restores the reference, and crossing alignment links."""

from itertools import combinations, pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wojdb.core.language.nlp import Parse
from wojdb.core.metrics.alignment import WordAlignment
from wojdb.core.permutations import MAX_DEGREE, Renderer, Sentence, generate_all
from wojdb.core.permutations.algorithms import Edit
from wojdb.core.permutations.sentence import align_words
from wojdb.core.permutations.truth import (
    crossing_words,
    displaced,
    fixed_words,
    minimal_moves,
    restore,
)
from wojdb.core.vocabulary import PERMUTATION_TYPES

PROPERTY = settings(max_examples=60, deadline=None)

# Table 6.1's reference (thesis §6.2.3): 16 words, none of them punctuation alone.
REFERENCE = "At the same time she's a usurper and wants to cook him to death, adds Bajgar."


def hand_parsed(words, tags, heads) -> Sentence:
    parse = Parse(tuple(words), tuple(tags), tuple(tags), tuple(heads), ("dep",) * len(words))
    return Sentence.from_parse(parse, " ".join(words))


@st.composite
def sentences(draw, vocabulary=("a", "b", "c", "d", "e", "f", "g", "h", "k", "m")):
    """A sentence of distinct-ish words, some with punctuation and some a lone dash, with few
    tags (so swaps and choices find partners) and a random dependency tree."""
    n = draw(st.integers(2, 11))
    words = [
        draw(st.sampled_from(vocabulary)) + draw(st.sampled_from(["", "", ","])) for _ in range(n)
    ]
    for i in draw(st.sets(st.integers(1, n - 1), max_size=2)):
        words[i] = "-"
    tags = [draw(st.sampled_from("NV")) for _ in range(n)]
    # A random tree: each word in a random order hangs from one placed before it.
    order = draw(st.permutations(range(n)))
    heads = [-1] * n
    for k, word in enumerate(order[1:], start=1):
        heads[word] = order[draw(st.integers(0, k - 1))]
    return words, tags, heads


def all_permutations(reference, hypothesis, seed):
    return generate_all(
        hand_parsed(*reference),
        hand_parsed(*hypothesis),
        seed,
        types=PERMUTATION_TYPES,
        degrees=range(1, MAX_DEGREE + 1),
    )


def restores(order, positions, fixed) -> bool:
    try:
        return restore(order, positions, fixed) == list(range(len(order)))
    except ValueError:
        return False


@PROPERTY
@given(sentences(), sentences(), st.integers(0, 2**32))
def test_putting_back_the_displaced_words_restores_the_reference(reference, hypothesis, seed):
    permutations = all_permutations(reference, hypothesis, seed)
    for p in permutations:
        fixed = fixed_words(p.tokens)
        shown = displaced(p.mapping, p.moved)
        assert restores(p.mapping, shown, fixed), (p.perm_type, p.degree, p.mapping, shown)
        assert not fixed & set(shown)
        # as many words as the algorithm says it touches
        if p.perm_type in ("order", "swap", "choice"):
            assert len(shown) == p.degree
        if p.perm_type != "phrase":  # a phrase move touches whole phrases
            assert len(shown) <= 2 * p.degree


@PROPERTY
@given(sentences(), sentences(), st.integers(0, 2**32))
def test_the_minimal_set_restores_the_reference_and_nothing_smaller_does(
    reference, hypothesis, seed
):
    for p in all_permutations(reference, hypothesis, seed):
        fixed = fixed_words(p.tokens)
        minimal = minimal_moves(p.mapping, fixed)
        assert restores(p.mapping, minimal, fixed)
        assert len(minimal) <= len(displaced(p.mapping, p.moved))
        open_positions = [i for i in range(len(p.mapping)) if i not in fixed]
        if len(open_positions) <= 9 and minimal:
            assert not any(
                restores(p.mapping, fewer, fixed)
                for fewer in combinations(open_positions, len(minimal) - 1)
            )


@given(st.lists(st.integers(-1, 30), max_size=9), st.data())
def test_minimal_moves_leaves_the_longest_increasing_run(order, data):
    fixed = data.draw(st.sets(st.sampled_from(range(len(order))), max_size=2)) if order else set()
    minimal = minimal_moves(order, fixed)
    staying = [order[i] for i in range(len(order)) if i not in minimal and i not in fixed]
    assert all(a < b for a, b in pairwise(staying)) and -1 not in staying
    # brute force: no longer strictly increasing run of non-replaced, movable values exists
    values = [order[i] for i in range(len(order)) if i not in fixed and order[i] != -1]
    longest = max(
        (
            k
            for k in range(len(values) + 1)
            for run in combinations(values, k)
            if sorted(set(run)) == list(run)
        ),
        default=0,
    )
    assert len(staying) == longest


# Worked examples -------------------------------------------------------------------------------


def table_truth(arrangement, moved, replacements=None):
    reference = hand_parsed(REFERENCE.split(), ["X"] * 16, [-1] + [0] * 15)
    renderer = Renderer(reference)
    edit = Edit(tuple(arrangement), tuple(moved), replacements or {})
    mapping = renderer.mapping(edit)
    fixed = fixed_words(renderer.text(edit).split())
    return displaced(mapping, moved), minimal_moves(mapping, fixed), mapping


def test_table_6_1_swap_2_displaces_exactly_the_two_words():
    # "At the same time she's a usurper and wants to death him to Cook, adds Bajgar."
    arrangement = list(range(16))
    arrangement[10], arrangement[13] = 13, 10
    shown, minimal, mapping = table_truth(arrangement, (10, 13))
    assert shown == (10, 13) and minimal == (10, 13)
    assert restore(mapping, shown) == list(range(16))
    assert restore(mapping, minimal) == list(range(16))


def test_table_6_1_phrase_3_displaces_the_phrase():
    # "At she's a usurper and wants to Cook the same time him to death, adds Bajgar."
    arrangement = [0, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3, 11, 12, 13, 14, 15]
    shown, minimal, _ = table_truth(arrangement, (1, 2, 3))
    assert shown == (8, 9, 10) == minimal  # "the same time", now at positions 8-10


def test_table_6_1_order_1_one_word_moved_either_neighbour_restores():
    # "At the same she's time a usurper …": 'time' moved one place right
    arrangement = list(range(16))
    arrangement[3:5] = [4, 3]
    shown, minimal, mapping = table_truth(arrangement, (3,))
    assert shown == (4,)  # where 'time' now stands
    assert len(minimal) == 1 and minimal[0] in (3, 4)
    with pytest.raises(ValueError, match="not in the reference's order"):
        restore(mapping, ())


def test_table_6_1_choice_displaces_the_replaced_words():
    # "Of the same husband she's a usurper and wants to Cook he to death, adds Bajgar."
    replacements = {0: "of", 3: "husband", 11: "he"}
    shown, minimal, mapping = table_truth(range(16), (0, 3, 11), replacements)
    assert shown == minimal == (0, 3, 11)
    assert restore(mapping, shown) == list(range(16))


def test_order_can_displace_more_words_than_a_smallest_restoring_set():
    # Algorithm 3 on 'a b c' at degree 2: 'a' moves two places right (b c a), then 'c' one
    # place right (b a c). Two words moved; moving 'a' alone undoes both.
    words = ["a", "b", "c"]
    renderer = Renderer(hand_parsed(words, "XXX", [-1, 0, 0]))
    edit = Edit((1, 0, 2), (0, 2))
    mapping = renderer.mapping(edit)
    assert renderer.text(edit) == "b a c"
    assert displaced(mapping, edit.moved) == (1, 2)
    assert len(minimal_moves(mapping)) == 1  # putting 'a' (or 'b') back is enough


def test_a_lone_dash_stays_and_the_words_close_up_around_it():
    # 'a - b c' with 'a' moved two slots right: 'b - c a'; the dash never moves.
    renderer = Renderer(hand_parsed(["a", "-", "b", "c"], "XXXX", [-1, 0, 0, 0]))
    edit = Edit((1, 2, 0), (0,))  # slots: a b c -> b c a
    mapping = renderer.mapping(edit)
    assert renderer.text(edit) == "b - c a" and mapping == (2, 1, 3, 0)
    fixed = fixed_words(["b", "-", "c", "a"])
    assert fixed == {1}
    assert displaced(mapping, edit.moved) == (3,) == minimal_moves(mapping, fixed)
    assert restore(mapping, (3,), fixed) == [0, 1, 2, 3]
    assert minimal_moves(mapping) == (0, 3)  # were the dash a word that moves


# Crossing alignment links ----------------------------------------------------------------------


def crossing_by_definition(links):
    return sorted({h for h, r in links for h2, r2 in links if (h - h2) * (r - r2) < 0})


def test_crossing_words_worked_example():
    # "she a usurper is" against "she is a usurper": 'is' crosses 'a' and 'usurper'.
    alignment = WordAlignment(((0, 0), (1, 2), (2, 3), (3, 1)), 4, 4)
    assert crossing_words(alignment) == (1, 2, 3)
    # one hypothesis word linked to two reference words crosses nothing by itself
    assert crossing_words(WordAlignment(((0, 0), (0, 2), (1, 3)), 2, 4)) == ()


def test_crossing_words_by_whitespace_word():
    words, tokens = ["death,", "him", "cook"], ["death", ",", "him", "cook"]
    # tokens 0-1 ("death" ",") link after "him", so word 0 crosses word 1; 'cook' is in order
    alignment = WordAlignment(((0, 3), (1, 4), (2, 2), (3, 5)), 4, 6)
    assert crossing_words(alignment) == (0, 1, 2)
    assert crossing_words(alignment, align_words(words, tokens)) == (0, 1)


@given(st.sets(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=20))
def test_crossing_words_match_the_definition(links):
    alignment = WordAlignment(tuple(links), 8, 8)
    assert list(crossing_words(alignment)) == crossing_by_definition(links)
