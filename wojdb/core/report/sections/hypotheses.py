"""The thesis's hypotheses (Table 7.4) and Williams's tests."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from wojdb.core.report.model import Section, Table
from wojdb.core.stats import columns as C
from wojdb.core.stats import correlation, hypotheses

TABLE_7_4_CAPTION = (
    "Each hypothesis is decided on the linear model's adjustment, as in the thesis, and on the "
    "ordinal model's, each with its own configuration threshold (one standard deviation of all "
    "correlations of structured DTED and DERP variants; 0.122 in the thesis). The thesis's rule "
    "compares point estimates; the second decision needs the 95% bootstrap interval of the same "
    "comparison (redone on every resample of the items) to clear the margin: 'margin' is by "
    "how much the claim holds for the decisive variant (positive: it holds), with that "
    "interval. 'No interval' means a source it compares scores only some items, so its "
    "resamples are not paired. A hypothesis is not testable without adjusted scores, without "
    "the sources it compares, with one configuration per tool (CONF EVAL), or when no "
    "correlation of the tools it is about is significant."
)


def decision_table(decided: pd.DataFrame) -> pd.DataFrame:
    """Table 7.4 as the report shows it: decisions in words where there is none to give."""

    def cell(value, testable: bool):
        if not testable:
            return hypotheses.NOT_TESTABLE
        return "no interval" if value is None or pd.isna(value) else bool(value)

    testable = decided["testable"].astype(bool)
    return pd.DataFrame(
        {
            "adjustment": decided["adjustment"],
            "hypothesis": decided["hypothesis"],
            "H₀ rejected: thesis's rule": [
                cell(v, t) for v, t in zip(decided["thesis_rule"], testable, strict=True)
            ],
            "H₀ rejected: 95% interval clears": [
                cell(v, t) for v, t in zip(decided["interval_rule"], testable, strict=True)
            ],
            "result": decided["result"],
            "margin": decided["margin"],
            "margin 2.5%": decided["margin_low"],
            "margin 97.5%": decided["margin_high"],
            "threshold": decided["threshold"],
        }
    )


def hypotheses_section(
    corr: pd.DataFrame,
    adjusted: pd.DataFrame,
    scores: correlation.Sources,
    adjustments: Mapping[str, hypotheses.Adjustment],
    use_adjusted: bool,
) -> Section:
    section = Section(
        "hypotheses",
        "Hypotheses",
        [
            "The thesis's hypotheses (§7.1, Table 7.4), decided from the ranges of adjusted "
            "order correlations on WMT hypotheses over each tool's configurations: a tool is "
            "more reliable than another only if every configuration beats every configuration "
            "of the other. Williams's test compares pairs of sources on the same items. "
            "Each hypothesis is decided twice: on scores adjusted by the linear model, as in "
            "the thesis, and on scores adjusted by the ordinal model; and each by the thesis's "
            "rule and by the rule that needs the bootstrap interval to clear it."
        ],
    )
    # The metric names as stored (the registry writes them in lower case).
    names = {m.lower(): m for m in corr[C.METRIC].unique()}
    dted = names.get("dted", hypotheses.DTED)
    derp = names.get("derp", hypotheses.DERP)
    if not corr[C.METRIC].isin([dted, derp]).any():
        section.notes.append("Table 7.4 not computed: no DTED or DERP scores were correlated.")
    else:
        decided = hypotheses.decisions(adjustments, dted=dted, derp=derp)
        section.tables.append(
            Table("table_7_4", "Table 7.4: hypotheses", decision_table(decided), TABLE_7_4_CAPTION)
        )
    pairs = correlation.williams_table(adjusted, scores, adjusted=use_adjusted)
    section.tables.append(
        Table(
            "williams",
            "Williams's test for every pair of sources (order, WMT hypotheses)",
            pairs,
            show=False,
        )
    )
    return section
