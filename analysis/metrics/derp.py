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

The flattened variant (§5.10) chains the words with one uniform label, so only surface distance
and direction remain: for words d apart in the reference and d' apart in the hypothesis, in the
same direction L = |d − d'| and L_max = 1 + max(d, d'); in opposite directions L = L_max =
1 + d + d'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rapidfuzz.distance import Levenshtein

from analysis.metrics.alignment import Alignment

ALPHA, BETA = "α", "β"


class PathEncoding(NamedTuple):
    up: tuple[str, ...]  # χ
    direction: str  # ψ
    down: tuple[str, ...]  # ω


class _Paths:
    """Path encodings in one tree; every word's ancestors and their labels are listed once."""

    def __init__(self, heads: Sequence[int], labels: Sequence[str]):
        self.positions: list[dict[int, int]] = []  # ancestor -> steps up to it
        self.labels: list[tuple[str, ...]] = []  # the labels met climbing from the word
        for node in range(len(heads)):
            chain = [node]
            while chain[-1] != -1:  # −1 is the virtual root above every sentence root
                chain.append(heads[chain[-1]])
            self.positions.append({ancestor: step for step, ancestor in enumerate(chain)})
            self.labels.append(tuple(labels[ancestor] for ancestor in chain[:-1]))

    def encode(self, n: int, m: int) -> PathEncoding:
        above_n = self.positions[n]
        up_steps, down_steps = min(
            (above_n[ancestor], step)
            for ancestor, step in self.positions[m].items()
            if ancestor in above_n
        )  # the lowest common ancestor
        up = self.labels[n][:up_steps]
        down = self.labels[m][:down_steps][::-1]
        return PathEncoding(up, ALPHA if n < m else BETA, down)


def path_encoding(heads: Sequence[int], labels: Sequence[str], n: int, m: int) -> PathEncoding:
    """The encoding (χ, ψ, ω) of the dependency path from word n to word m (§5.3.1)."""
    return _Paths(heads, labels).encode(n, m)


def path_disparity(first: PathEncoding, second: PathEncoding) -> tuple[int, int]:
    """(L, L_max) of Eqs. 5.3 and 5.4: the components are compared separately."""
    disparity = (
        Levenshtein.distance(first.up, second.up)
        + (first.direction != second.direction)
        + Levenshtein.distance(first.down, second.down)
    )
    longest = max(len(first.up), len(second.up)) + 1 + max(len(first.down), len(second.down))
    return disparity, longest


def counterparts(alignment: Alignment) -> dict[int, int]:
    """Each linked reference word's hypothesis counterpart (the first, if several)."""
    found: dict[int, int] = {}
    for h, r in alignment.links:
        found.setdefault(r, h)
    return found


Edge = tuple[int, int, int, int]  # (L, L_max, reference word, reference word)


def spanning_tree(words: Sequence[int], edges: list[Edge]) -> list[Edge]:
    """Kruskal's minimum spanning tree (Algorithm 2) with ties broken by L_max, then position."""
    parent = {word: word for word in words}

    def root(word: int) -> int:
        while parent[word] != word:
            parent[word] = parent[parent[word]]
            word = parent[word]
        return word

    chosen = []
    for edge in sorted(edges):
        a, b = root(edge[2]), root(edge[3])
        if a != b:
            parent[b] = a
            chosen.append(edge)
            if len(chosen) == len(words) - 1:
                break
    return chosen


def _score(words: Sequence[int], edges: list[Edge]) -> float:
    tree = spanning_tree(words, edges)
    total = sum(edge[1] for edge in tree)
    return 1 - sum(edge[0] for edge in tree) / total if total else 1.0


def derp(
    hyp_heads: Sequence[int],
    hyp_labels: Sequence[str],
    ref_heads: Sequence[int],
    ref_labels: Sequence[str],
    alignment: Alignment,
) -> float:
    """Structured DERP: dependency paths with their labels."""
    mapping = counterparts(alignment)
    words = sorted(mapping)
    ref_paths, hyp_paths = _Paths(ref_heads, ref_labels), _Paths(hyp_heads, hyp_labels)
    edges = []
    for i, n in enumerate(words):
        for m in words[i + 1 :]:
            hn, hm = mapping[n], mapping[m]
            if hn == hm:
                edges.append((0, 0, n, m))
            else:
                disparity = path_disparity(ref_paths.encode(n, m), hyp_paths.encode(hn, hm))
                edges.append((*disparity, n, m))
    return _score(words, edges)


def flattened_derp(alignment: Alignment) -> float:
    """Flattened DERP (§5.10): surface distance and direction only, no parser."""
    mapping = counterparts(alignment)
    words = sorted(mapping)
    edges = []
    for i, n in enumerate(words):
        for m in words[i + 1 :]:
            gap = mapping[m] - mapping[n]
            distance = m - n
            if gap == 0:
                edges.append((0, 0, n, m))
            elif gap > 0:
                edges.append((abs(distance - gap), 1 + max(distance, gap), n, m))
            else:
                edges.append((1 + distance - gap, 1 + distance - gap, n, m))
    return _score(words, edges)
