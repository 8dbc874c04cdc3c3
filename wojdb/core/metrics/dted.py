"""DTED, dependency-based tree edit distance (thesis Ch. 4), with the flags b, c, co, cl and
their flattened forms fb, fc, fco, fcl.

Unlabelled dependency trees of hypothesis and reference are compared by tree edit distance
(`ted`). Flags (§4.3):

* b: every rename and delete costs 1, even between identical words (Eq. 4.1; range [0, 0.5]);
* c: renaming a word into its aligned counterpart is free, everything else costs 1 (Eq. 4.1);
* co, cl: as c, but operations on aligned words take priority over operations on unaligned
  ones. The thesis prices them 1000 against 1 and splits the total into dist_a and dist_na
  (L1096); here the priority weight exceeds any possible count of unaligned operations, so the
  split is exact for sentences of any length. The thesis leaves open what renaming an aligned
  word into a word that is not its counterpart costs (thesis spec §2.3); it is priced as
  deleting both, so every aligned word costs one aligned operation unless matched to its
  counterpart, as dist_a is defined (L1156), and the §4.5 worked example comes out as printed.
  co scores Eq. 4.2, cl Eq. 4.5 with the logarithmic weight of Eq. 4.4;
* f: the same on flattened trees, where each word is the only child of the word before it
  (§3.4.4), so no parser is involved.

A fraction whose denominator is 0 counts as 0 (L1194).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wojdb.core.metrics.alignment import WordAlignment
from wojdb.core.metrics.ted import flattened, tree_edit_distance

FLAGS = ("b", "c", "co", "cl", "fb", "fc", "fco", "fcl")


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def basic_distance(hyp_heads: Sequence[int], ref_heads: Sequence[int]) -> int:
    """Flag b: every operation costs 1.

    Two chains (flattened trees) need no search: every word of the longer one costs at least 1,
    and renaming the shorter one's words in order and deleting the rest costs exactly that.
    """
    n_h, n_r = len(hyp_heads), len(ref_heads)
    if tuple(hyp_heads) == flattened(n_h) and tuple(ref_heads) == flattened(n_r):
        return max(n_h, n_r)
    ones = np.ones(n_h, np.int64), np.ones(n_r, np.int64)
    return tree_edit_distance(hyp_heads, ref_heads, *ones, np.ones((n_h, n_r), np.int64))


def _links(alignment: WordAlignment) -> tuple[np.ndarray, np.ndarray]:
    """Hypothesis and reference positions of the links, for indexing cost matrices."""
    links = np.array(alignment.links, np.int64).reshape(-1, 2)
    return links[:, 0], links[:, 1]


def counterpart_distance(
    hyp_heads: Sequence[int], ref_heads: Sequence[int], alignment: WordAlignment
) -> int:
    """Flag c: renames between aligned counterparts are free."""
    n_h, n_r = len(hyp_heads), len(ref_heads)
    rename = np.ones((n_h, n_r), np.int64)
    rename[_links(alignment)] = 0
    ones = np.ones(n_h, np.int64), np.ones(n_r, np.int64)
    return tree_edit_distance(hyp_heads, ref_heads, *ones, rename)


@dataclass(frozen=True)
class PrioritisedDistance:
    aligned: int  # dist_a: aligned words not matched to a counterpart
    unaligned: int  # dist_na: operations on unaligned words


def prioritised_distance(
    hyp_heads: Sequence[int], ref_heads: Sequence[int], alignment: WordAlignment
) -> PrioritisedDistance:
    """Flags o and l: aligned operations minimised first, then unaligned ones."""
    n_h, n_r = len(hyp_heads), len(ref_heads)
    weight = n_h + n_r + 1  # more than the number of unaligned operations can ever be
    hyp_links, ref_links = _links(alignment)
    unaligned_h, unaligned_r = np.ones(n_h, bool), np.ones(n_r, bool)
    unaligned_h[hyp_links] = unaligned_r[ref_links] = False
    delete = np.where(unaligned_h, 1, weight)
    insert = np.where(unaligned_r, 1, weight)
    rename = delete[:, None] + insert
    rename[np.ix_(unaligned_h, unaligned_r)] = 1  # one unaligned operation, two nodes
    rename[hyp_links, ref_links] = 0
    total = tree_edit_distance(hyp_heads, ref_heads, delete, insert, rename)
    return PrioritisedDistance(*divmod(total, weight))


def score_distance(distance: int, n_h: int, n_r: int) -> float:
    """Eq. 4.1: 1 − dist / (n_H + n_R), flags b and c."""
    return 1 - _ratio(distance, n_h + n_r)


def score_o(distance: PrioritisedDistance, alignment: WordAlignment) -> float:
    """Eq. 4.2: 1 − dist_a / (a_H + a_R)."""
    aligned = len(alignment.aligned_hyp) + len(alignment.aligned_ref)
    return 1 - _ratio(distance.aligned, aligned)


def log_weight(prop: float) -> float:
    """Eq. 4.4: 1 if nothing is aligned, else min(0.9, 0.1^prop)."""
    return 1.0 if prop == 0 else min(0.9, 0.1**prop)


def score_l(distance: PrioritisedDistance, alignment: WordAlignment) -> float:
    """Eq. 4.5: 1 − ((1 − log)·dist_a/(a_H + a_R) + log·dist_na/(na_H + na_R))."""
    aligned = len(alignment.aligned_hyp) + len(alignment.aligned_ref)
    unaligned = alignment.hyp_len + alignment.ref_len - aligned
    weight = log_weight(_ratio(aligned, alignment.hyp_len + alignment.ref_len))
    return 1 - (
        (1 - weight) * _ratio(distance.aligned, aligned)
        + weight * _ratio(distance.unaligned, unaligned)
    )


def dted(
    flag: str, hyp_heads: Sequence[int], ref_heads: Sequence[int], alignment: WordAlignment
) -> float:
    """The DTED score of one flag (see FLAGS); higher is better."""
    if flag not in FLAGS:
        raise ValueError(f"unknown DTED flag {flag!r}; choose from {', '.join(FLAGS)}")
    if flag.startswith("f"):
        flag = flag[1:]
        hyp_heads, ref_heads = flattened(len(hyp_heads)), flattened(len(ref_heads))
    n_h, n_r = len(hyp_heads), len(ref_heads)
    if flag == "b":
        return score_distance(basic_distance(hyp_heads, ref_heads), n_h, n_r)
    if flag == "c":
        return score_distance(counterpart_distance(hyp_heads, ref_heads, alignment), n_h, n_r)
    distance = prioritised_distance(hyp_heads, ref_heads, alignment)
    return score_o(distance, alignment) if flag == "co" else score_l(distance, alignment)
