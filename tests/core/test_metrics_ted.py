"""Tree and sequence edit distance against the textbook recursion over forests."""

import functools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wojdb.core.metrics.ted import flattened, mirrored, sequence_edit_distance, tree_edit_distance


def _recursive_distance(heads1, heads2, delete, insert, rename):
    """Forest edit distance by its definition (Tai 1979; Zhang & Shasha 1989, Lemma 3):
    remove the rightmost root of either forest, or map the two rightmost roots onto each other
    and solve their children and the rest separately."""

    def children(heads):
        kids = {node: [] for node in [-1, *range(len(heads))]}
        for node, head in enumerate(heads):
            kids[head].append(node)
        return {node: tuple(nodes) for node, nodes in kids.items()}

    kids1, kids2 = children(heads1), children(heads2)

    def subtree(kids, node):
        return [node] + [n for child in kids[node] for n in subtree(kids, child)]

    @functools.cache
    def forest(f, g):
        if not f and not g:
            return 0
        if not g:
            return forest(f[:-1] + kids1[f[-1]], g) + delete[f[-1]]
        if not f:
            return forest(f, g[:-1] + kids2[g[-1]]) + insert[g[-1]]
        v, w = f[-1], g[-1]
        return min(
            forest(f[:-1] + kids1[v], g) + delete[v],
            forest(f, g[:-1] + kids2[w]) + insert[w],
            forest(kids1[v], kids2[w]) + forest(f[:-1], g[:-1]) + rename[v][w],
        )

    return forest(kids1[-1], kids2[-1])


@st.composite
def trees(draw, max_size=8):
    n = draw(st.integers(0, max_size))
    heads = []
    for node in range(n):
        # A head among earlier nodes keeps the graph acyclic; −1 makes extra roots.
        heads.append(draw(st.integers(-1, node - 1)) if node else -1)
    order = draw(st.permutations(range(n)))  # renumber so heads are not always to the left
    position = {old: new for new, old in enumerate(order)}
    renumbered = [0] * n
    for old, head in enumerate(heads):
        renumbered[position[old]] = -1 if head < 0 else position[head]
    return tuple(renumbered)


@st.composite
def costs(draw, n1, n2):
    delete = draw(st.lists(st.integers(1, 4), min_size=n1, max_size=n1))
    insert = draw(st.lists(st.integers(1, 4), min_size=n2, max_size=n2))
    rename = [draw(st.lists(st.integers(0, 6), min_size=n2, max_size=n2)) for _ in range(n1)]
    return delete, insert, rename


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_zhang_shasha_equals_recursion(data):
    heads1, heads2 = data.draw(trees()), data.draw(trees())
    delete, insert, rename = data.draw(costs(len(heads1), len(heads2)))
    expected = _recursive_distance(heads1, heads2, delete, insert, rename)
    assert tree_edit_distance(heads1, heads2, delete, insert, rename) == expected


def test_bushy_and_deep_trees_equal_recursion():
    rng = random.Random(7)
    shapes = [
        (-1, 0, 0, 0, 0, 0, 0, 0),  # one root with seven leaves
        (1, 2, 3, 4, 5, 6, 7, -1),  # a chain pointing right
        (-1, 0, 1, 1, 0, 4, 4, 6),
        (2, 2, -1, 2, 5, 3, 5, 5),
    ]
    for heads1 in shapes:
        for heads2 in shapes:
            n1, n2 = len(heads1), len(heads2)
            delete = [rng.randint(1, 3) for _ in range(n1)]
            insert = [rng.randint(1, 3) for _ in range(n2)]
            rename = [[rng.randint(0, 5) for _ in range(n2)] for _ in range(n1)]
            expected = _recursive_distance(heads1, heads2, delete, insert, rename)
            assert tree_edit_distance(heads1, heads2, delete, insert, rename) == expected


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_sequence_distance_is_chain_distance(data):
    n1, n2 = data.draw(st.integers(0, 9)), data.draw(st.integers(0, 9))
    delete, insert, rename = data.draw(costs(n1, n2))
    expected = _recursive_distance(flattened(n1), flattened(n2), delete, insert, rename)
    assert sequence_edit_distance(delete, insert, rename) == expected


def test_unit_cost_examples():
    # Levenshtein of "kitten" and "sitting" as a chain: 3.
    a, b = "kitten", "sitting"
    rename = [[int(x != y) for y in b] for x in a]
    ones_a, ones_b = [1] * len(a), [1] * len(b)
    assert sequence_edit_distance(ones_a, ones_b, rename) == 3
    assert tree_edit_distance(flattened(6), flattened(7), ones_a, ones_b, rename) == 3
    # Every node of one tree against nothing.
    assert tree_edit_distance((-1, 0, 0), (), [2, 3, 4], [], [[], [], []]) == 9


def test_helpers():
    assert flattened(4) == (-1, 0, 1, 2)
    assert flattened(0) == ()
    # 0 <- 1 -> 2 with 3 under 2, mirrored: node k becomes 3 − k.
    assert mirrored(np.array((1, -1, 1, 2))).tolist() == [1, 2, -1, 2]


@pytest.mark.parametrize("heads", [(-1, 0, 0, 1, 1, 2), (-1, -1, 1), (3, 3, 3, -1)])
def test_distance_to_itself_is_zero(heads):
    n = len(heads)
    rename = [[0 if i == j else 1 for j in range(n)] for i in range(n)]
    assert tree_edit_distance(heads, heads, [1] * n, [1] * n, rename) == 0
