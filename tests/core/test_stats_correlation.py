"""Correlations against scipy; Williams's test against published worked examples."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

from wojdb.core.stats import columns as col
from wojdb.core.stats.correlation import (
    Bootstrap,
    correlate,
    correlation_table,
    coverage_table,
    statistic,
    subset_correlations,
    williams_table,
    williams_test,
)

SCIPY = {"spearman": stats.spearmanr, "pearson": stats.pearsonr, "kendall": stats.kendalltau}


def tied_pairs(n=60, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.integers(1, 6, n).astype(float)  # Likert-like, many ties
    y = np.round(x + rng.normal(0, 1.5, n), 1)
    return x, y


@pytest.mark.parametrize("method", sorted(SCIPY))
def test_correlation_and_p_are_scipys(method):
    x, y = tied_pairs()
    result = correlate(x, y, method, n_boot=0)
    expected = SCIPY[method](x, y)
    assert result.r == pytest.approx(expected.statistic, abs=1e-12)
    assert result.p == pytest.approx(expected.pvalue, abs=1e-12)
    assert result.n == len(x)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 5), st.floats(-3, 3, allow_nan=False, width=32)),
        min_size=3,
        max_size=40,
    ),
    st.sampled_from(["spearman", "pearson"]),
)
@example(pairs=[(1, 0.0), (3, 0.65625), (1, 0.0)], method="pearson")
@example(pairs=[(2, 0.25), (2, 0.25), (3, 2.0)], method="pearson")
@example(pairs=[(1, 0.25), (2, 0.0), (2, 5.960464477539063e-08)], method="pearson")
def test_statistic_is_scipys_on_any_pairs(pairs, method):
    # Likert-like answers against scores: ties, constants and perfect agreement included.
    x, y = (np.array(v, dtype=float) for v in zip(*pairs, strict=True))
    got = statistic(x, y, method)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert np.isnan(got).all()
        return
    expected = SCIPY[method](x, y)
    assert got[0] == pytest.approx(expected.statistic, abs=1e-12)
    if 1 - abs(expected.statistic) < 1e-12:
        # Within a few bits of perfect agreement p turns on r's last bit: for 3 pairs and r one
        # bit below 1 it is 2/pi * sqrt(2 * 2**-53) = 9.5e-9, which scipy rounds to 0 (the beta
        # distribution's argument (1 + r) / 2 rounds to 1). For 3 pairs (p is largest with the
        # fewest) and 1 - |r| < 1e-12, p < 2/pi * sqrt(2e-12) = 9.0e-7: far below any level.
        assert got[1] < 9.1e-7 and expected.pvalue < 9.1e-7
    else:
        assert got[1] == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("method", sorted(SCIPY))
def test_each_bootstrap_resample_is_scipys_statistic_on_the_resampled_pairs(method):
    x, y = tied_pairs(40)
    bootstrap = Bootstrap(len(x), method, n_boot=25, seed=7)
    got = bootstrap.statistics(bootstrap.prepare(x), bootstrap.prepare(y))
    expected = [SCIPY[method](x[i], y[i]).statistic for i in bootstrap.resamples]
    # Resamples are evaluated in single precision (see Bootstrap).
    np.testing.assert_allclose(got, expected, atol=1e-6)


def test_bootstrap_interval_agrees_with_scipy_bootstrap():
    x, y = tied_pairs(80)
    ours = correlate(x, y, "spearman", n_boot=4000, seed=1)

    def spearman(a, b, axis):
        ranks = stats.rankdata(a, axis=axis), stats.rankdata(b, axis=axis)
        return stats.pearsonr(*ranks, axis=axis).statistic

    theirs = stats.bootstrap(
        (x, y),
        spearman,
        paired=True,
        vectorized=True,
        n_resamples=4000,
        method="percentile",
        rng=np.random.default_rng(2),
    ).confidence_interval
    # Two independent Monte Carlo runs: equal up to resampling error.
    assert ours.ci_low == pytest.approx(theirs.low, abs=0.03)
    assert ours.ci_high == pytest.approx(theirs.high, abs=0.03)
    assert ours.ci_low < ours.r < ours.ci_high


def test_missing_values_are_dropped_pairwise_and_constants_give_nan():
    result = correlate([1, 2, np.nan, 4, 5], [2, 1, 3, np.nan, 5], n_boot=0)
    assert result.n == 3
    assert np.isnan(correlate([1, 1, 1, 1], [1, 2, 3, 4]).r)


# Williams's test. psych::r.test documentation example "Steiger case A": r.test(103, .4, .5, .1)
# prints t = -0.89, p = 0.37; the exact values below are psych 2.2.9's output of that call.
# bruceR::cor_diff documentation example (Bao 2024, psychbruce.github.io/bruceR/reference/
# cor_diff.html): r1 = .20, r2 = .45, n = 100, rcov = .80 prints "t(97) = -4.56, p = 1e-05".
def test_williams_matches_psych_r_test_documentation_example():
    result = williams_test(0.4, 0.5, 0.1, 103)
    assert result.t == pytest.approx(-0.891279904760541, abs=1e-12)
    assert result.p == pytest.approx(0.374918517491256, abs=1e-12)
    assert result.df == 100


def test_williams_is_undefined_for_correlations_no_pearson_matrix_has():
    """r12 = r13 = 0.9 with r23 = -0.9: the 3x3 matrix is not positive semi-definite."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = williams_test(0.9, 0.9, -0.9, 50)
    assert np.isnan(result.t) and np.isnan(result.p)


def test_williams_matches_bruceR_cor_diff_documentation_example():
    result = williams_test(0.20, 0.45, 0.80, 100)
    assert result.df == 97
    assert round(result.t, 2) == -4.56
    assert result.p == pytest.approx(1.47007012603941e-05, rel=1e-9)
    assert williams_test(0.20, 0.45, 0.80, 100, two_tailed=False).p == pytest.approx(result.p / 2)


def make_ratings(seed=0):
    """Six participants rate 12 shared hypotheses and 4 swap permutations; item truth t."""
    rng = np.random.default_rng(seed)
    items = pd.DataFrame(
        {
            "item": range(16),
            "kind": ["hypothesis"] * 12 + ["permutation"] * 4,
            "perm_type": [None] * 12 + ["swap"] * 4,
            "truth": rng.uniform(0, 1, 16),
        }
    )
    rows = []
    for p in range(6):
        bias = rng.normal(0, 0.1)
        for item in items.itertuples():
            value = np.clip(item.truth + bias + rng.normal(0, 0.15), 0, 1)
            rows.append((p, item.item, item.kind, item.perm_type, np.round(value * 4) / 4))
    ratings = pd.DataFrame(rows, columns=["participant", "item", "kind", "perm_type", "order01"])
    ratings["holistic01"] = ratings["order01"]
    ratings["order01_adjusted"] = ratings["order01"] - 0.01 * ratings["participant"]
    ratings["holistic01_adjusted"] = ratings["order01_adjusted"]
    ratings["practice"] = False
    ratings["age"] = np.where(ratings["participant"] < 2, 45, 25)
    ratings["group"] = col.sentence_group(ratings)
    truth = items.set_index("item")["truth"]
    scores = pd.concat(
        [
            pd.DataFrame({"item": truth.index, "metric": "A", "variant": "", "score": truth}),
            pd.DataFrame(
                {
                    "item": truth.index,
                    "metric": "B",
                    "variant": "x",
                    "score": truth + rng.normal(0, 0.3, 16),
                }
            ),
            # Partial coverage: scores for 10 of the 12 hypotheses only.
            pd.DataFrame(
                {"item": range(10), "metric": "C", "variant": "", "score": rng.normal(size=10)}
            ),
        ]
    )
    return ratings, scores


def test_correlation_table_is_scipy_on_item_means():
    ratings, scores = make_ratings()
    table = correlation_table(ratings, scores, min_items=4, n_boot=200)
    hyp = ratings[ratings["group"] == "hypothesis"]
    for adjusted in (True, False):
        column = "order01_adjusted" if adjusted else "order01"
        means = hyp.groupby("item")[column].mean()
        metric_b = scores[scores["metric"] == "B"].set_index("item")["score"].reindex(means.index)
        expected = stats.spearmanr(means, metric_b)
        row = table.query(
            "judgment == 'order' and group == 'hypothesis' and metric == 'B' "
            "and adjusted == @adjusted"
        ).iloc[0]
        assert row["r"] == pytest.approx(expected.statistic, abs=1e-12)
        assert row["p"] == pytest.approx(expected.pvalue, abs=1e-12)
        assert row["n"] == 12 and row["coverage"] == 1
        # Shared resamples give exactly what correlate() gives on the same pairs.
        alone = correlate(means.to_numpy(), metric_b.to_numpy(), n_boot=200)
        assert (row["ci_low"], row["ci_high"]) == (alone.ci_low, alone.ci_high)
    plain = stats.spearmanr(
        hyp.groupby("item")["order01"].mean(),
        scores[scores["metric"] == "A"].set_index("item")["score"].iloc[:12],
    )
    adjusted_a = table.query("adjusted and metric == 'A' and group == 'hypothesis'")
    np.testing.assert_allclose(adjusted_a["p_unadjusted"], plain.pvalue, atol=1e-12)
    assert set(table["group"]) == {"hypothesis", "swap"}


def test_every_row_is_scipy_on_its_own_items_when_judgments_cover_different_ones():
    ratings, scores = make_ratings()
    # Holistic answers that differ from order ones; nobody answered holistic on hypothesis 0
    # and order on hypothesis 1: both judgments have 11 hypotheses, not the same 11.
    ratings["holistic01"] = (1 - ratings["order01"]) ** 2
    ratings["holistic01_adjusted"] = ratings["holistic01"] + 0.02 * ratings["participant"]
    ratings.loc[ratings["item"] == 0, ["holistic01", "holistic01_adjusted"]] = np.nan
    ratings.loc[ratings["item"] == 1, ["order01", "order01_adjusted"]] = np.nan
    table = correlation_table(ratings, scores, min_items=4, n_boot=0)
    assert len(table) == 2 * 2 * 3 + 2 * 2 * 2  # hypotheses: A, B, C; swap: A, B
    for row in table.itertuples():
        column = f"{row.judgment}01" + ("_adjusted" if row.adjusted else "")
        means = ratings[ratings["group"] == row.group].groupby("item")[column].mean().dropna()
        source = scores[scores["metric"] == row.metric].set_index("item")["score"]
        source = source.reindex(means.index).dropna()
        expected = stats.spearmanr(means[source.index], source)
        assert row.n == len(source)
        assert row.r == pytest.approx(expected.statistic, abs=1e-12)
        assert row.p == pytest.approx(expected.pvalue, abs=1e-12)


def test_rating_level_unit_correlates_every_rating():
    ratings, scores = make_ratings()
    table = correlation_table(
        ratings, scores, judgments=("order",), adjusted=(False,), unit="rating", n_boot=0
    )
    hyp = ratings[ratings["group"] == "hypothesis"]
    a = scores[scores["metric"] == "A"].set_index("item")["score"]
    expected = stats.spearmanr(hyp["order01"], hyp["item"].map(a))
    row = table.query("metric == 'A' and group == 'hypothesis'").iloc[0]
    assert row["r"] == pytest.approx(expected.statistic, abs=1e-12)
    assert row["n"] == len(hyp)


def test_sources_with_too_few_items_are_left_out():
    ratings, scores = make_ratings()
    table = correlation_table(ratings, scores, min_items=11, n_boot=0)
    assert "C" not in set(table["metric"])
    assert "A" in set(table.query("group == 'hypothesis'")["metric"])
    assert table.query("group == 'swap'").empty


def test_coverage_table_lists_partial_metrics_like_table_7_1():
    ratings, scores = make_ratings()
    table = coverage_table(ratings, scores, min_items=5)
    assert list(table["metric"]) == ["C"]
    row = table.iloc[0]
    assert row["count"] == 10
    assert row["percent"] == pytest.approx(100 * 10 / 12)
    means = ratings[ratings["group"] == "hypothesis"].groupby("item")["order01_adjusted"].mean()
    c = scores[scores["metric"] == "C"].set_index("item")["score"]
    assert row["r"] == pytest.approx(stats.spearmanr(means.iloc[:10], c).statistic, abs=1e-12)


def test_williams_table_uses_correlations_over_common_items():
    ratings, scores = make_ratings()
    table = williams_table(ratings, scores, min_items=5)
    means = ratings[ratings["group"] == "hypothesis"].groupby("item")["order01_adjusted"].mean()
    source = {m: s.set_index("item")["score"] for m, s in scores.groupby("metric")}
    row = table[(table["a"] == "A") & (table["b"] == "C")].iloc[0]
    h, a, c = means.iloc[:10], source["A"].iloc[:10], source["C"]
    r12, r13 = stats.spearmanr(h, a).statistic, stats.spearmanr(h, c).statistic
    r23 = stats.spearmanr(a, c).statistic
    assert row["n"] == 10
    assert row["p"] == pytest.approx(williams_test(r12, r13, r23, 10).p, abs=1e-12)
    assert set(zip(table["a"], table["b"], strict=True)) == {("A", "B x"), ("A", "C"), ("B x", "C")}


def test_subsets_repeat_the_table_on_chosen_participants():
    ratings, scores = make_ratings()
    subsets = {"over-30s": "age >= 30", "everyone": "age > 0"}
    table = subset_correlations(ratings, scores, subsets, min_items=4, n_boot=0)
    older = table[table["subset"] == "over-30s"]
    assert set(older["participants"]) == {2}
    expected = correlation_table(ratings[ratings["age"] >= 30], scores, min_items=4, n_boot=0)
    np.testing.assert_allclose(older["r"], expected["r"])


def test_adjusted_rows_need_adjusted_columns():
    ratings, scores = make_ratings()
    with pytest.raises(ValueError, match="adjust_scores"):
        correlation_table(ratings.drop(columns=["order01_adjusted"]), scores, judgments=("order",))


def test_lower_is_better_sources_keep_their_sign_and_are_oriented_beside_it():
    rng = np.random.default_rng(4)
    items = np.arange(40)
    quality = rng.normal(size=40)
    ratings = pd.DataFrame(
        {
            col.PARTICIPANT: np.repeat([1, 2], 40),
            col.ITEM: np.tile(items, 2),
            col.KIND: col.HYPOTHESIS,
            col.PERM_TYPE: None,
            col.PRACTICE: False,
            col.ORDER: np.clip(np.round(3 + np.tile(quality, 2)), 1, 5),
        }
    )
    ratings[col.unit(col.ORDER)] = (ratings[col.ORDER] - 1) / 4
    ratings[col.adjusted(col.ORDER)] = ratings[col.unit(col.ORDER)]
    scores = pd.concat(
        [
            pd.DataFrame({col.ITEM: items, col.METRIC: "good", col.SCORE: quality}),
            pd.DataFrame({col.ITEM: items, col.METRIC: "TER", col.SCORE: -quality}),
        ]
    ).assign(**{col.VARIANT: "", col.HIGHER_IS_BETTER: lambda f: f[col.METRIC] == "good"})
    table = correlation_table(
        ratings, scores, judgments=(col.ORDER,), adjusted=(True,), n_boot=0
    ).set_index(col.METRIC)
    assert table.loc["TER", "r"] == pytest.approx(-table.loc["good", "r"])
    assert table.loc["TER", "r"] < 0 and not table.loc["TER", "higher_is_better"]
    assert table.loc["TER", "r_oriented"] == pytest.approx(table.loc["good", "r_oriented"])
