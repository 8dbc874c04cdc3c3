"""LEPOR and hLEPOR (Han, MSc thesis, Ch. 3–4), sentence level, single reference.

Written here because the PyPI ports follow the author's Perl script, whose alignment departs from
the thesis (metrics spec §5.5); this module follows the thesis's description (Figure 3-1):
case-insensitive, one-to-one, output words aligned left to right; a word with several candidate
reference words prefers those whose ±n context shares a word with its own ±n context, and among
the preferred (or, if none is preferred, among all) takes the nearest by normalised position,
the leftmost on a tie. Defaults are the author's: n = 2, recall weighted α:β = 9:1, and hLEPOR
weights HPR:LP:NPP = 7:2:1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

ALPHA, BETA = 9.0, 1.0
CONTEXT = 2
WEIGHTS = {"hpr": 7.0, "lp": 2.0, "npp": 1.0}


def lepor_alignment(hyp: Sequence[str], ref: Sequence[str], n: int = CONTEXT) -> list[int | None]:
    """For each hypothesis word, the index of its reference word or None (Figure 3-1)."""
    out = [word.lower() for word in hyp]
    target = [word.lower() for word in ref]
    used: set[int] = set()
    aligned: list[int | None] = []
    for i, word in enumerate(out):
        candidates = [j for j, other in enumerate(target) if other == word and j not in used]
        if not candidates:
            aligned.append(None)
            continue
        context = _context(out, i, n)
        supported = [j for j in candidates if context & _context(target, j, n)]
        pool = supported or candidates
        choice = min(pool, key=lambda j: (abs((i + 1) / len(out) - (j + 1) / len(target)), j))
        used.add(choice)
        aligned.append(choice)
    return aligned


def _context(words: list[str], i: int, n: int) -> set[str]:
    """The words within n positions of position i, excluding it."""
    return {words[k] for k in range(max(0, i - n), min(len(words), i + n + 1)) if k != i}


@dataclass(frozen=True)
class LeporFactors:
    length_penalty: float
    npd: float
    precision: float
    recall: float

    @property
    def npos_penalty(self) -> float:
        """NPosPenal = exp(−NPD) (Eq. 3-2), the word-order factor, in [1/e, 1]."""
        return math.exp(-self.npd)

    def hpr(self, alpha: float = ALPHA, beta: float = BETA) -> float:
        """Harmonic(αR, βP) = (α + β) / (α/R + β/P) (Eq. 3-4); 0 without matches."""
        if not self.precision:
            return 0.0
        return (alpha + beta) / (alpha / self.recall + beta / self.precision)


def lepor_factors(hyp: Sequence[str], ref: Sequence[str], n: int = CONTEXT) -> LeporFactors:
    c, r = len(hyp), len(ref)
    alignment = lepor_alignment(hyp, ref, n)
    matches = sum(j is not None for j in alignment)
    # Eq. 3-3: PD_i compares positions normalised by each sentence's length; unmatched words
    # add 0 but still count in the hypothesis length.
    npd = (
        sum(abs((i + 1) / c - (j + 1) / r) for i, j in enumerate(alignment) if j is not None) / c
        if c
        else 0.0
    )
    return LeporFactors(
        length_penalty=length_penalty(c, r),
        npd=npd,
        precision=matches / c if c else 0.0,
        recall=matches / r if r else 0.0,
    )


def length_penalty(c: int, r: int) -> float:
    """Eq. 3-1: penalises hypotheses shorter and longer than the reference; 0 for no words."""
    if c == 0 or r == 0:
        return 0.0
    if c < r:
        return math.exp(1 - r / c)
    if c > r:
        return math.exp(1 - c / r)
    return 1.0


def lepor(factors: LeporFactors, alpha: float = ALPHA, beta: float = BETA) -> float:
    """LEPOR = LP × NPosPenal × Harmonic(αR, βP) (Eq. 3-7)."""
    return factors.length_penalty * factors.npos_penalty * factors.hpr(alpha, beta)


def hlepor(
    factors: LeporFactors,
    weights: dict[str, float] = WEIGHTS,
    alpha: float = ALPHA,
    beta: float = BETA,
) -> float:
    """hLEPOR: the weighted harmonic mean of LP, NPosPenal and HPR (Eq. 4-4); 0 if any is 0."""
    values = {"hpr": factors.hpr(alpha, beta), "lp": factors.length_penalty}
    values["npp"] = factors.npos_penalty
    if not all(values.values()):
        return 0.0
    return sum(weights.values()) / sum(weights[key] / values[key] for key in weights)
