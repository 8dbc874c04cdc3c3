"""Cumulative link mixed models for the 1-5 answers, fitted as R's ``ordinal::clmm`` fits them.

The answers are ordinal, not interval. The model (logit link, flexible thresholds) is

    logit P(Y_i <= j) = theta_j - x_i beta - b_i,   b_i = sum_k tau_k u_k[level_k(i)],
    u ~ N(0, I),

with one or two random-intercept factors (participant and item, crossed). As in clmm
(Christensen 2019, ordinal package, "clmm" with the Laplace approximation), the marginal
likelihood is approximated at the conditional modes u^ of the spherical random effects:

    -log L ~ g(u^) + log|H(u^)| / 2,   g(u) = -sum_i log P(y_i | u) + |u|^2 / 2,
    H = d^2 g / du^2 = I + Lambda Z' W Z Lambda,

and minimised over (theta, beta, tau >= 0); standard errors come from the Hessian of that
objective. Written here because no Python library fits crossed ordinal mixed models. Unlike
clmm, which differentiates numerically, the objective's gradient is exact (implicit
differentiation through u^, below), and H is handled as in `reml`: the factor with more
levels is eliminated by a division, leaving a dense Cholesky factor of the smaller factor's
Schur complement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import linalg, optimize, sparse, special, stats

from wojdb.core.stats import columns as col
from wojdb.core.stats.mixed import design_matrix
from wojdb.core.stats.reml import (
    SINGULAR_TOL,
    FitState,
    coefficient_frame,
    factor_codes,
    outcome,
    variance_frame,
)

#: Newton's method on u stops when max |dg/du| is below this. Far tighter than clmm's 1e-4:
#: the objective's gradient is exact only at the exact mode.
INNER_TOL = 1e-10
INNER_MAX_ITER = 100
#: Largest |d(-log L)/d parameter| accepted at the optimum (interior parameters).
GRADIENT_TOL = 1e-3


@dataclass(frozen=True)
class ClmmFit:
    """A Laplace fit of a cumulative link mixed model, named as ``ordinal::clmm`` names it."""

    thresholds: pd.DataFrame  # index "1|2", "2|3", ...; columns estimate, se, z, p
    fixed: pd.DataFrame  # index: term (no intercept: the thresholds hold it); same columns
    variances: pd.Series  # per random factor (clmm's VarCorr)
    random: dict[str, pd.Series]  # conditional modes per factor (clmm's ranef), by level
    loglik: float
    n_obs: int
    levels: tuple  # response categories, lowest first
    state: FitState
    vcov: pd.DataFrame = field(repr=False)

    @property
    def sd(self) -> pd.Series:
        """Standard deviation of each random factor (clmm's ``ST``)."""
        return np.sqrt(self.variances).rename("sd")

    @property
    def aic(self) -> float:
        k = len(self.thresholds) + len(self.fixed) + len(self.variances)
        return 2 * k - 2 * self.loglik

    def coefficient_table(self) -> pd.DataFrame:
        """Coefficients then thresholds as summary.clmm() prints them, in
        :data:`reml.COEFFICIENT_COLUMNS` (the statistic is z)."""
        parts = [
            coefficient_frame(self.fixed, "z"),
            coefficient_frame(self.thresholds, "z", part="threshold"),
        ]
        # A model without fixed effects has an empty part, which concat would warn about.
        return pd.concat([p for p in parts if len(p)] or parts[:1], ignore_index=True)

    def variance_table(self) -> pd.DataFrame:
        """Variance components as clmm's VarCorr, in :data:`reml.VARIANCE_COLUMNS`."""
        return variance_frame(self.variances, self.random)


def _logistic(eta: np.ndarray):
    """F, f, f', f'' of the logistic distribution; zeros of f at +-inf."""
    cdf = special.expit(eta)
    dens = cdf * special.expit(-eta)
    return cdf, dens, dens * (1 - 2 * cdf), dens * (1 - 6 * dens)


class _Problem:
    """One model's data, set up once; `objective` evaluates -log L and its gradient."""

    def __init__(self, y: np.ndarray, x: np.ndarray, codes: Sequence[np.ndarray], n_cat: int):
        if not 1 <= len(codes) <= 2:
            raise ValueError("one or two random-intercept factors are supported")
        self.y, self.x, self.codes = y, x, list(codes)
        self.n, self.p = x.shape
        self.n_cat = n_cat
        self.sizes = [int(c.max()) + 1 for c in codes]
        self.k = len(codes)
        self.u = [np.zeros(s) for s in self.sizes]  # warm start for the next evaluation
        if self.k == 2:
            n1 = self.sizes[1]
            cells, self.cell_of = np.unique(
                codes[0].astype(np.int64) * n1 + codes[1], return_inverse=True
            )
            rows, self.cell_cols = cells // n1, cells % n1
            self.cell_rows = rows
            indptr = np.searchsorted(rows, np.arange(self.sizes[0] + 1))
            self.cross = sparse.csr_matrix(
                (np.zeros(len(cells)), self.cell_cols, indptr), shape=tuple(self.sizes)
            )
            # Every ordered pair of cells in one row of the cross matrix: the Schur complement's
            # C' D^-1 C is then one bincount instead of a sparse product per Newton step.
            lengths = np.diff(indptr)[rows]
            self.pair_first = np.repeat(np.arange(len(cells)), lengths)
            offsets = np.arange(len(self.pair_first)) - np.repeat(
                np.cumsum(lengths) - lengths, lengths
            )
            self.pair_second = indptr[rows[self.pair_first]] + offsets
            self.pair_flat = self.cell_cols[self.pair_first] * n1 + self.cell_cols[self.pair_second]

    # -- the conditional model -------------------------------------------------------------
    def _split(self, params: np.ndarray):
        m = self.n_cat - 1
        return params[:m], params[m : m + self.p], params[m + self.p :]

    def _linear(self, theta, beta):
        """theta_{y} - x beta and theta_{y-1} - x beta, with theta_0 = -inf, theta_J = +inf."""
        cuts = np.concatenate([[-np.inf], theta, [np.inf]])
        fixed = self.x @ beta
        return cuts[self.y + 1] - fixed, cuts[self.y] - fixed

    def _b(self, tau, u):
        b = tau[0] * u[0][self.codes[0]]
        if self.k == 2:
            b = b + tau[1] * u[1][self.codes[1]]
        return b

    def _prob(self, upper, lower, b):
        eta1, eta2 = upper - b, lower - b
        # Differences of upper tails where both are above the median keep their precision.
        prob = np.where(
            eta2 > 0,
            special.expit(-eta2) - special.expit(-eta1),
            special.expit(eta1) - special.expit(eta2),
        )
        return eta1, eta2, prob

    def _g(self, upper, lower, tau, u):
        _, _, prob = self._prob(upper, lower, self._b(tau, u))
        if np.any(prob <= 0) or not np.all(np.isfinite(prob)):
            return np.inf
        return -np.log(prob).sum() + 0.5 * sum(v @ v for v in u)

    def _terms(self, upper, lower, tau, u):
        eta1, eta2, prob = self._prob(upper, lower, self._b(tau, u))
        _, f1, d1, e1 = _logistic(eta1)
        _, f2, d2, e2 = _logistic(eta2)
        return prob, (f1, d1, e1), (f2, d2, e2)

    def _hessian(self, tau, w):
        """H's pieces: diagonal of each factor's block, the Schur complement's Cholesky factor."""
        diag = [
            1 + tau[i] ** 2 * np.bincount(self.codes[i], w, self.sizes[i]) for i in range(self.k)
        ]
        if self.k == 1:
            return diag, None, None
        cross = self.cross.copy()
        cross.data = tau[0] * tau[1] * np.bincount(self.cell_of, w, len(self.cell_cols))
        n1 = self.sizes[1]
        weighted = cross.data / diag[0][self.cell_rows]
        gram = np.bincount(
            self.pair_flat, weighted[self.pair_first] * cross.data[self.pair_second], n1 * n1
        )
        schur = np.diag(diag[1]) - gram.reshape(n1, n1)
        return diag, cross, linalg.cho_factor(schur, lower=True)

    def _solve(self, parts, r):
        diag, cross, chol = parts
        if cross is None:
            return [r[0] / diag[0]]
        x1 = linalg.cho_solve(chol, r[1] - cross.T @ (r[0] / diag[0]))
        return [(r[0] - cross @ x1) / diag[0], x1]

    def _logdet(self, parts):
        diag, _, chol = parts
        logdet = np.log(diag[0]).sum()
        if chol is not None:
            logdet += 2 * np.log(np.diag(chol[0])).sum()
        return logdet

    def _modes(self, upper, lower, tau):
        """Conditional modes u^ by Newton's method with step halving, as clmm's update.u."""
        u = [v.copy() for v in self.u]
        g = self._g(upper, lower, tau, u)
        if not np.isfinite(g):
            u = [np.zeros(s) for s in self.sizes]
            g = self._g(upper, lower, tau, u)
            if not np.isfinite(g):
                return None
        for _ in range(INNER_MAX_ITER):
            prob, (f1, d1, _), (f2, d2, _) = self._terms(upper, lower, tau, u)
            slope = (f1 - f2) / prob
            grad = [
                tau[i] * np.bincount(self.codes[i], slope, self.sizes[i]) + u[i]
                for i in range(self.k)
            ]
            if max(np.abs(v).max() for v in grad) < INNER_TOL:
                break
            w = slope**2 - (d1 - d2) / prob
            step = self._solve(self._hessian(tau, w), grad)
            factor = 1.0
            while True:
                trial = [u[i] - factor * step[i] for i in range(self.k)]
                g_trial = self._g(upper, lower, tau, trial)
                # Near the mode g changes at rounding level; a full step is then accepted.
                if g_trial <= g + 1e-12 * abs(g) or factor < 1e-10:
                    break
                factor /= 2
            if g_trial > g + 1e-12 * abs(g):
                break
            u, g = trial, g_trial
        self.u = u
        return u

    # -- the Laplace objective and its exact gradient ---------------------------------------
    def objective(self, params: np.ndarray) -> tuple[float, np.ndarray]:
        theta, beta, tau = self._split(params)
        upper, lower = self._linear(theta, beta)
        u = self._modes(upper, lower, tau)
        if u is None:
            return np.inf, np.zeros_like(params)
        prob, (f1, d1, e1), (f2, d2, e2) = self._terms(upper, lower, tau, u)
        a = f1 - f2  # derivatives of prob along a common shift of both cut points
        b = d1 - d2
        c = e1 - e2
        slope = a / prob  # dl/db, l = -log prob
        w = slope**2 - b / prob  # d2l/db2
        w3 = c / prob - 3 * a * b / prob**2 + 2 * a**3 / prob**3  # d3l/db3
        parts = self._hessian(tau, w)
        value = -np.log(prob).sum() + 0.5 * sum(v @ v for v in u) + 0.5 * self._logdet(parts)

        # Diagonal of H^-1 per factor and its entry for each observation's pair of levels.
        diag, cross, chol = parts
        j = self.codes[0]
        if cross is None:
            h00 = 1 / diag[0]
            lev = h00[j] * tau[0]
            own = [lev]
            h = tau[0] ** 2 * h00[j]
        else:
            l1 = self.codes[1]
            sinv = linalg.cho_solve(chol, np.eye(self.sizes[1]))
            # C S^-1 is needed only at C's own cells: a sum over the pairs of cells in a row.
            first, second = self.pair_first, self.pair_second
            m_cells = np.bincount(
                second,
                cross.data[first] * sinv[self.cell_cols[first], self.cell_cols[second]],
                len(self.cell_cols),
            )
            h00 = (
                1 / diag[0]
                + np.bincount(self.cell_rows, cross.data * m_cells, self.sizes[0]) / diag[0] ** 2
            )
            h11 = np.diag(sinv)
            h01 = -m_cells[self.cell_of] / diag[0][j]
            own = [tau[0] * h00[j] + tau[1] * h01, tau[0] * h01 + tau[1] * h11[l1]]
            h = tau[0] ** 2 * h00[j] + tau[1] ** 2 * h11[l1] + 2 * tau[0] * tau[1] * h01
        # u^ moves with the parameters: d u^/d phi = -H^-1 d2g/du dphi, entering through
        # d log|H| / du, collected in s = H^-1 v.
        v = [tau[i] * np.bincount(self.codes[i], w3 * h, self.sizes[i]) for i in range(self.k)]
        s = self._solve(parts, v)
        sa = self._b(tau, s)

        grad = np.empty_like(params)
        m_cut = self.n_cat - 1
        # Thresholds: theta_j is the upper cut of category j and the lower cut of j + 1.
        g1 = -f1 / prob + 0.5 * h * (
            -e1 / prob + b * f1 / prob**2 + 2 * a * d1 / prob**2 - 2 * a**2 * f1 / prob**3
        )
        g1 -= 0.5 * sa * (d1 / prob - a * f1 / prob**2)
        g2 = f2 / prob + 0.5 * h * (
            e2 / prob - b * f2 / prob**2 - 2 * a * d2 / prob**2 + 2 * a**2 * f2 / prob**3
        )
        g2 -= 0.5 * sa * (-d2 / prob + a * f2 / prob**2)
        upper_of = np.bincount(self.y, g1, self.n_cat)
        lower_of = np.bincount(self.y, g2, self.n_cat)
        grad[:m_cut] = upper_of[:-1] + lower_of[1:]
        common = slope + 0.5 * h * w3 - 0.5 * w * sa
        grad[m_cut : m_cut + self.p] = self.x.T @ common
        for i in range(self.k):
            ui = u[i][self.codes[i]]
            grad[m_cut + self.p + i] = ui @ common + w @ own[i] - 0.5 * slope @ s[i][self.codes[i]]
        return float(value), grad


def _start(y: np.ndarray, n_cat: int, p: int, k: int) -> np.ndarray:
    """Thresholds at the logits of the cumulative proportions; beta 0; tau 1."""
    cumulative = np.cumsum(np.bincount(y, minlength=n_cat))[:-1] / len(y)
    return np.concatenate([special.logit(cumulative), np.zeros(p), np.ones(k)])


def _hessian(problem: _Problem, params: np.ndarray, free: np.ndarray) -> np.ndarray:
    """Central differences of the exact gradient, symmetrised."""
    idx = np.flatnonzero(free)
    hess = np.empty((len(idx), len(idx)))
    for col_i, i in enumerate(idx):
        step = 1e-5 * max(1.0, abs(params[i]))
        up, down = params.copy(), params.copy()
        up[i] += step
        down[i] -= step
        hess[:, col_i] = (problem.objective(up)[1][idx] - problem.objective(down)[1][idx]) / (
            2 * step
        )
    return (hess + hess.T) / 2


def fit_clmm(
    y: Sequence,
    x: pd.DataFrame,
    factors: dict[str, pd.Series | np.ndarray],
) -> ClmmFit:
    """Fit ``factor(y) ~ x + (1 | f)`` per f in ``factors`` (one, or two crossed) by Laplace.

    ``y`` holds ordered categories (sorted: lowest first); ``x`` the fixed-effects design
    without intercept. Returns estimates in ``ordinal::clmm``'s terms.
    """
    levels = np.sort(pd.unique(np.asarray(y)))
    if len(levels) < 2:
        raise ValueError("the response needs at least two categories")
    codes_y = np.searchsorted(levels, np.asarray(y))
    xm = np.asarray(x, dtype=float).reshape(len(codes_y), -1)
    if np.linalg.matrix_rank(np.column_stack([np.ones(len(xm)), xm])) <= xm.shape[1]:
        raise ValueError("fixed-effects design is rank deficient (or holds an intercept)")
    names, codes, level_names, order = factor_codes(factors)
    n_cat, p, k = len(levels), xm.shape[1], len(names)
    problem = _Problem(codes_y, xm, [codes[i] for i in order], n_cat)
    m_cut = n_cat - 1
    bounds = [(None, None)] * (m_cut + p) + [(0.0, None)] * k
    evaluations = 0

    def objective(params):
        nonlocal evaluations
        evaluations += 1
        return problem.objective(np.asarray(params, dtype=float))

    start = _start(codes_y, n_cat, p, k)
    result = optimize.minimize(
        objective,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"ftol": 1e-15, "gtol": 1e-9, "maxiter": 1000, "maxcor": 20},
    )
    params = result.x.copy()
    params[m_cut + p :] = np.maximum(params[m_cut + p :], 0)
    free = np.ones(len(params), dtype=bool)
    free[m_cut + p :] = params[m_cut + p :] > SINGULAR_TOL
    hess = _hessian(problem, params, free)
    evaluations += 2 * int(free.sum())
    # One Newton step on the free parameters settles what the quasi-Newton run left.
    value, grad = objective(params)
    step = np.linalg.solve(hess, grad[free])
    trial = params.copy()
    trial[free] -= step
    trial_value, trial_grad = objective(trial)
    if trial_value <= value and np.all(trial[m_cut + p :] >= 0):
        params, value, grad = trial, trial_value, trial_grad
    objective(params)  # leaves the modes of the final parameters in problem.u
    interior = free.copy()
    gradient = grad[interior]
    stationary = bool(np.all(np.abs(gradient) < GRADIENT_TOL)) and bool(
        np.all(grad[~free] > -GRADIENT_TOL)
    )
    cov = linalg.inv(hess)
    se = np.full(len(params), np.nan)
    # A Hessian that is not positive definite (a handful of participants, a variance at its
    # bound) leaves some standard errors undefined: NaN, which the summaries show as such.
    with np.errstate(invalid="ignore"):
        se[free] = np.sqrt(np.diag(cov))

    theta, beta, tau_internal = params[:m_cut], params[m_cut : m_cut + p], params[m_cut + p :]
    tau = np.empty(k)
    tau[order] = tau_internal
    singular = bool(np.any(tau < SINGULAR_TOL))
    message = outcome(stationary, singular, str(result.message))
    state = FitState(
        converged=bool(stationary and np.isfinite(value)),
        singular=singular,
        message=message,
        optimizer="L-BFGS-B + Newton",
        starts=1,
        evaluations=evaluations,
        gradient=tuple(float(g) for g in grad),
    )

    def table(estimates, errors, index):
        z = estimates / errors
        return pd.DataFrame(
            {"estimate": estimates, "se": errors, "z": z, "p": 2 * stats.norm.sf(np.abs(z))},
            index=index,
        )

    # Answers read from a column with blanks are floats; clmm names the cut points "1|2".
    labels = [
        str(int(level)) if isinstance(level, float) and level.is_integer() else str(level)
        for level in levels.tolist()
    ]
    cut_names = [f"{labels[i]}|{labels[i + 1]}" for i in range(m_cut)]
    terms = list(x.columns)
    random = {}
    for slot, i in enumerate(order):
        random[names[i]] = pd.Series(
            tau_internal[slot] * problem.u[slot], index=level_names[i], name=names[i]
        )
    free_names = [*cut_names, *terms, *[names[i] for i in order]]
    free_names = [name for name, keep in zip(free_names, free, strict=True) if keep]
    return ClmmFit(
        thresholds=table(theta, se[:m_cut], cut_names),
        fixed=table(beta, se[m_cut : m_cut + p], terms),
        variances=pd.Series(tau**2, index=names, name="variance"),
        random={name: random[name] for name in names},
        loglik=float(-value),
        n_obs=len(codes_y),
        levels=tuple(levels.tolist()),
        state=state,
        vcov=pd.DataFrame(cov, index=free_names, columns=free_names),
    )


def clmm(
    data: pd.DataFrame,
    response: str,
    fixed: Sequence[str] = (),
    random: Sequence[str] = (col.PARTICIPANT, col.ITEM),
) -> ClmmFit:
    """``clmm(factor(response) ~ fixed + (1 | r) ...)``, logit link, flexible thresholds.

    Categorical fixed terms are treatment-coded as in `mixed.design_matrix`; rows with gaps
    are dropped.
    """
    used = data.dropna(subset=[response, *fixed, *random])
    x = design_matrix(used, fixed).drop(columns="Intercept")
    return fit_clmm(used[response].to_numpy(), x, {name: used[name].to_numpy() for name in random})


def _truncated_logistic_mean(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """E[e | low < e <= high] for a standard logistic e (either bound may be infinite).

    The antiderivative of x f(x) is x F(x) - log(1 + e^x), written so that it tends to 0 at
    both infinities without overflow.
    """

    def antiderivative(x):
        with np.errstate(invalid="ignore"):
            inside = np.where(
                x < 0,
                x * special.expit(x) - np.logaddexp(0, x),
                -x * special.expit(-x) - np.logaddexp(0, -x),
            )
        return np.where(np.isinf(x), 0.0, inside)

    mass = special.expit(high) - special.expit(low)
    return (antiderivative(high) - antiderivative(low)) / mass


def _answered(ratings: pd.DataFrame) -> pd.DataFrame:
    return ratings if col.GROUP in ratings.columns else col.scored(ratings)


def participant_model(ratings: pd.DataFrame, judgment: str) -> ClmmFit:
    """The thesis's participant model on the 1-5 answers: ``judgment ~ 1 + (1 | participant)``."""
    return clmm(_answered(ratings), judgment, random=(col.PARTICIPANT,))


def crossed_model(ratings: pd.DataFrame, judgment: str) -> ClmmFit:
    """``judgment ~ group + (1 | participant) + (1 | item)`` on the 1-5 answers."""
    return clmm(
        _answered(ratings), judgment, fixed=(col.GROUP,), random=(col.PARTICIPANT, col.ITEM)
    )


def adjust_scores(
    ratings: pd.DataFrame, judgments: Sequence[str] = col.JUDGMENTS
) -> tuple[pd.DataFrame, dict[str, ClmmFit]]:
    """Scored ratings whose ``<judgment>01_adjusted`` is the ordinal analogue of `mixed`'s.

    Each answer y fixes the latent score L = b + e (e standard logistic, b the participant's
    conditional mode) to theta_{y-1} < L <= theta_y; the adjusted score is the mean of L - b
    over that interval: the answer on the latent logit scale with the participant's shift
    taken out. Returns the frame and the participant model per judgment.
    """
    data = _answered(ratings)
    fits, added = {}, {}
    for judgment in judgments:
        fit = participant_model(data, judgment)
        fits[judgment] = fit
        cuts = np.concatenate([[-np.inf], fit.thresholds["estimate"].to_numpy(), [np.inf]])
        answer = data[judgment].to_numpy(dtype=float)
        known = ~np.isnan(answer)
        position = np.zeros(len(data), dtype=int)
        position[known] = np.searchsorted(np.asarray(fit.levels, dtype=float), answer[known])
        shift = data[col.PARTICIPANT].map(fit.random[col.PARTICIPANT]).to_numpy(dtype=float)
        latent = _truncated_logistic_mean(cuts[position] - shift, cuts[position + 1] - shift)
        added[col.adjusted(judgment)] = np.where(known, latent, np.nan)
    return data.assign(**added), fits
