"""Columns of a release computed from others: written by the export, recomputed on reading.

Imports nothing from Django.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wojdb.core.stats import columns as col
from wojdb.core.stats import mixed


def rating_seconds(client_ms: pd.Series, shown_at: pd.Series, answered_at: pd.Series) -> pd.Series:
    """Time on an item: the browser's measure where sent, else the server's answered - shown."""
    server = (answered_at - shown_at).dt.total_seconds()
    return (client_ms.astype("float64") / 1000).fillna(server).astype("float64")


def item_quality(items: pd.DataFrame) -> pd.Series:
    """Eq. 6.2 for permutations, the WMT score (eq. 6.1 or DA) for hypotheses."""
    is_perm = items["kind"] == col.PERMUTATION
    return items["perm_quality"].where(is_perm, items["wmt_score"]).astype("float64")


def languages_score(participants: pd.DataFrame, languages: pd.DataFrame | None) -> pd.Series:
    """Each participant's language points: the fluencies (7 native ... 1 a few words) summed."""
    if languages is None or languages.empty:
        return pd.Series(0, index=participants.index, dtype="int64")
    sums = languages.groupby("participant")["fluency"].sum()
    return participants["participant"].map(sums).fillna(0).astype("int64")


#: How far an adjusted score may lie from a refit's: REML optima agree far closer than this
#: between machines, and any edit of an answer or an adjusted cell moves it far more.
ADJUSTED_TOLERANCE = 1e-6
ADJUSTMENT_MODEL = "judgment01 ~ 1 + (1 | participant)"
ADJUSTMENT_METHOD = (
    "REML as lme4 fits it (wojdb.core.stats.mixed.adjust_scores), per judgment, on the release's "
    "ratings without the practice sample; real and simulated participants fitted apart"
)


def participant_adjusted(tables: dict[str, pd.DataFrame]) -> tuple[dict[str, pd.Series], dict]:
    """The ratings' participant-adjusted scores (thesis §7.2.3) fitted on this release's own
    scored ratings, so anyone refitting the release gets the same values.

    Real and simulated participants are fitted apart (a simulation's spread must not shrink real
    people's intercepts). Returns the adjusted columns (aligned with the ratings' index; empty for
    practice and blanks) and each fit's outcome, as the package records it: keyed by judgment,
    with the group added where the release holds both.
    """
    ratings = tables["ratings"]
    # Only what the model and the sentence groups need: a full ratings frame costs seconds.
    kinds = tables["items"][[col.ITEM, col.KIND, col.PERM_TYPE]]
    frame = ratings[
        [col.PARTICIPANT, col.ITEM, col.PRACTICE, *col.JUDGMENTS, *map(col.unit, col.JUDGMENTS)]
    ].merge(kinds, on=col.ITEM, how="left", validate="many_to_one")
    frame.index = ratings.index  # a left merge keeps the rows in order
    people = tables["participants"].set_index(col.PARTICIPANT)[col.SIMULATED].astype(bool)
    frame[col.SIMULATED] = frame[col.PARTICIPANT].map(people).fillna(False).astype(bool)
    groups = col.participant_groups(frame)
    columns = {
        col.adjusted(j): pd.Series(np.nan, index=ratings.index, dtype="float64")
        for j in col.JUDGMENTS
    }
    fits = {}
    for judgment in col.JUDGMENTS:
        name = col.adjusted(judgment)
        for group, part in groups.items():
            key = judgment if len(groups) == 1 else f"{judgment}, {group} participants"
            fits[key], values = _adjusted(part, judgment)
            if values is not None:
                columns[name].loc[part.index] = values
    return columns, {"model": ADJUSTMENT_MODEL, "fitted_by": ADJUSTMENT_METHOD, "fits": fits}


def _adjusted(frame: pd.DataFrame, judgment: str) -> tuple[dict, np.ndarray | None]:
    """One group's fit outcome and adjusted values (aligned with `frame`'s rows)."""
    if frame[col.unit(judgment)].notna().sum() == 0:
        return {"error": "no answers"}, None
    try:
        adjusted, fit = mixed.adjust_scores(frame, judgments=(judgment,))
    except (ValueError, np.linalg.LinAlgError) as e:
        return {"error": str(e)}, None
    keys, name = [col.PARTICIPANT, col.ITEM], col.adjusted(judgment)
    values = frame[keys].merge(adjusted[[*keys, name]], on=keys, how="left")
    result = fit[judgment]
    outcome = {
        "n": result.n_obs,
        "converged": result.state.converged,
        "singular": result.state.singular,
        "participant_variance": float(result.variances[col.PARTICIPANT]),
        "residual_variance": float(result.variances["residual"]),
    }
    return outcome, values[name].to_numpy(dtype="float64")


def permutation_quality_problems(items: pd.DataFrame) -> pd.Series:
    """Permutation rows whose eq. 6.2 score no maximum degree gives for their degree.

    The release keeps each permutation's degree and score but not the maximum degree of the run
    that made it (runs may differ), so the score is checked against the maximum it implies:
    q = 1 - (d - 1) / (m - 1) holds for an integer m >= max(d, 2), and q = 1 exactly when d = 1.
    """
    perm = (items["kind"] == col.PERMUTATION) & items["perm_quality"].notna()
    degree = items["degree"].astype("float64")
    quality = items["perm_quality"].astype("float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        implied = 1 + (degree - 1) / (1 - quality)
    whole = np.isclose(implied, implied.round(), rtol=0, atol=1e-6)
    first = degree == 1
    valid = np.where(first, quality == 1, (quality < 1) & whole & (implied >= degree.clip(2)))
    return perm & ~pd.Series(valid, index=items.index)
