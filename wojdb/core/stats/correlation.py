"""Correlations between human judgments and score sources (thesis §7.2.2-7.3.5, Table 7.1).

Judgments are averaged per item (``unit="item"``, the default) or taken rating by rating
(``unit="rating"``); either is correlated with each score source over the items both have.
Spearman's rho is the default as in the thesis; Pearson and Kendall's tau-b on request.
p-values are scipy's; 95% intervals are percentile bootstraps over items. The thesis computed
correlations on participant-adjusted scores and ran significance tests on unadjusted ones
(§7.2.2), so every adjusted row carries ``p_unadjusted`` and ``significant`` is judged on it.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import special, stats

from wojdb.core.stats import columns as col
from wojdb.core.stats.defaults import METHODS, N_BOOT

UNITS = ("item", "rating")
SOURCE = (col.METRIC, col.VARIANT, col.CONFIG)
#: The thesis left out WMT metrics with fewer than 15 scored sentences (§7.3.1).
MIN_ITEMS = 15

#: Appendix B's participant subsets as DataFrame.query expressions on the ratings frame.
THESIS_SUBSETS = {
    "under-30s": "age < 30",
    "over-30s": "age >= 30",
    "fewer than 11 language points": "languages_score < 11",
    "multilingual": "languages_score >= 11",
    "at most undergraduate": "education in ['school', 'college', 'undergraduate']",
    "Masters or higher": "education in ['masters', 'phd']",
}


def first_language_subsets(language: str) -> dict[str, str]:
    """The participants by whether the study's language (by name) is their first, as the
    about-you page asks: "native French speakers" and "non-native French speakers"."""
    return {
        f"native {language} speakers": "target_first == True",
        f"non-native {language} speakers": "target_first == False",
    }


@dataclass(frozen=True)
class Correlation:
    r: float
    p: float
    n: int
    ci_low: float
    ci_high: float


def ranks(values: np.ndarray) -> np.ndarray:
    """Average ranks from 1, ties sharing the mean of theirs: scipy.stats.rankdata's default."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.empty(len(values), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], len(values))
    out = np.empty(len(values))
    out[order] = np.repeat((starts + ends + 1) / 2, ends - starts)
    return out


@dataclass(frozen=True)
class _Centred:
    """A variable's values less their mean, and the sum of their squares: the part of
    Pearson's r that one variable compared with many computes once."""

    values: np.ndarray
    squares: float
    constant: bool

    @classmethod
    def of(cls, x: np.ndarray) -> _Centred:
        if not len(x):
            return cls(x, 0.0, True)
        dx = x - x.mean()
        return cls(dx, dx @ dx, bool(np.ptp(x) == 0))

    def pearson(self, other: _Centred) -> float:
        """Pearson's r with ``other`` over the same items; NaN when undefined (fewer than 3
        pairs, a constant), as scipy."""
        if len(self.values) < 3 or self.constant or other.constant:
            return np.nan
        r = self.values @ other.values / np.sqrt(self.squares * other.squares)
        return float(np.clip(r, -1.0, 1.0))


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    return _Centred.of(x).pearson(_Centred.of(y))


def _coefficient(x: np.ndarray, y: np.ndarray, method: str) -> float:
    """The coefficient alone, as scipy computes it (NaN when undefined: fewer than 3 pairs, a
    constant)."""
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return np.nan
    if method == "spearman":
        return _pearson(ranks(x), ranks(y))
    if method == "kendall":
        return float(stats.kendalltau(x, y).statistic)
    return _pearson(x, y)


def statistic(x: np.ndarray, y: np.ndarray, method: str) -> tuple[float, float]:
    """scipy's statistic and two-sided p-value; NaN when undefined (fewer than 3 pairs, a
    constant).

    For Spearman's rho and Pearson's r the p-value is the t-test on n - 2 degrees of freedom
    that scipy's spearmanr and pearsonr compute (pearsonr through the equivalent beta
    distribution), here without their per-call overhead, which a table of thousands of
    correlations pays thousands of times.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}")
    if method == "kendall":
        if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
            return np.nan, np.nan
        result = stats.kendalltau(x, y)
        return float(result.statistic), float(result.pvalue)
    r = _coefficient(x, y, method)
    return (np.nan, np.nan) if np.isnan(r) else (r, _t_pvalue(r, len(x)))


def _t_pvalue(r: float, n: int) -> float:
    """Two-sided p of a correlation r over n pairs by the t-test on n - 2 degrees of freedom."""
    df = n - 2
    t = np.inf if abs(r) == 1 else abs(r) * np.sqrt(df / ((1 - r) * (1 + r)))
    return float(2 * special.stdtr(df, -t))


def _midranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Average ranks of each item within each resample given its multiplicities.

    Column b of ``weights`` (items x resamples) says how often each item was drawn. In that
    resample an item's rank is the weight of all tie groups up to and including its own minus
    (own group's weight - 1)/2: what scipy.stats.rankdata gives on the expanded resample,
    without sorting B times.
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    group_of = np.empty(len(values), dtype=np.intp)
    group_of[order] = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(values)]))
    # The weight up to the end of each tie group, from one running sum over the items in
    # order (the weights are counts, so every sum is an exact integer in any order of adding).
    # Row by row: numpy's cumsum down the first axis of a wide array is four times slower.
    running = np.empty_like(weights)
    total = np.zeros(weights.shape[1], dtype=weights.dtype)
    for row, item in zip(running, order, strict=True):
        total = np.add(total, weights[item], out=row)
    through = running[np.r_[starts[1:], len(values)] - 1]
    group_weight = np.diff(through, axis=0, prepend=np.zeros_like(through[:1]))
    group_rank = through - (group_weight - 1) / 2
    return group_rank[group_of]


class _Moments:
    """Weighted centred moments of one variable in every resample (columns of ``weights``)."""

    def __init__(self, values: np.ndarray, weights: np.ndarray):
        values = values.reshape(len(values), -1)
        # Centring first keeps the one-pass moments free of cancellation.
        self.centred = values - values.mean()
        n = len(weights)
        self.weighted = weights * self.centred
        self.mean = self.weighted.sum(axis=0) / n
        self.var = np.einsum("ib,ib->b", self.weighted, self.centred) / n - self.mean**2
        # A resample drawing one value only has zero variance, up to rounding.
        self.spread = self.var > 1e-12 * np.mean(self.centred**2)

    def pearson(self, other: _Moments) -> np.ndarray:
        n = len(self.weighted)
        cov = np.einsum("ib,ib->b", self.weighted, other.centred) / n - self.mean * other.mean
        with np.errstate(invalid="ignore", divide="ignore"):
            r = cov / np.sqrt(self.var * other.var)
        return np.where(self.spread & other.spread, r, np.nan)


class Bootstrap:
    """Percentile bootstrap over n pairs: the resamples are drawn once from the seed.

    Each variable is prepared once (its ranks and moments in every resample), so one set of
    judgments is compared with many score sources, and one source with several judgments,
    without repeating work; every comparison over n pairs sees the same resamples.
    """

    def __init__(self, n: int, method: str = "spearman", n_boot: int = N_BOOT, seed: int = 0):
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}")
        self.method = method
        self.resamples = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
        # Multiplicities, items x resamples: the layout the rank sums run along.
        cells = self.resamples.ravel() * n_boot + np.repeat(np.arange(n_boot), n)
        counts = np.bincount(cells, minlength=n * n_boot).reshape(n, n_boot)
        # Single precision halves the memory traffic; counts and mid-ranks (half-integers) are
        # exact in it, and the moments' rounding (~1e-6 in r) is far below bootstrap error.
        self.weights = counts.astype(np.float32)

    def prepare(self, values: np.ndarray) -> _Moments | np.ndarray:
        if self.method == "spearman":
            return _Moments(_midranks(values, self.weights), self.weights)
        if self.method == "pearson":
            return _Moments(values, self.weights)
        return values

    def statistics(self, x: _Moments | np.ndarray, y: _Moments | np.ndarray) -> np.ndarray:
        """The statistic on every resample of the pairs (x, y), both from prepare()."""
        if self.method == "kendall":
            # No weighted shortcut for tau-b with duplicates: compute each resample directly.
            return np.array([stats.kendalltau(x[i], y[i]).statistic for i in self.resamples])
        return x.pearson(y)

    def interval(self, x, y, level: float = 0.95) -> tuple[float, float]:
        return percentile_interval(self.statistics(x, y), level)


def percentile_interval(replicates: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The percentile interval of bootstrap replicates (NaN ones ignored; NaN if all are)."""
    if not np.isfinite(replicates).any():
        return np.nan, np.nan
    tail = (1 - level) / 2 * 100
    low, high = np.nanpercentile(replicates, [tail, 100 - tail])
    return float(low), float(high)


@dataclass
class Replicates:
    """The bootstrap statistics behind :func:`correlation_table`'s intervals, kept for decisions
    that compare correlations (Table 7.4).

    ``values`` holds, per row whose pairs are all of its judgment's judged items (key:
    judgment, adjusted, group, metric, variant, config), the statistic on every resample, with
    the sign of a lower-is-better source flipped as in ``r_oriented``. ``items`` holds the
    judged items per (judgment, group). Rows over the same items saw the same resamples (one
    seed, one size), so their replicates are paired resample by resample.
    """

    values: dict[tuple, np.ndarray] = field(default_factory=dict)
    items: dict[tuple[str, str], tuple] = field(default_factory=dict)

    def paired(self, keys: Iterable[tuple]) -> bool:
        """Whether every row has replicates and all were drawn over the same items."""
        keys = list(keys)
        if not all(key in self.values for key in keys):
            return False
        return len({self.items[(key[0], key[2])] for key in keys}) <= 1


def correlate(
    x: Sequence[float] | np.ndarray,
    y: Sequence[float] | np.ndarray,
    method: str = "spearman",
    n_boot: int = N_BOOT,
    seed: int = 0,
    level: float = 0.95,
) -> Correlation:
    """Correlation, scipy's p-value and a percentile bootstrap interval over pairs."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = ~(np.isnan(x) | np.isnan(y))
    x, y = x[keep], y[keep]
    r, p = statistic(x, y, method)
    low = high = np.nan
    if n_boot and np.isfinite(r):
        boot = Bootstrap(len(x), method, n_boot, seed)
        low, high = boot.interval(boot.prepare(x), boot.prepare(y), level)
    return Correlation(r, p, len(x), low, high)


def _judgment_column(ratings: pd.DataFrame, judgment: str, adjusted: bool) -> str:
    column = col.adjusted(judgment) if adjusted else col.unit(judgment)
    if column not in ratings.columns:
        raise ValueError(f"ratings lack {column!r}; adjusted scores come from adjust_scores()")
    return column


def human_scores(ratings: pd.DataFrame, judgment: str, adjusted: bool, unit: str) -> pd.Series:
    """0-1 judgments indexed by item: one mean per item, or one value per rating."""
    column = _judgment_column(ratings, judgment, adjusted)
    values = ratings.set_index(col.ITEM)[column].dropna()
    if unit == "item":
        return values.groupby(level=0).mean()
    if unit == "rating":
        return values
    raise ValueError(f"unit must be one of {UNITS}")


def orientations(scores: pd.DataFrame) -> dict[tuple[str, str, str], bool]:
    """Each source's ``higher_is_better`` (True where the scores frame does not say)."""
    frame = col.with_config(scores)
    if col.HIGHER_IS_BETTER not in frame.columns:
        return {}
    first = frame.groupby(list(SOURCE), sort=False)[col.HIGHER_IS_BETTER].first()
    return {tuple(key): bool(value) for key, value in first.items()}


def score_sources(scores: pd.DataFrame) -> dict[tuple[str, str, str], pd.Series]:
    """Each (metric, variant, config) source as a Series of scores indexed by item."""
    col.check_scores(scores)
    frame = col.with_config(scores).dropna(subset=[col.SCORE])
    return {
        tuple(key): group.set_index(col.ITEM)[col.SCORE]
        for key, group in frame.groupby(list(SOURCE), sort=True)
    }


@dataclass(frozen=True)
class Sources:
    """A scores frame's sources (:func:`score_sources`) and their orientations
    (:func:`orientations`), made once for every table over the same scores: the functions
    here take either a scores frame or this."""

    scores: dict[tuple[str, str, str], pd.Series]
    higher_is_better: dict[tuple[str, str, str], bool]

    @classmethod
    def of(cls, scores: pd.DataFrame | Sources) -> Sources:
        if isinstance(scores, Sources):
            return scores
        return cls(score_sources(scores), orientations(scores))

    @functools.cached_property
    def _table(self) -> tuple[pd.Index, np.ndarray]:
        """Every scored item, and the sources' scores of them: a row per source (in the order
        of ``scores``), a column per item and a last column of NaN for items none scores."""
        if not self.scores:
            return pd.Index([]), np.full((0, 1), np.nan)
        wide = pd.concat(list(self.scores.values()), axis=1, keys=range(len(self.scores)))
        table = np.full((len(self.scores), len(wide) + 1), np.nan)
        table[:, :-1] = wide.to_numpy(dtype=float).T
        return wide.index, table

    def aligned(self, items: pd.Index) -> np.ndarray:
        """Each source's scores of ``items`` (NaN where it scores none), a row per source in
        the order of ``scores``: one lookup of the items for all sources, which every table
        over the same scores shares."""
        index, table = self._table
        return table[:, index.get_indexer(items)]


def _item_means(
    ratings: pd.DataFrame, judgments: Sequence[str], adjusted: Iterable[bool]
) -> dict[str, tuple[dict[str, pd.Index], dict[tuple[str, bool], np.ndarray]]]:
    """Per sentence group: per judgment its judged items (those with an unadjusted mean), and
    per (judgment, adjustment) the mean per item aligned to them: :func:`human_scores` for
    all groups in one pass."""
    columns = {(j, a): _judgment_column(ratings, j, a) for j in judgments for a in adjusted}
    names = sorted(set(columns.values()))
    means = ratings.groupby([col.GROUP, col.ITEM], sort=True)[names].mean()
    of_group = means.index.get_level_values(col.GROUP)
    items, table = means.index.get_level_values(col.ITEM), means.to_numpy()
    out = {}
    for group in of_group.unique():
        rows = of_group == group
        judged = {j: rows & ~np.isnan(table[:, names.index(col.unit(j))]) for j in judgments}
        values = {(j, a): table[judged[j], names.index(c)] for (j, a), c in columns.items()}
        out[group] = {j: items[kept] for j, kept in judged.items()}, values
    return out


class _Correlator:
    """One sentence group's correlations: each variable's kept values are ranked (for
    Spearman's rho) and centred once per set of items, not once per pair of variables."""

    def __init__(self, values: dict[tuple[str, bool], np.ndarray], method: str):
        self.values, self.method = values, method
        self.ranked: dict[tuple, np.ndarray | _Centred] = {}

    def kept(self, name: Hashable, values: np.ndarray, keep: np.ndarray) -> np.ndarray | _Centred:
        """The variable's values over the items in ``keep``, prepared for the method (as they
        are for Kendall's tau), once per variable and set of items."""
        memo = (name, keep.tobytes())
        if memo not in self.ranked:
            chosen = values[keep]
            if self.method != "kendall":
                chosen = _Centred.of(ranks(chosen) if self.method == "spearman" else chosen)
            self.ranked[memo] = chosen
        return self.ranked[memo]

    def coefficient(self, u: np.ndarray | _Centred, v: np.ndarray | _Centred) -> float:
        """:func:`_coefficient` of two variables prepared by :meth:`kept`."""
        if self.method == "kendall":
            return _coefficient(u, v, self.method)
        return u.pearson(v)

    def __call__(
        self, judgment: str, adjusted: bool, source: tuple, scores: np.ndarray, keep: np.ndarray
    ) -> tuple[float, float]:
        """The statistic and p of the judgment's values against a source's ``scores`` (both
        aligned to the judged items) over the items in ``keep``: :func:`statistic`."""
        human = self.values[(judgment, adjusted)]
        if self.method == "kendall":
            return statistic(human[keep], scores[keep], self.method)
        x, y = self.kept((judgment, adjusted), human, keep), self.kept(source, scores, keep)
        r = x.pearson(y)
        return (np.nan, np.nan) if np.isnan(r) else (r, _t_pvalue(r, len(x.values)))


def _groups(ratings: pd.DataFrame, groups: Iterable[str] | None) -> list[str]:
    present = set(ratings[col.GROUP].dropna())
    order = [col.HYPOTHESIS, *col.PERM_TYPES]
    wanted = order if groups is None else list(groups)
    return [g for g in wanted if g in present]


def correlation_table(
    ratings: pd.DataFrame,
    scores: pd.DataFrame | Sources,
    judgments: Sequence[str] = col.JUDGMENTS,
    adjusted: Sequence[bool] = (True, False),
    groups: Iterable[str] | None = None,
    method: str = "spearman",
    unit: str = "item",
    min_items: int = MIN_ITEMS,
    n_boot: int = N_BOOT,
    seed: int = 0,
    alpha: float = 0.05,
    replicates: Replicates | None = None,
) -> pd.DataFrame:
    """Every sentence group x score source x judgment x adjustment with enough items.

    ``ratings`` is a scored frame with a ``group`` column (as adjust_scores() returns).
    Columns: judgment, adjusted, group, metric, variant, config, method, n, coverage (share of
    the group's judged items the source scores), r, p, ci_low, ci_high, p_unadjusted,
    significant (p_unadjusted < alpha), higher_is_better (the source's orientation) and
    r_oriented (r with the sign of a lower-is-better source flipped, so that higher always
    means closer to the participants). Sources scoring fewer than ``min_items`` are left out.
    The interval of each row is what correlate() gives on the same pairs with the same seed.
    ``replicates``, when given, is filled with the rows' bootstrap statistics (see
    :class:`Replicates`).
    """
    if col.GROUP not in ratings.columns:
        ratings = col.scored(ratings)
    chosen = Sources.of(scores)
    sources, better = chosen.scores, chosen.higher_is_better
    boots: dict[int, Bootstrap] = {}

    def bootstrap(n: int) -> Bootstrap:
        if n not in boots:
            boots.clear()  # one size at a time keeps memory flat
            boots[n] = Bootstrap(n, method, n_boot, seed)
        return boots[n]

    rows = []
    if unit == "item":
        item_means = _item_means(ratings, judgments, {*adjusted, False})
    for group in _groups(ratings, groups):
        # Per judgment: the judged items, and each adjustment's values aligned to them.
        if unit == "item":
            judged, values = item_means[group]
        else:
            in_group = ratings[ratings[col.GROUP] == group]
            judged = {j: human_scores(in_group, j, False, unit).index for j in judgments}
            values = {
                (j, a): human_scores(in_group, j, a, unit).reindex(judged[j]).to_numpy()
                for j in judgments
                for a in {*adjusted, False}
            }
        prepared_humans: dict[tuple[str, bool], object] = {}
        if replicates is not None:
            for j in judgments:
                replicates.items[(j, group)] = tuple(judged[j])
        # Judgments over the same items share each source's aligned scores.
        same_items = {
            j: next(k for k in judgments if judged[k].equals(judged[j])) for j in judgments
        }
        aligned = {j: chosen.aligned(judged[j]) for j in set(same_items.values())}
        correlated = _Correlator(values, method)
        for column, key in enumerate(sources):
            prepared_source: dict[bytes, object] = {}
            for judgment in judgments:
                items = judged[judgment]
                matched = aligned[same_items[judgment]][column]
                scored = ~np.isnan(matched)
                if scored.sum() < min_items:
                    continue
                # The source's scores are aligned to this judgment's items: named by both.
                aligned_key = (same_items[judgment], key)
                plain = correlated(judgment, False, aligned_key, matched, scored)
                coverage = (
                    scored.mean() if unit == "item" else items[scored].nunique() / items.nunique()
                )
                for is_adjusted in adjusted:
                    human = values[(judgment, is_adjusted)]
                    keep = scored & ~np.isnan(human)
                    x, y = human[keep], matched[keep]
                    r, p = (
                        correlated(judgment, True, aligned_key, matched, keep)
                        if is_adjusted
                        else plain
                    )
                    low = high = np.nan
                    if n_boot and np.isfinite(r):
                        boot = bootstrap(len(x))
                        if keep.all():
                            if (judgment, is_adjusted) not in prepared_humans:
                                prepared_humans[(judgment, is_adjusted)] = boot.prepare(x)
                            px = prepared_humans[(judgment, is_adjusted)]
                        else:
                            px = boot.prepare(x)
                        kept = items.to_numpy()[keep].tobytes()
                        if kept not in prepared_source:
                            prepared_source[kept] = boot.prepare(y)
                        replicated = boot.statistics(px, prepared_source[kept])
                        low, high = percentile_interval(replicated)
                        if replicates is not None and keep.all():
                            sign = 1 if better.get(key, True) else -1
                            row = (judgment, is_adjusted, group, *key)
                            replicates.values[row] = sign * replicated
                    rows.append(
                        {
                            "judgment": judgment,
                            "adjusted": is_adjusted,
                            col.GROUP: group,
                            **dict(zip(SOURCE, key, strict=True)),
                            "method": method,
                            "n": len(x),
                            "coverage": coverage,
                            "r": r,
                            "p": p,
                            "ci_low": low,
                            "ci_high": high,
                            "p_unadjusted": plain[1],
                            "significant": plain[1] < alpha,
                            "higher_is_better": better.get(key, True),
                            "r_oriented": r if better.get(key, True) else -r,
                        }
                    )
    return pd.DataFrame(rows)


def coverage_table(
    ratings: pd.DataFrame,
    scores: pd.DataFrame | Sources,
    metrics: Iterable[str] | None = None,
    judgment: str = col.ORDER,
    group: str = col.HYPOTHESIS,
    adjusted: bool = True,
    method: str = "spearman",
    min_items: int = MIN_ITEMS,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Table 7.1: per source, how many of the group's items it scores, the share, r and p.

    ``metrics`` names the imported metrics; by default every source that misses some item.
    ``percent`` is of the distinct items of the group that were judged. Significance is judged
    on unadjusted scores as in the thesis.
    """
    table = correlation_table(
        ratings,
        scores,
        judgments=(judgment,),
        adjusted=(adjusted,),
        groups=(group,),
        method=method,
        min_items=min_items,
        n_boot=0,
        alpha=alpha,
    )
    if table.empty:
        return table
    wanted = table["coverage"] < 1 if metrics is None else table[col.METRIC].isin(list(metrics))
    table = table[wanted].assign(count=lambda t: t["n"], percent=lambda t: 100 * t["coverage"])
    keep = [*SOURCE, "count", "percent", "r", "p", "p_unadjusted", "significant"]
    return table[keep].reset_index(drop=True)


@dataclass(frozen=True)
class Williams:
    t: float
    p: float
    df: int


def williams_test(r12: float, r13: float, r23: float, n: int, two_tailed: bool = True) -> Williams:
    """Williams's test that r12 = r13 for correlations sharing variable 1 (Steiger 1980, eq. 11).

    Variable 1 is the human judgment, 2 and 3 the two metrics, r23 their correlation with each
    other. The formula assumes Pearson correlations; WMT (Graham & Baldwin 2014) uses it that
    way, and applying it to Spearman's rho is an approximation. t and p are NaN where the three
    correlations cannot come from one Pearson correlation matrix.
    """
    if n <= 3:
        raise ValueError("Williams's test needs n > 3")
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    denominator = 2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3
    if denominator <= 0:
        # k is the correlation matrix's determinant; three rank correlations can be jointly
        # impossible for Pearson's (k < 0), and then the test has no value.
        return Williams(float("nan"), float("nan"), n - 3)
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(denominator)
    df = n - 3
    # stats.t.sf(|t|, df), without its per-call overhead: a table tests every pair of sources.
    p = special.stdtr(df, -abs(t)) * (2 if two_tailed else 1)
    return Williams(float(t), float(p), df)


def _williams_row(
    n: int, r_a: float, r_b: float, r_ab: float, two_tailed: bool
) -> dict[str, float]:
    t = p = np.nan
    if n > 3:
        test = williams_test(r_a, r_b, r_ab, n, two_tailed)
        t, p = test.t, test.p
    return {"n": n, "r_a": r_a, "r_b": r_b, "r_ab": r_ab, "t": t, "p": p}


def williams_table(
    ratings: pd.DataFrame,
    scores: pd.DataFrame | Sources,
    judgment: str = col.ORDER,
    group: str = col.HYPOTHESIS,
    adjusted: bool = True,
    method: str = "spearman",
    unit: str = "item",
    min_items: int = MIN_ITEMS,
    two_tailed: bool = True,
) -> pd.DataFrame:
    """Williams's test for every pair of sources sharing at least ``min_items`` judged items.

    Columns a, b (source labels), n, r_a, r_b, r_ab, t, p; t > 0 when a correlates better.
    """
    if col.GROUP not in ratings.columns:
        ratings = col.scored(ratings)
    human = human_scores(ratings[ratings[col.GROUP] == group], judgment, adjusted, unit)
    h = human.to_numpy()
    chosen = Sources.of(scores)
    aligned = {
        " ".join(filter(None, key)): values
        for key, values in zip(chosen.scores, chosen.aligned(human.index), strict=True)
    }
    # Spearman's rho is Pearson's r on ranks over the pair's items: each variable is ranked
    # and centred once per set of items (most pairs share all of them), not once per pair.
    correlator = _Correlator({}, method)
    rows = []
    for (label_a, a), (label_b, b) in combinations(aligned.items(), 2):
        keep = ~(np.isnan(a) | np.isnan(b))
        n = int(keep.sum())
        if n >= min_items:
            x, y, z = (
                correlator.kept(k, v, keep) for k, v in (("", h), (label_a, a), (label_b, b))
            )
            r = (
                correlator.coefficient(x, y),
                correlator.coefficient(x, z),
                correlator.coefficient(y, z),
            )
            rows.append({"a": label_a, "b": label_b, **_williams_row(n, *r, two_tailed)})
    return pd.DataFrame(rows)


def subset_correlations(
    ratings: pd.DataFrame,
    scores: pd.DataFrame | Sources,
    subsets: Mapping[str, str] = THESIS_SUBSETS,
    **options,
) -> pd.DataFrame:
    """The correlation table again for each participant subset (Appendix B).

    ``subsets`` maps a name to a DataFrame.query expression on the ratings frame, so any field
    can define one (``"gender == 'female'"``). Columns ``subset`` and ``participants`` (how many
    people the subset has, as the thesis labelled its panels) are added.
    """
    parts, sources = [], Sources.of(scores)
    for name, expression in subsets.items():
        chosen = ratings.query(expression)
        table = correlation_table(chosen, sources, **options)
        parts.append(table.assign(subset=name, participants=chosen[col.PARTICIPANT].nunique()))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
