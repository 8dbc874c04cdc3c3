"""The correlations again in subsets of participants (§7.3.5, Appendix B)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from wojdb.core.report.model import Section, Table
from wojdb.core.report.sources import source_label
from wojdb.core.stats import columns as C
from wojdb.core.stats import correlation


def subset_overview(subsets: pd.DataFrame) -> pd.DataFrame:
    """Per source, rho on hypotheses in each participant subset, for order and holistic
    judgments: adjusted scores where the table has them."""
    if subsets.empty:
        return pd.DataFrame()
    part = subsets[
        (subsets[C.GROUP] == C.HYPOTHESIS) & subsets["adjusted"].eq(subsets["adjusted"].any())
    ]
    labels = [source_label(m, v) for m, v in zip(part[C.METRIC], part[C.VARIANT], strict=True)]
    part = part.assign(
        source=[
            f"{label} [{c}]" if c else label
            for label, c in zip(labels, part[C.CONFIG], strict=True)
        ],
        column=part["subset"] + " (" + part["participants"].astype(str) + "): " + part["judgment"],
    )
    table = part.pivot_table(
        index="source", columns="column", values="r", aggfunc="first", sort=False
    )
    return table.reset_index()


def subsets_section(
    adjusted: pd.DataFrame,
    scores: correlation.Sources,
    subsets: Mapping[str, str],
    seed: int,
    use_adjusted: bool,
) -> Section:
    which = "adjusted" if use_adjusted else "unadjusted (no adjustment could be estimated)"
    section = Section(
        "subsets",
        "Participant subsets",
        [
            "The correlations again for subsets of participants (§7.3.5, Appendix B), on "
            f"{which} scores; the number of participants in each subset is in brackets. The "
            "thesis checked that the trends of the whole pool hold in every subset."
        ],
    )
    table = correlation.subset_correlations(
        adjusted, scores, subsets, adjusted=(use_adjusted,), n_boot=0, seed=seed
    )
    section.tables += [
        Table("subset_correlations", "All subset correlations", table, show=False),
        Table("subsets", "Spearman's ρ on WMT hypotheses per subset", subset_overview(table)),
    ]
    return section
