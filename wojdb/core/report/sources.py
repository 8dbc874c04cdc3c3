"""Score sources as the thesis names and colours them (Table 7.2), and the rows a bar chart of their
correlations shows."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from wojdb.core.report import figures as F
from wojdb.core.stats import columns as C
from wojdb.core.stats import correlation, hypotheses

#: Sources the thesis calls "other evaluation methods" (purple in Table 7.2), by metric name.
OTHER_METHODS = ("wmt", "permutation degree", "aligned", "kendall")
STRUCTURED_TOOLS = {"dted": "dted", "derp": "derp"}


#: How the thesis writes the names of the built-in metrics (wojdb.core.metrics.registry).
DISPLAY_NAMES = {
    "dted": "DTED",
    "derp": "DERP",
    "bleu": "BLEU",
    "chrf": "chrF",
    "ter": "TER",
    "meteor": "Meteor",
    "meteor_chunk": "Meteor (chnk)",
    "kendall_tau": "Kendall's τ",
    "aligned_pct": "Aligned %",
    "lepor": "LEPOR",
    "hlepor": "hLEPOR",
}
#: DERP's variant with structure is the thesis's plain "DERP".
DEFAULT_VARIANTS = ("", "structured")


def source_label(metric: str, variant: str) -> str:
    """How the thesis names a source: ``'c' DTED`` for flags, ``Meteor (chnk)`` otherwise."""
    name = DISPLAY_NAMES.get(metric.lower(), metric)
    if metric.lower() in STRUCTURED_TOOLS:
        return name if variant in DEFAULT_VARIANTS else f"'{variant}' {name}"
    if not variant:
        return name
    if name.endswith(")"):
        return f"{name[:-1]}, {variant})"
    return f"{name} ({variant})"


def source_categories(corr: pd.DataFrame) -> pd.Series:
    """Kind of each (metric, variant, config) source of a correlation table, per row.

    DTED and DERP are their own kinds; WMT scores, permutation degree, aligned share and
    Kendall's tau are "other evaluation methods"; any other tool is a third-party metric, "full"
    if it scores every judged item wherever it is correlated, else "partial" (Table 7.1's).
    """
    metric = corr[C.METRIC].astype(str).str.lower()
    keys = [corr[c] for c in correlation.SOURCE]
    complete = corr["coverage"].groupby(keys).transform("min") >= 1 - 1e-9
    kinds = np.where(complete, "full", "partial").astype(object)
    kinds[metric.str.startswith(OTHER_METHODS).to_numpy()] = "other"
    for name, kind in STRUCTURED_TOOLS.items():
        kinds[(metric == name).to_numpy()] = kind
    return pd.Series(kinds, index=corr.index, name="category")


def bar_table(
    corr: pd.DataFrame,
    *,
    panel: str,
    categories: Iterable[str],
    judgments: Sequence[str] = (C.ORDER,),
    groups: Sequence[str] = (C.HYPOTHESIS,),
    adjusted: bool = True,
) -> pd.DataFrame:
    """The rows of a correlation table one bar chart shows, in :data:`figures.BAR_COLUMNS`.

    ``panel`` is the column splitting panels (``judgment`` or ``group``). Adjusted rows show
    adjusted correlations with significance judged on unadjusted scores, as in the thesis.
    """
    if corr.empty:
        return pd.DataFrame(columns=list(F.BAR_COLUMNS))
    chosen = corr[
        corr["judgment"].isin(judgments)
        & corr[C.GROUP].isin(groups)
        & (corr["adjusted"] == adjusted)
        & corr["category"].isin(list(categories))
    ]
    return pd.DataFrame(
        {
            "panel": chosen[panel],
            "label": [
                source_label(m, v) for m, v in zip(chosen[C.METRIC], chosen[C.VARIANT], strict=True)
            ],
            "category": chosen["category"],
            "config": chosen[C.CONFIG],
            # Bars compare agreement with the participants: a lower-is-better source's sign
            # is flipped (the tables keep the raw sign).
            "rho": chosen[hypotheses.compared(chosen)],
            "significant": chosen["significant"].astype(bool),
        }
    ).reset_index(drop=True)
