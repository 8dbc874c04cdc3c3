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


def _longest_run(labels: pd.Series) -> int:
    values = labels.to_numpy()
    if len(values) == 0:
        return 0
    breaks = np.flatnonzero(values[1:] != values[:-1])
    edges = np.r_[-1, breaks, len(values) - 1]
    return int(np.diff(edges).max())


def _one_participant(rows: pd.DataFrame, limits: Thresholds) -> dict:
    rows = rows.sort_values(col.POSITION)
    disorder = rows[
        (rows[col.KIND] == col.PERMUTATION) & rows[col.PERM_TYPE].isin(ORDER_CHANGING_TYPES)
    ]
    disorder = disorder.dropna(subset=[col.ORDER, col.DEGREE])
    rho = np.nan
    if len(disorder) >= limits.min_ratings:
        rho = statistic(
            disorder[col.DEGREE].to_numpy(), disorder[col.ORDER].to_numpy(), "spearman"
        )[0]
    choice = rows.loc[rows[col.PERM_TYPE] == "choice", col.unit(col.ORDER)].dropna()
    answered = rows.dropna(subset=list(col.JUDGMENTS), how="all")
    pairs = answered[col.HOLISTIC].astype(str) + "/" + answered[col.ORDER].astype(str)
    run = _longest_run(pairs)
    modal = pairs.value_counts(normalize=True).max() if len(pairs) else np.nan
    seconds = rows[col.SECONDS].median()
    enough = len(answered) >= limits.min_ratings
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
        "answered": len(answered),
        "degree_rho": rho,
        "degree_n": len(disorder),
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
