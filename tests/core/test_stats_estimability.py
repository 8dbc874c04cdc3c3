"""What a mixed model can estimate: too few groups, no variation, separation in ordinal models
(seen in the data, or after the fit as a standard error no data could give) are reported as
not estimable, with the reasons; what can be estimated gets 95% intervals, checked against
lme4's standard errors and against the closed form of a balanced one-way design."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wojdb.core.stats import estimability, mixed, ordinal
from wojdb.core.stats.estimability import MAX_LOGIT_SE, MIN_GROUPS, Z95, NotEstimable
from wojdb.core.stats.reml import LmmFit

DATA = Path(__file__).parents[1] / "analysis" / "data"
LME4 = {f["name"]: f for f in json.loads((DATA / "lme4" / "reference.json").read_text())["fits"]}


def study() -> pd.DataFrame:
    return pd.read_csv(DATA / "lme4" / "study.csv").assign(practice=False)


def test_one_participant_gives_no_model_and_no_adjusted_scores():
    one = study().query("participant == 1")
    adjusted, fits = mixed.adjust_scores(one)
    for judgment in ("holistic", "order"):
        fit = fits[judgment]
        assert isinstance(fit, NotEstimable) and fit.groups == {"participant": 1}
        assert fit.reasons == (
            "only 1 participant: a participant variance needs at least 5 participants (the "
            "minimum set for every random factor)",
        )
        assert adjusted[f"{judgment}01_adjusted"].isna().all()
    assert mixed.adjustment_ttests(adjusted).empty
    assert isinstance(mixed.crossed_model(adjusted, "order"), NotEstimable)
    ordinal_adjusted, ordinal_fits = ordinal.adjust_scores(one)
    assert isinstance(ordinal_fits["order"], NotEstimable)
    assert ordinal_adjusted["order01_adjusted"].isna().all()


def test_the_minimum_number_of_groups_is_settable():
    four = study().query("participant <= 4")
    assert MIN_GROUPS == 5
    assert "only 4 participants" in mixed.participant_model(four, "order").describe()
    fit = mixed.participant_model(four, "order", min_groups=4)
    assert isinstance(fit, LmmFit) and fit.state.converged


def test_a_response_that_never_varies_has_nothing_to_model():
    flat = study().assign(order01=0.5, order=3)
    result = mixed.participant_model(flat, "order")
    assert result.reasons == ("every answer is 0.5: nothing varies to be modelled",)
    result = ordinal.participant_model(flat, "order")
    assert result.reasons == ("every answer is 3: nothing varies to be modelled",)


def separated() -> pd.DataFrame:
    """The study with every order answer to a 'swap' permutation at 5, the top of the scale."""
    data = study()
    swap = (data["group"] == "swap") & data["order"].notna()
    data.loc[swap, "order"] = 5
    return data


def test_a_cell_at_one_end_of_the_scale_is_seen_before_fitting():
    data = separated()
    answers = int(((data["group"] == "swap") & data["order"].notna()).sum())
    result = ordinal.crossed_model(data, "order")
    assert isinstance(result, NotEstimable)
    assert result.reasons == (
        f"all {answers} answers of group 'swap' are 5, the highest answer given: its "
        "coefficient is infinite (complete separation)",
    )
    # The participant model has no such cell: it is estimable.
    assert isinstance(ordinal.participant_model(data, "order"), ordinal.ClmmFit)


def test_fitted_anyway_a_separated_cell_shows_as_an_unbounded_standard_error():
    # What the report used to print as converged: an estimate near 37 with a huge error.
    data = separated().dropna(subset=["order"])
    x = mixed.design_matrix(data, ["group"]).drop(columns="Intercept")
    factors = {f: data[f].to_numpy() for f in ("participant", "item")}
    fit = ordinal.fit_clmm(data["order"].to_numpy(), x, factors)
    se = fit.fixed.loc["group[T.swap]", "se"]
    assert fit.state.converged and se > 1000 * MAX_LOGIT_SE
    assert estimability.unbounded(fit.fixed, MAX_LOGIT_SE) == [
        "group[T.swap] has a standard error above 10 on the logit scale: the data do not bound "
        "it (complete or quasi-complete separation)"
    ]


def test_a_quasi_complete_separation_is_caught_after_the_fit():
    # 'swap' answers all 4 or 5, every other answer 3 or lower: no cell sits at one end, but
    # the likelihood grows without bound as the scale splits between 3 and 4.
    data = study()
    rng = np.random.default_rng(0)
    answered = data["order"].notna()
    swap = (data["group"] == "swap") & answered
    data.loc[swap, "order"] = rng.choice([4, 5], swap.sum())
    data.loc[~swap & answered, "order"] = data.loc[~swap & answered, "order"].clip(upper=3)
    assert estimability.separated_cells(data["order"], {"group": data["group"]}) == []
    result = ordinal.crossed_model(data, "order")
    assert isinstance(result, NotEstimable)
    assert any("group[T.swap]" in reason for reason in result.reasons)


def test_fixed_effects_intervals_are_wald_on_lme4s_standard_errors():
    ref = LME4["study_order_crossed"]
    table = mixed.crossed_model(study(), "order").coefficient_table()
    estimate = np.array(list(ref["fixef"].values()))
    se = np.array(list(ref["se"].values()))
    np.testing.assert_allclose(table["ci_low"], estimate - 1.959964 * se, atol=3e-4)
    np.testing.assert_allclose(table["ci_high"], estimate + 1.959964 * se, atol=3e-4)
    assert pytest.approx(1.959964, abs=1e-6) == Z95


def test_standard_deviation_intervals_match_the_balanced_one_way_closed_form():
    """Balanced one-way: REML gives sigma^2 = MSW and sigma_a^2 = (MSB - MSW) / n, whose
    information is (N - a) / (2 sigma^4) for sigma^2 and (a - 1) / (2 lambda^2) for
    lambda = sigma^2 + n sigma_a^2 = MSB (Searle, Casella & McCulloch 1992, ch. 3 and 6)."""
    rng = np.random.default_rng(4)
    a, n = 12, 10
    groups = np.repeat(np.arange(a), n)
    y = 0.6 + rng.normal(0, 0.15, a)[groups] + rng.normal(0, 0.3, a * n)
    frame = pd.DataFrame({"g": groups, "y": y})
    fit = mixed.fit_model(frame, "y", random=("g",))
    means = frame.groupby("g")["y"].mean()
    msw = ((y - means[groups].to_numpy()) ** 2).sum() / (a * n - a)
    msb = n * ((means - y.mean()) ** 2).sum() / (a - 1)
    sigma_a2 = (msb - msw) / n
    assert fit.variances["residual"] == pytest.approx(msw, rel=1e-6)
    assert fit.variances["g"] == pytest.approx(sigma_a2, rel=1e-5)
    var_a2 = 2 * (msb**2 / (a - 1) + msw**2 / (a * n - a)) / n**2
    expected = {
        "g": np.sqrt(var_a2) / (2 * sigma_a2),
        "residual": 1 / np.sqrt(2 * (a * n - a)),
    }
    table = fit.variance_table().set_index("factor")
    for factor, spread in expected.items():
        sd = np.sqrt(fit.variances[factor])
        assert table.loc[factor, "sd_low"] == pytest.approx(sd * np.exp(-Z95 * spread), rel=1e-3)
        assert table.loc[factor, "sd_high"] == pytest.approx(sd * np.exp(Z95 * spread), rel=1e-3)


def test_a_variance_on_its_boundary_has_no_interval():
    data = pd.read_csv(DATA / "lme4" / "no_participant_effect.csv").assign(practice=False)
    fit = mixed.participant_model(data, "order")
    table = fit.variance_table().set_index("factor")
    assert fit.state.singular and table.loc["participant", "variance"] == pytest.approx(0)
    assert np.isnan(table.loc["participant", "sd_low"])
    assert table.loc["residual", "sd_low"] < table.loc["residual", "sd"]
    assert table.loc["residual", "sd"] < table.loc["residual", "sd_high"]
