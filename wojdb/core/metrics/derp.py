"""DERP, Dependency Error Rating with Paths (thesis Ch. 5), structured and flattened.

For every pair of aligned reference words, the dependency path between them is encoded as
(χ, ψ, ω): the labels climbing from the first word to their lowest common ancestor (each edge
named by its child's label), the surface direction (α: first word left of the second, β: right),
and the labels descending to the second word (§5.3.1). The path between their hypothesis
counterparts is encoded likewise; the disparity L is the label-sequence Levenshtein distance of
χ and of ω plus 1 if the directions differ (Eq. 5.3), against L_max (Eq. 5.4). A minimum
spanning tree over the aligned reference words, weighted by L, is built with Kruskal's algorithm
(Algorithm 2) and the score is 1 − ΣL / ΣL_max over its edges (Eq. 5.7).

Choices where the thesis leaves a gap (thesis spec §3.6–3.7):
* the reference is the base tree D; a reference word linked to several hypothesis words keeps
  the first of them, since the thesis allows only the other direction (L883);
* two reference words with the same hypothesis counterpart are joined at weight 0 (Eq. 5.6)
  with L_max 0;
* ties in weight are broken by smaller L_max, then by reference position, which reproduces the
  selection order of Table 5.1 (the tie-break changes the score, §5.6). Kruskal is written here
  because scipy's spanning tree cannot take this tie-break;
* 0/0 counts as 0, so a pair with fewer than two aligned words scores 1 (L1194).
Several roots (a parse of several sentences) hang from one unlabelled virtual root.

A pair with k aligned words has k(k − 1)/2 paths, so the edges and the spanning tree are
computed by numba-compiled functions over int64 arrays (labels as ints), compiled on first use
and cached in __pycache__.

The flattened variant (§5.10) chains the words with one uniform label, so only surface distance
and direction remain: for words d apart in the reference and d' apart in the hypothesis, in the
same direction L = |d − d'| and L_max = 1 + max(d, d'); in opposite directions L = L_max =
1 + d + d'.
"""

from __future__ import annotations

from collections.abc import Sequence

import numba
import numpy as np

from wojdb.core.metrics.alignment import WordAlignment


@numba.njit(cache=True)
def _chains(heads):
    """Every word's chain of ancestors, the word first and −1 (the virtual root) last, as rows
    of a matrix, and each chain's length without the −1: the word's depth."""
    n = heads.shape[0]
    depth = np.zeros(n, np.int64)
    for node in range(n):
        above = heads[node]
        depth[node] = 1
        while above != -1:
            depth[node] += 1
            above = heads[above]
    chains = np.full((n, depth.max() + 1 if n else 1), -1, np.int64)
    for node in range(n):
        above = node
        for step in range(depth[node]):
            chains[node, step] = above
            above = heads[above]
    return chains, depth


@numba.njit(cache=True)
def _meet(chains, depth, n, m):
    """Steps up from n and from m to their lowest common ancestor."""
    up, down = max(0, depth[n] - depth[m]), max(0, depth[m] - depth[n])
    while chains[n, up] != chains[m, down]:
        up += 1
        down += 1
    return up, down


@numba.njit(cache=True)
def _levenshtein(labels1, chain1, length1, labels2, chain2, length2, row):
    """Unit-cost edit distance between the labels of the first nodes of two chains."""
    for j in range(length2 + 1):
        row[j] = j
    for i in range(1, length1 + 1):
        corner, row[0] = row[0], i
        label = labels1[chain1[i - 1]]
        for j in range(1, length2 + 1):
            best = min(row[j] + 1, row[j - 1] + 1, corner + (label != labels2[chain2[j - 1]]))
            corner, row[j] = row[j], best
    return row[length2]


@numba.njit(cache=True)
def _structured_edges(ref_heads, ref_labels, hyp_heads, hyp_labels, words, partners):
    """(L, L_max, n, m) for every pair n < m of the reference words, in order.

    The path from n to m climbs χ from n to their lowest common ancestor and descends ω to m.
    The labels of ω read from m upwards are ω reversed; the Levenshtein distance of two
    sequences equals that of their reversals, so both sides are compared as read upwards.
    Reference words come in ascending order, so the reference direction is always α and the
    directions differ when the hypothesis counterparts are in descending order.
    """
    ref_chains, ref_depth = _chains(ref_heads)
    hyp_chains, hyp_depth = _chains(hyp_heads)
    row = np.empty(max(ref_chains.shape[1], hyp_chains.shape[1]) + 1, np.int64)
    k = words.shape[0]
    edges = np.zeros((k * (k - 1) // 2, 4), np.int64)
    e = 0
    for a in range(k):
        n, hn = words[a], partners[a]
        for b in range(a + 1, k):
            m, hm = words[b], partners[b]
            edges[e, 2], edges[e, 3] = n, m
            if hn != hm:  # else joined at weight 0 with L_max 0 (Eq. 5.6)
                up, down = _meet(ref_chains, ref_depth, n, m)
                h_up, h_down = _meet(hyp_chains, hyp_depth, hn, hm)
                edges[e, 0] = (
                    _levenshtein(
                        ref_labels, ref_chains[n], up, hyp_labels, hyp_chains[hn], h_up, row
                    )
                    + (hn > hm)
                    + _levenshtein(
                        ref_labels, ref_chains[m], down, hyp_labels, hyp_chains[hm], h_down, row
                    )
                )
                edges[e, 1] = max(up, h_up) + 1 + max(down, h_down)
            e += 1
    return edges


@numba.njit(cache=True)
def _flattened_edges(words, partners):
    """(L, L_max, n, m) of flattened DERP for every pair n < m of the reference words, in order."""
    k = words.shape[0]
    edges = np.zeros((k * (k - 1) // 2, 4), np.int64)
    e = 0
    for a in range(k):
        for b in range(a + 1, k):
            distance, gap = words[b] - words[a], partners[b] - partners[a]
            edges[e, 2], edges[e, 3] = words[a], words[b]
            if gap > 0:
                edges[e, 0], edges[e, 1] = abs(distance - gap), 1 + max(distance, gap)
            elif gap < 0:
                edges[e, 0] = edges[e, 1] = 1 + distance - gap
            e += 1
    return edges


@numba.njit(cache=True)
def _spanning_tree(edges):
    """Kruskal over the edges sorted as tuples; the rows kept."""
    if edges.shape[0] == 0:
        return edges
    # One int64 key per row, its four entries as digits in base `base`: under 2**63 while the
    # values (positions, path lengths) stay below 55,000, far longer than any sentence.
    base = edges.max() + 1
    if base > 55_000:
        raise ValueError("sentences too long for DERP's edge keys")
    key = ((edges[:, 0] * base + edges[:, 1]) * base + edges[:, 2]) * base + edges[:, 3]
    parent = np.arange(edges[:, 2:].max() + 1)
    chosen = np.empty(edges.shape[0], np.int64)
    count = 0
    for e in np.argsort(key):
        a, b = edges[e, 2], edges[e, 3]
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[b] = a
            chosen[count] = e
            count += 1
    return edges[chosen[:count]]


def counterparts(alignment: WordAlignment) -> dict[int, int]:
    """Each linked reference word's hypothesis counterpart (the first, if several)."""
    found: dict[int, int] = {}
    for h, r in alignment.links:
        found.setdefault(r, h)
    return found


def spanning_tree(edges: np.ndarray) -> np.ndarray:
    """Kruskal's minimum spanning tree (Algorithm 2) over the words that `edges` join: the rows
    (L, L_max, reference word, reference word) it keeps, ties broken by L_max, then position."""
    return _spanning_tree(np.asarray(edges, np.int64).reshape(-1, 4))


def _score(edges: np.ndarray) -> float:
    tree = spanning_tree(edges)
    total = int(tree[:, 1].sum())
    return 1 - int(tree[:, 0].sum()) / total if total else 1.0


def _aligned(alignment: WordAlignment) -> tuple[np.ndarray, np.ndarray]:
    """The aligned reference words, ascending, and their counterparts."""
    mapping = counterparts(alignment)
    words = sorted(mapping)
    return np.array(words, np.int64), np.array([mapping[w] for w in words], np.int64)


def structured_edges(
    hyp_heads: Sequence[int],
    hyp_labels: Sequence[str],
    ref_heads: Sequence[int],
    ref_labels: Sequence[str],
    alignment: WordAlignment,
) -> np.ndarray:
    """Rows (L, L_max, n, m) for every pair n < m of aligned reference words: the path
    disparity of Eqs. 5.3 and 5.4, components compared separately."""
    words, partners = _aligned(alignment)
    ids: dict[str, int] = {}
    ref_ids = np.array([ids.setdefault(label, len(ids)) for label in ref_labels], np.int64)
    hyp_ids = np.array([ids.setdefault(label, len(ids)) for label in hyp_labels], np.int64)
    heads = np.asarray(ref_heads, np.int64), np.asarray(hyp_heads, np.int64)
    return _structured_edges(heads[0], ref_ids, heads[1], hyp_ids, words, partners)


def derp(
    hyp_heads: Sequence[int],
    hyp_labels: Sequence[str],
    ref_heads: Sequence[int],
    ref_labels: Sequence[str],
    alignment: WordAlignment,
) -> float:
    """Structured DERP: dependency paths with their labels."""
    edges = structured_edges(hyp_heads, hyp_labels, ref_heads, ref_labels, alignment)
    return _score(edges)


def flattened_edges(alignment: WordAlignment) -> np.ndarray:
    """Rows (L, L_max, n, m) of flattened DERP (§5.10) for every pair n < m of aligned words."""
    return _flattened_edges(*_aligned(alignment))


def flattened_derp(alignment: WordAlignment) -> float:
    """Flattened DERP (§5.10): surface distance and direction only, no parser."""
    return _score(flattened_edges(alignment))
