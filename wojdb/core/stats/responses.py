"""Response trends (thesis §7.2.1): how the five levels of both questions were used, and how
far the two questions agree."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd

from wojdb.core import scales
from wojdb.core.stats import columns as col
from wojdb.core.stats.correlation import N_BOOT, correlate

#: A correlation's columns, in the order the report shows them.
CORRELATION_COLUMNS = ("n", "r", "ci_low", "ci_high", "p")
#: The five answers on the 0-1 scale, lowest first.
LEVELS = tuple(float(scales.answer_to_unit(a)) for a in range(col.LIKERT_MIN, col.LIKERT_MAX + 1))


def level_counts(ratings: pd.DataFrame) -> pd.DataFrame:
    """How often each level was given, per judgment and kind of sentence.

    Columns: judgment, kind, one per level on the 0-1 scale (``0``, ``0.25`` … ``1``), blank.
    """
    rows = []
    for judgment in col.JUDGMENTS:
        for kind, part in ratings.groupby(col.KIND, sort=True):
            counts = part[col.unit(judgment)].value_counts()
            rows.append(
                {
                    "judgment": judgment,
                    col.KIND: kind,
                    **{f"{level:g}": int(counts.get(level, 0)) for level in LEVELS},
                    "blank": int(part[judgment].isna().sum()),
                }
            )
    return pd.DataFrame(rows)


def holistic_order_agreement(
    ratings: pd.DataFrame, n_boot: int = N_BOOT, seed: int = 0
) -> pd.DataFrame:
    """Pearson's r between the two questions' 0-1 answers, per kind of sentence.

    Columns: kind, n, r, ci_low, ci_high (percentile bootstrap, 95%), p.
    """
    rows = []
    for kind, part in ratings.groupby(col.KIND, sort=True):
        result = correlate(
            part[col.unit(col.HOLISTIC)], part[col.unit(col.ORDER)], "pearson", n_boot, seed
        )
        rows.append({col.KIND: kind, **asdict(result)})
    return pd.DataFrame(rows, columns=[col.KIND, *CORRELATION_COLUMNS])
