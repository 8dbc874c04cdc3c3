"""Ordered tree edit distance (Zhang & Shasha 1989) and sequence edit distance, with per-node
integer costs, compiled with numba.

Written here because no maintained tree-edit-distance package is a project dependency. The
thesis used Demaine et al.'s algorithm on trees binarised with free-to-delete epsilon nodes
(§4.2.2); deleting an epsilon node restores the original children list in place, so the optimum
equals ordinary ordered tree edit distance on the unbinarised trees, which Zhang–Shasha computes
(thesis spec §2.2, checked there on the §4.5 example).

Trees are given as head arrays (heads[i] is the parent of node i, −1 for a root). Several roots
are allowed: each side gets a virtual root, matched only to the other side's at no cost. Costs:
deleting node i of the first tree, inserting node j of the second, renaming i into j.

The dynamic programmes run in numba-compiled functions over int64 arrays (DTED computes several
per sentence pair); they compile on first use and are cached in __pycache__.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np


def flattened(n: int) -> tuple[int, ...]:
    """Heads of a chain of n nodes: each node the only child of the node before it."""
    return tuple(range(-1, n - 1))


@numba.njit(cache=True)
def mirrored(heads):
    """The tree with every children list reversed (nodes renumbered right to left)."""
    last = heads.shape[0] - 1
    out = np.empty_like(heads)
    for k in range(last + 1):
        head = heads[last - k]
        out[k] = -1 if head < 0 else last - head
    return out


@numba.njit(cache=True)
def _is_chain(heads):
    return np.all(heads == np.arange(-1, heads.shape[0] - 1))


@numba.njit(cache=True)
def _postorder(heads):
    """Nodes in postorder with a virtual root (node n) last, and each one's leftmost leaf as a
    1-based position in that order. Children keep their surface (index) order."""
    n = heads.shape[0]
    # Children lists in index order, packed: those of node p are kids[start[p]:start[p + 1]].
    start = np.zeros(n + 2, np.int64)
    for node in range(n):
        start[(n if heads[node] < 0 else heads[node]) + 2] += 1
    start = np.cumsum(start)
    kids = np.empty(n, np.int64)
    for node in range(n):
        parent = n if heads[node] < 0 else heads[node]
        kids[start[parent + 1]] = node
        start[parent + 1] += 1
    order = np.empty(n + 1, np.int64)
    leftmost = np.empty(n + 1, np.int64)  # by node
    stack = np.empty(n + 1, np.int64)
    next_kid = np.empty(n + 1, np.int64)
    stack[0], next_kid[0] = n, start[n]
    top = count = 0
    while top >= 0:
        node = stack[top]
        if next_kid[top] < start[node + 1]:
            child = kids[next_kid[top]]
            next_kid[top] += 1
            top += 1
            stack[top], next_kid[top] = child, start[child]
        else:
            order[count] = node
            count += 1
            has_kids = start[node] < start[node + 1]
            leftmost[node] = leftmost[kids[start[node]]] if has_kids else count
            top -= 1
    return order, leftmost[order]


@numba.njit(cache=True)
def _keyroots(leftmost):
    """1-based positions of the highest node of each leftmost path, ascending."""
    highest = np.zeros(leftmost.shape[0] + 1, np.int64)
    for position in range(1, leftmost.shape[0] + 1):
        highest[leftmost[position - 1]] = position
    return np.sort(highest[highest > 0])


@numba.njit(cache=True)
def _work(leftmost):
    """Zhang–Shasha's work factor of one tree: the summed sizes of its keyroot subtrees."""
    total = 0
    for k in _keyroots(leftmost):
        total += k - leftmost[k - 1] + 1
    return total


@numba.njit(cache=True)
def _mirror_postorder(heads):
    """_postorder of the mirrored tree, with its nodes numbered as the original's."""
    order, leftmost = _postorder(mirrored(heads))
    last = heads.shape[0] - 1
    for k in range(order.shape[0]):
        if order[k] <= last:  # mirrored node k is node last − k; the virtual root stays
            order[k] = last - order[k]
    return order, leftmost


@numba.njit(cache=True)
def _tree_edit_distance(heads1, heads2, delete, insert, rename):
    """Mirroring both trees keeps every mapping valid and every cost, so the cheaper of the
    left-path and the right-path decompositions is used; two chains are compared as sequences."""
    if _is_chain(heads1) and _is_chain(heads2):
        return _sequence_edit_distance(delete, insert, rename)
    order1, lml1 = _postorder(heads1)
    order2, lml2 = _postorder(heads2)
    m_order1, m_lml1 = _mirror_postorder(heads1)
    m_order2, m_lml2 = _mirror_postorder(heads2)
    if _work(m_lml1) * _work(m_lml2) < _work(lml1) * _work(lml2):
        return _zhang_shasha(m_order1, m_lml1, m_order2, m_lml2, delete, insert, rename)
    return _zhang_shasha(order1, lml1, order2, lml2, delete, insert, rename)


@numba.njit(cache=True)
def _by_position(order, leftmost, costs, never):
    """Node costs (`never` for the virtual root) and leftmost leaves by 1-based postorder
    position; position 0 is unused."""
    n = order.shape[0] - 1
    by_position = np.zeros(n + 2, np.int64)
    for p in range(1, n + 2):
        by_position[p] = never if order[p - 1] == n else costs[order[p - 1]]
    return by_position, np.concatenate((np.zeros(1, np.int64), leftmost))


@numba.njit(cache=True)
def _zhang_shasha(order1, lml1, order2, lml2, delete, insert, rename):
    n1, n2 = order1.shape[0] - 1, order2.shape[0] - 1  # real nodes; virtual roots n1 and n2
    # A mapping that touches a virtual root other than root-to-root costs more than deleting
    # and inserting everything, which is always possible.
    never = delete.sum() + insert.sum() + 1
    dele, l1 = _by_position(order1, lml1, delete, never)
    ins, l2 = _by_position(order2, lml2, insert, never)
    ren = np.empty((n1 + 2, n2 + 2), np.int64)
    for p in range(1, n1 + 2):
        v = order1[p - 1]
        for q in range(1, n2 + 2):
            w = order2[q - 1]
            if v == n1 or w == n2:
                ren[p, q] = 0 if v == n1 and w == n2 else never
            else:
                ren[p, q] = rename[v, w]
    tree = np.zeros((n1 + 2, n2 + 2), np.int64)
    forest = np.zeros((n1 + 2, n2 + 2), np.int64)
    keyroots2 = _keyroots(lml2)
    for i in _keyroots(lml1):
        li = l1[i]
        for j in keyroots2:
            lj = l2[j]
            # Forest distances over positions li − 1 … i and lj − 1 … j, row and column
            # li − 1 and lj − 1 standing for the empty forest.
            forest[li - 1, lj - 1] = 0
            for di in range(li, i + 1):
                forest[di, lj - 1] = forest[di - 1, lj - 1] + dele[di]
            for dj in range(lj, j + 1):
                forest[li - 1, dj] = forest[li - 1, dj - 1] + ins[dj]
            for di in range(li, i + 1):
                on_path1 = l1[di] == li
                for dj in range(lj, j + 1):
                    best = forest[di - 1, dj] + dele[di]
                    other = forest[di, dj - 1] + ins[dj]
                    if other < best:
                        best = other
                    if on_path1 and l2[dj] == lj:
                        # Two whole subtrees: their distance, kept for later keyroot pairs.
                        other = forest[di - 1, dj - 1] + ren[di, dj]
                        if other < best:
                            best = other
                        tree[di, dj] = best
                    else:
                        other = forest[l1[di] - 1, l2[dj] - 1] + tree[di, dj]
                        if other < best:
                            best = other
                    forest[di, dj] = best
    return tree[n1 + 1, n2 + 1]


@numba.njit(cache=True)
def _sequence_edit_distance(delete, insert, rename):
    row = np.zeros(insert.shape[0] + 1, np.int64)
    for y in range(insert.shape[0]):
        row[y + 1] = row[y] + insert[y]
    for x in range(delete.shape[0]):
        corner = row[0]
        row[0] += delete[x]
        for y in range(insert.shape[0]):
            best = min(row[y + 1] + delete[x], row[y] + insert[y], corner + rename[x, y])
            corner = row[y + 1]
            row[y + 1] = best
    return row[-1]


def _arrays(delete, insert, rename):
    delete = np.asarray(delete, np.int64)
    insert = np.asarray(insert, np.int64)
    rename = np.asarray(rename, np.int64).reshape(delete.shape[0], insert.shape[0])
    return delete, insert, rename


def tree_edit_distance(
    heads1: Sequence[int],
    heads2: Sequence[int],
    delete: Sequence[int],
    insert: Sequence[int],
    rename: Sequence[Sequence[int]],
) -> int:
    """Minimum total cost of deletions from tree 1, insertions from tree 2 and renames.

    `delete[i]` and `insert[j]` are per-node costs, `rename[i][j]` the cost of mapping node i of
    tree 1 to node j of tree 2 (0-based node indices, as in the head arrays); sequences or int64
    arrays.
    """
    heads1, heads2 = np.asarray(heads1, np.int64), np.asarray(heads2, np.int64)
    return int(_tree_edit_distance(heads1, heads2, *_arrays(delete, insert, rename)))


def sequence_edit_distance(
    delete: Sequence[int], insert: Sequence[int], rename: Sequence[Sequence[int]]
) -> int:
    """Edit distance between two sequences with per-item costs (Wagner–Fischer).

    It equals the tree edit distance of two chains, as in flattened DTED.
    """
    return int(_sequence_edit_distance(*_arrays(delete, insert, rename)))
