"""Ordered tree edit distance (Zhang & Shasha 1989) and sequence edit distance, with per-node
integer costs.

Written here because no maintained tree-edit-distance package is a project dependency. The
thesis used Demaine et al.'s algorithm on trees binarised with free-to-delete epsilon nodes
(§4.2.2); deleting an epsilon node restores the original children list in place, so the optimum
equals ordinary ordered tree edit distance on the unbinarised trees, which Zhang–Shasha computes
(thesis spec §2.2, checked there on the §4.5 example).

Trees are given as head arrays (heads[i] is the parent of node i, −1 for a root). Several roots
are allowed: each side gets a virtual root, matched only to the other side's at no cost. Costs:
deleting node i of the first tree, inserting node j of the second, renaming i into j.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate, islice, repeat
from operator import add, sub

import numpy as np


@lru_cache(maxsize=256)
def _postorder(heads: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Nodes in postorder with a virtual root last, and each one's leftmost leaf, both 1-based
    positions in that order. Children keep their surface (index) order. Cached because DTED
    compares the same trees under several cost schemes."""
    n = len(heads)
    children: list[list[int]] = [[] for _ in range(n + 1)]
    for node, head in enumerate(heads):
        children[n if head < 0 else head].append(node)
    order: list[int] = []
    leftmost = [0] * (n + 1)
    stack = [(n, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            kids = children[node]
            leftmost[node] = leftmost[kids[0]] if kids else len(order)
        else:
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(children[node]))
    return tuple(order), tuple(leftmost[node] for node in order)


def _keyroots(leftmost: Sequence[int]) -> list[int]:
    """1-based positions of the highest node of each leftmost path, ascending."""
    highest: dict[int, int] = {}
    for position, leaf in enumerate(leftmost, start=1):
        highest[leaf] = position
    return sorted(highest.values())


def _work(leftmost: Sequence[int]) -> int:
    """Zhang–Shasha's work factor of one tree: the summed sizes of its keyroot subtrees."""
    return sum(k - leftmost[k - 1] + 1 for k in _keyroots(leftmost))


def flattened(n: int) -> tuple[int, ...]:
    """Heads of a chain of n nodes: each node the only child of the node before it."""
    return tuple(range(-1, n - 1))


def mirrored(heads: Sequence[int]) -> tuple[int, ...]:
    """The tree with every children list reversed (nodes renumbered right to left)."""
    last = len(heads) - 1
    return tuple(-1 if head < 0 else last - head for head in reversed(heads))


def tree_edit_distance(
    heads1: Sequence[int],
    heads2: Sequence[int],
    delete: Sequence[int],
    insert: Sequence[int],
    rename: Sequence[Sequence[int]],
) -> int:
    """Minimum total cost of deletions from tree 1, insertions from tree 2 and renames.

    `delete[i]` and `insert[j]` are per-node costs, `rename[i][j]` the cost of mapping node i of
    tree 1 to node j of tree 2 (0-based node indices, as in the head arrays). Mirroring both
    trees keeps every mapping valid and every cost, so the cheaper of the left-path and the
    right-path decompositions is used; two chains are compared as sequences.
    """
    if tuple(heads1) == flattened(len(heads1)) and tuple(heads2) == flattened(len(heads2)):
        return sequence_edit_distance(delete, insert, rename)
    order1, lml1 = _postorder(tuple(heads1))
    order2, lml2 = _postorder(tuple(heads2))
    m_order1, m_lml1 = _postorder(mirrored(heads1))
    m_order2, m_lml2 = _postorder(mirrored(heads2))
    if _work(m_lml1) * _work(m_lml2) < _work(lml1) * _work(lml2):
        last1, last2 = len(heads1) - 1, len(heads2) - 1
        # Mirrored node k is original node last − k; the virtual roots keep their number.
        order1 = [v if v > last1 else last1 - v for v in m_order1]
        order2 = [w if w > last2 else last2 - w for w in m_order2]
        lml1, lml2 = m_lml1, m_lml2
    return _zhang_shasha(order1, lml1, order2, lml2, delete, insert, rename)


def _zhang_shasha(order1, lml1, order2, lml2, delete, insert, rename) -> int:
    n1, n2 = len(order1) - 1, len(order2) - 1  # real nodes; the virtual roots are n1 and n2
    # A mapping that touches a virtual root other than root-to-root costs more than deleting
    # and inserting everything, which is always possible.
    never = sum(delete) + sum(insert) + 1
    # Costs re-indexed by 1-based postorder position (position 0 is unused).
    dele = [0] + [never if v == n1 else delete[v] for v in order1]
    ins = [0] + [never if w == n2 else insert[w] for w in order2]
    ren = [[0] * (n2 + 2)]
    for v in order1:
        if v == n1:
            ren.append([0] + [0 if w == n2 else never for w in order2])
        else:
            costs = rename[v]
            ren.append([0] + [never if w == n2 else costs[w] for w in order2])
    l1, l2 = [0, *lml1], [0, *lml2]
    tree = [[0] * (n2 + 2) for _ in range(n1 + 2)]
    _leaf_distances(l1, l2, dele, ins, ren, tree)
    columns = {}
    for j in _keyroots(lml2):
        lj = l2[j]
        if lj == j:
            continue
        info = [(dj, ins[dj], l2[dj] - lj, l2[dj] == lj) for dj in range(lj, j + 1)]
        columns[j] = (lj, info, list(accumulate((c for _, c, _, _ in info), initial=0)))
    for i in _keyroots(lml1):
        if l1[i] == i:
            continue
        for j in columns:
            _forest_distance(i, l1, columns[j], dele, ren, tree)
    return tree[n1 + 1][n2 + 1]


def _leaf_distances(l1, l2, dele, ins, ren, tree) -> None:
    """Fill tree[][] for every pair of a leaf and a subtree, in closed form.

    Against a leaf v, a subtree costs inserting all its nodes, then either deleting v or
    renaming v into one of them instead of inserting it: sum(ins) + min(del v, min(ren − ins)),
    and symmetrically. These are all the distances that Zhang–Shasha's keyroot pairs involving
    a single-node keyroot would produce, so those pairs (the most numerous, each with one row
    or one column) are skipped.
    """
    rename = np.array(ren)
    delete, insert = np.array(dele), np.array(ins)
    leaves1 = [p for p in range(1, len(l1)) if l1[p] == p]
    leaves2 = [p for p in range(1, len(l2)) if l2[p] == p]
    rows = _against_leaves(rename[leaves1, 1:] - insert[1:], insert[1:], delete[leaves1], l2)
    for leaf, row in zip(leaves1, rows.tolist(), strict=True):
        tree[leaf][1:] = row
    columns = _against_leaves(rename[1:, leaves2].T - delete[1:], delete[1:], insert[leaves2], l1)
    for position, column in enumerate(columns.T.tolist(), start=1):
        row = tree[position]
        for leaf, value in zip(leaves2, column, strict=True):
            row[leaf] = value


def _against_leaves(gain, costs, leaf_costs, leftmost) -> np.ndarray:
    """For leaves (rows of `gain`) against every subtree of the other tree (columns, 1-based
    postorder positions with their leftmost leaves): the subtree's summed costs plus the
    cheaper of the leaf's own cost and the best gain inside the subtree."""
    ends = np.concatenate(([0], np.cumsum(costs)))
    best = np.empty_like(gain)
    totals = np.empty(len(costs), dtype=ends.dtype)
    for p in range(1, len(leftmost)):
        best[:, p - 1] = gain[:, leftmost[p] - 1 : p].min(axis=1)
        totals[p - 1] = ends[p] - ends[leftmost[p] - 1]
    return totals + np.minimum(leaf_costs[:, None], best)


def _forest_distance(i, l1, column, dele, ren, tree) -> None:
    """Zhang–Shasha's forest distances for keyroot i of tree 1 and one keyroot of tree 2.

    `column` holds that keyroot's leftmost leaf lj, per column (node, insert cost, offset of the
    node's leftmost leaf, whether it is on the leftmost path) and the running insert costs,
    which are the first row. Rows are the postorder positions l1[i]..i; tree[][] receives the
    distances of subtree pairs on both leftmost paths.
    """
    lj, info, first = column
    li = l1[i]
    forest = [first]
    prev = first
    for di in range(li, i + 1):
        cost = dele[di]
        left = prev[0] + cost
        row = [left]
        tree_row = tree[di]
        if l1[di] == li:
            rename_row = ren[di]
            corner = prev[0]
            for up, (dj, insert, back, on_path) in zip(islice(prev, 1, None), info, strict=True):
                best = up + cost
                other = left + insert
                if other < best:
                    best = other
                if on_path:
                    other = corner + rename_row[dj]
                    if other < best:
                        best = other
                    tree_row[dj] = best
                else:
                    other = first[back] + tree_row[dj]
                    if other < best:
                        best = other
                row.append(best)
                left, corner = best, up
        else:
            base = forest[l1[di] - li]
            for up, (dj, insert, back, _) in zip(islice(prev, 1, None), info, strict=True):
                best = up + cost
                other = left + insert
                if other < best:
                    best = other
                other = base[back] + tree_row[dj]
                if other < best:
                    best = other
                row.append(best)
                left = best
        forest.append(row)
        prev = row


def sequence_edit_distance(
    delete: Sequence[int], insert: Sequence[int], rename: Sequence[Sequence[int]]
) -> int:
    """Edit distance between two sequences with per-item costs (Wagner–Fischer).

    It equals the tree edit distance of two chains, as in flattened DTED. Each row is computed
    without a loop over its cells: with A[y] the best cost that does not insert item y last,
    row[y] = min(A[y], row[y − 1] + insert[y]) = cum[y] + min over t <= y of (A[t] − cum[t]),
    cum being the running sum of insertion costs.
    """
    cum = list(accumulate(insert, initial=0))
    cum_tail = cum[1:]
    row = cum
    for cost, costs in zip(delete, rename, strict=True):
        prev = row
        diagonal = map(add, prev, costs)
        kept = map(min, map(add, islice(prev, 1, None), repeat(cost)), diagonal)
        best = accumulate(map(sub, kept, cum_tail), min, initial=prev[0] + cost)
        row = list(map(add, best, cum))
    return row[-1]
