"""Sentence chrF as sacrebleu computes it (`CHRF().sentence_score(hyp, [ref]).score`), compiled.

sacrebleu's default chrF: character n-grams of orders 1-6 of each text with its whitespace
removed, β = 2, and the effective-order average of precision and recall (orders one side has
no n-gram of are left out). It builds six Counters per sentence, about 0.3 ms a pair; the
alignment check of a WMT release scores 100,000 pairs. Here each pair's characters are
renumbered over the pair's own alphabet, so the six characters starting at a position are one
exact int64 key; the keys of each side are sorted once and matched run by run for each order,
an n-gram being a key's first n characters. A pair whose alphabet is too large for six
characters to fit in 63 bits (1,023 distinct characters or more) is scored by the same rule in
plain Python. The scores equal sacrebleu's to the last bit
(tests/core/test_chrf.py).

The functions compile on their first call and numba keeps the machine code in __pycache__.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numba
import numpy as np

ORDER = 6
BETA = 2
_KEY_BITS = 63


@numba.njit(cache=True)
def _f_score(stats: np.ndarray) -> float:
    """sacrebleu's `_compute_f_score` without eps smoothing: stats[n] = (hyp, ref, match)
    counts of order n + 1."""
    factor = BETA * BETA
    avg_prec, avg_rec, effective = 0.0, 0.0, 0
    for n in range(ORDER):
        n_hyp, n_ref, n_match = stats[n, 0], stats[n, 1], stats[n, 2]
        if n_hyp > 0 and n_ref > 0:
            avg_prec += n_match / n_hyp
            avg_rec += n_match / n_ref
            effective += 1
    if effective == 0:
        return 0.0
    avg_prec /= effective
    avg_rec /= effective
    if avg_prec + avg_rec:
        score = (1 + factor) * avg_prec * avg_rec
        score /= (factor * avg_prec) + avg_rec
        return 100 * score
    return 0.0


@numba.njit(cache=True)
def _keys(ranks: np.ndarray, bits: int) -> np.ndarray:
    """Sorted keys of the ORDER-grams starting at each position, slots past the end 0."""
    keys = np.zeros(ranks.shape[0], dtype=np.int64)
    for i in range(ranks.shape[0]):
        key = 0
        for j in range(ORDER):
            key = (key << bits) | (ranks[i + j] if i + j < ranks.shape[0] else 0)
        keys[i] = key
    return np.sort(keys)


@numba.njit(cache=True)
def _matches(a: np.ndarray, b: np.ndarray, shift: int, mask: int) -> int:
    """Σ over n-grams of min(count in a, count in b): the n-gram of a key is the key shifted
    right by `shift`, a real one where its last slot (`mask`) is not past the end. Sorting
    the full keys sorts every prefix of them, so one sort serves all orders."""
    i, j, total = 0, 0, 0
    while i < a.shape[0] and j < b.shape[0]:
        x, y = a[i] >> shift, b[j] >> shift
        if not x & mask:
            i += 1
        elif not y & mask:
            j += 1
        elif x < y:
            i += 1
        elif x > y:
            j += 1
        else:
            na, nb = 0, 0
            while i < a.shape[0] and a[i] >> shift == x:
                i += 1
                na += 1
            while j < b.shape[0] and b[j] >> shift == x:
                j += 1
                nb += 1
            total += min(na, nb)
    return total


@numba.njit(cache=True)
def _pair(hyp: np.ndarray, ref: np.ndarray, stats: np.ndarray) -> bool:
    """Fill `stats` for one pair of code-point arrays; False where the alphabet is too large.

    Characters are numbered 1… over the pair's alphabet (0 marks a slot past the end)."""
    alphabet = np.unique(np.concatenate((hyp, ref)))
    bits = 1
    while (1 << bits) <= alphabet.shape[0]:
        bits += 1
    if bits * ORDER > _KEY_BITS:
        return False
    h = _keys(np.searchsorted(alphabet, hyp).astype(np.int64) + 1, bits)
    r = _keys(np.searchsorted(alphabet, ref).astype(np.int64) + 1, bits)
    mask = (1 << bits) - 1
    for n in range(1, ORDER + 1):
        n_hyp, n_ref = max(h.shape[0] - n + 1, 0), max(r.shape[0] - n + 1, 0)
        stats[n - 1, 0] = n_hyp if n_ref > 0 else 0
        stats[n - 1, 1] = n_ref
        stats[n - 1, 2] = _matches(h, r, bits * (ORDER - n), mask)
    return True


@numba.njit(cache=True)
def _scores(codes, starts, hyps, refs, out) -> None:
    """Score pair k (texts hyps[k], refs[k] of `codes`); NaN where `_pair` cannot."""
    stats = np.zeros((ORDER, 3), dtype=np.int64)
    for k in range(hyps.shape[0]):
        h = codes[starts[hyps[k]] : starts[hyps[k] + 1]]
        r = codes[starts[refs[k]] : starts[refs[k] + 1]]
        out[k] = _f_score(stats) if _pair(h, r, stats) else np.nan


def _counts(text: str) -> list[Counter]:
    return [Counter(text[i : i + n] for i in range(len(text) - n + 1)) for n in range(1, 7)]


def _python_score(hyp: str, ref: str) -> float:
    """The same rule with Counters, for pairs of very many distinct characters."""
    stats = np.zeros((ORDER, 3), dtype=np.int64)
    for n, (h, r) in enumerate(zip(_counts(hyp), _counts(ref), strict=True)):
        hyp_total, ref_total = sum(h.values()), sum(r.values())
        stats[n] = (hyp_total if r else 0, ref_total, sum((h & r).values()))
    return _f_score(stats)


def sentence_chrf(pairs: Sequence[tuple[str, str]]) -> np.ndarray:
    """sacrebleu's sentence chrF (0-100) of each (hypothesis, reference) pair."""
    texts: dict[str, int] = {}
    index = np.empty((2, len(pairs)), dtype=np.int64)
    for k, pair in enumerate(pairs):
        for side, text in enumerate(pair):
            index[side, k] = texts.setdefault("".join(text.split()), len(texts))
    stripped = list(texts)
    lengths = np.fromiter(map(len, stripped), dtype=np.int64, count=len(stripped))
    starts = np.zeros(len(stripped) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    codes = np.frombuffer("".join(stripped).encode("utf-32-le"), dtype=np.uint32)
    out = np.empty(len(pairs))
    if len(pairs):
        _scores(codes.astype(np.int64), starts, index[0], index[1], out)
    for k in np.flatnonzero(np.isnan(out)):
        out[k] = _python_score(stripped[index[0, k]], stripped[index[1, k]])
    return out
