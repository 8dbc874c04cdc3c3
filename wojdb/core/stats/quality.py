"""Quality of the judgments: agreement on shared items and per-participant checks.

Checks only flag; nothing here removes a participant. The permutations are the instrument
(§6.2.3): order scores should fall as the permutation degree rises, and ``choice`` permutations,
which keep the reference's word order, should get near-perfect order scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import krippendorff
import numpy as np
import pandas as pd

from wojdb.core.stats import columns as col
from wojdb.core.stats.correlation import statistic
from wojdb.core.vocabulary import ORDER_CHANGING_TYPES


def agreement(
    ratings: pd.DataFrame,
    judgments: Sequence[str] = col.JUDGMENTS,
    level: str = "ordinal",
    shared_only: bool = True,
) -> pd.DataFrame:
    """Krippendorff's alpha per judgment over items several participants rated.

    Raw 1-5 answers, participants as coders and items as units; blanks are missing values.
    With ``shared_only`` only items marked shared count.
    """
    data = ratings[~ratings[col.PRACTICE].astype(bool)]
    if shared_only:
        data = data[data[col.SHARED].astype(bool)]
    rows = []
    for judgment in judgments:
        matrix = data.pivot_table(
            index=col.PARTICIPANT, columns=col.ITEM, values=judgment, aggfunc="first"
        )
        matrix = matrix.loc[:, matrix.notna().sum() >= 2]
        alpha = np.nan
        if matrix.shape[1] and matrix.stack().nunique() > 1:
            alpha = krippendorff.alpha(
                reliability_data=matrix.to_numpy(dtype=float),
                value_domain=list(range(col.LIKERT_MIN, col.LIKERT_MAX + 1)),
                level_of_measurement=level,
            )
        rows.append(
            {
                "judgment": judgment,
                "alpha": float(alpha),
                "level": level,
                "items": matrix.shape[1],
                "participants": int((matrix.notna().sum(axis=1) > 0).sum()),
                "ratings": int(matrix.notna().sum().sum()),
            }
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Thresholds:
    """When a check flags a participant; every value is a study's choice, not a rule."""

    #: Spearman's rho between order answers and degree at or above this is flagged (expected
    #: clearly negative).
    max_degree_rho: float = 0.0
    #: Mean order score (0-1) on ``choice`` permutations below this is flagged.
    min_choice_order: float = 0.75
    #: Median seconds per item below this is flagged.
    min_median_seconds: float = 5.0
    #: This many identical (holistic, order) answer pairs in a row is flagged.
    max_run: int = 10
    #: One answer pair covering at least this share of a participant's ratings is flagged.
    max_modal_share: float = 0.8
    #: Fewest ratings a check needs before it can flag.
    min_ratings: int = 4


def _longest_run(labels: np.ndarray) -> int:
    if len(labels) == 0:
        return 0
    breaks = np.flatnonzero(labels[1:] != labels[:-1])
    edges = np.r_[-1, breaks, len(labels) - 1]
    return int(np.diff(edges).max())


def _one_participant(rows: pd.DataFrame, limits: Thresholds) -> dict:
    # Plain arrays: the checks of a few dozen ratings cost less than pandas' calls would.
    rows = rows.sort_values(col.POSITION)
    perm_type = rows[col.PERM_TYPE].to_numpy(dtype=object)
    order, holistic = (rows[j].to_numpy(dtype=float) for j in (col.ORDER, col.HOLISTIC))
    degree = rows[col.DEGREE].to_numpy(dtype=float)
    disorder = (
        (rows[col.KIND].to_numpy() == col.PERMUTATION)
        & np.isin(perm_type, ORDER_CHANGING_TYPES)
        & ~np.isnan(order)
        & ~np.isnan(degree)
    )
    rho = np.nan
    if disorder.sum() >= limits.min_ratings:
        rho = statistic(degree[disorder], order[disorder], "spearman")[0]
    choice = rows[col.unit(col.ORDER)].to_numpy(dtype=float)[perm_type == "choice"]
    choice = choice[~np.isnan(choice)]
    answered = ~(np.isnan(holistic) & np.isnan(order))
    # Each (holistic, order) answer pair as one number; a pair with a blank is no answer pair:
    # it equals nothing (a run ends there) and the commonest pair's share leaves it out.
    pairs = (holistic * 10 + order)[answered]
    complete = ~np.isnan(pairs)
    run = _longest_run(np.where(complete, pairs, -1 - np.arange(len(pairs))))
    counts = np.unique(pairs[complete], return_counts=True)[1]
    modal = counts.max() / complete.sum() if len(counts) else np.nan
    seconds = rows[col.SECONDS].median()
    enough = answered.sum() >= limits.min_ratings
    flags = {
        "flag_degree": bool(rho >= limits.max_degree_rho),
        "flag_choice": bool(len(choice) and choice.mean() < limits.min_choice_order),
        "flag_time": bool(seconds < limits.min_median_seconds),
        "flag_straightlining": bool(
            enough and (run >= limits.max_run or modal >= limits.max_modal_share)
        ),
    }
    return {
        "ratings": len(rows),
        "answered": int(answered.sum()),
        "degree_rho": rho,
        "degree_n": int(disorder.sum()),
        "choice_order_mean": float(choice.mean()) if len(choice) else np.nan,
        "choice_n": len(choice),
        "median_seconds": seconds,
        "longest_run": run,
        "modal_share": modal,
        **flags,
        "flags": ", ".join(name.removeprefix("flag_") for name, on in flags.items() if on),
    }


def participant_checks(ratings: pd.DataFrame, limits: Thresholds = Thresholds()) -> pd.DataFrame:
    """One row per participant: each check's value, its flag, and the flags in words.

    Checks: order answers against permutation degree (Spearman's rho; order/swap/phrase/both),
    mean order score on ``choice`` permutations, median time per item, and straight-lining
    (longest run of identical answer pairs in position order, share of the commonest pair).
    """
    data = ratings[~ratings[col.PRACTICE].astype(bool)]
    rows = {
        participant: _one_participant(group, limits)
        for participant, group in data.groupby(col.PARTICIPANT, sort=True)
    }
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis(col.PARTICIPANT).reset_index()
