"""Cumulative link mixed models against R's ordinal::clmm: reference numbers made by
tests/analysis/data/clmm/make_reference.R (ordinal 2022.11-16, R 4.2.2, clmm's default
control), never by this code."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wojdb.core.stats import ordinal
from wojdb.core.stats.mixed import design_matrix

DATA = Path(__file__).parents[1] / "analysis" / "data" / "clmm"
REFERENCE = json.loads((DATA / "reference.json").read_text())
FITS = {fit["name"]: fit for fit in REFERENCE["fits"]}
REL = 1e-3  # thresholds, fixed effects and variances
LOGLIK_REL = 1e-4


def load(ref) -> pd.DataFrame:
    return pd.read_csv(DATA / ref["data"])


def r_term(term: str) -> str:
    """clmm names group[T.order] 'grouporder'."""
    name, level = term.split("[T.")
    return name + level.rstrip("]")


def fit_like(ref) -> ordinal.ClmmFit:
    formula = ref["formula"]
    return ordinal.clmm(
        load(ref),
        response=formula.split(" ~")[0],
        fixed=("group",) if "group" in formula else (),
        random=tuple(f for f in ("participant", "item") if f"(1 | {f})" in formula),
    )


def assert_matches_clmm(fit, ref):
    assert fit.n_obs == ref["n_obs"]
    assert list(fit.thresholds.index) == list(ref["thresholds"])
    np.testing.assert_allclose(
        fit.thresholds["estimate"], list(ref["thresholds"].values()), rtol=REL
    )
    terms = [r_term(t) for t in fit.fixed.index]
    fixef = ref["fixef"] or {}  # R writes an empty list when there are no fixed effects
    assert terms == list(fixef)
    np.testing.assert_allclose(fit.fixed["estimate"], list(fixef.values()), rtol=REL)
    for table, names in ((fit.thresholds, list(fit.thresholds.index)), (fit.fixed, terms)):
        np.testing.assert_allclose(table["se"], [ref["se"][n] for n in names], rtol=REL)
        np.testing.assert_allclose(table["z"], [ref["z"][n] for n in names], rtol=REL)
    assert set(fit.variances.index) == set(ref["variances"])
    for name, variance in ref["variances"].items():
        assert fit.variances[name] == pytest.approx(variance, rel=REL)
    assert fit.loglik == pytest.approx(ref["loglik"], rel=LOGLIK_REL)
    assert fit.state.converged and not fit.state.singular
    for factor, modes in (ref.get("ranef") or {}).items():
        expected = pd.Series(modes).rename(index=int)
        np.testing.assert_allclose(
            fit.random[factor].reindex(expected.index), expected, rtol=REL, atol=1e-4
        )


@pytest.mark.parametrize("name", [n for n in sorted(FITS) if not n.startswith("large")])
def test_fit_matches_clmm_on_the_study(name):
    assert_matches_clmm(fit_like(FITS[name]), FITS[name])


@pytest.mark.slow
def test_fit_matches_clmm_on_500_participants_by_5000_items():
    ref = FITS["large_crossed"]
    assert_matches_clmm(fit_like(ref), ref)


@pytest.mark.parametrize("factors", [("participant",), ("item", "participant")])
def test_gradient_is_exact(factors):
    # The optimiser and the standard errors rely on the implicit-differentiation gradient.
    data = pd.read_csv(DATA / FITS["study_order_crossed"]["data"]).dropna(subset=["order"])
    x = design_matrix(data, ["group"]).drop(columns="Intercept").to_numpy()
    codes = [pd.factorize(data[f], sort=True)[0] for f in factors]
    problem = ordinal._Problem(data["order"].to_numpy().astype(int) - 1, x, codes, 5)
    params = np.array([-2, -1, 0.3, 1.5, 0.1, -0.2, 0.3, 0.05, 0.8, 0.6][: 8 + len(factors)])
    _, grad = problem.objective(params)
    numeric = np.empty_like(params)
    for i in range(len(params)):
        step = np.zeros_like(params)
        step[i] = 1e-5
        numeric[i] = (
            problem.objective(params + step)[0] - problem.objective(params - step)[0]
        ) / 2e-5
    np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-5)


def test_answers_as_floats_name_thresholds_as_clmm_does():
    fit = fit_like(FITS["study_order_participant"])
    assert fit.levels == (1.0, 2.0, 3.0, 4.0, 5.0)
    assert list(fit.thresholds.index) == ["1|2", "2|3", "3|4", "4|5"]


def test_bad_designs_are_refused():
    data = pd.DataFrame(
        {"y": [1, 2, 3, 1, 2, 3], "a": [0, 0, 1, 1, 2, 2], "x": [1.0] * 6, "g": list("abcabc")}
    )
    with pytest.raises(ValueError, match="rank deficient"):
        ordinal.clmm(data, "y", fixed=("x",), random=("a",))
    with pytest.raises(ValueError, match="two categories"):
        ordinal.clmm(data.assign(y=1), "y", random=("a",))
    with pytest.raises(ValueError, match="one or two"):
        ordinal.clmm(data.assign(b=data["a"], c=data["a"]), "y", random=("a", "b", "c"))


def test_truncated_logistic_mean_is_the_integral():
    from scipy import integrate, stats

    for low, high in ((-np.inf, -1.2), (-1.2, 0.4), (0.4, 30.0), (2.5, np.inf), (-40.0, -39.0)):
        mass = stats.logistic.cdf(high) - stats.logistic.cdf(low)
        expected = integrate.quad(lambda e: e * stats.logistic.pdf(e), low, high)[0] / mass
        got = ordinal._truncated_logistic_mean(np.array([low]), np.array([high]))[0]
        assert got == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_ordinal_adjustment_takes_out_each_participants_shift():
    ref = FITS["study_order_participant"]
    data = load(ref).assign(practice=False)
    adjusted, fits = ordinal.adjust_scores(data, judgments=("order",))
    fit = fits["order"]
    assert fit.loglik == pytest.approx(ref["loglik"], rel=LOGLIK_REL)
    scores = adjusted["order01_adjusted"]
    assert scores.isna().equals(adjusted["order"].isna())
    # Within a participant, higher answers get higher scores; for one answer, a participant
    # who rates high overall gets a lower score than one who rates low.
    for _, own in adjusted.dropna(subset=["order"]).groupby("participant"):
        by_answer = own.groupby("order")["order01_adjusted"].agg(["min", "max"])
        assert (by_answer["max"].to_numpy()[:-1] < by_answer["min"].to_numpy()[1:]).all()
    effects = fit.random["participant"]
    high, low = effects.idxmax(), effects.idxmin()
    threes = adjusted[adjusted["order"] == 3].set_index("participant")["order01_adjusted"]
    assert threes.groupby(level=0).first()[high] < threes.groupby(level=0).first()[low]


BOUNDARY = json.loads((DATA / "boundary.json").read_text())["fits"]


@pytest.mark.parametrize("ref", BOUNDARY, ids=[fit["name"] for fit in BOUNDARY])
def test_a_zero_participant_variance_is_found_and_reported(ref):
    # clmm stops at a variance of ~1e-9 (its optimiser's bound); this fit lands on zero.
    data = pd.read_csv(
        Path(__file__).parents[1] / "analysis" / "data" / "lme4" / "no_participant_effect.csv"
    )
    fit = fit_like({**ref, "data": "../lme4/no_participant_effect.csv"})
    assert fit.n_obs == ref["n_obs"] == data["order"].notna().sum()
    np.testing.assert_allclose(
        fit.thresholds["estimate"], list(ref["thresholds"].values()), rtol=REL
    )
    np.testing.assert_allclose(fit.fixed["estimate"], list((ref["fixef"] or {}).values()), rtol=REL)
    assert fit.variances["participant"] == pytest.approx(0, abs=1e-6)
    if "item" in ref["variances"]:
        assert fit.variances["item"] == pytest.approx(ref["variances"]["item"], rel=REL)
    assert fit.loglik == pytest.approx(ref["loglik"], rel=LOGLIK_REL)
    assert fit.state.converged and fit.state.singular and "zero" in fit.state.message
    assert "participant" not in fit.vcov.index  # no standard error on the boundary


@pytest.mark.parametrize("name", [n for n in sorted(FITS) if not n.startswith("large")])
def test_a_fits_tables_are_clmms_summary_as_frames(name):
    ref = FITS[name]
    fit = fit_like(ref)
    table = fit.coefficient_table()
    fixef = ref["fixef"] or {}
    thresholds = table[table["part"] == "threshold"]
    assert list(thresholds["term"]) == list(ref["thresholds"])
    np.testing.assert_allclose(thresholds["estimate"], list(ref["thresholds"].values()), rtol=REL)
    fixed = table[table["part"] == "fixed"]
    assert [r_term(t) for t in fixed["term"]] == list(fixef)
    np.testing.assert_allclose(fixed["estimate"], list(fixef.values()), rtol=REL)
    # Coefficients first, then thresholds, as summary.clmm() prints them; R's names.
    parts = zip(table["term"], table["part"], strict=True)
    names = [r_term(t) if part == "fixed" else t for t, part in parts]
    assert names == [*fixef, *ref["thresholds"]]
    np.testing.assert_allclose(table["se"], [ref["se"][n] for n in names], rtol=REL)
    np.testing.assert_allclose(table["statistic"], [ref["z"][n] for n in names], rtol=REL)
    assert set(table["statistic_name"]) == {"z"}
    variances = fit.variance_table().set_index("factor")
    for factor, variance in ref["variances"].items():
        assert variances.loc[factor, "variance"] == pytest.approx(variance, rel=REL)
        assert variances.loc[factor, "sd"] ** 2 == pytest.approx(variance, rel=REL)
        answered = load(ref).dropna(subset=[ref["formula"].split(" ~")[0]])
        assert variances.loc[factor, "groups"] == answered[factor].nunique()
