"""Flat permutation metrics: Kendall, Spearman, Hamming, Ulam and the fuzzy reordering score.

Definitions from Stanojević & Sima'an (2014, Figure 2), all in [0, 1] with higher better. A
permutation is a tuple of the integers 1..n: position k holds the reference index of the k-th
aligned hypothesis word (see `alignment.alignment_permutation`).

Permutations shorter than two carry no order. The papers require n > 1 and the released code is
inconsistent (metrics spec §1.2), so one policy holds for every permutation metric here: nothing
aligned (n = 0) scores 0, a single aligned word scores 1 (see `short_permutation_score`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy as np
from rapidfuzz.distance import LCSseq

#: The order of the aligned hypothesis words, as reference indices 1..n (named apart from
#: `survey.models.Permutation`, a permuted reference sentence).
WordOrder = tuple[int, ...]


def as_permutation(values: Sequence[int]) -> WordOrder:
    """Return `values` as a tuple, or raise ValueError unless it is a permutation of 1..n."""
    perm = tuple(int(v) for v in values)
    if sorted(perm) != list(range(1, len(perm) + 1)):
        raise ValueError(f"not a permutation of 1..{len(perm)}: {list(perm)}")
    return perm


def short_permutation_score(n: int) -> float:
    """The policy score of a permutation of length n < 2: 0 if empty, 1 for one word."""
    return 0.0 if n == 0 else 1.0


def needs_two(metric: Callable[..., float]) -> Callable[..., float]:
    """Apply the short-permutation policy before `metric`, whose formula needs n >= 2."""

    @functools.wraps(metric)
    def wrapper(perm: WordOrder, *args, **kwargs) -> float:
        if len(perm) < 2:
            return short_permutation_score(len(perm))
        return metric(perm, *args, **kwargs)

    return wrapper


def identity(n: int) -> WordOrder:
    return tuple(range(1, n + 1))


def inverted(n: int) -> WordOrder:
    return tuple(range(n, 0, -1))


@needs_two
def kendall(perm: WordOrder) -> float:
    """Share of position pairs kept in order (skip-bigrams), i.e. 1 - inversions / C(n, 2)."""
    p = np.asarray(perm)
    n = len(p)
    inversions = int(np.count_nonzero(np.triu(p[:, None] > p[None, :], k=1)))
    return 1.0 - inversions / (n * (n - 1) / 2)


@needs_two
def spearman(perm: WordOrder) -> float:
    """(ρ + 1) / 2 with ρ Spearman's rank correlation against the identity (constant 3, not 6)."""
    n = len(perm)
    squared = sum((value - position) ** 2 for position, value in enumerate(perm, start=1))
    return 1.0 - 3.0 * squared / (n * (n * n - 1))


@needs_two
def hamming(perm: WordOrder) -> float:
    """Share of fixed points (1 minus the normalised Hamming distance to the identity)."""
    return sum(value == position for position, value in enumerate(perm, start=1)) / len(perm)


@needs_two
def ulam(perm: WordOrder) -> float:
    """(LCS(π, identity) − 1) / (n − 1); the LCS with the identity is the longest increasing run."""
    n = len(perm)
    return (LCSseq.similarity(perm, identity(n)) - 1) / (n - 1)


@needs_two
def fuzzy(perm: WordOrder) -> float:
    """Talbot et al.'s fuzzy reordering score 1 − (c − 1)/(n − 1).

    c counts the chunks in which each value is its predecessor + 1; descending runs are not
    chunks (as in the released code, metrics spec §1.2).
    """
    n = len(perm)
    chunks = 1 + sum(perm[i] != perm[i - 1] + 1 for i in range(1, n))
    return 1.0 - (chunks - 1) / (n - 1)
