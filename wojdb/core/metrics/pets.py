"""Permutation trees (PETs) and forests (PEFs), and the word-order scores defined over them.

Written here because no Python library builds permutation trees. Sources: Stanojević & Sima'an
(2014, §2 and Figure 6), Stanojević's thesis (§2.5.3, Figure 4.2, §4.4) and the authors' released
code (BEER), whose formulas differ from the papers (metrics spec §3.2). Both are provided:

* ``*_paper``: the papers' formula. A node scores β·opScore + (1 − β)·(mean over inferences of the
  unweighted mean of its children longer than one word); a node whose children are all words
  scores opScore; no rescaling.
* ``*_beer``: the released code. Children are weighted by span length and single words count with
  score 1; the PEF averages over *trees* rather than inferences; the raw score is rescaled as
  (raw − raw(inverted)) / (1 − raw(inverted)) against the inverted permutation of the same length.

opScore is 1 for a monotone operator and 0 otherwise. β defaults to 0.6, the paper's value for
every language pair (metrics spec §1.4). The PEF is never enumerated: all its PETs differ only
in how chains of one binary operator are bracketed, so the chart is the canonical PET flattened,
plus, for each flat binary node, every contiguous group of its children with every binary split
(thesis §2.5.3). Scores are computed by dynamic programming over those groups, O(k³) for a flat
node with k children.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache, wraps

from wojdb.core.metrics.permutation import WordOrder, inverted, needs_two

BETA = 0.6


@dataclass(frozen=True, slots=True)
class PetNode:
    """A PET node over the positions [start, end) of the permutation; a leaf has no operator."""

    start: int
    end: int
    op: tuple[int, ...] = ()
    children: tuple[PetNode, ...] = ()

    @property
    def size(self) -> int:
        return self.end - self.start

    @property
    def is_leaf(self) -> bool:
        return not self.children


def is_monotone(op: tuple[int, ...]) -> bool:
    return all(op[i] == i + 1 for i in range(len(op)))


def _op_score(op: tuple[int, ...]) -> float:
    return 1.0 if is_monotone(op) else 0.0


def _rank(values: list[int]) -> tuple[int, ...]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0] * len(values)
    for rank, index in enumerate(order, start=1):
        ranks[index] = rank
    return tuple(ranks)


@lru_cache(maxsize=4096)
def canonical_pet(perm: WordOrder) -> PetNode:
    """The left-branching canonical PET, by shift-reduce (Zhang & Gildea 2007; thesis §2.5.3).

    After each shift, the smallest k >= 2 top stack elements whose values form a contiguous range
    are reduced, repeatedly. Each stack element keeps (node, min, max) so the test is O(1) per k.
    """
    if not perm:
        raise ValueError("the empty permutation has no PET")
    stack: list[tuple[PetNode, int, int]] = []
    for position, value in enumerate(perm):
        stack.append((PetNode(position, position + 1), value, value))
        reduced = True
        while reduced and len(stack) > 1:
            reduced = False
            lo, hi, size = stack[-1][1], stack[-1][2], stack[-1][0].size
            for k in range(2, len(stack) + 1):
                node, node_lo, node_hi = stack[-k]
                lo, hi, size = min(lo, node_lo), max(hi, node_hi), size + node.size
                if hi - lo + 1 == size:
                    top = stack[-k:]
                    parent = PetNode(
                        top[0][0].start,
                        top[-1][0].end,
                        _rank([item[1] for item in top]),
                        tuple(item[0] for item in top),
                    )
                    del stack[-k:]
                    stack.append((parent, lo, hi))
                    reduced = True
                    break
    return stack[0][0]


@lru_cache(maxsize=4096)
def flat_pet(perm: WordOrder) -> PetNode:
    """The canonical PET with chains of one binary operator merged into one node (thesis §2.5.3).

    A merged node with k children has operator 1..k (monotone) or k..1 (inverted).
    """
    return _flatten(canonical_pet(perm))


def _flatten(node: PetNode) -> PetNode:
    if node.is_leaf:
        return node
    children = [_flatten(child) for child in node.children]
    if len(node.op) != 2:
        return PetNode(node.start, node.end, node.op, tuple(children))
    monotone = is_monotone(node.op)
    merged: list[PetNode] = []
    for child in children:
        if not child.is_leaf and _is_binary_kind(child.op) and is_monotone(child.op) == monotone:
            merged.extend(child.children)
        else:
            merged.append(child)
    k = len(merged)
    op = tuple(range(1, k + 1)) if monotone else tuple(range(k, 0, -1))
    return PetNode(node.start, node.end, op, tuple(merged))


def _is_binary_kind(op: tuple[int, ...]) -> bool:
    """A flat binary node: a monotone or inverted operator (prime ones have arity >= 4)."""
    return len(op) == 2 or is_monotone(op) or op == tuple(range(len(op), 0, -1))


def _has_one_inference(node: PetNode) -> bool:
    """Only a flat binary node with more than two children can be split in several ways."""
    return len(node.children) == 2 or not _is_binary_kind(node.op)


# --- Paper formula (Stanojević & Sima'an 2014, Figure 6) ---------------------------------------


@needs_two
def pef_paper(perm: WordOrder, beta: float = BETA) -> float:
    """PEFscore: φ_node over the permutation forest, averaging uniformly over inferences."""
    return _paper_forest(flat_pet(perm), beta)


def _paper_forest(node: PetNode, beta: float) -> float:
    if node.is_leaf:
        return 1.0
    child_scores = [_paper_forest(child, beta) for child in node.children]
    op_score = _op_score(node.op)
    if _has_one_inference(node):
        children = [(c.size, s) for c, s in zip(node.children, child_scores, strict=True)]
        return _paper_combine(op_score, children, beta)
    return _paper_groups(op_score, node.children, child_scores, beta)


def _paper_combine(op_score: float, children: list[tuple[int, float]], beta: float) -> float:
    """φ_node with a single inference: children are (length, score) pairs."""
    longer = [score for size, score in children if size > 1]
    if not longer:
        return op_score
    return beta * op_score + (1 - beta) * sum(longer) / len(longer)


def _paper_groups(op_score, children, child_scores, beta) -> float:
    """φ_node of every contiguous group of a flat binary node's children, narrowest first.

    score[a][w] is the group of children a..a + w; split t has the parts (a, t) and
    (a + t + 1, w − 1 − t). A part counts only if it spans more than one word (φ_inf excludes
    words), so a group of exactly two words has only words as children and scores opScore.
    """
    k = len(children)
    score = [[value] for value in child_scores]
    longer = [[child.size > 1] for child in children]
    top, rest = beta * op_score, 1 - beta
    for width in range(1, k):
        for a in range(k - width):
            left_scores, left_longer = score[a], longer[a]
            total = 0.0
            for t in range(width):
                right, right_width = a + t + 1, width - 1 - t
                if left_longer[t]:
                    if longer[right][right_width]:
                        total += (left_scores[t] + score[right][right_width]) / 2
                    else:
                        total += left_scores[t]
                elif longer[right][right_width]:
                    total += score[right][right_width]
                else:
                    total = None  # two words
                    break
            left_scores.append(op_score if total is None else top + rest * total / width)
            left_longer.append(True)
    return score[0][k - 1]


@needs_two
def pet_paper(perm: WordOrder, beta: float = BETA) -> float:
    """PETscore: φ_node on the canonical left-branching PET only (paper §4; thesis l. 3350)."""
    return _paper_tree(canonical_pet(perm), beta)


def _paper_tree(node: PetNode, beta: float) -> float:
    if node.is_leaf:
        return 1.0
    children = [(child.size, _paper_tree(child, beta)) for child in node.children]
    return _paper_combine(_op_score(node.op), children, beta)


# --- Released-code variants (BEER; metrics spec §3.2) ------------------------------------------


def _rescaled(raw_score, perm: WordOrder, beta: float) -> float:
    """(raw − raw(inverted_n)) / (1 − raw(inverted_n)), as the released code normalises."""
    floor = raw_score(inverted(len(perm)), beta)
    if floor >= 1:
        raise ValueError(f"beta must be positive for a rescaled score, not {beta}")
    raw = raw_score(perm, beta)
    return (raw - floor) / (1 - floor)


@lru_cache(maxsize=1024)
def catalan(n: int) -> int:
    """Catalan(n): the number of binary bracketings of n + 1 items."""
    return math.comb(2 * n, n) // (n + 1)


@lru_cache(maxsize=1024)
def _tree_shares(width: int) -> tuple[float, ...]:
    """For a group of width + 1 children, the share of its binary bracketings whose top split
    leaves t + 1 children on the left, for t = 0..width − 1 (exact integer ratios)."""
    return tuple(catalan(t) * catalan(width - 1 - t) / catalan(width) for t in range(width))


def _beer_forest(node: PetNode, beta: float, mode: str) -> float:
    """Raw BEER score of a node; `mode` says how a flat node's inferences are combined.

    "trees": expectation over all PETs (the released PEFscore), so an inference is weighted by
    its share of the trees; "inferences": uniform over inferences (PEFoldScore); "viterbi": the
    best inference (PETViterbiScore).
    """
    if node.is_leaf:
        return 1.0
    child_scores = [_beer_forest(child, beta, mode) for child in node.children]
    op_score = _op_score(node.op)
    if _has_one_inference(node):
        pairs = zip(node.children, child_scores, strict=True)
        weighted = sum(child.size * score for child, score in pairs) / node.size
        return beta * op_score + (1 - beta) * weighted
    return _beer_groups(op_score, node.children, child_scores, beta, mode)


def _beer_groups(op_score, children, child_scores, beta, mode) -> float:
    """The released code's score of every contiguous group of a flat node's children.

    mass[a][w] is the score of the group of children a..a + w times its length in words, so the
    two parts of a split, (a, t) and (a + t + 1, w − 1 − t), combine by addition.
    """
    k = len(children)
    sizes = [[child.size] for child in children]
    mass = [[score * child.size] for score, child in zip(child_scores, children, strict=True)]
    top, rest = beta * op_score, 1 - beta
    for width in range(1, k):
        shares = _tree_shares(width)
        for a in range(k - width):
            left = mass[a]
            parts = [left[t] + mass[a + t + 1][width - 1 - t] for t in range(width)]
            if mode == "viterbi":
                inner = max(parts)
            elif mode == "trees":
                inner = sum(part * share for part, share in zip(parts, shares, strict=True))
            else:
                inner = sum(parts) / width
            size = sizes[a][0] + sizes[a + 1][width - 1]
            sizes[a].append(size)
            left.append(top * size + rest * inner)
    return mass[0][k - 1] / sizes[0][k - 1]


@lru_cache(maxsize=8192)
def _pef_beer_raw(perm: WordOrder, beta: float) -> float:
    return _beer_forest(flat_pet(perm), beta, "trees")


@lru_cache(maxsize=8192)
def _pef_beer_old_raw(perm: WordOrder, beta: float) -> float:
    return _beer_forest(flat_pet(perm), beta, "inferences")


@lru_cache(maxsize=8192)
def _pet_viterbi_raw(perm: WordOrder, beta: float) -> float:
    return _beer_forest(flat_pet(perm), beta, "viterbi")


@lru_cache(maxsize=8192)
def _pet_beer_raw(perm: WordOrder, beta: float) -> float:
    return _beer_tree(canonical_pet(perm), beta)


@lru_cache(maxsize=8192)
def _pet_beer_flat_raw(perm: WordOrder, beta: float) -> float:
    return _beer_tree(flat_pet(perm), beta)


def _beer_tree(node: PetNode, beta: float) -> float:
    if node.is_leaf:
        return 1.0
    weighted = sum(child.size * _beer_tree(child, beta) for child in node.children) / node.size
    return beta * _op_score(node.op) + (1 - beta) * weighted


@needs_two
def pef_beer(perm: WordOrder, beta: float = BETA) -> float:
    """Released-code PEF ("PEFrecursive"): the mean over all PETs, rescaled."""
    return _rescaled(_pef_beer_raw, perm, beta)


@needs_two
def pef_beer_old(perm: WordOrder, beta: float = BETA) -> float:
    """Released-code "old PEF": uniform over inferences, span-weighted children, rescaled."""
    return _rescaled(_pef_beer_old_raw, perm, beta)


@needs_two
def pet_beer(perm: WordOrder, beta: float = BETA) -> float:
    """Released-code score of the canonical PET, rescaled."""
    return _rescaled(_pet_beer_raw, perm, beta)


@needs_two
def pet_beer_flat(perm: WordOrder, beta: float = BETA) -> float:
    """Released-code score of the flat PET, rescaled; it can be negative (metrics spec §3.2)."""
    return _rescaled(_pet_beer_flat_raw, perm, beta)


@needs_two
def pet_beer_viterbi(perm: WordOrder, beta: float = BETA) -> float:
    """Released-code score of the best-scoring PET in the forest, rescaled."""
    return _rescaled(_pet_viterbi_raw, perm, beta)


# --- Simple PET metrics (thesis Figure 4.2) -----------------------------------------------------


def count_pets(perm: WordOrder) -> int:
    """Number of PETs: the product of Catalan(k − 1) over flat binary nodes with k children."""
    return _count_flat(flat_pet(perm))


def _count_flat(node: PetNode) -> int:
    count = catalan(len(node.children) - 1) if _is_binary_kind(node.op) and node.children else 1
    for child in node.children:
        count *= _count_flat(child)
    return count


def _internal_nodes(node: PetNode) -> list[PetNode]:
    nodes = []
    stack = [node]
    while stack:
        current = stack.pop()
        if not current.is_leaf:
            nodes.append(current)
            stack.extend(current.children)
    return nodes


def _binarizable_below_three(metric):
    """Two words always form a binary PET: score 1 (the formulas divide by n − 2)."""

    @needs_two
    @wraps(metric)
    def wrapper(perm: WordOrder) -> float:
        return 1.0 if len(perm) == 2 else metric(perm)

    return wrapper


@_binarizable_below_three
def pet_count_score(perm: WordOrder) -> float:
    """#PETs: (#PETs(π) − 1) / (Cat(n − 1) − 1); monotone and inverted both score 1."""
    n = len(perm)
    return (count_pets(perm) - 1) / (catalan(n - 1) - 1)


@_binarizable_below_three
def pet_nodes_score(perm: WordOrder) -> float:
    """|PET|: (internal nodes of the canonical PET − 1) / (n − 2); 1 when fully binarizable."""
    return (len(_internal_nodes(canonical_pet(perm))) - 1) / (len(perm) - 2)


@_binarizable_below_three
def pet_max_arity_score(perm: WordOrder) -> float:
    """MAX|Op|: 1 − (largest operator arity − 2) / (n − 2)."""
    widest = max(len(node.op) for node in _internal_nodes(canonical_pet(perm)))
    return 1.0 - (widest - 2) / (len(perm) - 2)
