"""PETs and PEFs: spec vectors, BEER unit-test vectors, and brute force over all permutations <= 7.

The brute-force side never builds a chart: it cuts each span into the minimum number of
contiguous-value blocks by trying every set of cut points, and either recurses over every cut
(paper formula) or enumerates every permutation tree (released-code variants).
"""

import functools
import itertools

import pytest

from wojdb.core.metrics.pets import (
    canonical_pet,
    catalan,
    count_pets,
    flat_pet,
    pef_beer,
    pef_beer_old,
    pef_paper,
    pet_beer,
    pet_beer_flat,
    pet_beer_viterbi,
    pet_count_score,
    pet_max_arity_score,
    pet_nodes_score,
    pet_paper,
)

ALL_UP_TO_7 = [p for n in range(2, 8) for p in itertools.permutations(range(1, n + 1))]


# --- brute force -------------------------------------------------------------------------------


def _is_block(values):
    return max(values) - min(values) + 1 == len(values)


def _factorisations(seq):
    """Every cut of seq into the minimum number (>= 2) of contiguous-value blocks."""
    pattern = tuple(sorted(seq).index(value) for value in seq)
    return [
        [seq[bounds[x] : bounds[x + 1]] for x in range(len(bounds) - 1)]
        for bounds in _minimum_cuts(pattern)
    ]


@functools.cache
def _minimum_cuts(pattern):
    """The cut points of those factorisations, by trying every set of cuts. Cached by the
    pattern of relative order, on which they depend: only cuts are cached, never a score."""
    n = len(pattern)
    block = {(i, j): _is_block(pattern[i:j]) for i in range(n) for j in range(i + 1, n + 1)}
    found = {}
    for mask in range(1, 2 ** (n - 1)):
        bounds = (0, *(i for i in range(1, n) if mask >> (i - 1) & 1), n)
        if all(block[bounds[x], bounds[x + 1]] for x in range(len(bounds) - 1)):
            found.setdefault(len(bounds) - 1, []).append(bounds)
    return found[min(found)]


def _operator(parts):
    minima = [min(part) for part in parts]
    return tuple(sorted(minima).index(m) + 1 for m in minima)


def _op_score(parts):
    op = _operator(parts)
    return 1 if op == tuple(range(1, len(op) + 1)) else 0


def _paper_phi(seq, beta):
    """φ_node of Stanojević & Sima'an (2014, Figure 6), straight from the definition."""
    if len(seq) == 1:
        return 1.0
    inferences = _factorisations(seq)
    assert len({_operator(parts) for parts in inferences}) == 1  # one operator per span
    op = _op_score(inferences[0])
    if len(inferences[0]) == len(seq):
        return float(op)
    total = 0.0
    for parts in inferences:
        longer = [_paper_phi(part, beta) for part in parts if len(part) > 1]
        total += sum(longer) / len(longer)
    return beta * op + (1 - beta) * total / len(inferences)


def _trees(seq):
    """Every PET of seq, as (opScore, ((length, subtree), ...)); a word is None."""
    if len(seq) == 1:
        return [None]
    trees = []
    for parts in _factorisations(seq):
        op = _op_score(parts)
        for children in itertools.product(*(_trees(part) for part in parts)):
            trees.append((op, tuple(zip((len(p) for p in parts), children, strict=True))))
    return trees


def _tree_score(tree, beta, length):
    """The released code's score of one tree: β·op + (1 − β)·Σ length-weighted children."""
    if tree is None:
        return 1.0
    op, children = tree
    weighted = sum(size * _tree_score(child, beta, size) for size, child in children) / length
    return beta * op + (1 - beta) * weighted


def _old_pef(seq, beta):
    """The released code's old PEF: uniform over inferences, length-weighted children."""
    if len(seq) == 1:
        return 1.0
    inferences = _factorisations(seq)
    total = sum(
        sum(len(part) * _old_pef(part, beta) for part in parts) / len(seq) for parts in inferences
    )
    return beta * _op_score(inferences[0]) + (1 - beta) * total / len(inferences)


def _rescale(raw, floor):
    return (raw - floor) / (1 - floor)


def _beer_raw(seq, beta, combine):
    return combine([_tree_score(tree, beta, len(seq)) for tree in _trees(seq)])


def _mean(values):
    return sum(values) / len(values)


# --- spec and BEER vectors ---------------------------------------------------------------------


def test_paper_pef_hand_checked_example():
    # Metrics spec §1.4: <1,2,3,5,4>, β = 0.6: PEF 0.6 + 0.4 · 0.70667 = 0.882667, PET 0.8.
    assert pef_paper((1, 2, 3, 5, 4), 0.6) == pytest.approx(0.882667, abs=1e-6)
    assert pet_paper((1, 2, 3, 5, 4), 0.6) == pytest.approx(0.8)


@pytest.mark.parametrize(
    ("perm", "pef", "pet"),
    [((5, 7, 4, 6, 3, 1, 2), 0.14, 0.20), ((2, 4, 5, 6, 1, 3), 0.40, 0.40), ((2, 4, 1, 3), 0, 0)],
)
def test_paper_derived_values(perm, pef, pet):
    # Metrics spec §1.4, "Other [D] values", β = 0.6.
    assert pef_paper(perm) == pytest.approx(pef)
    assert pet_paper(perm) == pytest.approx(pet)


def test_beer_unit_test_vectors():
    # Metrics spec §3.3; the tests' rounded expectation first, the exact value in the comment.
    perm = (1, 2, 3, 5, 4)
    assert pef_beer(perm, 0.5) == pytest.approx(0.918, abs=1e-3)  # 0.91875
    assert pef_beer(perm, 0.5) == pytest.approx(0.91875)
    assert pef_beer(perm, 0.6) == pytest.approx(0.93, abs=0.01)  # 0.934627
    assert pef_beer(perm, 0.6) == pytest.approx(0.934627, abs=1e-6)
    assert pef_beer_old(perm, 0.5) == pytest.approx(0.921875)  # test: 0.921
    assert pet_beer(perm, 0.5) == pytest.approx(0.875)  # test: 0.874
    assert pet_beer_flat(perm, 0.5) == pytest.approx(0.8)
    assert pet_beer_viterbi(perm, 0.5) == pytest.approx(0.96875)  # test: 0.968
    assert pet_count_score(perm) == pytest.approx(4 / 13)  # test: 0.30 ± 0.01
    assert pet_max_arity_score((2, 4, 1, 3)) == 0.0
    assert catalan(4) == 14


BEER_SCORES = [pef_beer, pef_beer_old, pet_beer, pet_beer_flat, pet_beer_viterbi]
PAPER_SCORES = [pef_paper, pet_paper]


@pytest.mark.parametrize("metric", BEER_SCORES + PAPER_SCORES)
def test_monotone_one_inverted_zero_and_short(metric):
    assert metric((1, 2, 3, 4, 5)) == pytest.approx(1.0)
    assert metric((6, 5, 4, 3, 2, 1)) == pytest.approx(0.0, abs=1e-12)
    assert metric(()) == 0.0  # BEER vector: PEF/PET of n = 0 is 0
    assert metric((1,)) == 1.0  # and of n = 1 is 1


def test_simple_pet_metrics():
    # Metrics spec §2.3: #PETs of <4,3,2,1> is Cat(3) = 5; monotone and inverted both score 1.
    assert count_pets((4, 3, 2, 1)) == 5
    assert count_pets(tuple(range(1, 8))) == catalan(6) == 132
    assert pet_count_score((6, 5, 4, 3, 2, 1)) == 1.0
    assert pet_max_arity_score((1, 2, 3, 5, 4)) == 1.0
    assert pet_max_arity_score((6, 5, 4, 3, 2, 1)) == 1.0
    assert pet_nodes_score((2, 4, 1, 3)) == 0.0  # prime: one internal node
    assert pet_nodes_score((6, 5, 4, 3, 2, 1)) == 1.0  # binarizable: n − 1 internal nodes


def test_canonical_pet_of_nested_prime_permutation():
    # Metrics spec §2.2: <5,7,2,4,1,3,6> = <2,4,1,3>(5 7 <2,4,1,3>(2 4 1 3) 6).
    root = canonical_pet((5, 7, 2, 4, 1, 3, 6))
    assert root.op == (2, 4, 1, 3)
    assert [c.size for c in root.children] == [1, 1, 4, 1]
    assert root.children[2].op == (2, 4, 1, 3)


def test_canonical_pet_is_left_branching_and_flattens():
    root = canonical_pet((1, 2, 3, 5, 4))
    assert root.op == (1, 2)
    assert [c.size for c in root.children] == [3, 2]
    assert root.children[0].children[0].size == 2  # ((1 2) 3)
    flat = flat_pet((1, 2, 3, 5, 4))
    assert flat.op == (1, 2, 3, 4)
    assert [c.size for c in flat.children] == [1, 1, 1, 2]


# --- brute force over every permutation up to length 7 -----------------------------------------


def _fringe(node, perm):
    if node.is_leaf:
        return [perm[node.start]]
    return [v for child in node.children for v in _fringe(child, perm)]


def _is_simple(op):
    k = len(op)
    return all(not _is_block(op[i:j]) for i in range(k) for j in range(i + 2, k + 1) if j - i < k)


def test_canonical_pet_structure_for_every_permutation():
    for perm in ALL_UP_TO_7:
        stack = [canonical_pet(perm)]
        assert _fringe(stack[0], perm) == list(perm)
        while stack:
            node = stack.pop()
            if node.is_leaf:
                continue
            parts = [perm[c.start : c.end] for c in node.children]
            assert parts in _factorisations(perm[node.start : node.end])  # minimum branching
            assert len(node.op) == 2 or _is_simple(node.op)
            if len(node.op) == 2:
                assert node.children[1].is_leaf or node.children[1].op != node.op  # left-branching
            stack.extend(node.children)


def test_paper_pef_equals_direct_recursion_for_every_permutation():
    for perm in ALL_UP_TO_7:
        assert pef_paper(perm, 0.6) == pytest.approx(_paper_phi(perm, 0.6), abs=1e-12)


def test_beer_variants_equal_tree_enumeration_for_every_permutation():
    beta = 0.6
    floors = {}
    for n in range(2, 8):
        reverse = tuple(range(n, 0, -1))
        floors[n] = [_beer_raw(reverse, beta, _mean), _beer_raw(reverse, beta, max)]
        floors[n].append(_old_pef(reverse, beta))
    for perm in ALL_UP_TO_7:
        mean_floor, max_floor, old_floor = floors[len(perm)]
        trees = _trees(perm)
        assert count_pets(perm) == len(trees)
        scores = [_tree_score(tree, beta, len(perm)) for tree in trees]
        assert pef_beer(perm, beta) == pytest.approx(_rescale(_mean(scores), mean_floor))
        assert pet_beer_viterbi(perm, beta) == pytest.approx(_rescale(max(scores), max_floor))
        assert pef_beer_old(perm, beta) == pytest.approx(_rescale(_old_pef(perm, beta), old_floor))
