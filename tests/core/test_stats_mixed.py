"""Mixed models against lme4: reference numbers made by tests/analysis/data/lme4/make_reference.R
(lme4 1.1-31, R 4.2.2, lmer REML with default control), never by this code."""

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from wojdb.core.stats import columns as col
from wojdb.core.stats import reml
from wojdb.core.stats.mixed import (
    CROSSED_MODEL,
    adjust_scores,
    adjustment_ttest,
    adjustment_ttests,
    crossed_model,
    design_matrix,
    fit_model,
    participant_model,
)
from wojdb.core.stats.reml import COEFFICIENT_COLUMNS, _optimise, fit_reml, outcome

DATA = Path(__file__).parents[1] / "analysis" / "data" / "lme4"
REFERENCE = json.loads((DATA / "reference.json").read_text())
FITS = {fit["name"]: fit for fit in REFERENCE["fits"]}
TOL = 1e-4


def load(name: str) -> pd.DataFrame:
    frame = pd.read_csv(DATA / name)
    return frame.assign(practice=False)


def lme4_term(term: str) -> str:
    """lme4 names group[T.order] 'grouporder' and Intercept '(Intercept)'."""
    if term == "Intercept":
        return "(Intercept)"
    name, level = term.split("[T.")
    return name + level.rstrip("]")


def random_terms(formula: str) -> tuple[str, ...]:
    return tuple(f for f in ("participant", "item") if f"(1 | {f})" in formula)


def assert_matches_lme4(fit, ref):
    assert fit.n_obs == ref["n_obs"]
    assert [lme4_term(t) for t in fit.fixed.index] == list(ref["fixef"])
    np.testing.assert_allclose(fit.fixed["estimate"], list(ref["fixef"].values()), atol=TOL)
    np.testing.assert_allclose(fit.fixed["se"], list(ref["se"].values()), atol=TOL)
    for name, variance in ref["variances"].items():
        assert fit.variances[name] == pytest.approx(variance, abs=TOL)
    for key, theta in ref["theta"].items():
        assert fit.theta[key.split(".")[0]] == pytest.approx(theta, abs=TOL)
    assert fit.sigma == pytest.approx(ref["sigma"], abs=TOL)
    assert fit.reml_criterion == pytest.approx(ref["reml_criterion"], abs=TOL)
    assert fit.loglik == pytest.approx(ref["loglik"], abs=TOL)
    for factor, modes in ref["ranef"].items():
        expected = pd.Series(modes).rename(index=int)
        got = fit.random[factor].reindex(expected.index)
        np.testing.assert_allclose(got, expected, atol=TOL)
    assert fit.state.converged
    assert fit.state.singular == ref["singular"]


@pytest.mark.parametrize("name", sorted(FITS))
def test_fit_matches_lme4(name):
    ref = FITS[name]
    formula = ref["formula"]
    fit = fit_model(
        load(ref["data"]),
        response=formula.split(" ~")[0],
        fixed=("group",) if "group" in formula else (),
        random=random_terms(formula),
    )
    assert_matches_lme4(fit, ref)


def test_model_wrappers_are_the_thesis_and_crossed_formulas():
    study = load("study.csv")
    assert_matches_lme4(participant_model(study, "order"), FITS["study_order_participant"])
    assert_matches_lme4(crossed_model(study, "holistic"), FITS["study_holistic_crossed"])


def test_singular_fit_is_reported_not_hidden():
    fit = participant_model(load("no_participant_effect.csv"), "order")
    assert fit.state.converged and fit.state.singular
    assert fit.variances["participant"] == pytest.approx(0, abs=TOL)
    assert "a variance is estimated as zero" in fit.state.message


def test_the_optimisers_outcome_is_told_in_words():
    # L-BFGS-B's codes ("ABNORMAL: ", "REL_REDUCTION_OF_F...") mean nothing to a reader.
    told = outcome(True, False, "ABNORMAL: ")
    assert told.startswith("converged") and "ABNORMAL" not in told
    assert "line search" in told
    told = outcome(False, False, "CONVERGENCE: REL_REDUCTION_OF_F_<=_FACTR*EPSMCH")
    assert told.startswith("did not converge") and "stopped improving" in told
    told = outcome(True, True, "CONVERGENCE: RELATIVE REDUCTION OF F <= FACTR*EPSMCH")
    assert "FACTR" not in told and "stopped improving" in told


def test_dataset_defeats_statsmodels_default_optimiser():
    """statsmodels' default MixedLM fit does not converge on this design (its first optimiser
    fails and it falls back with a warning); ours matches lme4 there (test above)."""
    statsmodels = pytest.importorskip("statsmodels.formula.api")
    from statsmodels.tools.sm_exceptions import ConvergenceWarning

    data = load("no_participant_effect.csv").dropna(subset=["order01"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        statsmodels.mixedlm("order01 ~ 1", data, groups="participant").fit()
    failures = [
        w
        for w in caught
        if issubclass(w.category, ConvergenceWarning) and "failed to converge" in str(w.message)
    ]
    assert failures


def test_adjusted_scores_subtract_lme4_participant_effects():
    study = load("study.csv")
    adjusted, fits = adjust_scores(study)
    for judgment in col.JUDGMENTS:
        modes = pd.Series(FITS[f"study_{judgment}_participant"]["ranef"]["participant"])
        effect = adjusted["participant"].astype(str).map(modes)
        expected = adjusted[col.unit(judgment)] - effect
        np.testing.assert_allclose(adjusted[col.adjusted(judgment)], expected, atol=TOL)
        assert fits[judgment].state.converged
    assert set(adjusted[col.GROUP]) == {"hypothesis", "order", "swap", "phrase", "choice"}


def test_crossed_adjustment_uses_the_crossed_participant_effects():
    adjusted, fits = adjust_scores(load("study.csv"), judgments=("order",), model=CROSSED_MODEL)
    modes = pd.Series(FITS["study_order_crossed"]["ranef"]["participant"])
    effect = adjusted["participant"].astype(str).map(modes)
    np.testing.assert_allclose(
        adjusted[col.adjusted("order")], adjusted["order01"] - effect, atol=TOL
    )


def test_adjustment_ttest_is_scipys_student_test_on_lme4_adjusted_scores():
    study = load("study.csv")
    adjusted, _ = adjust_scores(study, judgments=("order",))
    modes = pd.Series(FITS["study_order_participant"]["ranef"]["participant"])
    original = study["order01"]
    corrected = original - study["participant"].astype(str).map(modes)
    keep = original.notna()
    expected = stats.ttest_ind(original[keep], corrected[keep], equal_var=True)
    result = adjustment_ttest(adjusted, "order")
    assert result.pvalue == pytest.approx(expected.pvalue, abs=1e-6)
    assert result.n == keep.sum()
    paired = adjustment_ttest(adjusted, "order", paired=True)
    assert paired.pvalue == pytest.approx(
        stats.ttest_rel(original[keep], corrected[keep]).pvalue, abs=1e-6
    )


def test_practice_ratings_are_not_modelled():
    study = load("study.csv")
    practice = study.iloc[:36].assign(practice=True, order01=1.0, order=5)
    adjusted, fits = adjust_scores(pd.concat([study, practice]), judgments=("order",))
    assert len(adjusted) == len(study)
    assert fits["order"].n_obs == FITS["study_order_participant"]["n_obs"]


def test_design_matrix_codes_groups_against_hypotheses():
    data = pd.DataFrame(
        {"group": ["swap", "hypothesis", "order", "swap", "other"], "x": [1, 2, 3, 4, 5]}
    )
    x = design_matrix(data, ["group", "x"])
    assert list(x.columns) == [
        "Intercept",
        "group[T.order]",
        "group[T.swap]",
        "group[T.other]",
        "x",
    ]
    assert x["group[T.swap]"].tolist() == [1, 0, 0, 1, 0]


def test_rank_deficient_design_and_three_factors_are_refused():
    y = np.arange(6.0)
    with pytest.raises(ValueError, match="rank deficient"):
        fit_reml(y, pd.DataFrame({"a": np.ones(6), "b": np.ones(6)}), {"g": [0, 0, 1, 1, 2, 2]})
    with pytest.raises(ValueError, match="one or two"):
        factors = {name: [0, 0, 1, 1, 2, 2] for name in "abc"}
        fit_reml(y, pd.DataFrame({"a": np.ones(6)}), factors)


def test_optimiser_reports_failure_after_retrying():
    # A criterion whose minimum sits on a jump has no stationary point: the fit must say so.
    theta, state = _optimise(lambda t: float((t[0] - 3) ** 2 + 10 * (t[0] > 3)), 1)
    assert not state.converged
    assert state.starts > 1
    assert state.message.startswith("did not converge: the estimate is not at a minimum")


def test_dense_designs_fall_back_to_a_sparse_product(monkeypatch):
    # Past the size limit the weighted Gram matrix is recomputed each time; same fit.
    monkeypatch.setattr("wojdb.core.stats.reml.GRAM_MAP_LIMIT", 0)
    assert_matches_lme4(crossed_model(load("study.csv"), "order"), FITS["study_order_crossed"])


@pytest.mark.parametrize("name", sorted(FITS))
def test_a_fits_tables_are_lme4s_summary_as_frames(name):
    ref = FITS[name]
    formula, data = ref["formula"], load(ref["data"])
    response, factors = formula.split(" ~")[0], random_terms(formula)
    fit = fit_model(data, response, fixed=("group",) if "group" in formula else (), random=factors)
    coefficients = fit.coefficient_table()
    assert list(coefficients.columns) == list(COEFFICIENT_COLUMNS)
    assert [lme4_term(t) for t in coefficients["term"]] == list(ref["fixef"])
    np.testing.assert_allclose(coefficients["estimate"], list(ref["fixef"].values()), atol=TOL)
    np.testing.assert_allclose(coefficients["se"], list(ref["se"].values()), atol=TOL)
    ratio = np.array(list(ref["fixef"].values())) / np.array(list(ref["se"].values()))
    np.testing.assert_allclose(coefficients["statistic"], ratio, rtol=1e-3)
    assert set(coefficients["statistic_name"]) == {"t"}
    variances = fit.variance_table().set_index("factor")
    assert list(variances.index) == [*factors, "residual"]
    used = data.dropna(subset=[response])
    for factor, variance in ref["variances"].items():
        assert variances.loc[factor, "variance"] == pytest.approx(variance, abs=TOL)
        assert variances.loc[factor, "sd"] ** 2 == pytest.approx(variance, abs=TOL)
        groups = used[factor].nunique() if factor != "residual" else np.nan
        np.testing.assert_equal(variances.loc[factor, "groups"], groups)


def test_adjustment_ttests_give_one_row_per_judgment():
    adjusted, _ = adjust_scores(load("study.csv"))
    table = adjustment_ttests(adjusted)
    assert list(table.columns) == ["judgment", "n", "t", "df", "p"]
    assert list(table["judgment"]) == ["holistic", "order"]
    original = adjusted["order01"].dropna()
    corrected = adjusted.loc[original.index, col.adjusted("order")]
    expected = stats.ttest_ind(original, corrected, equal_var=True)
    row = table.set_index("judgment").loc["order"]
    assert row["p"] == pytest.approx(expected.pvalue) and row["n"] == len(original)
    assert row["df"] == 2 * len(original) - 2


def crossed_problem(name: str, response: str) -> reml._Problem:
    data = load(name).dropna(subset=[response])
    _, codes, _, order = reml.factor_codes({f: data[f].to_numpy() for f in ("participant", "item")})
    x = design_matrix(data, ("group",)).to_numpy()
    return reml._Problem(data[response].to_numpy(), x, [codes[i] for i in order])


@pytest.mark.parametrize(
    "name, response", [("study.csv", "order01"), ("crossed_pool.csv", "holistic01")]
)
def test_block_and_dense_factorisations_give_the_same_deviance(name, response):
    problem = crossed_problem(name, response)
    dense = reml._DenseSchur(problem.cross)
    spread = np.diff(problem.cross.indptr)  # participants per item
    hub_sets = [
        np.array([], dtype=int),  # no hubs: one block of every participant
        np.flatnonzero(spread == spread.max()),  # the items everyone rated
        np.flatnonzero(spread >= 3),  # every item rated by 3 or more: participants alone
    ]
    for hubs in hub_sets:
        block = reml._BlockSchur(problem.cross, hubs)
        for theta in ([1.0, 1.0], [0.3, 2.0], [1e-3, 0.5], [2.5, 0.0]):
            problem.schur = dense
            expected = problem.solve(np.array(theta))
            problem.schur = block
            got = problem.solve(np.array(theta))
            assert abs(got.deviance - expected.deviance) < 1e-9
            for ours, theirs in zip(got.spherical, expected.spherical, strict=True):
                np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", [n for n in sorted(FITS) if n.endswith("_crossed")])
def test_block_factorisation_matches_lme4(name, monkeypatch):
    # Items rated by a quarter of the participants or more set apart, the rest in blocks.
    def blocks(cross):
        spread = np.diff(cross.indptr)
        return reml._BlockSchur(cross, np.flatnonzero(spread >= cross.shape[1] / 4))

    monkeypatch.setattr(reml, "_schur_solver", blocks)
    test_fit_matches_lme4(name)


def test_questionnaire_designs_are_factored_in_blocks_around_shared_items():
    # 60 questionnaires of 4 shared + 10 own items, 5 participants each: the shared items are
    # set apart and every questionnaire's participants form one block of 5.
    rng = np.random.default_rng(3)
    person = np.repeat(np.arange(300), 14)
    item = np.concatenate([[*range(4), *(4 + 10 * (p // 5) + np.arange(10))] for p in range(300)])
    y = rng.normal(size=len(item))
    _, codes, _, order = reml.factor_codes({"participant": person, "item": item})
    problem = reml._Problem(y, np.ones((len(y), 1)), [codes[i] for i in order])
    assert isinstance(problem.schur, reml._BlockSchur)
    assert problem.schur.hubs.tolist() == [0, 1, 2, 3]
    assert [(count, size) for count, size, *_ in problem.schur.groups] == [(60, 5)]
    # The thesis-sized study is small enough for one dense factor.
    assert isinstance(crossed_problem("study.csv", "order01").schur, reml._DenseSchur)


def test_newton_steps_from_moments_and_l_bfgs_b_at_the_bound():
    # Inside, Newton's steps from the moment start converge in a few dozen evaluations.
    fit = crossed_model(load("study.csv"), "order")
    assert fit.state.optimizer == "Newton" and fit.state.evaluations < 40
    assert "its last step was below the tolerance" in fit.state.message
    # A variance on the bound (0) is left to L-BFGS-B, which handles bounds.
    fit = participant_model(load("no_participant_effect.csv"), "order")
    assert fit.state.optimizer == "L-BFGS-B" and fit.state.singular
