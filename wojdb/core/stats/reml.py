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
levels is eliminated by a division and only the smaller factor's Schur complement needs a
Cholesky factor: dense, O(n + q_small^3) per evaluation, for small or well-mixed designs; for
questionnaire designs, where participants share items only within a questionnaire and a few
items are shared by all, in batched blocks around those widely shared items (`_BlockSchur`),
O(n) per evaluation. The choice is made once per model by an operation count; both are exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import linalg, optimize, sparse
from scipy.sparse import csgraph

from wojdb.core.stats.estimability import full_rank, wald_interval

#: lme4's isSingular() tolerance on theta.
SINGULAR_TOL = 1e-4
#: Largest gradient, scaled by the square root of the curvature, accepted at an interior
#: optimum: lme4's tolerance on its Hessian-scaled gradient. Scaled, it means the same at any
#: number of observations; the raw gradient of a deviance of a million terms is ~0.1 at its
#: optimum, where the curvature is ~1e5.
GRADIENT_TOL = 2e-3
#: Step of the differences that check the optimum, lme4's (deriv12's delta): rounding in a
#: deviance of a million terms (~1e-6) stays far below the differences it takes.
CHECK_STEP = 1e-4


#: scipy's stop messages (L-BFGS-B's are codes such as "ABNORMAL: ") in plain words.
_STOP_REASONS = (
    ("ABNORMAL", "the last line search could not improve the fit any further"),
    ("REDUCTION OF F", "the fit stopped improving"),
    ("PROJECTED GRADIENT", "the slope fell below the tolerance"),
    ("EXCEEDS LIMIT", "the limit on evaluations was reached"),
    ("MAXIMUM NUMBER", "the limit on evaluations was reached"),
    ("NEWTON STEP", "its last step was below the tolerance"),
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
    #: Standard error of the log of each standard deviation (factors, then residual), from the
    #: curvature of the REML criterion; NaN at the boundary or when not computed.
    log_sd_se: pd.Series | None = field(default=None, repr=False)

    @property
    def loglik(self) -> float:
        """REML log-likelihood, as lme4's logLik() reports for a REML fit."""
        return -self.reml_criterion / 2

    def coefficient_table(self) -> pd.DataFrame:
        """Fixed effects as lme4's summary() prints them: see :func:`coefficient_frame`."""
        return coefficient_frame(self.fixed, "t")

    def variance_table(self) -> pd.DataFrame:
        """Variance components as lme4's VarCorr() prints them: see :func:`variance_frame`."""
        return variance_frame(self.variances, self.random, self.log_sd_se)


#: Columns of :func:`coefficient_frame`.
COEFFICIENT_COLUMNS = (
    "part",
    "term",
    "estimate",
    "se",
    "ci_low",
    "ci_high",
    "statistic",
    "statistic_name",
)
#: Columns of :func:`variance_frame`.
VARIANCE_COLUMNS = ("factor", "groups", "variance", "sd", "sd_low", "sd_high")


def coefficient_frame(table: pd.DataFrame, statistic: str, part: str = "fixed") -> pd.DataFrame:
    """A fit's coefficient table (index: term) in :data:`COEFFICIENT_COLUMNS`: ``part`` (fixed
    or threshold), term, estimate, its standard error, its 95% Wald interval, the Wald
    statistic and its name (t or z)."""
    estimate, se = table["estimate"].to_numpy(dtype=float), table["se"].to_numpy(dtype=float)
    low, high = wald_interval(estimate, se)
    return pd.DataFrame(
        {
            "part": part,
            "term": table.index.astype(str),
            "estimate": estimate,
            "se": se,
            "ci_low": low,
            "ci_high": high,
            "statistic": table[statistic].to_numpy(dtype=float),
            "statistic_name": statistic,
        },
        columns=list(COEFFICIENT_COLUMNS),
    )


def variance_frame(
    variances: pd.Series, random: dict[str, pd.Series], log_sd_se: pd.Series | None = None
) -> pd.DataFrame:
    """Variance components in :data:`VARIANCE_COLUMNS`: one row per random factor (then the
    residual, which has no groups) with its number of groups, variance, standard deviation and
    the standard deviation's 95% Wald interval on the log scale (NaN where ``log_sd_se`` has
    none: a variance on its boundary, zero, has no such interval)."""
    sd = np.sqrt(variances.to_numpy(dtype=float))
    spread = (
        np.full(len(sd), np.nan)
        if log_sd_se is None
        else log_sd_se.reindex(variances.index).to_numpy(dtype=float)
    )
    low, high = wald_interval(np.log(np.where(sd > 0, sd, np.nan)), spread)
    return pd.DataFrame(
        {
            "factor": variances.index.astype(str),
            "groups": [len(random[f]) if f in random else np.nan for f in variances.index],
            "variance": variances.to_numpy(dtype=float),
            "sd": sd,
            "sd_low": np.exp(low),
            "sd_high": np.exp(high),
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


def _unique_inverse(values: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """np.unique(values, return_inverse=True) for values in 0 .. bound - 1: by marking them in
    an array of `bound` flags when that is not much longer than `values`, else by one sort;
    either is several times faster than numpy's own (hash-based since numpy 2.3) on the
    millions of values here."""
    if bound <= 4 * len(values):
        present = np.zeros(bound, dtype=bool)
        present[values] = True
        return np.flatnonzero(present), (np.cumsum(present) - 1)[values]
    order = np.argsort(values, kind="stable")
    ranked = values[order]
    new = np.empty(len(ranked), dtype=bool)
    new[:1] = True
    new[1:] = ranked[1:] != ranked[:-1]
    inverse = np.empty(len(ranked), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ranked[new], inverse


def _same_rows(n: sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Each row's pattern, numbered 0, 1, ..., shared by rows of the same stored entries in the
    same order, and each pattern's first row.

    Rows are grouped by a random projection, then every row is compared entry by entry with its
    group's first: a row that differs (a projection that collides) gets a pattern of its own,
    so the grouping is exact. In a questionnaire design the items of one questionnaire are rated
    by the same participants, so their rows are one pattern.
    """
    rows = n.shape[0]
    lengths = np.diff(n.indptr)
    projection = n @ np.random.default_rng(0).uniform(1.0, 2.0, n.shape[1])
    order = np.argsort(projection, kind="stable")
    ranked = projection[order]
    new = np.empty(rows, dtype=bool)
    new[:1] = True
    new[1:] = ranked[1:] != ranked[:-1]
    pattern = np.empty(rows, dtype=np.int64)
    pattern[order] = np.cumsum(new) - 1
    first = order[new]
    mine = first[pattern]
    apart = lengths != lengths[mine]
    row_of = np.repeat(np.arange(rows), lengths)
    same = ~apart[row_of]
    entries = np.flatnonzero(same)
    mirror = n.indptr[mine[row_of[same]]] + entries - n.indptr[row_of[same]]
    differs = (n.indices[entries] != n.indices[mirror]) | (n.data[entries] != n.data[mirror])
    apart[row_of[entries[differs]]] = True
    if apart.any():
        apart = np.flatnonzero(apart)
        pattern[apart] = len(first) + np.arange(len(apart))
        first = np.append(first, apart)
    return pattern, first


class _WeightedGram:
    """N' diag(w) N for a fixed sparse N and varying w, as one sparse mat-vec.

    Entry (j, l) is the sum over rows i of w_i N_ij N_il. Rows of the same stored entries
    (`_same_rows`) contribute alike, so w is first summed per pattern; a map from those sums
    to the entries of the result is precomputed once. It has sum nnz(row)^2 terms over one row
    per pattern.
    """

    def __init__(self, n: sparse.csr_matrix):
        self.n = n
        self.size = n.shape[1]
        self.pattern, first = _same_rows(n)
        self.patterns = len(first)
        n = n[first]
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
        self.cells, cell = _unique_inverse(flat, self.size * self.size)
        self.map = sparse.csr_matrix(
            (n.data[first] * n.data[second], (cell, row_of[first])),
            shape=(len(self.cells), n.shape[0]),
        )

    def values(self, w: np.ndarray) -> np.ndarray:
        """The entries at `cells` (row-major flat indices) of N' diag(w) N."""
        return self.map @ np.bincount(self.pattern, w, minlength=self.patterns)

    def __call__(self, w: np.ndarray) -> np.ndarray:
        if self.map is None:
            return (self.n.T @ sparse.diags(w) @ self.n).toarray()
        out = np.zeros(self.size * self.size)
        out[self.cells] = self.values(w)
        return out.reshape(self.size, self.size)


class _DenseSchur:
    """Factor 0 eliminated by division, factor 1's Schur complement factored densely."""

    def __init__(self, cross: sparse.csr_matrix):
        self.cross = cross
        self.gram = _WeightedGram(cross)

    def solve(self, off, d0, d1, r0, r1):
        """log|A| and A^-1 [r0; r1] for A = [[D0, off M], [off M', D1]], M = `cross`."""
        schur = np.diag(d1) - off * off * self.gram(1.0 / d0)
        chol = linalg.cho_factor(schur, lower=True)
        u1 = linalg.cho_solve(chol, r1 - off * (self.cross.T @ (r0 / d0[:, None])))
        u0 = (r0 - off * (self.cross @ u1)) / d0[:, None]
        logdet = np.log(d0).sum() + 2 * np.log(np.diag(chol[0])).sum()
        return logdet, u0, u1


def _bucket(size: int) -> int:
    """The padded size a block of `size` is factored at: exact up to 16, then steps of ~25%,
    so blocks of similar sizes share one batched factorisation."""
    if size <= 16:
        return size
    return int(np.ceil(16 * 1.25 ** np.ceil(np.log(size / 16) / np.log(1.25) - 1e-9)))


class _BlockSchur:
    """The same solve when factor 1 falls apart into small blocks once a few widely shared
    levels of factor 0 ("hubs": items every questionnaire holds) are set aside.

    Eliminating the other levels of factor 0 by division leaves factor 1's Schur complement B
    block-diagonal, one block per connected component of the factor-1 / factor-0 graph without
    the hubs; blocks of similar size are padded with identity rows and factored in one batched
    Cholesky. The hubs form a bordered ("arrowhead") system with B, closed by a k x k dense
    Schur complement T = D_H - C' B^-1 C, so exactly log|A| = sum log d0 (hubs apart) + log|B|
    + log|T|.
    """

    def __init__(self, cross: sparse.csr_matrix, hubs: np.ndarray, labels=None):
        """`labels`: each factor-1 level's block, as `_components` finds them (found if not
        given)."""
        self.hubs = hubs
        rest = _others(cross.shape[0], hubs)
        if labels is None:
            labels = _components(cross, rest)
        self.cross_rest = cross[rest].tocsr()
        # Without hubs, a slice: indexing by it copies nothing.
        self.rest = rest if len(hubs) else slice(None)
        self.cross_hubs = cross[hubs].T.toarray()  # q1 x k
        self.gram = _WeightedGram(self.cross_rest)
        q1 = cross.shape[1]
        sizes = np.bincount(labels)
        order = np.argsort(labels, kind="stable")
        local = np.empty(q1, dtype=np.int64)
        starts = np.cumsum(sizes) - sizes
        local[order] = np.arange(q1) - np.repeat(starts, sizes)
        padded = np.array([_bucket(int(s)) for s in sizes])
        rows, cols = np.divmod(self.gram.cells, q1)
        self.groups = []
        for b in sorted(set(padded.tolist())):
            comps = np.flatnonzero(padded == b)
            slot = np.full(len(sizes), -1)
            slot[comps] = np.arange(len(comps))
            members = np.flatnonzero(slot[labels] >= 0)  # factor-1 levels in these blocks
            position = slot[labels[members]] * b + local[members]  # row in the stacked blocks
            cell = np.flatnonzero(slot[labels[rows]] >= 0)
            flat = slot[labels[rows[cell]]] * b * b + local[rows[cell]] * b + local[cols[cell]]
            self.groups.append((len(comps), int(b), members, position, cell, flat))

    def _blocks(self, off, d1, w):
        values = -off * off * self.gram.values(w)
        factors = []
        for count, b, members, position, cell, flat in self.groups:
            blocks = np.zeros(count * b * b)
            blocks[flat] = values[cell]
            blocks = blocks.reshape(count * b, b)
            diagonal = np.ones(count * b)
            diagonal[position] = d1[members]
            blocks[np.arange(count * b), np.arange(count * b) % b] += diagonal
            factors.append(np.linalg.cholesky(blocks.reshape(count, b, b)))
        return factors

    def _solve_blocks(self, factors, rhs):
        out = np.empty_like(rhs)
        for chol, (count, b, members, position, _, _) in zip(factors, self.groups, strict=True):
            stacked = np.zeros((count * b, rhs.shape[1]))
            stacked[position] = rhs[members]
            # numpy's batched inverse and matmul loop in C; scipy's batched solves in Python.
            inverse = np.linalg.inv(chol)
            solved = np.swapaxes(inverse, 1, 2) @ (inverse @ stacked.reshape(count, b, -1))
            out[members] = solved.reshape(count * b, -1)[position]
        return out

    def solve(self, off, d0, d1, r0, r1):
        d_rest, r_rest = d0[self.rest], r0[self.rest]
        factors = self._blocks(off, d1, 1.0 / d_rest)
        logdet = np.log(d_rest).sum() + sum(
            2 * np.log(np.diagonal(f, axis1=1, axis2=2)).sum() for f in factors
        )
        rhs = r1 - off * (self.cross_rest.T @ (r_rest / d_rest[:, None]))
        border = off * self.cross_hubs
        solved = self._solve_blocks(factors, np.hstack([rhs, border]))
        m = rhs.shape[1]
        u1 = solved[:, :m]
        if len(self.hubs):
            closing = np.diag(d0[self.hubs]) - border.T @ solved[:, m:]
            chol = linalg.cho_factor(closing, lower=True)
            u_hubs = linalg.cho_solve(chol, r0[self.hubs] - border.T @ u1)
            u1 = u1 - solved[:, m:] @ u_hubs
            logdet += 2 * np.log(np.diag(chol[0])).sum()
        u0 = np.empty_like(r0)
        u0[self.rest] = (r_rest - off * (self.cross_rest @ u1)) / d_rest[:, None]
        if len(self.hubs):
            u0[self.hubs] = u_hubs
        return logdet, u0, u1


#: Most widely shared levels of factor 0 ever set aside as hubs (their border is held densely).
MAX_HUBS = 1000
#: The cost, in floating-point operations, charged for each batched call: a Python round trip.
CALL_COST = 1e5


def _others(size: int, chosen: np.ndarray) -> np.ndarray:
    """0 .. size - 1 without `chosen`, in order."""
    keep = np.ones(size, dtype=bool)
    keep[chosen] = False
    return np.flatnonzero(keep)


def _components(cross: sparse.csr_matrix, rest: np.ndarray) -> np.ndarray:
    """Each factor-1 level's block: its connected component through the factor-0 levels
    `rest`, numbered 0, 1, ..."""
    q1 = cross.shape[1]
    graph = sparse.bmat([[None, cross[rest].T], [cross[rest], None]], format="csr")
    labels = csgraph.connected_components(graph, directed=False)[1][:q1]
    used = np.zeros(labels.max() + 1, dtype=bool)
    used[labels] = True
    return (np.cumsum(used) - 1)[labels]


def _schur_solver(cross: sparse.csr_matrix) -> _DenseSchur | _BlockSchur:
    """The cheaper exact way to factor A for this design, by an operation count.

    Hub candidates are the factor-0 levels shared by at least 1/1, 1/2, 1/4 ... 1/64 of factor
    1's levels; for each, the blocks left are found as connected components and priced as
    batched Cholesky factors plus the border, against one dense factor of order q1.
    """
    q1 = cross.shape[1]
    spread = np.diff(cross.indptr)
    widest = np.argsort(-spread, kind="stable")
    best, best_cost = None, q1**3 / 3 + CALL_COST
    for k in sorted({int((spread >= q1 / 2**j).sum()) for j in range(7)} | {0}):
        if k > MAX_HUBS:
            break
        hubs = np.sort(widest[:k])
        rest = _others(cross.shape[0], hubs)
        if int((spread[rest].astype(np.int64) ** 2).sum()) > GRAM_MAP_LIMIT:
            continue
        labels = _components(cross, rest)
        padded = np.array([_bucket(int(s)) for s in np.bincount(labels)])
        calls = len(set(padded.tolist()))
        cost = (
            (padded.astype(float) ** 3).sum() / 3
            + (padded.astype(float) ** 2).sum() * (k + 1)
            + q1 * k * k
            + k**3 / 3
            + calls * CALL_COST
        )
        if cost < best_cost:
            best, best_cost = (hubs, labels), cost
    return _DenseSchur(cross) if best is None else _BlockSchur(cross, *best)


#: Solutions `_Problem.deviance` keeps, the latest: the optimiser's last evaluations hold the
#: estimate, whose solution gives the fit's tables and the centre of its intervals.
KEPT_SOLUTIONS = 8


class _Problem:
    """Cross-products of one model, computed once; `solve` evaluates one theta."""

    def __init__(self, y: np.ndarray, x: np.ndarray, codes: Sequence[np.ndarray]):
        if not 1 <= len(codes) <= 2:
            raise ValueError("one or two random-intercept factors are supported")
        self.kept: dict[bytes, _Solution] = {}
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
            self.schur = _schur_solver(self.cross)

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
            logdet, u0, u1 = self.schur.solve(t0 * t1, d0, d1, r0, r1)
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
            solution = self.solve(theta)
        except (linalg.LinAlgError, FloatingPointError, ValueError):
            return np.inf
        self.kept[theta.tobytes()] = solution
        if len(self.kept) > KEPT_SOLUTIONS:
            del self.kept[next(iter(self.kept))]
        return solution.deviance

    def solution(self, theta: np.ndarray) -> _Solution:
        """`solve`, or the solution `deviance` kept for this theta."""
        kept = self.kept.get(theta.tobytes())
        return self.solve(theta) if kept is None else kept


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


def _derivatives(f, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and second derivatives along each theta by differences of step CHECK_STEP:
    central inside, forward into the feasible side at the boundary theta = 0."""
    centre = f(theta)
    grad, curvature = np.empty_like(theta), np.empty_like(theta)
    for i in range(len(theta)):
        h = CHECK_STEP * max(1.0, theta[i])

        def at(steps, i=i, h=h):
            moved = theta.copy()
            moved[i] += steps * h
            return f(moved)

        if theta[i] > h:
            up, down = at(1), at(-1)
            grad[i] = (up - down) / (2 * h)
            curvature[i] = (up - 2 * centre + down) / h**2
        else:
            up, further = at(1), at(2)
            grad[i] = (4 * up - 3 * centre - further) / (2 * h)
            curvature[i] = (further - 2 * up + centre) / h**2
    return grad, curvature


def _stationary(grad: np.ndarray, curvature: np.ndarray, theta: np.ndarray) -> bool:
    """First-order optimality for theta >= 0, on the gradient scaled by the square root of the
    curvature as lme4 scales it: zero inside (at a minimum), non-negative on the bound."""
    interior = theta > SINGULAR_TOL
    scaled = grad / np.sqrt(np.where(curvature > 0, curvature, 1.0))
    return bool(
        np.all(np.abs(scaled[interior]) < GRADIENT_TOL)
        and np.all(curvature[interior] > 0)
        and np.all(scaled[~interior] > -GRADIENT_TOL)
    )


#: Newton's iterations stop once a step moves theta by less than this (relative above 1).
NEWTON_TOL = 1e-6


def _newton(f, theta: np.ndarray, iterations: int = 8) -> optimize.OptimizeResult | None:
    """Newton steps on difference derivatives of step CHECK_STEP, from a start near an interior
    optimum: about 6 evaluations a step for two factors and two or three steps, against ~40
    for L-BFGS-B. None as soon as theta nears the bound, the curvature is not positive
    definite or a step halved four times does not lower f: L-BFGS-B takes over from the
    start."""
    k = len(theta)
    eye = np.eye(k)
    centre = f(theta)
    for _ in range(iterations):
        h = CHECK_STEP * np.maximum(1.0, theta)
        if np.any(theta <= 2 * h):
            return None
        up = np.array([f(theta + h[i] * eye[i]) for i in range(k)])
        down = np.array([f(theta - h[i] * eye[i]) for i in range(k)])
        grad = (up - down) / (2 * h)
        hessian = np.diag((up - 2 * centre + down) / h**2)
        for i in range(k):
            for j in range(i):
                both = f(theta + h[i] * eye[i] + h[j] * eye[j])
                hessian[i, j] = hessian[j, i] = (both - up[i] - up[j] + centre) / (h[i] * h[j])
        try:
            step = linalg.cho_solve(linalg.cho_factor(hessian), grad)
        except (linalg.LinAlgError, ValueError):  # not positive definite, or not finite
            return None
        if np.all(np.abs(step) < NEWTON_TOL * np.maximum(1.0, theta)):
            # Already there: a step this small changes f by less than its rounding.
            return optimize.OptimizeResult(x=theta, fun=centre, message="NEWTON STEP below tol")
        for _ in range(4):  # halve a step that overshoots
            moved = theta - step
            value = f(moved) if np.all(moved > 0) else np.inf
            if value <= centre:
                break
            step = step / 2
        else:
            return None
        theta, centre = moved, value
        if np.all(np.abs(step) < NEWTON_TOL * np.maximum(1.0, theta)):
            return optimize.OptimizeResult(x=theta, fun=centre, message="NEWTON STEP below tol")
    return None


def _moment_start(y: np.ndarray, x: np.ndarray, codes: Sequence[np.ndarray]) -> np.ndarray:
    """Theta near the optimum, from one-way analysis-of-variance moments per factor.

    On the least-squares residuals, each factor's variance is (between-level mean square -
    within-level mean square) / n0, with n0 the unbalanced design's effective level size, and
    the residual variance is what the factors leave of the total. Crude for crossed designs, but
    it starts the optimiser on the right scale: a rater variance a hundredth of the residual
    costs L-BFGS-B dozens of evaluations from lme4's theta = 1.
    """
    resid = y - x @ linalg.lstsq(x, y)[0]
    n, total = len(y), float(resid @ resid) / len(y)
    variances = []
    for c in codes:
        counts = np.bincount(c)
        means = np.bincount(c, resid) / counts
        levels = len(counts)
        within = float(((resid - means[c]) ** 2).sum()) / max(n - levels, 1)
        between = float((counts * means**2).sum()) / max(levels - 1, 1)
        n0 = (n - float((counts.astype(float) ** 2).sum()) / n) / max(levels - 1, 1)
        variances.append(max(between - within, 0.0) / max(n0, 1.0))
    residual = max(total - sum(variances), 0.1 * total)
    return np.clip(np.sqrt(np.array(variances) / residual), 0.05, 10.0)


def _optimise(f, k: int, start: np.ndarray | None = None) -> tuple[np.ndarray, FitState]:
    """Minimise f over theta >= 0 from `start` (default lme4's theta = 1); check the result and
    retry.

    From a given start, Newton steps (`_newton`) come first and L-BFGS-B only when they give up;
    without one, L-BFGS-B from theta = 1. If the run did not end at a stationary point, it is
    retried from other starts with a derivative-free method (COBYQA, the successor of lme4's
    BOBYQA) and polished again; the best run is kept and its state reported as it is.
    """
    evaluations = 0
    # Newton's last step and the check of the optimum often ask for the same points.
    known: dict[bytes, float] = {}

    def counted(theta):
        nonlocal evaluations
        theta = np.asarray(theta, dtype=float)
        key = theta.tobytes()
        if key not in known:
            evaluations += 1
            known[key] = f(theta)
        return known[key]

    bounds = [(0.0, None)] * k
    runs = []

    def with_slope(theta):
        # Central differences of step CHECK_STEP (forward at the bound): scipy's own steps
        # (~6e-6) are swamped by the rounding of a deviance over a million ratings.
        theta = np.asarray(theta, dtype=float)
        centre, grad = counted(theta), np.empty(k)
        for i in range(k):
            h = CHECK_STEP * max(1.0, theta[i])
            up, down = theta.copy(), theta.copy()
            up[i] += h
            if theta[i] > h:
                down[i] -= h
                grad[i] = (counted(up) - counted(down)) / (2 * h)
            else:
                grad[i] = (counted(up) - centre) / h
        return centre, grad

    def run(x0, method):
        if method == "L-BFGS-B":
            # ftol is relative: a deviance over a million ratings is rounded at ~1e-11 of its
            # value, and tighter stops grind on the rounding; 1e-10 leaves theta within ~1e-5.
            options = {"ftol": 1e-10, "gtol": 1e-8, "maxfun": 2000}
            res = optimize.minimize(
                with_slope, x0, method=method, jac=True, bounds=bounds, options=options
            )
        else:
            res = optimize.minimize(counted, x0, method=method, bounds=bounds)
        runs.append((res, method))

    newton = None if start is None else _newton(counted, start)
    if newton is not None:
        runs.append((newton, "Newton"))
    else:
        run(np.ones(k) if start is None else start, "L-BFGS-B")
    best, method = runs[0]
    grad, curvature = _derivatives(counted, best.x)
    # The gradient decides, not the optimiser's flag: L-BFGS-B often ends "ABNORMAL" (a line
    # search that cannot improve further) exactly at the optimum.
    if not _stationary(grad, curvature, best.x):
        for x0 in (best.x, np.full(k, 3.0), np.full(k, 0.01)):
            run(x0, "COBYQA")
        run(min(runs, key=lambda r: r[0].fun)[0].x, "L-BFGS-B")
        best, method = min(runs, key=lambda r: r[0].fun)
        grad, curvature = _derivatives(counted, best.x)
    theta = np.maximum(best.x, 0.0)
    stationary = _stationary(grad, curvature, theta)
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


#: Step, on the log scale, of the differences that give the curvature behind the intervals of
#: the standard deviations.
LOG_SD_STEP = 1e-3


def _log_sd_se(problem: _Problem, theta: np.ndarray, sigma2: float) -> np.ndarray:
    """Standard errors of log sd_k (factors as `problem` orders them, then the residual).

    The REML criterion with sigma not profiled out, -2 l_R = D(theta) + (n - p) log(2 pi
    sigma^2) + r^2(theta) / sigma^2 with D = log|A| + log|X'V^-1 X| and theta_k = sd_k / sigma,
    is differentiated twice in the logs of the free standard deviations (a factor on its
    boundary, zero, stays there and gets NaN); the inverse of half its Hessian is their
    covariance. In phi = log theta and s = log sigma the derivatives in s are exact and those
    in phi are differences of step LOG_SD_STEP, which need 1 + k^2 + k solutions for k free
    factors (one, the estimate's, already there); log sd = (phi + s, s) is linear.
    """
    free = theta > SINGULAR_TOL
    k, h = int(free.sum()), LOG_SD_STEP
    df = problem.n - problem.p

    def parts(step: np.ndarray) -> np.ndarray:
        """D and r^2 at log theta moved by `step` (free factors)."""
        moved = theta.copy()
        moved[free] = np.exp(np.log(theta[free]) + step)
        sol = problem.solution(moved)
        return np.array([sol.deviance - df * (1 + np.log(2 * np.pi * sol.r2 / df)), sol.r2])

    eye = np.eye(k) * h
    centre = parts(np.zeros(k))
    up = [parts(eye[i]) for i in range(k)]
    down = [parts(-eye[i]) for i in range(k)]
    weights = np.array([1.0, 1.0 / sigma2])  # D + r^2 / sigma^2 at the estimate's sigma
    hessian = np.empty((k + 1, k + 1))
    for i in range(k):
        hessian[i, i] = (up[i] - 2 * centre + down[i]) @ weights / h**2
        for j in range(i):
            # f(+i+j) + f(-i-j) - f(+i) - f(-i) - f(+j) - f(-j) + 2 f = 2 h^2 f_ij + O(h^4)
            both = parts(eye[i] + eye[j]) + parts(-eye[i] - eye[j])
            cross = both - up[i] - down[i] - up[j] - down[j] + 2 * centre
            hessian[i, j] = hessian[j, i] = cross @ weights / (2 * h * h)
        hessian[i, k] = hessian[k, i] = -(up[i][1] - down[i][1]) / (h * sigma2)
    hessian[k, k] = 4 * centre[1] / sigma2
    # From (phi, s) to log sd = (phi + s, s): phi = log sd_k - log sigma.
    change = np.eye(k + 1)
    change[:k, k] = -1.0
    hessian = change.T @ hessian @ change
    out = np.full(len(theta) + 1, np.nan)
    try:
        cov = linalg.inv(hessian / 2)
    except (linalg.LinAlgError, ValueError):
        return out
    with np.errstate(invalid="ignore"):
        out[np.append(free, True)] = np.sqrt(np.diag(cov))
    return out


def fit_reml(
    y: np.ndarray,
    x: pd.DataFrame,
    factors: dict[str, pd.Series | np.ndarray],
    intervals: bool = False,
) -> LmmFit:
    """Fit y ~ x + (1 | f) for each factor f (one, or two crossed or nested) by REML.

    ``x`` is the fixed-effects design matrix (with its intercept column); ``factors`` maps a
    name to the level of each observation. Returns estimates in lme4's terms; with
    ``intervals``, also the standard errors behind the standard deviations' intervals
    (`_log_sd_se`: a dozen more evaluations of the criterion).
    """
    y = np.asarray(y, dtype=float)
    xm = np.asarray(x, dtype=float)
    if not full_rank(xm):
        raise ValueError("fixed-effects design is rank deficient")
    names, codes, levels, order = factor_codes(factors)
    ordered = [codes[i] for i in order]
    problem = _Problem(y, xm, ordered)
    start = _moment_start(y, xm, ordered)
    theta_internal, state = _optimise(problem.deviance, len(names), start)
    sol = problem.solution(theta_internal)
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
    log_sd_se = None
    if intervals:
        internal = _log_sd_se(problem, theta_internal, sigma2)
        spread = np.append(np.empty(len(names)), internal[-1])
        spread[order] = internal[:-1]
        log_sd_se = pd.Series(spread, index=variances.index, name="log_sd_se")
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
        log_sd_se=log_sd_se,
    )
