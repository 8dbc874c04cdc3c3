"""Correlations between human judgments and score sources (thesis §7.2.2-7.3.5, Table 7.1).

Judgments are averaged per item (``unit="item"``, the default) or taken rating by rating
(``unit="rating"``); either is correlated with each score source over the items both have.
Spearman's rho is the default as in the thesis; Pearson and Kendall's tau-b on request.
p-values are scipy's; 95% intervals are percentile bootstraps over items. The thesis computed
correlations on participant-adjusted scores and ran significance tests on unadjusted ones
(§7.2.2), so every adjusted row carries ``p_unadjusted`` and ``significant`` is judged on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from analysis.stats import columns as col

METHODS = ("spearman", "pearson", "kendall")
UNITS = ("item", "rating")
SOURCE = (col.METRIC, col.VARIANT, col.CONFIG)
#: The thesis left out WMT metrics with fewer than 15 scored sentences (§7.3.1).
MIN_ITEMS = 15
N_BOOT = 1000

#: Appendix B's participant subsets as DataFrame.query expressions on the ratings frame.
THESIS_SUBSETS = {
    "under-30s": "age < 30",
    "over-30s": "age >= 30",
    "fewer than 11 language points": "languages_score < 11",
    "multilingual": "languages_score >= 11",
    "at most undergraduate": "education in ['school', 'college', 'undergraduate']",
    "Masters or higher": "education in ['masters', 'phd']",
}


@dataclass(frozen=True)
class Correlation:
    r: float
    p: float
    n: int
    ci_low: float
    ci_high: float


def statistic(x: np.ndarray, y: np.ndarray, method: str) -> tuple[float, float]:
    """scipy's statistic and p-value; NaN when undefined (fewer than 3 pairs, a constant)."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}")
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return np.nan, np.nan
    if method == "spearman":
        result = stats.spearmanr(x, y)
    elif method == "pearson":
        result = stats.pearsonr(x, y)
    else:
        result = stats.kendalltau(x, y)
    return float(result.statistic), float(result.pvalue)


def _midranks(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Average ranks of each item within each resample given its multiplicities.

    Row b of ``weights`` says how often each item was drawn; a drawn item's rank in the resample
    is the weight below its tie group plus half the group's weight plus 1/2 - what
    scipy.stats.rankdata gives on the expanded resample, without sorting B times.
    """
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    group_weight = np.add.reduceat(weights[:, order], starts, axis=1)
    below = np.cumsum(group_weight, axis=1) - group_weight
    group_rank = below + (group_weight + 1) / 2
    sizes = np.diff(np.r_[starts, len(values)])
    ranks = np.empty(weights.shape)
    ranks[:, order] = np.repeat(group_rank, sizes, axis=1)
    return ranks


def _weighted_pearson(x: np.ndarray, y: np.ndarray, weights: np.ndarray) -> np.ndarray:
    total = weights.sum(axis=1, keepdims=True)
    dx = x - (weights * x).sum(axis=1, keepdims=True) / total
    dy = y - (weights * y).sum(axis=1, keepdims=True) / total
    cov = (weights * dx * dy).sum(axis=1)
    var = (weights * dx * dx).sum(axis=1) * (weights * dy * dy).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, cov / np.sqrt(var), np.nan)


def resampled_statistics(
    x: np.ndarray, y: np.ndarray, resamples: np.ndarray, method: str = "spearman"
) -> np.ndarray:
    """The statistic on each resample; row b of ``resamples`` holds the drawn indices."""
    n_boot, n = resamples.shape
    rows = np.repeat(np.arange(n_boot), n)
    weights = np.bincount(rows * n + resamples.ravel(), minlength=n_boot * n)
    weights = weights.reshape(n_boot, n).astype(float)
    if method == "pearson":
        return _weighted_pearson(x, y, weights)
    if method == "spearman":
        return _weighted_pearson(_midranks(x, weights), _midranks(y, weights), weights)
    if method == "kendall":
        # No weighted shortcut for tau-b with duplicates: compute each resample directly.
        return np.array([stats.kendalltau(x[i], y[i]).statistic for i in resamples])
    raise ValueError(f"method must be one of {METHODS}")


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
    n = len(x)
    r, p = statistic(x, y, method)
    low = high = np.nan
    if n_boot and np.isfinite(r):
        resamples = np.random.default_rng(seed).integers(0, n, size=(n_boot, n))
        boot = resampled_statistics(x, y, resamples, method)
        tail = (1 - level) / 2 * 100
        if np.isfinite(boot).any():
            low, high = np.nanpercentile(boot, [tail, 100 - tail])
    return Correlation(r, p, n, float(low), float(high))


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


def score_sources(scores: pd.DataFrame) -> dict[tuple[str, str, str], pd.Series]:
    """Each (metric, variant, config) source as a Series of scores indexed by item."""
    col.check_scores(scores)
    frame = col.with_config(scores).dropna(subset=[col.SCORE])
    return {
        tuple(key): group.set_index(col.ITEM)[col.SCORE]
        for key, group in frame.groupby(list(SOURCE), sort=True)
    }


def _groups(ratings: pd.DataFrame, groups: Iterable[str] | None) -> list[str]:
    present = set(ratings[col.GROUP].dropna())
    order = [col.HYPOTHESIS, *col.PERM_TYPES]
    wanted = order if groups is None else list(groups)
    return [g for g in wanted if g in present]


def _paired(human: pd.Series, source: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Human values and the source's score of the same item, where both exist."""
    matched = source.reindex(human.index)
    keep = matched.notna().to_numpy()
    return human.to_numpy()[keep], matched.to_numpy()[keep]


def correlation_table(
    ratings: pd.DataFrame,
    scores: pd.DataFrame,
    judgments: Sequence[str] = col.JUDGMENTS,
    adjusted: Sequence[bool] = (True, False),
    groups: Iterable[str] | None = None,
    method: str = "spearman",
    unit: str = "item",
    min_items: int = MIN_ITEMS,
    n_boot: int = N_BOOT,
    seed: int = 0,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Every judgment x adjustment x sentence group x score source with enough items.

    ``ratings`` is a scored frame with a ``group`` column (as adjust_scores() returns).
    Columns: judgment, adjusted, group, metric, variant, config, method, n, coverage (share of
    the group's judged items the source scores), r, p, ci_low, ci_high, p_unadjusted and
    significant (p_unadjusted < alpha). Sources scoring fewer than ``min_items`` are left out.
    """
    if col.GROUP not in ratings.columns:
        ratings = col.scored(ratings)
    sources = score_sources(scores)
    rows = []
    for judgment in judgments:
        for group in _groups(ratings, groups):
            in_group = ratings[ratings[col.GROUP] == group]
            plain = human_scores(in_group, judgment, False, unit)
            judged_items = plain.index.nunique()
            for is_adjusted in adjusted:
                human = human_scores(in_group, judgment, True, unit) if is_adjusted else plain
                for key, source in sources.items():
                    x, y = _paired(human, source)
                    if len(x) < min_items:
                        continue
                    result = correlate(x, y, method, n_boot, seed)
                    p_plain = statistic(*_paired(plain, source), method)[1]
                    rows.append(
                        {
                            "judgment": judgment,
                            "adjusted": is_adjusted,
                            col.GROUP: group,
                            **dict(zip(SOURCE, key, strict=True)),
                            "method": method,
                            "n": result.n,
                            "coverage": source.index.intersection(plain.index).nunique()
                            / judged_items,
                            "r": result.r,
                            "p": result.p,
                            "ci_low": result.ci_low,
                            "ci_high": result.ci_high,
                            "p_unadjusted": p_plain,
                            "significant": p_plain < alpha,
                        }
                    )
    return pd.DataFrame(rows)


def coverage_table(
    ratings: pd.DataFrame,
    scores: pd.DataFrame,
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
    way, and applying it to Spearman's rho is an approximation.
    """
    if n <= 3:
        raise ValueError("Williams's test needs n > 3")
    k = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    denominator = 2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(denominator)
    df = n - 3
    p = stats.t.sf(abs(t), df) * (2 if two_tailed else 1)
    return Williams(float(t), float(p), df)


def compare_sources(
    human: pd.Series,
    a: pd.Series,
    b: pd.Series,
    method: str = "spearman",
    two_tailed: bool = True,
) -> dict[str, float]:
    """Does source a correlate better than source b with the same judgments? (Williams)"""
    frame = pd.concat(
        {"h": human, "a": a.reindex(human.index), "b": b.reindex(human.index)}, axis=1
    )
    frame = frame.dropna()
    r_a = statistic(frame["h"].to_numpy(), frame["a"].to_numpy(), method)[0]
    r_b = statistic(frame["h"].to_numpy(), frame["b"].to_numpy(), method)[0]
    r_ab = statistic(frame["a"].to_numpy(), frame["b"].to_numpy(), method)[0]
    test = williams_test(r_a, r_b, r_ab, len(frame), two_tailed)
    return {"n": len(frame), "r_a": r_a, "r_b": r_b, "r_ab": r_ab, "t": test.t, "p": test.p}


def williams_table(
    ratings: pd.DataFrame,
    scores: pd.DataFrame,
    judgment: str = col.ORDER,
    group: str = col.HYPOTHESIS,
    adjusted: bool = True,
    method: str = "spearman",
    unit: str = "item",
    min_items: int = MIN_ITEMS,
    two_tailed: bool = True,
) -> pd.DataFrame:
    """Williams's test for every pair of sources over the items both score."""
    if col.GROUP not in ratings.columns:
        ratings = col.scored(ratings)
    human = human_scores(ratings[ratings[col.GROUP] == group], judgment, adjusted, unit)
    sources = {
        key: s for key, s in score_sources(scores).items() if len(_paired(human, s)[0]) >= min_items
    }
    rows = []
    for (key_a, a), (key_b, b) in combinations(sources.items(), 2):
        result = compare_sources(human, a, b, method, two_tailed)
        if result["n"] > 3:
            rows.append({"a": " ".join(filter(None, key_a)), "b": " ".join(filter(None, key_b))})
            rows[-1].update(result)
    return pd.DataFrame(rows)


def subset_correlations(
    ratings: pd.DataFrame,
    scores: pd.DataFrame,
    subsets: Mapping[str, str] = THESIS_SUBSETS,
    **options,
) -> pd.DataFrame:
    """The correlation table again for each participant subset (Appendix B).

    ``subsets`` maps a name to a DataFrame.query expression on the ratings frame, so any field
    can define one (``"gender == 'female'"``). Columns ``subset`` and ``participants`` (how many
    people the subset has, as the thesis labelled its panels) are added.
    """
    parts = []
    for name, expression in subsets.items():
        chosen = ratings.query(expression)
        table = correlation_table(chosen, scores, **options)
        parts.append(table.assign(subset=name, participants=chosen[col.PARTICIPANT].nunique()))
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
