"""What a mixed model can estimate from its data, decided before fitting and checked after.

A variance needs several groups: from one participant there is no participant variance to
estimate, and from two or three it is a guess, so every random factor needs at least
:data:`MIN_GROUPS` levels (settable per call). A response that never varies leaves nothing to
model. A cumulative link model cannot estimate the coefficient of a cell whose answers all lie
at the lowest or all at the highest category given: the likelihood grows without bound as the
coefficient goes to infinity (complete separation; Albert & Anderson 1984, Biometrika 71(1)).
Subtler separations show only after the fit, as a standard error no data could give (above
:data:`MAX_LOGIT_SE` on the logit scale) or a curvature that is not positive definite. A fit
that did not converge is no estimate either.

Such a model is a :class:`NotEstimable`: its reasons in words and none of its numbers. What can
be estimated gets 95% Wald intervals (:data:`Z95`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from wojdb.core.stats.defaults import MIN_GROUPS

#: Largest standard error on the logit scale that data can give: an odds ratio interval of
#: e^(+-20) holds no information, and even a cell of three answers gives less than 2.
MAX_LOGIT_SE = 10.0
#: The normal quantile of a two-sided 95% interval.
Z95 = float(stats.norm.ppf(0.975))


@dataclass(frozen=True)
class NotEstimable:
    """A model its data cannot estimate: why, in words, and what the data held."""

    reasons: tuple[str, ...]
    n_obs: int
    groups: dict[str, int]  # levels per random factor

    def describe(self) -> str:
        return "; ".join(self.reasons)


def _counted(count: int, name: str) -> str:
    return f"{count} {name}" + ("" if count == 1 else "s")


def too_few_groups(groups: Mapping[str, int], min_groups: int = MIN_GROUPS) -> list[str]:
    """A reason per random factor with fewer than ``min_groups`` levels."""
    return [
        f"only {_counted(count, name)}: a {name} variance needs at least "
        f"{_counted(min_groups, name)} (the minimum set for every random factor)"
        for name, count in groups.items()
        if count < min_groups
    ]


def no_variation(response: pd.Series) -> list[str]:
    """A reason when the response is empty or takes one value only."""
    values = response.dropna().unique()
    if len(values) == 0:
        return ["there are no answers"]
    if len(values) == 1:
        return [f"every answer is {_value(values[0])}: nothing varies to be modelled"]
    return []


def _value(value) -> str:
    return f"{value:g}" if isinstance(value, float | np.floating) else str(value)


def separated_cells(response: pd.Series, cells: Mapping[str, pd.Series]) -> list[str]:
    """A reason per cell (level of a categorical fixed term) whose answers all lie at the lowest
    or all at the highest category of ``response``: its coefficient is infinite.

    ``cells`` maps a term's name to its levels, aligned with ``response``; rows without an
    answer are ignored.
    """
    answered = response.notna()
    lowest, highest = response[answered].min(), response[answered].max()
    reasons = []
    for term, levels in cells.items():
        for level, answers in response[answered].groupby(levels[answered], sort=True):
            for end, name in ((lowest, "lowest"), (highest, "highest")):
                if (answers == end).all():
                    reasons.append(
                        f"all {len(answers)} answers of {term} '{level}' are {_value(end)}, the "
                        f"{name} answer given: its coefficient is infinite (complete "
                        "separation)"
                    )
    return reasons


#: Smallest eigenvalue of X'X, relative to its largest, that decides full rank without the
#: singular values of X: sigma_min / sigma_max above 1e-3, far above matrix_rank's tolerance.
CLEAR_RANK = 1e-6


def full_rank(x: np.ndarray) -> bool:
    """Whether the columns of ``x`` are linearly independent, as np.linalg.matrix_rank decides.

    Its singular value decomposition of a tall ``x`` costs several times the p x p product
    X'X, whose eigenvalues, squared singular values within n p eps of the largest, decide every
    well-conditioned design; only an ill-conditioned one is decomposed."""
    n, p = x.shape
    if p and n * p * np.finfo(float).eps < CLEAR_RANK / 100:
        eigenvalues = np.linalg.eigvalsh(x.T @ x)
        if eigenvalues[0] > CLEAR_RANK * eigenvalues[-1]:
            return True
    return bool(np.linalg.matrix_rank(x) == p)


def rank_deficiency(x: pd.DataFrame) -> list[str]:
    """A reason when the fixed-effects columns are linearly dependent."""
    if not full_rank(x.to_numpy(dtype=float)):
        return [
            "the fixed effects cannot all be estimated: the columns "
            f"{', '.join(map(str, x.columns))} are linearly dependent"
        ]
    return []


def unbounded(
    estimates: pd.DataFrame, max_se: float | None = None, scale: str = "logit"
) -> list[str]:
    """A reason per estimate (index: term; column ``se``) without a finite standard error, or
    with one above ``max_se``."""
    reasons = []
    for term, se in estimates["se"].items():
        if not np.isfinite(se):
            reasons.append(
                f"{term} has no finite standard error: the likelihood's curvature there is not "
                "positive, so the data do not determine it"
            )
        elif max_se is not None and se > max_se:
            reasons.append(
                f"{term} has a standard error above {max_se:g} on the {scale} scale: the data do "
                "not bound it (complete or quasi-complete separation)"
            )
    return reasons


def not_converged(converged: bool, message: str) -> list[str]:
    """A reason when the optimiser did not end at an estimate."""
    return [] if converged else [f"the fit {message}"]


def wald_interval(estimate, se) -> tuple:
    """The 95% Wald interval, estimate -+ Z95 se."""
    return estimate - Z95 * se, estimate + Z95 * se
