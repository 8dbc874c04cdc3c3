"""The REML solver's shortcuts are exact: rows of one pattern, the weighted Gram map built over
one row per pattern, the rank decided from the cross-product."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from wojdb.core.stats import reml
from wojdb.core.stats.estimability import full_rank


@st.composite
def repeated_rows(draw):
    """A sparse matrix whose rows are drawn from a few distinct ones (values 0, 1 or 2)."""
    columns = draw(st.integers(1, 6))
    distinct = draw(
        st.lists(
            st.lists(st.sampled_from([0.0, 0.0, 1.0, 2.0]), min_size=columns, max_size=columns),
            min_size=1,
            max_size=6,
        )
    )
    picks = draw(st.lists(st.integers(0, len(distinct) - 1), min_size=1, max_size=40))
    return sparse.csr_matrix(np.array([distinct[i] for i in picks]))


def assert_exact_patterns(n: sparse.csr_matrix, shared: bool = True) -> None:
    """Rows of one pattern are the same row; with ``shared``, the same rows are one pattern."""
    pattern, first = reml._same_rows(n)
    dense = n.toarray()
    assert sorted(set(pattern.tolist())) == list(range(len(first)))
    for row in range(dense.shape[0]):
        np.testing.assert_array_equal(dense[row], dense[first[pattern[row]]])
    if not shared:
        return
    seen = {}
    for row in range(dense.shape[0]):
        seen.setdefault(dense[row].tobytes(), set()).add(int(pattern[row]))
    assert all(len(patterns) == 1 for patterns in seen.values())


@settings(max_examples=200, deadline=None)
@given(repeated_rows())
def test_rows_of_one_pattern_are_exactly_the_same_rows(n):
    assert_exact_patterns(n)


class _Colliding:
    """Every projection weight 1: rows of equal sums collide and must be told apart."""

    def uniform(self, low, high, size):
        return np.ones(size)


@settings(max_examples=200, deadline=None)
@given(repeated_rows())
def test_colliding_projections_are_told_apart_entry_by_entry(n):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reml.np.random, "default_rng", lambda seed: _Colliding())
        assert_exact_patterns(n, shared=False)
        w = 1.0 + np.arange(n.shape[0]) / 7
        gram = reml._WeightedGram(n)(w)
    np.testing.assert_allclose(gram, (n.T @ sparse.diags(w) @ n).toarray(), rtol=1e-12)


@settings(max_examples=100, deadline=None)
@given(repeated_rows(), st.data())
def test_the_gram_map_over_patterns_is_the_weighted_product(n, data):
    w = np.array(
        data.draw(st.lists(st.floats(0.1, 10.0), min_size=n.shape[0], max_size=n.shape[0]))
    )
    expected = (n.T @ sparse.diags(w) @ n).toarray()
    np.testing.assert_allclose(reml._WeightedGram(n)(w), expected, rtol=1e-12, atol=1e-12)


def test_rank_from_the_cross_product_agrees_with_matrix_rank():
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 4, 500)
    dummies = np.column_stack([np.ones(500)] + [(groups == k).astype(float) for k in range(4)])
    assert not full_rank(dummies)  # the four dummies sum to the intercept
    assert full_rank(dummies[:, :4])
    # Nearly dependent: only matrix_rank's singular values can tell, and they are asked.
    close = np.column_stack([dummies[:, :2], dummies[:, 1] + 1e-9 * rng.normal(size=500)])
    assert full_rank(close) == (np.linalg.matrix_rank(close) == 3)
    assert not full_rank(np.column_stack([dummies[:, :2], dummies[:, 1]]))
