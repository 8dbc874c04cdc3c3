"""System-level human scores with significance clusters, as WMT's findings compute them.

A system's score is the mean over the segments it was judged on of the segment's score (a micro
average over segments, then an average per system). WMT's direct assessment publishes its
segment scores (``ad-seg-scores-LP.csv``: per system and segment the mean raw score, the mean
rater-standardised z and the number of judgments N), and its system tables
(``ad-sys-ranking-LP-z.csv``, ``ad-sys-scores-LP.csv``) are their means: z and raw over the
segments, n the segments, the judgments the sum of N (`system_table`; WMT22 into English,
every pair equal to the release). From per-rater judgments (WMT DA, the study's own ratings,
MQM and ESA), a segment's score is the mean of its judgments (`segment_means`); of WMT DA
judgments, types SYSTEM and REPEAT count (BAD_REF and REF are quality controls). MQM and ESA
are scored as mt-metrics-eval scores them: a segment's score is the mean over its raters, a
system's the mean over its segments. Two systems are compared by a one-sided Wilcoxon
rank-sum test on their segment scores (``ad-DA-diff-wilcoxon-rs-LP.csv``); systems are
ordered by z and a cluster ends where every system above significantly outperforms every
system below.

Judgments frame: one row per judgment with ``system``, ``segment``, ``rater``, ``score`` (the
rater-standardised z score), optionally ``raw`` (0-100), ``type``, ``lp``, ``testset`` and
``document``. Segments frame: one row per system and segment with ``system``, ``segment``,
``score``, optionally ``raw``, ``judgments``, ``lp``, ``testset`` and ``document``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
from scipy import stats

SYSTEM, SEGMENT, RATER, SCORE, RAW, TYPE, LP = (
    "system",
    "segment",
    "rater",
    "score",
    "raw",
    "type",
    "lp",
)
TESTSET, DOCUMENT = "testset", "document"
#: What tells segments apart, where a frame has the column: a segment id may count within its
#: document (WMT's DOC_n, Appraise's document-level items), and a pair be in two test sets.
SEGMENT_KEYS = (LP, TESTSET, SYSTEM, DOCUMENT, SEGMENT)
#: Judgment types that score a system; the others are WMT's quality controls.
COUNTED_TYPES = ("SYSTEM", "REPEAT")
ALPHA = 0.05
COLUMNS = ["system", "lp", "z", "raw", "n", "judgments", "rank", "cluster"]


def standardise(judgments: pd.DataFrame, value: str = RAW) -> pd.Series:
    """Each rater's judgments as z scores over all that rater judged: minus the rater's mean,
    over the rater's sample standard deviation (n − 1), as WMT's direct assessment standardises
    (R's sd(); the published Z.SCR are these, tests/core/test_wmt_z.py). A rater whose scores
    do not vary (one judgment, or all alike) has no z: NaN."""
    by_rater = judgments.groupby(RATER)[value]
    sd = by_rater.transform("std", ddof=1)
    return (judgments[value] - by_rater.transform("mean")) / sd.where(sd > 0)


def _counted(judgments: pd.DataFrame) -> pd.DataFrame:
    missing = {SYSTEM, SEGMENT, SCORE} - set(judgments.columns)
    if missing:
        raise ValueError(f"judgments lack the column(s) {sorted(missing)}")
    if TYPE in judgments.columns:
        judgments = judgments[judgments[TYPE].isin(COUNTED_TYPES)]
    return judgments


def segment_means(judgments: pd.DataFrame) -> pd.DataFrame:
    """Mean z (and raw) per system and segment, with the judgment count: a segments frame."""
    counted = _counted(judgments)
    values = [SCORE, *([RAW] if RAW in counted.columns else [])]
    keys = [key for key in SEGMENT_KEYS if key in counted.columns]
    grouped = counted.groupby(keys, sort=True)
    means = grouped[values].mean()
    return means.assign(judgments=grouped.size()).reset_index()


def wilcoxon_pvalues(segments: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """p of "row system better than column system": one-sided rank-sum on segment means."""
    samples = {s: part[SCORE].to_numpy() for s, part in segments.groupby(SYSTEM)}
    p = pd.DataFrame(np.nan, index=order, columns=order)
    for a in order:
        for b in order:
            if a != b:
                test = stats.mannwhitneyu(samples[a], samples[b], alternative="greater")
                p.loc[a, b] = test.pvalue
    return p


def clusters(pvalues: pd.DataFrame, alpha: float = ALPHA) -> list[int]:
    """Cluster numbers (1 = best) for systems in the order of ``pvalues``' rows.

    A boundary falls after position k when each of the first k systems beats each of the
    others at ``alpha``.
    """
    p = pvalues.to_numpy()
    number, out = 1, []
    for k in range(len(p)):
        out.append(number)
        if k + 1 < len(p) and (p[: k + 1, k + 1 :] < alpha).all():
            number += 1
    return out


def system_table(segments: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """One row per system (and language pair) of a segments frame: z (mean segment score), raw
    (mean segment raw score; NaN without raw scores), n (segments), judgments (their sum),
    rank and cluster. Rows are ordered by language pair, then z, best first."""
    if LP not in segments.columns:
        segments = segments.assign(**{LP: ""})
    tables = []
    for lp, part in segments.groupby(LP, sort=True):
        grouped = part.groupby(SYSTEM)
        table = pd.DataFrame(
            {
                "z": grouped[SCORE].mean(),
                "raw": grouped[RAW].mean() if RAW in part.columns else np.nan,
                "n": grouped.size(),
                "judgments": grouped["judgments"].sum(min_count=1),  # NaN: not known
            }
        )
        table = table.sort_values("z", ascending=False, kind="stable")
        order = list(table.index)
        table["rank"] = np.arange(1, len(table) + 1)
        table["cluster"] = clusters(wilcoxon_pvalues(part, order), alpha)
        tables.append(table.rename_axis(SYSTEM).reset_index().assign(lp=lp))
    if not tables:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(tables, ignore_index=True)[COLUMNS]


def system_scores(judgments: pd.DataFrame, alpha: float = ALPHA) -> pd.DataFrame:
    """`system_table` of the judgments' segment means."""
    return system_table(segment_means(judgments), alpha)


def first_by_pair(*frames: pd.DataFrame) -> pd.DataFrame:
    """Frames of one kind (system tables, or segments frames) from several sources, best
    first: each language pair's rows from the first frame that has the pair, by pair."""
    kept, seen = [], set()
    for frame in frames:
        rows = frame[~frame[LP].isin(seen)]
        seen |= set(frame[LP])
        if not rows.empty:
            kept.append(rows)
    if not kept:
        return frames[0].iloc[:0] if frames else pd.DataFrame(columns=COLUMNS)
    table = pd.concat(kept, ignore_index=True)
    return table.sort_values(LP, kind="stable").reset_index(drop=True)


def wmt_judgments(rows) -> pd.DataFrame:
    """A judgments frame from `wojdb.core.formats.wmt.Judgment` records, or a frame of their fields
    (with ``raw``, ``document`` and ``testset`` kept where the frame has them)."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(map(dataclasses.asdict, rows))
    if frame.empty:
        return pd.DataFrame(columns=[SYSTEM, SEGMENT, RATER, SCORE, TYPE, LP])
    out = pd.DataFrame(
        {
            SYSTEM: frame["system"],
            SEGMENT: frame["segment_id"],
            RATER: frame["rater"],
            SCORE: frame["score"],
            TYPE: frame["item_type"],
            LP: frame["source_lang"] + "-" + frame["target_lang"],
        }
    )
    if RAW in frame.columns:
        out[RAW] = frame[RAW].astype(float)
    for column in (DOCUMENT, TESTSET):
        if column in frame.columns:
            out[column] = frame[column]
    return out


def study_judgments(
    ratings: pd.DataFrame, items: pd.DataFrame, judgment: str = "holistic"
) -> pd.DataFrame:
    """A judgments frame from the study's own ratings of WMT hypotheses.

    ``items`` gives each item's ``system``, ``segment``, ``source_lang`` and ``target_lang``
    (`analysis.frames.items_frame`). ``raw`` is the answer on 0-100 (``(answer - 1) * 25``);
    ``score`` standardises it per participant, as WMT standardises each rater.
    """
    needed = ["item", SYSTEM, SEGMENT, "source_lang", "target_lang"]
    answered = ratings[(ratings["kind"] == "hypothesis") & ratings[judgment].notna()]
    if "practice" in answered.columns:
        answered = answered[~answered["practice"].astype(bool)]
    frame = answered[["participant", "item", judgment]].merge(
        items[needed], on="item", how="inner", validate="many_to_one"
    )
    frame = pd.DataFrame(
        {
            SYSTEM: frame[SYSTEM],
            SEGMENT: frame[SEGMENT],
            RATER: frame["participant"],
            RAW: (frame[judgment].astype(float) - 1) * 25,
            TYPE: "SYSTEM",
            LP: frame["source_lang"] + "-" + frame["target_lang"],
        }
    )
    return frame.assign(**{SCORE: standardise(frame)})


# --- System-level metric evaluation (as google-research/mt-metrics-eval computes it) --------

#: System-level correlation functions: (statistic, p-value) of two vectors.
CORRELATIONS = {
    "pearson": lambda x, y: tuple(stats.pearsonr(x, y)),
    "kendall": lambda x, y: tuple(stats.kendalltau(x, y)),  # tau-b
}


def pairwise_accuracy(human, metric) -> tuple[float, int]:
    """Kocmi et al. (2021): the share of system pairs a metric orders as the humans do.

    A pair agrees when the signs of the two differences are equal (a tie agrees only with a
    tie), as mt-metrics-eval's ``Agreement``. Lower-is-better metrics must be negated first.
    """
    human, metric = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    first, second = np.triu_indices(len(human), k=1)
    agree = np.sign(human[first] - human[second]) == np.sign(metric[first] - metric[second])
    return float(agree.mean()) if len(first) else np.nan, len(first)


def permutation_test(
    human, metric1, metric2, method: str = "pearson", k: int = 1000, seed: int = 0
) -> tuple[float, float]:
    """p for "metric2 correlates better with the humans than metric1", and the difference.

    PERM-BOTH (Deutsch, Dror & Roth 2021), as mt-metrics-eval's ``PermutationSigDiff``: both
    metrics are standardised, then each system's pair of scores is swapped with probability
    1/2, ``k`` times; p is the share of resamples whose difference reaches the observed one.
    The swaps are drawn as mt-metrics-eval draws them (``numpy.random.binomial`` per
    resample), from ``RandomState(seed)``; it also stops early past 1,000 resamples, this does
    not.
    """
    corr = CORRELATIONS[method]
    human = np.asarray(human, dtype=float)
    m1, m2 = stats.zscore(np.asarray(metric1, float)), stats.zscore(np.asarray(metric2, float))
    delta = corr(human, m2)[0] - corr(human, m1)[0]
    # One draw of k x n is the same stream as k draws of n.
    swap = np.random.RandomState(seed).binomial(1, 0.5, (k, len(m1)))
    keep = 1 - swap
    first, second = swap * m1 + keep * m2, keep * m1 + swap * m2
    if method == "pearson":
        c1, c2 = _pearson_rows(human, first), _pearson_rows(human, second)
    else:
        c1 = np.array([corr(human, row)[0] for row in first])
        c2 = np.array([corr(human, row)[0] for row in second])
    return float(np.mean(c2 - c1 >= delta)), float(delta)


def _pearson_rows(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Pearson's r of x with each row."""
    xc = x - x.mean()
    rc = rows - rows.mean(axis=1, keepdims=True)
    return (rc @ xc) / np.sqrt((rc * rc).sum(axis=1) * (xc @ xc))


def metric_table(
    human: pd.Series, metrics: pd.DataFrame, higher_is_better: dict[str, bool] | None = None
) -> pd.DataFrame:
    """Per metric: Pearson and Kendall with the human system scores, and pairwise accuracy.

    ``human`` is indexed by system, ``metrics`` has one column per metric and systems as index;
    only systems in both count. Correlations keep the metric's own sign (column
    ``higher_is_better`` says which way it points); accuracy is computed on oriented scores.
    """
    higher_is_better = higher_is_better or {}
    rows = []
    for name in metrics.columns:
        both = pd.concat([human.rename("human"), metrics[name].rename("metric")], axis=1).dropna()
        better = higher_is_better.get(name, True)
        row = {"metric": name, "higher_is_better": better, "n": len(both)}
        for method, corr in CORRELATIONS.items():
            r, p = corr(both["human"], both["metric"]) if len(both) > 2 else (np.nan, np.nan)
            row[method], row[f"{method}_p"] = float(r), float(p)
        oriented = both["metric"] if better else -both["metric"]
        row["accuracy"] = pairwise_accuracy(both["human"], oriented)[0]
        rows.append(row)
    return pd.DataFrame(rows)
