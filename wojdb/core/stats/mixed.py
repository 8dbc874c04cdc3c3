"""Participant variation: the thesis's random-intercept adjustment and the crossed model (§7.2.3).

The thesis fitted, per judgment type, a linear mixed model with a random effect for the
participant, subtracted each participant's predicted random effect from their scores and
compared original and adjusted scores with a two-tailed Student's t-test (p = 0.118). It names
neither formula nor software; here the model is ``judgment01 ~ 1 + (1 | participant)`` fitted by
REML as lme4 would. The better model adds crossed item intercepts and fixed effects for the
sentence group: ``judgment01 ~ group + (1 | participant) + (1 | item)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from wojdb.core import scales
from wojdb.core.stats import columns as col
from wojdb.core.stats.reml import LmmFit, fit_reml

PARTICIPANT_MODEL = "participant"
CROSSED_MODEL = "crossed"
MODELS = (PARTICIPANT_MODEL, CROSSED_MODEL)

#: Reference level first: coefficients compare each permutation type with WMT hypotheses.
GROUP_LEVELS = (col.HYPOTHESIS, *col.PERM_TYPES)


def design_matrix(data: pd.DataFrame, terms: Sequence[str]) -> pd.DataFrame:
    """Intercept plus each term: numeric columns as they are, others treatment-coded.

    Categorical terms use their first level as reference (``hypothesis`` for ``group``, then
    the permutation types in their usual order; otherwise levels sorted); columns are named as
    patsy names them, ``group[T.order]``.
    """
    parts = {"Intercept": np.ones(len(data))}
    for term in terms:
        values = data[term]
        if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
            parts[term] = values.to_numpy(dtype=float)
            continue
        present = sorted(set(values.dropna().unique()), key=str)
        known = [level for level in GROUP_LEVELS if level in present] if term == col.GROUP else []
        levels = known + [level for level in present if level not in known]
        for level in levels[1:]:
            parts[f"{term}[T.{level}]"] = (values == level).to_numpy(dtype=float)
    return pd.DataFrame(parts, index=data.index)


def fit_model(
    data: pd.DataFrame,
    response: str,
    fixed: Sequence[str] = (),
    random: Sequence[str] = (col.PARTICIPANT,),
) -> LmmFit:
    """REML fit of ``response ~ fixed + (1 | r)`` per r in ``random``; rows with gaps dropped."""
    used = data.dropna(subset=[response, *fixed, *random])
    return fit_reml(
        used[response].to_numpy(dtype=float),
        design_matrix(used, fixed),
        {name: used[name].to_numpy() for name in random},
    )


def _prepared(ratings: pd.DataFrame, judgment: str) -> pd.DataFrame:
    data = ratings if col.GROUP in ratings.columns else col.scored(ratings)
    if col.unit(judgment) not in data.columns:
        data = data.assign(**{col.unit(judgment): scales.answer_to_unit(data[judgment])})
    return data


def participant_model(ratings: pd.DataFrame, judgment: str) -> LmmFit:
    """The thesis's model: ``judgment01 ~ 1 + (1 | participant)``."""
    return fit_model(_prepared(ratings, judgment), col.unit(judgment))


def crossed_model(ratings: pd.DataFrame, judgment: str) -> LmmFit:
    """``judgment01 ~ group + (1 | participant) + (1 | item)``: participants and items crossed."""
    return fit_model(
        _prepared(ratings, judgment),
        col.unit(judgment),
        fixed=(col.GROUP,),
        random=(col.PARTICIPANT, col.ITEM),
    )


def adjust_scores(
    ratings: pd.DataFrame,
    judgments: Sequence[str] = col.JUDGMENTS,
    model: str = PARTICIPANT_MODEL,
) -> tuple[pd.DataFrame, dict[str, LmmFit]]:
    """Scored ratings with ``<judgment>01_adjusted`` = score minus the participant's BLUP.

    Practice ratings are dropped and the ``group`` column added. Returns the frame and the fit
    per judgment, whose ``state`` says whether it converged.
    """
    if model not in MODELS:
        raise ValueError(f"model must be one of {MODELS}")
    data = col.scored(ratings)
    fit_of = participant_model if model == PARTICIPANT_MODEL else crossed_model
    fits, added = {}, {}
    for judgment in judgments:
        data = _prepared(data, judgment)
        fits[judgment] = fit_of(data, judgment)
        effect = data[col.PARTICIPANT].map(fits[judgment].random[col.PARTICIPANT])
        added[col.adjusted(judgment)] = data[col.unit(judgment)] - effect.astype(float)
    return data.assign(**added), fits


@dataclass(frozen=True)
class TTest:
    statistic: float
    pvalue: float
    df: float
    n: int


def adjustment_ttest(adjusted: pd.DataFrame, judgment: str, paired: bool = False) -> TTest:
    """Two-tailed Student's t-test between original and adjusted 0-1 scores (thesis §7.2.3).

    The thesis calls it Student's t-test without saying paired; the default is the
    two-sample equal-variance test, ``paired=True`` gives the paired one.
    """
    both = adjusted[[col.unit(judgment), col.adjusted(judgment)]].dropna()
    original, corrected = both.iloc[:, 0], both.iloc[:, 1]
    if paired:
        result = stats.ttest_rel(original, corrected)
    else:
        result = stats.ttest_ind(original, corrected, equal_var=True)
    return TTest(
        statistic=float(result.statistic),
        pvalue=float(result.pvalue),
        df=float(result.df),
        n=len(both),
    )


#: Columns of :func:`adjustment_ttests`.
TTEST_COLUMNS = ("judgment", "n", "t", "df", "p")


def adjustment_ttests(
    adjusted: pd.DataFrame, judgments: Sequence[str] = col.JUDGMENTS, paired: bool = False
) -> pd.DataFrame:
    """:func:`adjustment_ttest` per judgment, one row each in :data:`TTEST_COLUMNS`."""
    rows = []
    for judgment in judgments:
        test = adjustment_ttest(adjusted, judgment, paired)
        rows.append((judgment, test.n, test.statistic, test.df, test.pvalue))
    return pd.DataFrame(rows, columns=list(TTEST_COLUMNS))


def participant_effects(fits: dict[str, LmmFit]) -> pd.DataFrame:
    """Each participant's predicted random intercept (BLUP) per judgment's fit: columns
    participant, then ``<judgment>_effect`` per fit."""
    effects = {f"{judgment}_effect": fit.random[col.PARTICIPANT] for judgment, fit in fits.items()}
    return pd.DataFrame(effects).rename_axis(col.PARTICIPANT).reset_index()
