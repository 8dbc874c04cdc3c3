"""REML fits of linear mixed models with one or two random-intercept factors, as lme4 fits them.

Written here rather than taken from statsmodels: MixedLM's variance-components route for crossed
designs takes minutes to hours at the study's scale (statsmodels issues #2452, #6749) and its
default optimiser can stop early or misestimate variances (#9279, #4847). The model is

    y = X beta + Z_1 b_1 + Z_2 b_2 + e,   b_k ~ N(0, sigma^2 theta_k^2 I),   e ~ N(0, sigma^2 I)

and the criterion is lme4's profiled REML deviance (Bates, Maechler, Bolker & Walker 2015,
"Fitting linear mixed-effects models using lme4", J. Stat. Softw. 67(1), section 3.4):

    d(theta) = log|A| + log|X' V^-1 X| + (n - p) (1 + log(2 pi r^2 / (n - p)))

with A = Lambda' Z' Z Lambda + I, V = I + Z Lambda Lambda' Z' and r^2 the generalised residual sum
of squares. For random intercepts the diagonal blocks of A are diagonal, so the factor with more
levels is eliminated by a division and only the smaller factor's Schur complement needs a (dense)
Cholesky factor: cost O(n + q_small^3) per evaluation instead of a sparse factorisation of A.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import linalg, optimize, sparse

#: lme4's isSingular() tolerance on theta.
SINGULAR_TOL = 1e-4
#: Largest |d deviance / d theta| accepted at an interior optimum. lme4 checks 0.002 on a
#: Hessian-scaled gradient; the raw gradient used here is at rounding level (~1e-6) at a true
#: optimum, so this leaves a wide margin while still catching a stop on a slope.
GRADIENT_TOL = 2e-3


#: scipy's stop messages (L-BFGS-B's are codes such as "ABNORMAL: ") in plain words.
_STOP_REASONS = (
    ("ABNORMAL", "the last line search could not improve the fit any further"),
    ("REDUCTION OF F", "the fit stopped improving"),
    ("PROJECTED GRADIENT", "the slope fell below the tolerance"),
    ("EXCEEDS LIMIT", "the limit on evaluations was reached"),
    ("MAXIMUM NUMBER", "the limit on evaluations was reached"),
)


def stop_reason(message: str) -> str:
    """Why the optimiser stopped, in words, from scipy's message."""
    upper = message.upper().replace("_", " ")
    for code, words in _STOP_REASONS:
        if code in upper:
            return words
    return f"of its message {message.strip()!r}" if message.strip() else "no reason was given"


def outcome(stationary: bool, singular: bool, message: str, what: str = "variance") -> str:
    """Whether the fit converged, and why, for a reader rather than a debugger."""
    if not stationary:
        verdict = "did not converge: the estimate is not at a minimum (the slope is not zero)"
    elif singular:
        verdict = f"converged to a boundary: a {what} is estimated as zero"
    else:
        verdict = "converged: the slope is zero at the estimate"
    return f"{verdict}; the optimiser stopped because {stop_reason(message)}"


@dataclass(frozen=True)
class FitState:
    """How the optimisation ended, reported as it is rather than tidied away."""

    converged: bool
    singular: bool
    message: str
    optimizer: str
    starts: int
    evaluations: int
    gradient: tuple[float, ...]


@dataclass(frozen=True)
class LmmFit:
    """A REML fit: estimates named as in lme4's summary()."""

    fixed: pd.DataFrame  # index: term; columns estimate, se, t
    variances: pd.Series  # index: factor names, then "residual"
    theta: pd.Series  # relative standard deviations per factor (lme4's getME(fit, "theta"))
    sigma: float
    random: dict[str, pd.Series]  # conditional modes (BLUPs) per factor, indexed by level
    reml_criterion: float
    n_obs: int
    state: FitState
    vcov: pd.DataFrame = field(repr=False)

    @property
    def loglik(self) -> float:
        """REML log-likelihood, as lme4's logLik() reports for a REML fit."""
        return -self.reml_criterion / 2

    def coefficient_table(self) -> pd.DataFrame:
        """Fixed effects as lme4's summary() prints them: see :func:`coefficient_frame`."""
        return coefficient_frame(self.fixed, "t")

    def variance_table(self) -> pd.DataFrame:
        """Variance components as lme4's VarCorr() prints them: see :func:`variance_frame`."""
        return variance_frame(self.variances, self.random)


#: Columns of :func:`coefficient_frame`.
COEFFICIENT_COLUMNS = ("part", "term", "estimate", "se", "statistic", "statistic_name")
#: Columns of :func:`variance_frame`.
VARIANCE_COLUMNS = ("factor", "groups", "variance", "sd")


def coefficient_frame(table: pd.DataFrame, statistic: str, part: str = "fixed") -> pd.DataFrame:
    """A fit's coefficient table (index: term) in :data:`COEFFICIENT_COLUMNS`: ``part`` (fixed
    or threshold), term, estimate, its standard error, the Wald statistic and its name (t or
    z)."""
    return pd.DataFrame(
        {
            "part": part,
            "term": table.index.astype(str),
            "estimate": table["estimate"].to_numpy(dtype=float),
            "se": table["se"].to_numpy(dtype=float),
            "statistic": table[statistic].to_numpy(dtype=float),
            "statistic_name": statistic,
        },
        columns=list(COEFFICIENT_COLUMNS),
    )


def variance_frame(variances: pd.Series, random: dict[str, pd.Series]) -> pd.DataFrame:
    """Variance components in :data:`VARIANCE_COLUMNS`: one row per random factor (then the
    residual, which has no groups) with its number of groups, variance and standard
    deviation."""
    return pd.DataFrame(
        {
            "factor": variances.index.astype(str),
            "groups": [len(random[f]) if f in random else np.nan for f in variances.index],
            "variance": variances.to_numpy(dtype=float),
            "sd": np.sqrt(variances.to_numpy(dtype=float)),
        },
        columns=list(VARIANCE_COLUMNS),
    )


@dataclass(frozen=True)
class _Solution:
    deviance: float
    beta: np.ndarray
    xvx: np.ndarray
    r2: float
    spherical: list[np.ndarray]  # per factor, A^-1 Lambda' Z' [X y]


#: Above this many stored terms the weighted Gram matrix is recomputed by a sparse product
#: each time instead of from a precomputed map (which needs ~12 bytes per term).
GRAM_MAP_LIMIT = 20_000_000


class _WeightedGram:
    """N' diag(w) N for a fixed sparse N and varying w, as one sparse mat-vec.

    Entry (j, l) is the sum over rows i of w_i N_ij N_il, so a map from w to the entries of
    the result is precomputed once; it has sum_i nnz(row i)^2 terms.
    """

    def __init__(self, n: sparse.csr_matrix):
        self.n = n
        self.size = n.shape[1]
        lengths = np.diff(n.indptr)
        terms = int((lengths.astype(np.int64) ** 2).sum())
        self.map = None
        if terms > GRAM_MAP_LIMIT:
            return
        row_of = np.repeat(np.arange(n.shape[0]), lengths)
        # Every ordered pair (a, b) of stored entries in the same row: a repeated once per
        # entry of its row, b running over that row.
        first = np.repeat(np.arange(n.nnz), lengths[row_of])
        offsets = np.arange(len(first)) - np.repeat(
            np.cumsum(lengths[row_of]) - lengths[row_of], lengths[row_of]
        )
        second = n.indptr[row_of[first]] + offsets
        flat = n.indices[first].astype(np.int64) * self.size + n.indices[second]
        self.cells, cell = np.unique(flat, return_inverse=True)
        self.map = sparse.csr_matrix(
            (n.data[first] * n.data[second], (cell, row_of[first])),
            shape=(len(self.cells), n.shape[0]),
        )

    def __call__(self, w: np.ndarray) -> np.ndarray:
        if self.map is None:
            return (self.n.T @ sparse.diags(w) @ self.n).toarray()
        out = np.zeros(self.size * self.size)
        out[self.cells] = self.map @ w
        return out.reshape(self.size, self.size)


class _Problem:
    """Cross-products of one model, computed once; `solve` evaluates one theta."""

    def __init__(self, y: np.ndarray, x: np.ndarray, codes: Sequence[np.ndarray]):
        if not 1 <= len(codes) <= 2:
            raise ValueError("one or two random-intercept factors are supported")
        self.n, self.p = x.shape
        w = np.column_stack([x, y])
        self.wtw = w.T @ w
        self.counts, self.ztw, zs = [], [], []
        for c in codes:
            z = sparse.csr_matrix(
                (np.ones(self.n), (np.arange(self.n), c)), shape=(self.n, int(c.max()) + 1)
            )
            zs.append(z)
            self.counts.append(np.asarray(z.sum(axis=0)).ravel())
            self.ztw.append(np.asarray(z.T @ w))
        # Factor 0 is the one eliminated by division; the caller orders the larger one first.
        self.cross = (zs[0].T @ zs[1]).tocsr() if len(codes) == 2 else None
        if self.cross is not None:
            self.gram = _WeightedGram(self.cross)

    def solve(self, theta: np.ndarray) -> _Solution:
        t0 = theta[0]
        d0 = t0 * t0 * self.counts[0] + 1.0
        r0 = t0 * self.ztw[0]
        u0 = r0 / d0[:, None]
        logdet = np.log(d0).sum()
        if self.cross is None:
            spherical = [u0]
            rtu = r0.T @ u0
        else:
            t1 = theta[1]
            d1 = t1 * t1 * self.counts[1] + 1.0
            r1 = t1 * self.ztw[1]
            off = t0 * t1
            schur = np.diag(d1) - off * off * self.gram(1.0 / d0)
            chol = linalg.cho_factor(schur, lower=True)
            u1 = linalg.cho_solve(chol, r1 - off * (self.cross.T @ u0))
            u0 = u0 - off * (self.cross @ u1) / d0[:, None]
            logdet += 2 * np.log(np.diag(chol[0])).sum()
            spherical = [u0, u1]
            rtu = r0.T @ u0 + r1.T @ u1
        m = self.wtw - rtu
        p = self.p
        xvx = m[:p, :p]
        chol_x = linalg.cho_factor(xvx, lower=True)
        beta = linalg.cho_solve(chol_x, m[:p, p])
        r2 = m[p, p] - m[:p, p] @ beta
        df = self.n - p
        deviance = (
            logdet + 2 * np.log(np.diag(chol_x[0])).sum() + df * (1 + np.log(2 * np.pi * r2 / df))
        )
        return _Solution(deviance, beta, xvx, r2, spherical)

    def deviance(self, theta: np.ndarray) -> float:
        try:
            return self.solve(theta).deviance
        except (linalg.LinAlgError, FloatingPointError, ValueError):
            return np.inf


def factor_codes(factors) -> tuple[list[str], list[np.ndarray], list[pd.Index], list[int]]:
    """Each grouping factor's name, integer codes and sorted levels, and the factors' order with
    the one of more levels first: it is the one eliminated by division."""
    names = list(factors)
    codes, levels = [], []
    for name in names:
        code, uniques = pd.factorize(pd.Series(np.asarray(factors[name])), sort=True)
        if (code < 0).any():
            raise ValueError(f"factor {name!r} has missing levels")
        codes.append(code)
        levels.append(uniques)
    order = sorted(range(len(names)), key=lambda i: -len(levels[i]))
    return names, codes, levels, order


def _gradient(f, theta: np.ndarray) -> np.ndarray:
    """Central differences; one-sided into the feasible side at the boundary theta = 0."""
    grad = np.empty_like(theta)
    for i in range(len(theta)):
        h = 1e-5 * max(1.0, theta[i])
        up, down = theta.copy(), theta.copy()
        up[i] += h
        if theta[i] > h:
            down[i] -= h
            grad[i] = (f(up) - f(down)) / (2 * h)
        else:
            grad[i] = (f(up) - f(theta)) / h
    return grad


def _stationary(grad: np.ndarray, theta: np.ndarray) -> bool:
    """First-order optimality for theta >= 0: zero gradient inside, non-negative on the bound."""
    interior = theta > SINGULAR_TOL
    return bool(
        np.all(np.abs(grad[interior]) < GRADIENT_TOL) and np.all(grad[~interior] > -GRADIENT_TOL)
    )


def _optimise(f, k: int) -> tuple[np.ndarray, FitState]:
    """Minimise f over theta >= 0 from lme4's start (theta = 1); check the result and retry.

    If the run did not end at a stationary point, it is retried from other starts with a
    derivative-free method (COBYQA, the successor of lme4's BOBYQA) and polished again; the best
    run is kept and its state reported as it is.
    """
    evaluations = 0

    def counted(theta):
        nonlocal evaluations
        evaluations += 1
        return f(np.asarray(theta, dtype=float))

    bounds = [(0.0, None)] * k
    runs = []

    def run(x0, method):
        options = {"ftol": 1e-12, "gtol": 1e-8, "maxfun": 2000} if method == "L-BFGS-B" else {}
        jac = "3-point" if method == "L-BFGS-B" else None
        res = optimize.minimize(counted, x0, method=method, jac=jac, bounds=bounds, options=options)
        runs.append((res, method))

    run(np.ones(k), "L-BFGS-B")
    best, method = runs[0]
    grad = _gradient(counted, best.x)
    # The gradient decides, not the optimiser's flag: L-BFGS-B often ends "ABNORMAL" (a line
    # search that cannot improve further) exactly at the optimum.
    if not _stationary(grad, best.x):
        for x0 in (best.x, np.full(k, 3.0), np.full(k, 0.01)):
            run(x0, "COBYQA")
        run(min(runs, key=lambda r: r[0].fun)[0].x, "L-BFGS-B")
        best, method = min(runs, key=lambda r: r[0].fun)
        grad = _gradient(counted, best.x)
    theta = np.maximum(best.x, 0.0)
    stationary = _stationary(grad, theta)
    singular = bool(np.any(theta < SINGULAR_TOL))
    message = outcome(stationary, singular, str(best.message))
    state = FitState(
        converged=bool(stationary and np.isfinite(best.fun)),
        singular=singular,
        message=message,
        optimizer=method,
        starts=len(runs),
        evaluations=evaluations,
        gradient=tuple(float(g) for g in grad),
    )
    return theta, state


def fit_reml(
    y: np.ndarray,
    x: pd.DataFrame,
    factors: dict[str, pd.Series | np.ndarray],
) -> LmmFit:
    """Fit y ~ x + (1 | f) for each factor f (one, or two crossed or nested) by REML.

    ``x`` is the fixed-effects design matrix (with its intercept column); ``factors`` maps a
    name to the level of each observation. Returns estimates in lme4's terms.
    """
    y = np.asarray(y, dtype=float)
    xm = np.asarray(x, dtype=float)
    if np.linalg.matrix_rank(xm) < xm.shape[1]:
        raise ValueError("fixed-effects design is rank deficient")
    names, codes, levels, order = factor_codes(factors)
    problem = _Problem(y, xm, [codes[i] for i in order])
    theta_internal, state = _optimise(problem.deviance, len(names))
    sol = problem.solve(theta_internal)
    theta = np.empty(len(names))
    theta[order] = theta_internal
    n, p = xm.shape
    sigma2 = sol.r2 / (n - p)
    vcov = sigma2 * linalg.inv(sol.xvx)
    se = np.sqrt(np.diag(vcov))
    terms = list(x.columns)
    fixed = pd.DataFrame({"estimate": sol.beta, "se": se, "t": sol.beta / se}, index=terms)
    random = {}
    for slot, i in enumerate(order):
        u = sol.spherical[slot]
        modes = theta_internal[slot] * (u[:, p] - u[:, :p] @ sol.beta)
        random[names[i]] = pd.Series(modes, index=levels[i], name=names[i])
    variances = pd.Series(
        np.append(sigma2 * theta**2, sigma2), index=[*names, "residual"], name="variance"
    )
    return LmmFit(
        fixed=fixed,
        variances=variances,
        theta=pd.Series(theta, index=names, name="theta"),
        sigma=float(np.sqrt(sigma2)),
        random={name: random[name] for name in names},
        reml_criterion=float(sol.deviance),
        n_obs=n,
        state=state,
        vcov=pd.DataFrame(vcov, index=terms, columns=terms),
    )
