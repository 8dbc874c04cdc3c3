"""Columns of a release computed from others: written by the export, recomputed on reading.

Imports nothing from Django.
"""

from __future__ import annotations

import pandas as pd

from analysis.stats import columns as col


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
