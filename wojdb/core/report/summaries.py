"""Mixed-model fits as lme4's and ordinal's summaries print their essentials, with 95%
intervals; a model its data cannot estimate as the reasons why, without numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from wojdb.core.report.text import fixed, text_table
from wojdb.core.stats.estimability import NotEstimable
from wojdb.core.stats.ordinal import ClmmFit
from wojdb.core.stats.reml import FitState, LmmFit

REML = "REML"
LAPLACE = "cumulative logit, Laplace"
INTERVALS = "95% intervals: Wald (of the standard deviations: on the log scale)."


def _number(value: float, digits: int) -> str:
    return "–" if not np.isfinite(value) else fixed(value, digits)


def _groups(counts: dict[str, int]) -> str:
    return "  number of groups: " + ", ".join(f"{name} {n}" for name, n in counts.items())


def _random_effects(fit: LmmFit | ClmmFit) -> list[str]:
    """The random-effects block: variance, standard deviation and its interval per factor."""
    table = fit.variance_table()
    rows = [["", "variance", "std. dev.", "2.5%", "97.5%"]]
    boundary = []
    for row in table.itertuples():
        rows.append(
            [
                row.factor,
                _number(row.variance, 5),
                _number(row.sd, 4),
                _number(row.sd_low, 4),
                _number(row.sd_high, 4),
            ]
        )
        if row.variance == 0:
            boundary.append(row.factor)
    lines = ["Random effects:", *text_table(rows)]
    lines += [
        f"  {factor}: the variance is on its boundary, zero (no interval): the data show no "
        f"{factor} variation beyond the rest"
        for factor in boundary
    ]
    groups = table.dropna(subset=["groups"])
    return [*lines, _groups({row.factor: int(row.groups) for row in groups.itertuples()})]


def coefficient_lines(table: pd.DataFrame) -> list[str]:
    """Rows of a fit's coefficient table (reml.COEFFICIENT_COLUMNS) with their intervals."""
    heading = f"{table['statistic_name'].iloc[0]} value"
    rows = [["", "estimate", "std. error", "2.5%", "97.5%", heading]]
    for row in table.itertuples():
        rows.append(
            [
                row.term,
                _number(row.estimate, 4),
                _number(row.se, 4),
                _number(row.ci_low, 4),
                _number(row.ci_high, 4),
                _number(row.statistic, 2),
            ]
        )
    return text_table(rows)


def _optimiser(state: FitState, starts: bool) -> list[str]:
    verdict = "converged" if state.converged else "DID NOT CONVERGE"
    tried = f", {state.starts} start(s)" if starts else ""
    return [
        f"Optimiser: {state.optimizer}{tried}, {state.evaluations} evaluations: {verdict}"
        f"{'; singular fit' if state.singular else ''}",
        f"  {state.message}",
    ]


def lmm_summary(fit: LmmFit, formula: str) -> str:
    """A linear mixed model as lme4's summary() prints its essentials, plus intervals and how
    the optimiser ended."""
    lines = [f"{formula}    ({REML}, {fit.n_obs} observations)"]
    lines.append(f"REML criterion at convergence: {fit.reml_criterion:.2f}")
    lines += _random_effects(fit)
    lines += ["Fixed effects:", *coefficient_lines(fit.coefficient_table()), INTERVALS]
    return "\n".join([*lines, *_optimiser(fit.state, starts=True)])


def clmm_summary(fit: ClmmFit, formula: str) -> str:
    """An ordinal fit as ordinal's summary.clmm() prints its essentials, plus intervals."""
    lines = [f"{formula}    ({LAPLACE}, {fit.n_obs} observations)"]
    lines.append(f"log-likelihood: {fit.loglik:.2f}   AIC: {fit.aic:.2f}")
    lines += _random_effects(fit)
    coefficients = fit.coefficient_table()
    for part, title in (("fixed", "Coefficients:"), ("threshold", "Threshold coefficients:")):
        rows = coefficients[coefficients["part"] == part]
        if len(rows):
            lines += [title, *coefficient_lines(rows)]
    lines.append(INTERVALS)
    return "\n".join([*lines, *_optimiser(fit.state, starts=False)])


def not_estimable_summary(result: NotEstimable, formula: str, method: str) -> str:
    """A model its data cannot estimate: the reasons, and no numbers of the model."""
    lines = [f"{formula}    ({method}, {result.n_obs} observations)"]
    lines.append("NOT ESTIMABLE, so no estimates are shown:")
    lines += [f"  - {reason}" for reason in result.reasons]
    return "\n".join([*lines, _groups(result.groups)])


def summary(fit: LmmFit | ClmmFit | NotEstimable, formula: str, method: str) -> str:
    """The summary of any of the three: ``method`` is :data:`REML` or :data:`LAPLACE`."""
    if isinstance(fit, NotEstimable):
        return not_estimable_summary(fit, formula, method)
    return clmm_summary(fit, formula) if isinstance(fit, ClmmFit) else lmm_summary(fit, formula)
