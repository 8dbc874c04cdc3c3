"""Each WMT year's human ranking, by name, as that year's findings computed it.

- ``wmt22``: WMT22's direct assessment (Kocmi et al., 2022), `wojdb.core.stats.system`: a
  segment's score the mean of its judgments, a system's the mean over its segments; clusters
  from a one-sided Wilcoxon rank-sum test on segment scores, p < 0.05. Also the per-item mean
  every source had before protocols were named (``--micro``).
- ``wmt24``: WMT24's ESA (Kocmi et al., 2024), as the organisers' ``humeval/tools.py`` and
  ``calculate_clusters.py`` of wmt-conference/wmt24-news-systems compute it:

  1. items: TGT rows only (not the BAD quality controls; MQM's segments all count), not the
     tutorial (systems named ``…tutorial…``), not the ``#incomplete`` and ``#dup`` filler
     documents, not the canary;
  2. repeated ratings: of one rater's ratings of one output in one file (wave), the one that
     ended latest; several raters' ratings of an output in one wave are averaged;
  3. a pair is ranked only where its systems have at least 100 ratings on average;
  4. a system's score is the mean over the domains of its mean rating in each domain;
  5. two systems are compared on the segments both were rated on (every pairing of their
     ratings of a segment) by a two-sided Wilcoxon signed-rank test in each domain, the
     domains' p-values combined by Stouffer's method (z = Φ⁻¹(1 − p), Z = Σz/√k, p = 1 − Φ(Z));
  6. rank range: from 1 + the systems significantly better (p < 0.05) to the number of
     systems less those significantly worse; clusters: going down the table by score, a
     cluster ends after a system unless it or a system above in its cluster is not
     significantly different (p > 0.05) from one below.

  ``--micro`` (the organisers' flag of that name): the score is the mean over all ratings and
  one signed-rank test over all paired segments.

Ratings frame: one row per rating with ``system``, ``lp``, ``document`` (as published, its
``#tag`` included), ``segment`` (the item id), ``rater``, ``score``, ``type``, ``time_end``,
``wave`` (the file it came from) and ``domain``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from scipy import stats

from wojdb.core.formats import wmt
from wojdb.core.stats import system

#: The protocol of a test set's year: WMT24's from 2024, the segment mean and rank-sum test of
#: WMT's DA (WMT19-22) before; WMT23's own (Appraise's win counts) is not implemented.
FIRST_YEAR = {"wmt24": 2024}
WMT24_ALPHA = 0.05
WMT24_MIN_RATINGS = 100  # mean ratings per system below which a pair is not ranked
TIME_END, WAVE, DOMAIN = "time_end", "wave", "domain"
COLUMNS = [*system.COLUMNS, "ranks", "reference", "protocol"]


@dataclass(frozen=True)
class Table:
    """A protocol's system table (`COLUMNS`) and what it left out, said in words."""

    rows: pd.DataFrame
    notes: list[str]


def choose(asked: str | None, years: set[int]) -> tuple[str, str]:
    """The protocol to use, and why: the one asked for, else the one of the judgments' year."""
    if asked:
        return asked, "as asked"
    if not years:
        return "wmt22", "no test-set year known"
    names = {"wmt24" if year >= FIRST_YEAR["wmt24"] else "wmt22" for year in years}
    listed = ", ".join(map(str, sorted(years))) or "none"
    if len(names) == 1:
        name = names.pop()
        note = "; WMT23's own protocol is not implemented" if 2023 in years else ""
        return name, f"the judgments' test set year {listed}{note}"
    return "wmt22", f"test sets of several years ({listed}): give --protocol"


def describe(name: str, micro: bool = False) -> str:
    """The protocol as every table names it."""
    if name == "wmt24":
        return (
            "wmt24 micro: mean over ratings, one two-sided signed-rank test"
            if micro
            else "wmt24: mean over domains, signed-rank per domain + Stouffer"
        )
    return "wmt22: mean over segments, one-sided rank-sum"


def is_reference(names: pd.Series) -> pd.Series:
    """Whether each system is a human reference judged as a system (refA, ref-A, HUMAN-B,
    WMT23's Human-refA: `wojdb.core.formats.wmt.human_reference`)."""
    return names.astype(str).map(lambda name: wmt.human_reference(name) is not None).astype(bool)


def finish(table: pd.DataFrame, label: str) -> pd.DataFrame:
    """A `wojdb.core.stats.system` table in `COLUMNS`: rank ranges unknown, references marked,
    the protocol named."""
    table = table.copy()
    if "ranks" not in table.columns:
        table["ranks"] = ""
    table["reference"] = is_reference(table[system.SYSTEM])
    table["protocol"] = label
    return table[COLUMNS]


def wmt24_counted(ratings: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The ratings WMT24 counts (steps 1 and 2 above), and how many repeated ratings were left
    out for a later one."""
    kept = ratings[
        ratings[system.TYPE].isin(("TGT", "MQM"))
        & ~ratings[system.SYSTEM].str.contains("tutorial", regex=False)
        & ~ratings[system.DOCUMENT].str.contains("#incomplete", regex=False)
        & ~ratings[system.DOCUMENT].str.contains("#dup", regex=False)
        & (ratings[system.DOCUMENT] != "canary")
    ]
    item = [system.LP, system.SYSTEM, system.DOCUMENT, system.SEGMENT, WAVE]
    latest = kept.sort_values(TIME_END, ascending=False, kind="stable").drop_duplicates(
        [system.RATER, *item], keep="first"
    )
    repeats = len(kept) - len(latest)
    grouped = latest.groupby(item, sort=False)
    averaged = grouped[system.SCORE].mean().to_frame()
    averaged[DOMAIN] = grouped[DOMAIN].first()
    return averaged.reset_index(), repeats


def _stouffer(pvalues: list[float]) -> float:
    z = stats.norm.ppf(1 - np.asarray(pvalues))
    return float(1 - stats.norm.cdf(z.sum() / np.sqrt(len(pvalues))))


def _signed_rank(differences: np.ndarray) -> float:
    """Two-sided p of the Wilcoxon signed-rank test; NaN where it cannot be computed (no
    segment in common, or only ties), which counts as no significant difference."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(stats.wilcoxon(differences, alternative="two-sided").pvalue)
        except ValueError:
            return float("nan")


def wmt24_pvalues(counted: pd.DataFrame, micro: bool = False) -> dict[tuple[str, str], float]:
    """p of each ordered pair of systems (the same both ways: the per-domain tests are
    two-sided)."""
    segment = [system.DOCUMENT, system.SEGMENT]
    by_system = {s: part for s, part in counted.groupby(system.SYSTEM, sort=False)}
    pvalues = {}
    for a, b in combinations(by_system, 2):
        paired = by_system[a][[*segment, DOMAIN, system.SCORE]].merge(
            by_system[b][[*segment, system.SCORE]], on=segment, suffixes=("_a", "_b")
        )
        differences = (paired["score_a"] - paired["score_b"]).to_numpy()
        if micro:
            p = _signed_rank(differences)
        else:
            domains = paired[DOMAIN].to_numpy()
            p = _stouffer([_signed_rank(differences[domains == d]) for d in pd.unique(domains)])
        pvalues[a, b] = pvalues[b, a] = p
    return pvalues


def wmt24_ranks(scores: pd.Series, pvalues: dict, alpha: float = WMT24_ALPHA) -> list[str]:
    """Each system's rank range `best-worst`, systems in the order of `scores`."""
    ranks = []
    for a in scores.index:
        better = sum(
            1 for b in scores.index if b != a and pvalues[a, b] < alpha and scores[b] >= scores[a]
        )
        worse = sum(
            1 for b in scores.index if b != a and pvalues[a, b] < alpha and scores[b] < scores[a]
        )
        ranks.append(f"{better + 1}-{len(scores) - worse}")
    return ranks


def wmt24_clusters(order: list[str], pvalues: dict, alpha: float = WMT24_ALPHA) -> list[int]:
    """Cluster numbers (1 = best) for systems in `order`, best first (step 6)."""
    clusters, number, reach = [], 1, -1
    for i, a in enumerate(order):
        if reach <= i:
            reach = -1
        for j in range(i + 1, len(order)):
            if pvalues[a, order[j]] > alpha:
                reach = max(reach, j)
        clusters.append(number)
        if reach == -1:
            number += 1
    return clusters


def wmt24_table(ratings: pd.DataFrame, micro: bool = False) -> Table:
    """WMT24's system table of a ratings frame: z the system's score on ESA's 0-100 scale,
    raw the same, n the segments rated, judgments the ratings counted, rank the position,
    cluster, ranks the rank range."""
    needed = {system.SYSTEM, system.LP, system.DOCUMENT, system.SEGMENT, system.RATER,
              system.SCORE, system.TYPE, TIME_END, WAVE, DOMAIN}  # fmt: skip
    missing = needed - set(ratings.columns)
    if missing:
        raise ValueError(f"ratings lack the column(s) {sorted(missing)}")
    counted, repeats = wmt24_counted(ratings)
    notes = []
    if repeats:
        notes.append(f"{repeats:,} repeated rating(s) left out, the latest of each kept")
    tables = []
    for lp, part in counted.groupby(system.LP, sort=True):
        grouped = part.groupby(system.SYSTEM)
        if grouped.size().mean() < WMT24_MIN_RATINGS:
            notes.append(
                f"{lp}: {grouped.size().mean():.1f} ratings per system, fewer than WMT24's "
                f"{WMT24_MIN_RATINGS}: not ranked"
            )
            continue
        if micro:
            scores = grouped[system.SCORE].mean()
        else:
            scores = part.groupby([system.SYSTEM, DOMAIN])[system.SCORE].mean().groupby(level=0)
            scores = scores.mean()
        scores = scores.sort_values(ascending=False, kind="stable")
        pvalues = wmt24_pvalues(part, micro)
        order = list(scores.index)
        segments = part.drop_duplicates([system.SYSTEM, system.DOCUMENT, system.SEGMENT])
        segments = segments.groupby(system.SYSTEM).size()
        table = pd.DataFrame(
            {
                system.SYSTEM: order,
                system.LP: lp,
                "z": scores.to_numpy(),
                system.RAW: scores.to_numpy(),
                "n": segments[order].to_numpy(),
                "judgments": grouped.size()[order].to_numpy(),
                "rank": np.arange(1, len(order) + 1),
                "cluster": wmt24_clusters(order, pvalues),
                "ranks": wmt24_ranks(scores, pvalues),
            }
        )  # fmt: skip
        tables.append(table)
    label = describe("wmt24", micro)
    if not tables:
        return Table(finish(pd.DataFrame(columns=system.COLUMNS), label), notes)
    return Table(finish(pd.concat(tables, ignore_index=True), label), notes)
