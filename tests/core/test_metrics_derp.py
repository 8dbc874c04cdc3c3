"""DERP against the thesis's worked example (§5.6.2, Table 5.1), the flattened closed form, and
a direct implementation of its definitions on random trees."""

import itertools
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from tests.core.test_metrics_ted import trees
from wojdb.core.language.nlp import read_conllu
from wojdb.core.metrics.alignment import WordAlignment, read_alignments
from wojdb.core.metrics.derp import (
    counterparts,
    derp,
    flattened_derp,
    flattened_edges,
    spanning_tree,
    structured_edges,
)
from wojdb.core.metrics.ted import flattened

DATA = Path(__file__).parents[1] / "analysis" / "data"
REF_WORDS = ["the", "detective", "is", "becoming", "a", "Sherlock"]

ALPHA, BETA = "α", "β"


class PathEncoding(NamedTuple):
    up: tuple[str, ...]  # χ
    direction: str  # ψ
    down: tuple[str, ...]  # ω


def path_encoding(heads, labels, n, m) -> PathEncoding:
    """The encoding (χ, ψ, ω) of the dependency path from word n to word m (§5.3.1), by its
    definition: labels climbing to the lowest common ancestor, then descending."""

    def chain(node):
        nodes = [node]
        while nodes[-1] != -1:  # −1 is the virtual root above every sentence root
            nodes.append(heads[nodes[-1]])
        return nodes

    above_n, above_m = chain(n), chain(m)
    common = next(node for node in above_n if node in above_m)
    up = tuple(labels[node] for node in above_n[: above_n.index(common)])
    down = tuple(labels[node] for node in above_m[: above_m.index(common)])[::-1]
    return PathEncoding(up, ALPHA if n < m else BETA, down)


def path_disparity(first: PathEncoding, second: PathEncoding) -> tuple[int, int]:
    """(L, L_max) of Eqs. 5.3 and 5.4: the components are compared separately."""
    disparity = (
        Levenshtein.distance(first.up, second.up)
        + (first.direction != second.direction)
        + Levenshtein.distance(first.down, second.down)
    )
    longest = max(len(first.up), len(second.up)) + 1 + max(len(first.down), len(second.down))
    return disparity, longest


def reference_derp(hyp_heads, hyp_labels, ref_heads, ref_labels, alignment) -> float:
    """Structured DERP from the definitions: every path encoded as strings, Eq. 5.6 edges,
    Kruskal over the sorted edge tuples."""
    mapping = counterparts(alignment)
    words = sorted(mapping)
    edges = []
    for n, m in itertools.combinations(words, 2):
        if mapping[n] == mapping[m]:
            edges.append((0, 0, n, m))
        else:
            ref_path = path_encoding(ref_heads, ref_labels, n, m)
            hyp_path = path_encoding(hyp_heads, hyp_labels, mapping[n], mapping[m])
            edges.append((*path_disparity(ref_path, hyp_path), n, m))
    group = {word: {word} for word in words}
    tree = []
    for edge in sorted(edges):
        a, b = group[edge[2]], group[edge[3]]
        if a is not b:
            a |= b
            for word in b:
                group[word] = a
            tree.append(edge)
    total = sum(edge[1] for edge in tree)
    return 1 - sum(edge[0] for edge in tree) / total if total else 1.0


@pytest.fixture(scope="module")
def example():
    """D′ 'a Sherlock becomes the detective', D 'the detective is becoming a Sherlock Holmes'."""
    hyp, ref = read_conllu((DATA / "thesis_trees.conllu").read_text())[2:]
    lines = (DATA / "thesis_examples.align").read_text().splitlines()
    alignment = read_alignments(lines[1:], [(len(hyp), len(ref))])[0]
    return hyp, ref, alignment


def _word(name):
    return REF_WORDS.index(name)


def test_path_encodings_of_the_running_example(example):
    hyp, ref, _ = example
    # Thesis L1427: the ↔ Sherlock, hypothesis (DET DOBJ, β, NSUBJ), reference
    # (DET NSUBJ, α, DOBJ CMP).
    assert path_encoding(hyp.heads, hyp.deps, 3, 1) == PathEncoding(
        ("DET", "DOBJ"), BETA, ("NSUBJ",)
    )
    assert path_encoding(ref.heads, ref.deps, 0, 5) == PathEncoding(
        ("DET", "NSUBJ"), ALPHA, ("DOBJ", "CMP")
    )
    # Table 5.1, rows (becoming, Sherlock) and (Sherlock, detective).
    assert path_encoding(ref.heads, ref.deps, 3, 5) == PathEncoding((), ALPHA, ("DOBJ", "CMP"))
    assert path_encoding(ref.heads, ref.deps, 5, 1) == PathEncoding(
        ("CMP", "DOBJ"), BETA, ("NSUBJ",)
    )


# Table 5.1 as (n_D, m_D, L, L_max); None for the Eq. 5.6 edge (shared counterpart).
TABLE_5_1 = [
    ("becoming", "is", None),
    ("becoming", "Sherlock", (3, 3)),
    ("becoming", "detective", (2, 2)),
    ("becoming", "a", (3, 4)),
    ("becoming", "the", (2, 3)),
    ("is", "Sherlock", (4, 4)),
    ("is", "detective", (3, 3)),
    ("is", "a", (4, 5)),  # printed 3 / 3: the encodings printed beside it give 4 / 5
    ("is", "the", (3, 4)),  # printed 4 / 5: the encodings printed beside it give 3 / 4
    ("Sherlock", "detective", (4, 4)),
    ("Sherlock", "a", (0, 2)),
    ("Sherlock", "the", (4, 5)),
    ("detective", "a", (4, 5)),
    ("detective", "the", (0, 2)),
    ("a", "the", (4, 6)),
]


def test_table_5_1_disparities(example):
    hyp, ref, alignment = example
    counterpart = counterparts(alignment)
    edges = structured_edges(hyp.heads, hyp.deps, ref.heads, ref.deps, alignment)
    disparities = {(n, m): (disparity, longest) for disparity, longest, n, m in edges.tolist()}
    assert len(disparities) == len(TABLE_5_1)
    for first, second, expected in TABLE_5_1:
        n, m = sorted((_word(first), _word(second)))
        if expected is None:
            assert counterpart[n] == counterpart[m]
            expected = (0, 0)
        else:
            reference = path_encoding(ref.heads, ref.deps, n, m)
            hypothesis = path_encoding(hyp.heads, hyp.deps, counterpart[n], counterpart[m])
            assert path_disparity(reference, hypothesis) == expected, (first, second)
        assert disparities[(n, m)] == expected, (first, second)


def test_components_are_compared_separately():
    # Thesis L1452-1456: (XCOMP XCOMP, α, ·) vs (·, β, XCOMP XCOMP) costs 2 + 1 + 2 = 5, where
    # one Levenshtein over the concatenations would cost 2.
    first = PathEncoding(("XCOMP", "XCOMP"), ALPHA, ())
    second = PathEncoding((), BETA, ("XCOMP", "XCOMP"))
    assert path_disparity(first, second) == (5, 5)


def test_section_5_6_2_score(example):
    hyp, ref, alignment = example
    # Selection: three weight-0 edges, (becoming, detective) at 2, then (becoming, Sherlock)
    # at 3 ahead of (becoming, a) by its smaller L_max: cost 5 (thesis L1635), L_max 9.
    assert derp(hyp.heads, hyp.deps, ref.heads, ref.deps, alignment) == pytest.approx(1 - 5 / 9)


def test_tie_break_prefers_small_l_max():
    # Two edges of weight 3 can complete the tree; the one with L_max 3 is chosen.
    edges = np.array([(0, 0, 0, 1), (3, 4, 0, 2), (3, 3, 1, 2)])
    assert spanning_tree(edges).tolist() == [[0, 0, 0, 1], [3, 3, 1, 2]]


def test_flattened_derp_of_the_example(example):
    _, _, alignment = example
    # Thesis spec §3.8 (derived): cost 8, L_max 12.
    assert flattened_derp(alignment) == pytest.approx(1 - 8 / 12)


@st.composite
def alignments(draw):
    hyp_len, ref_len = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    refs = draw(st.lists(st.integers(0, ref_len - 1), unique=True, max_size=ref_len))
    links = tuple((draw(st.integers(0, hyp_len - 1)), r) for r in refs)
    return WordAlignment(links, hyp_len, ref_len)


@settings(max_examples=80, deadline=None)
@given(alignments())
def test_flattened_closed_form_equals_structured_derp_on_chains(alignment):
    # §5.10: flattened DERP is structured DERP on chains whose labels are all DEP.
    hyp, ref = flattened(alignment.hyp_len), flattened(alignment.ref_len)
    labels_h, labels_r = ["DEP"] * alignment.hyp_len, ["DEP"] * alignment.ref_len
    assert flattened_derp(alignment) == pytest.approx(derp(hyp, labels_h, ref, labels_r, alignment))


@st.composite
def labelled_pairs(draw):
    """Random hypothesis and reference trees (several roots allowed) with labels from a small
    set, so that label sequences often agree in part, and random links."""
    hyp_heads, ref_heads = draw(trees(max_size=9)), draw(trees(max_size=9))
    labels = st.sampled_from(["nsubj", "obj", "det", "amod"])
    n_h, n_r = len(hyp_heads), len(ref_heads)
    hyp_labels = draw(st.lists(labels, min_size=n_h, max_size=n_h))
    ref_labels = draw(st.lists(labels, min_size=n_r, max_size=n_r))
    links = st.tuples(st.integers(0, n_h - 1), st.integers(0, n_r - 1))
    chosen = draw(st.lists(links, unique=True, max_size=12)) if n_h and n_r else []
    return hyp_heads, hyp_labels, ref_heads, ref_labels, WordAlignment(tuple(chosen), n_h, n_r)


@settings(max_examples=300, deadline=None)
@given(labelled_pairs())
def test_structured_derp_equals_its_definition_on_random_trees(pair):
    assert derp(*pair) == reference_derp(*pair)


@settings(max_examples=100, deadline=None)
@given(alignments())
def test_flattened_edges_equal_their_closed_form(alignment):
    mapping = counterparts(alignment)
    expected = []
    for n, m in itertools.combinations(sorted(mapping), 2):
        distance, gap = m - n, mapping[m] - mapping[n]
        if gap == 0:
            expected.append([0, 0, n, m])
        elif gap > 0:
            expected.append([abs(distance - gap), 1 + max(distance, gap), n, m])
        else:
            expected.append([1 + distance - gap, 1 + distance - gap, n, m])
    assert flattened_edges(alignment).tolist() == expected


def _spanning_cost_brute_force(words, weight):
    """Cheapest total weight over every set of len(words) − 1 edges that connects the words."""
    best = None
    for edges in itertools.combinations(itertools.combinations(words, 2), len(words) - 1):
        reached = {words[0]}
        for _ in words:
            reached |= {b for a, b in edges if a in reached} | {a for a, b in edges if b in reached}
        if len(reached) == len(words):
            cost = sum(weight[edge] for edge in edges)
            best = cost if best is None else min(best, cost)
    return best


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=10, max_size=10))
def test_kruskal_is_minimal(weights):
    words = [0, 1, 2, 3, 4]
    pairs = list(itertools.combinations(words, 2))
    weight = dict(zip(pairs, weights, strict=True))
    tree = spanning_tree(np.array([(weight[(a, b)], 1, a, b) for a, b in pairs]))
    assert len(tree) == 4
    assert tree[:, 0].sum() == _spanning_cost_brute_force(words, weight)


def test_degenerate_pairs_score_one():
    # Fewer than two aligned words: no path, 0/0 counts as 0 (L1194).
    one = WordAlignment(((0, 0),), 2, 2)
    assert derp((-1, 0), ("ROOT", "DEP"), (-1, 0), ("ROOT", "DEP"), one) == 1.0
    assert flattened_derp(WordAlignment((), 2, 2)) == 1.0
    # Two reference words sharing one counterpart: a single weight-0 edge, L_max 0.
    shared = WordAlignment(((0, 0), (0, 1)), 1, 2)
    assert derp((-1,), ("ROOT",), (-1, 0), ("ROOT", "DEP"), shared) == 1.0


def test_reference_word_with_several_counterparts_keeps_the_first():
    assert counterparts(WordAlignment(((2, 0), (1, 0), (0, 1)), 3, 2)) == {0: 1, 1: 0}


def test_several_sentence_roots_meet_at_a_virtual_root():
    # Two one-word sentences in the reference, in reverse order in a single hypothesis tree.
    labels = ("ROOT", "ROOT")
    ref_path = path_encoding((-1, -1), labels, 0, 1)
    assert ref_path == PathEncoding(("ROOT",), ALPHA, ("ROOT",))
    alignment = WordAlignment(((0, 1), (1, 0)), 2, 2)
    score = derp((-1, 0), ("ROOT", "obj"), (-1, -1), labels, alignment)
    # Reference (ROOT, α, ROOT) vs hypothesis (obj, β, ·): 1 + 1 + 1 = 3 of 1 + 1 + 1 = 3.
    assert score == 0.0
