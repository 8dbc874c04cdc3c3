"""Which metric tracks WMT's human judgments on an imported corpus, without a study.

External human scores (WMT direct assessment: segment z and raw) are score sources like the
metrics: each metric is correlated with them at segment level (each hypothesis's metric score
against its segment's mean DA score) and at system level (each system's mean metric score over
its judged hypotheses against its WMT system z, `system.system_scores`), per language pair.
Coefficients keep their sign, with ``higher_is_better`` beside them and an oriented copy.

Segments frame: one row per hypothesis item with ``item``, ``lp``, ``system``, ``segment`` and
the human columns ``da_z`` and ``da_raw``, and ``mqm`` where MQM scores were imported (NaN where
unknown). An imported MQM score is also a score source, so it is compared with DA as well.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from wojdb.core.stats import columns as col
from wojdb.core.stats import correlation, system

HUMANS = ("da_z", "da_raw", "mqm")
#: Fewer scored segments than this give no segment-level row.
MIN_SEGMENTS = 15


def _sources(scores: pd.DataFrame):
    better = correlation.orientations(scores)
    for key, values in correlation.score_sources(scores).items():
        yield key, values, better.get(key, True)


def segment_correlations(segments: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Per language pair, human measure and score source: n, Pearson and Kendall's tau-b."""
    rows = []
    for key, values, better in _sources(scores):
        joined = segments.join(values.rename("metric"), on=col.ITEM, how="inner")
        for lp, part in joined.groupby(system.LP, sort=True):
            for human in [h for h in HUMANS if h in part.columns]:
                if human == "mqm" and key[0] == "MQM":
                    continue  # the same scores
                pair = part[[human, "metric"]].dropna()
                if len(pair) < MIN_SEGMENTS:
                    continue
                row = {system.LP: lp, "human": human}
                row.update(zip(correlation.SOURCE, key, strict=True))
                row.update(higher_is_better=better, n=len(pair))
                for name, corr in system.CORRELATIONS.items():
                    r, p = corr(pair[human], pair["metric"])
                    row[name], row[f"{name}_p"] = float(r), float(p)
                    row[f"{name}_oriented"] = float(r) if better else -float(r)
                rows.append(row)
    return pd.DataFrame(rows)


def system_correlations(
    segments: pd.DataFrame, systems: pd.DataFrame, scores: pd.DataFrame
) -> pd.DataFrame:
    """Per language pair and score source: the system-level `system.metric_table` row.

    ``systems`` is `system.system_scores` output whose system names match the segments'.
    A system's metric score is the mean of its hypotheses' scores.
    """
    tables = []
    for key, values, better in _sources(scores):
        joined = segments.join(values.rename("metric"), on=col.ITEM, how="inner")
        means = joined.groupby([system.LP, system.SYSTEM])["metric"].mean()
        for lp, part in systems.groupby(system.LP, sort=True):
            if lp not in means.index.get_level_values(0):
                continue
            human = part.set_index(system.SYSTEM)["z"]
            metric = means.loc[lp].rename("metric").to_frame()
            table = system.metric_table(human, metric, {"metric": better})
            if table["n"].iloc[0] < 3:
                continue
            table = table.drop(columns="metric").assign(
                **{system.LP: lp}, **dict(zip(correlation.SOURCE, key, strict=True))
            )
            for name in system.CORRELATIONS:
                table[f"{name}_oriented"] = np.where(better, table[name], -table[name])
            tables.append(table)
    if not tables:
        return pd.DataFrame()
    out = pd.concat(tables, ignore_index=True)
    first = [system.LP, *correlation.SOURCE, "higher_is_better", "n"]
    return out[first + [c for c in out.columns if c not in first]]


def _system_means(segments: pd.DataFrame, scores: pd.DataFrame) -> pd.DataFrame:
    """Oriented mean score per (lp, system) and source: columns are source labels."""
    columns = {}
    for key, values, better in _sources(scores):
        joined = segments.join(values.rename("metric"), on=col.ITEM, how="inner")
        means = joined.groupby([system.LP, system.SYSTEM])["metric"].mean()
        columns[" ".join(filter(None, key))] = means if better else -means
    return pd.DataFrame(columns)


def system_permutation_tests(
    segments: pd.DataFrame, systems: pd.DataFrame, scores: pd.DataFrame, k: int = 1000, seed=0
) -> pd.DataFrame:
    """Per language pair and pair of sources: does the better one correlate significantly better
    with the WMT system z (Pearson, `system.permutation_test`, scores oriented)?"""
    means = _system_means(segments, scores)
    rows = []
    for lp, part in systems.groupby(system.LP, sort=True):
        if lp not in means.index.get_level_values(0):
            continue
        table = means.loc[lp].join(part.set_index(system.SYSTEM)["z"].rename("_human"), how="inner")
        human = table.pop("_human")
        names = [n for n in table.columns if table[n].notna().all()]
        if len(table) < 3:
            continue
        r = {n: stats.pearsonr(human, table[n])[0] for n in names}
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                worse, better = (a, b) if r[a] <= r[b] else (b, a)
                p, delta = system.permutation_test(
                    human, table[worse], table[better], "pearson", k, seed
                )
                rows.append(
                    {system.LP: lp, "better": better, "worse": worse, "n": len(table),
                     "delta_r": delta, "p": p}
                )  # fmt: skip
    return pd.DataFrame(rows)
