"""The monolingual aligner, `i-j` files and the permutation an alignment induces."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wojdb.core.metrics.alignment import (
    DEFAULT_STAGES,
    EXACT,
    STEM,
    AlignmentFormatError,
    Stage,
    WordAlignment,
    align,
    aligner_name,
    alignment_from_word_mapping,
    alignment_permutation,
    format_links,
    parse_links,
    read_alignments,
    write_alignments,
)

HYP = ["the", "mat", "had", "sat", "on", "the", "cat"]
REF = ["cats", "had", "sat", "on", "a", "mat"]


def test_aligner_reproduces_the_thesis_running_example():
    # Thesis §3.5.1, Alignment 1: (cat, cats), (had, had), (sat, sat), (on, on), (mat, mat);
    # the 1-based pairs 7-1 3-2 4-3 5-4 2-6 are 0-based 6-0 2-1 3-2 4-3 1-5.
    alignment = align(HYP, REF)
    assert set(alignment.links) == {(6, 0), (2, 1), (3, 2), (4, 3), (1, 5)}
    assert alignment.aligner == "woj-monolingual/exact+stem"


def test_exact_matching_ignores_case_and_comes_before_stems():
    alignment = align(["Walked", "walks"], ["walking", "walked"])
    # "Walked" takes the exact "walked" although "walking" shares its stem and sits closer.
    assert set(alignment.links) == {(0, 1), (1, 0)}


def test_repeated_words_are_linked_by_relative_position():
    hyp = ["the", "cat", "saw", "the", "dog", "and", "the", "bird"]
    ref = ["the", "dog", "saw", "the", "cat", "and", "the", "bird"]
    links = set(align(hyp, ref).links)
    assert {(0, 0), (3, 3), (6, 6)} <= links  # each "the" to the one at the same place
    assert {(1, 4), (4, 1)} <= links


def test_repeated_words_in_sentences_of_different_lengths():
    hyp = ["a", "b", "a"]
    ref = ["x", "x", "x", "a", "x", "x", "x", "x", "x", "a"]
    # Relative positions: hyp 1/6 and 5/6; ref 3.5/10 and 9.5/10: first to first, last to last.
    assert set(align(hyp, ref).links) == {(0, 3), (2, 9)}


def test_links_are_one_to_one_and_as_many_as_possible():
    # A synonym-like stage where "x" matches both "p" and "q" but "y" matches only "p": the
    # largest matching links x-q and y-p although x sits nearer to p.
    keys = {"x": {"k1", "k2"}, "y": {"k1"}, "p": {"k1"}, "q": {"k2"}}
    stage = Stage("test", lambda word: frozenset(keys[word]))
    alignment = align(["x", "y"], ["p", "q"], [stage])
    assert set(alignment.links) == {(0, 1), (1, 0)}
    assert alignment.aligner == "woj-monolingual/test"


def test_default_stages_and_name():
    assert DEFAULT_STAGES == (EXACT, STEM)
    assert aligner_name(DEFAULT_STAGES) == "woj-monolingual/exact+stem"
    assert align([], ["a"]).links == ()


def test_alignment_validates_links():
    with pytest.raises(ValueError, match="outside"):
        WordAlignment(((0, 3),), 2, 3)
    with pytest.raises(ValueError, match="twice"):
        WordAlignment(((0, 1), (0, 1)), 2, 3)
    assert WordAlignment(((1, 0), (0, 2)), 2, 3).links == ((0, 2), (1, 0))


def test_from_mapping_of_a_permuted_reference():
    alignment = WordAlignment.from_mapping([2, 0, 1])
    assert alignment.links == ((0, 2), (1, 0), (2, 1))
    assert alignment.aligner == "permutation-mapping"
    assert alignment_permutation(alignment) == (3, 1, 2)


# --- i-j files ---------------------------------------------------------------------------------


def test_parse_links_variants():
    assert parse_links("0-1 2-0", 3, 2).links == ((0, 1), (2, 0))
    assert parse_links("1-2 3-1", 3, 2, one_based=True).links == ((0, 1), (2, 0))
    assert parse_links("1-0 0-2", 3, 2, ref_first=True).links == ((0, 1), (2, 0))
    assert parse_links("  \n", 3, 2).links == ()
    assert parse_links("0-0", 1, 1, aligner="fast_align").aligner == "fast_align"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0-1 2:0", "line 4: '2:0' is not a link of the form i-j"),
        ("0-1 5-0", "line 4: '5-0': hypothesis index out of range for 3 words"),
        ("0-2", "line 4: '0-2': reference index out of range for 2 words"),
        ("0-1 0-1", "line 4: '0-1' is listed twice"),
        ("0--1", "line 4: '0--1' is not a link"),
    ],
)
def test_parse_links_errors_name_the_line(text, message):
    with pytest.raises(AlignmentFormatError, match=message) as error:
        parse_links(text, 3, 2, line=4)
    assert error.value.line == 4


def test_one_based_zero_is_out_of_range():
    with pytest.raises(AlignmentFormatError, match="line 1: '0-1': hypothesis index"):
        parse_links("0-1", 3, 2, one_based=True)


def test_read_alignments_checks_the_number_of_lines():
    lengths = [(2, 2), (3, 1)]
    read = read_alignments(["0-0 1-1\n", "2-0\n"], lengths, aligner="giza++")
    assert [a.links for a in read] == [((0, 0), (1, 1)), ((2, 0),)]
    assert {a.aligner for a in read} == {"giza++"}
    with pytest.raises(AlignmentFormatError, match="line 2: missing: 2 sentence pairs"):
        read_alignments(["0-0"], lengths)
    with pytest.raises(AlignmentFormatError, match="line 3: only 2 sentence pairs"):
        read_alignments(["0-0", "", "0-0"], lengths)
    with pytest.raises(AlignmentFormatError, match="line 2: '3-0'"):
        read_alignments(["0-0", "3-0"], lengths)


@st.composite
def alignments(draw):
    hyp_len = draw(st.integers(1, 12))
    ref_len = draw(st.integers(1, 12))
    pairs = st.tuples(st.integers(0, hyp_len - 1), st.integers(0, ref_len - 1))
    links = draw(st.sets(pairs, max_size=20))
    return WordAlignment(tuple(links), hyp_len, ref_len)


@settings(max_examples=60, deadline=None)
@given(st.lists(alignments(), min_size=1, max_size=4), st.booleans())
def test_write_then_read_is_the_identity(written, one_based):
    text = write_alignments(written, one_based=one_based)
    lengths = [(a.hyp_len, a.ref_len) for a in written]
    assert read_alignments(text.splitlines(), lengths, one_based=one_based) == written


def test_format_links():
    alignment = WordAlignment(((0, 1), (2, 0)), 3, 2)
    assert format_links(alignment) == "0-1 2-0"
    assert format_links(alignment, one_based=True) == "1-2 3-1"


# --- alignment -> permutation ------------------------------------------------------------------


def test_permutation_ignores_and_normalises_unaligned_words():
    # Metrics spec §3.1: reference indices [2,1,5,6] in system order, 0, 3, 4 unaligned ->
    # [1,0,2,3] (0-based) = (2,1,3,4).
    alignment = WordAlignment(((0, 2), (1, 1), (3, 5), (4, 6)), 5, 7)
    assert alignment_permutation(alignment) == (2, 1, 3, 4)


def test_permutation_of_one_to_many_and_many_to_one_links():
    # A hypothesis word linked to reference words 3 and 1 contributes them in ascending order;
    # reference word 0, linked from hypothesis words 1 and 2, keeps its first link.
    alignment = WordAlignment(((0, 3), (0, 1), (1, 0), (2, 0), (2, 2)), 3, 4)
    assert alignment_permutation(alignment) == (2, 4, 1, 3)
    assert alignment_permutation(WordAlignment((), 2, 2)) == ()


def test_permutation_of_the_running_example():
    # hyp order: mat(ref 6) had(2) sat(3) on(4) cat(1)
    assert alignment_permutation(align(HYP, REF)) == (5, 2, 3, 4, 1)


# --- permuted references -----------------------------------------------------------------------


def test_word_mapping_of_a_swap_keeps_punctuation_in_place():
    # "The cat sat on the mat." with cat and mat exchanged: the full stop stays at the end.
    ref_words, ref_tokens = ["The", "cat", "sat", "on", "the", "mat."], ["The", "cat", "sat"]
    ref_tokens += ["on", "the", "mat", "."]
    hyp_words = ["The", "mat", "sat", "on", "the", "cat."]
    hyp_tokens = ["The", "mat", "sat", "on", "the", "cat", "."]
    alignment = alignment_from_word_mapping(
        hyp_words, hyp_tokens, ref_words, ref_tokens, [0, 5, 2, 3, 4, 1]
    )
    assert alignment.links == ((0, 0), (1, 5), (2, 2), (3, 3), (4, 4), (5, 1), (6, 6))
    assert alignment.aligner == "permutation-mapping"


def test_word_mapping_with_recased_multi_token_and_new_words():
    # "Don't" moved away from the start is recased; "quickly" replaced a reference word.
    ref_words, ref_tokens = ["Don't", "stop", "now"], ["Do", "n't", "stop", "now"]
    hyp_words, hyp_tokens = ["Now", "don't", "quickly"], ["Now", "do", "n't", "quickly"]
    alignment = alignment_from_word_mapping(
        hyp_words, hyp_tokens, ref_words, ref_tokens, [2, 0, -1]
    )
    assert alignment.links == ((0, 3), (1, 0), (2, 1))


def test_word_mapping_rejects_tokens_that_do_not_spell_the_words():
    with pytest.raises(ValueError, match="do not spell"):
        alignment_from_word_mapping(["ab"], ["a", "c"], ["ab"], ["ab"], [0])
