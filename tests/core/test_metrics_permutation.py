"""Flat permutation metrics against the BEER unit-test vectors and brute-force definitions."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wojdb.core.metrics.permutation import (
    as_permutation,
    fuzzy,
    hamming,
    identity,
    inverted,
    kendall,
    spearman,
    ulam,
)

FLAT = [kendall, spearman, hamming, ulam, fuzzy]


def test_beer_vectors_near_monotone():
    # Metrics spec §1.2 / §3.3: <1,2,3,5,4> -> 0.9 / 0.95 / 0.6 / 0.75 / 0.5.
    perm = (1, 2, 3, 5, 4)
    assert kendall(perm) == pytest.approx(0.9)
    assert spearman(perm) == pytest.approx(0.95)
    assert hamming(perm) == pytest.approx(0.6)
    assert ulam(perm) == pytest.approx(0.75)
    assert fuzzy(perm) == pytest.approx(0.5)


@pytest.mark.parametrize("metric", FLAT)
def test_beer_vectors_monotone_and_inverted(metric):
    assert metric((1, 2, 3, 4, 5)) == 1.0
    assert metric((6, 5, 4, 3, 2, 1)) == 0.0


def test_hamming_rotation_has_no_fixed_point():
    assert hamming((2, 3, 4, 5, 1)) == 0.0


@pytest.mark.parametrize("metric", FLAT)
def test_short_permutation_policy(metric):
    assert metric(()) == 0.0
    assert metric((1,)) == 1.0


def _kendall_by_pairs(perm):
    n = len(perm)
    kept = sum(perm[i] < perm[j] for i, j in itertools.combinations(range(n), 2))
    return Fraction(kept, n * (n - 1) // 2)


def _ulam_by_subsets(perm):
    n = len(perm)
    longest = max(
        len(subset)
        for size in range(1, n + 1)
        for subset in itertools.combinations(perm, size)
        if list(subset) == sorted(subset)
    )
    return Fraction(longest - 1, n - 1)


def _spearman_by_rho(perm):
    n = len(perm)
    rho = 1 - Fraction(6 * sum((v - i) ** 2 for i, v in enumerate(perm, 1)), n * (n * n - 1))
    return (rho + 1) / 2


def _fuzzy_by_runs(perm):
    runs = [[perm[0]]]
    for value in perm[1:]:
        if value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    n = len(perm)
    return 1 - Fraction(len(runs) - 1, n - 1)


@pytest.mark.parametrize("n", range(2, 7))
def test_against_brute_force_for_every_permutation(n):
    for perm in itertools.permutations(range(1, n + 1)):
        assert kendall(perm) == pytest.approx(float(_kendall_by_pairs(perm)))
        assert ulam(perm) == pytest.approx(float(_ulam_by_subsets(perm)))
        assert spearman(perm) == pytest.approx(float(_spearman_by_rho(perm)))
        assert fuzzy(perm) == pytest.approx(float(_fuzzy_by_runs(perm)))
        fixed = sum(v == i for i, v in enumerate(perm, 1))
        assert hamming(perm) == pytest.approx(fixed / n)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=60).flatmap(lambda n: st.permutations(range(1, n + 1))))
def test_long_permutations_in_range_and_kendall_exact(perm):
    perm = tuple(perm)
    for metric in FLAT:
        assert 0.0 <= metric(perm) <= 1.0
    assert kendall(perm) == pytest.approx(float(_kendall_by_pairs(perm)))


@pytest.mark.parametrize("n", [2, 5, 60])
def test_identity_and_inverted_helpers(n):
    assert identity(n) == tuple(range(1, n + 1))
    assert inverted(n) == tuple(reversed(identity(n)))


def test_as_permutation_validates():
    assert as_permutation([2, 4, 1, 3]) == (2, 4, 1, 3)
    assert as_permutation([]) == ()
    for bad in ([0, 1], [1, 1], [1, 3], [2]):
        with pytest.raises(ValueError, match="not a permutation"):
            as_permutation(bad)
