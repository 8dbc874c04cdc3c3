"""Correlations with the score sources, Table 7.1 and the bar charts of Figures 7.3-7.8."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from wojdb.core.report import figures as F
from wojdb.core.report.model import FigureEntry, Section, Table
from wojdb.core.report.sources import bar_table, source_categories, source_label
from wojdb.core.stats import columns as C
from wojdb.core.stats import correlation
from wojdb.core.vocabulary import PERMUTATION_TYPES


def correlation_overview(corr: pd.DataFrame, group: str) -> pd.DataFrame:
    """One row per source for a sentence group: the key columns first (source, then adjusted
    rho and significance per judgment, order first as the thesis's figures put it), then
    category, n, orientation and the unadjusted rho, which a narrow screen scrolls to. A table
    without adjusted rows (no adjustment could be estimated) has no adjusted columns."""
    part = corr[corr[C.GROUP] == group]
    if part.empty:
        return pd.DataFrame()
    keys = [*correlation.SOURCE, "category"]
    rows = part.groupby(keys, sort=False)
    table = rows["n"].max().rename("n").to_frame()
    if "higher_is_better" in part.columns:
        table["higher is better"] = rows["higher_is_better"].first()
    present = [
        (a, n)
        for a, n in ((True, "adjusted"), (False, "unadjusted"))
        if (part["adjusted"] == a).any()
    ]
    # Indexed by source once; each judgment and adjustment takes its rows by position.
    indexed = part.set_index(keys)
    judgments, adjusted = part["judgment"].to_numpy(), part["adjusted"].to_numpy()
    for judgment in (C.ORDER, C.HOLISTIC):
        for is_adjusted, name in present:
            chosen = indexed[(judgments == judgment) & (adjusted == is_adjusted)]
            table[f"{judgment} ρ {name}"] = chosen["r"]
        # Every row carries the significance of the unadjusted scores.
        chosen = indexed[(judgments == judgment) & (adjusted == present[0][0])]
        table[f"{judgment} significant"] = chosen["significant"]
    table = table.reset_index()
    labels = [source_label(m, v) for m, v in zip(table[C.METRIC], table[C.VARIANT], strict=True)]
    table.insert(0, "source", labels)
    unused = [C.CONFIG] if (table[C.CONFIG] == "").all() else []
    table = table.drop(columns=[C.METRIC, C.VARIANT, *unused])
    key = [c for c in table.columns if c in ("source", C.CONFIG)]
    first = f"ρ {present[0][1]}"
    key += [f"{j} {what}" for j in (C.ORDER, C.HOLISTIC) for what in (first, "significant")]
    return table[key + [c for c in table.columns if c not in key]]


FIGURE_SPECS = (
    # name, title, bar_table options, panel titles
    (
        "figure_7_3",
        "Figure 7.3: correlations with baseline techniques (adjusted scores)",
        dict(panel="judgment", categories=("other", "full"), judgments=(C.ORDER, C.HOLISTIC)),
    ),
    (
        "figure_7_4",
        "Figure 7.4: correlations with baseline techniques, without adjustment for random effects",
        dict(
            panel="judgment",
            categories=("other", "full"),
            judgments=(C.ORDER, C.HOLISTIC),
            adjusted=False,
        ),
    ),
    (
        "figure_7_5",
        "Figure 7.5: word-order judgments and metrics submitted to WMT",
        dict(panel="judgment", categories=("full", "partial")),
    ),
    (
        "figure_7_6",
        "Figure 7.6: word-order judgments and variants of DTED and DERP",
        dict(panel="judgment", categories=("full", "dted", "derp")),
    ),
    (
        "figure_7_7",
        "Figure 7.7: word-order judgments across automatically permuted sentences",
        dict(panel="group", categories=tuple(F.CATEGORIES), groups=PERMUTATION_TYPES),
    ),
    (
        "figure_7_8",
        "Figure 7.8: order-focused and holistic judgments and variants of DTED and DERP",
        dict(
            panel="judgment", categories=("full", "dted", "derp"), judgments=(C.ORDER, C.HOLISTIC)
        ),
    ),
)
#: A figure of DTED/DERP variants is drawn only when some such source was scored.
NEEDS = {"figure_7_5": "partial", "figure_7_6": ("dted", "derp"), "figure_7_8": ("dted", "derp")}

BAR_CAPTION = (
    "Spearman's ρ per score source{adjusted}, with the sign of lower-is-better sources such as "
    "TER flipped. A bar reaches the highest correlation among a "
    "source's configurations, each marked; * marks sources whose correlations are all "
    "significant at the 0.05 level (tested on unadjusted scores). Colours as the thesis's "
    "Table 7.2: purple other evaluation methods, green third-party metrics scoring every "
    "sentence, blue those scoring some, yellow DTED, vermillion DERP."
)


def _correlation_figures(
    corr: pd.DataFrame, use_adjusted: bool
) -> tuple[list[FigureEntry], list[str]]:
    """The bar charts; without adjusted scores, the figures of adjusted correlations show the
    unadjusted ones and say so, and Figure 7.4 (the unadjusted copy of 7.3) is left out."""
    figures, notes = [], []
    for name, title, options in FIGURE_SPECS:
        needed = NEEDS.get(name)
        number = title.split(":")[0]
        if needed and not corr["category"].isin(np.atleast_1d(needed)).any():
            what = "partial-coverage WMT metric" if needed == "partial" else "DTED or DERP"
            notes.append(f"{number} not drawn: no {what} scores were correlated.")
            continue
        adjusted = options.get("adjusted", True)
        if not use_adjusted:
            if not adjusted:
                notes.append(f"{number} not drawn: without adjusted scores it is Figure 7.3.")
                continue
            adjusted = False
            title = title.replace(" (adjusted scores)", " (unadjusted scores)")
        bars = bar_table(corr, **{**options, "adjusted": adjusted})
        if bars.empty:
            notes.append(f"{number} not drawn: no correlations to show.")
            continue
        caption = BAR_CAPTION.format(
            adjusted=", adjusted for participants' random effects"
            if adjusted
            else ", unadjusted"
            + ("" if use_adjusted else " (no participant adjustment could be estimated)")
        )
        if options["panel"] == "judgment":
            panels, titles = options.get("judgments", (C.ORDER,)), F.JUDGMENT_TITLES
            caption = "WMT hypotheses. " + caption
        else:
            panels = [g for g in options["groups"] if g in set(bars["panel"])]
            titles = F.TYPE_TITLES
        heading = None if options["panel"] == "judgment" else "Permutation type"
        chart = partial(F.correlation_bars, bars, panels=panels, panel_titles=titles, title=heading)
        figures.append(FigureEntry(name, title, chart, caption))
    return figures, notes


def correlation_section(
    adjusted: pd.DataFrame,
    scores: correlation.Sources,
    draw: bool,
    n_boot: int,
    seed: int,
    use_adjusted: bool,
    replicates: correlation.Replicates,
) -> tuple[Section, pd.DataFrame]:
    section = Section(
        "correlations",
        "Correlations with score sources",
        [
            "Spearman's ρ between each score source and the participants' judgments averaged per "
            "item, for WMT hypotheses and for each permutation type (§7.2.2–7.3.4). Correlations "
            "use adjusted scores; significance is tested on unadjusted ones, as in the thesis. "
            f"Sources scoring fewer than {correlation.MIN_ITEMS} judged items are left out; "
            "intervals are 95% percentile bootstraps over items. Tables keep each coefficient's "
            "sign, as in the thesis: a source where lower is better, such as TER, agrees with "
            "the participants when its ρ is negative (column 'higher is better'). Figures and "
            "Table 7.4 compare orientation-corrected coefficients, with that sign flipped."
        ],
    )
    corr = correlation.correlation_table(
        adjusted,
        scores,
        adjusted=(True, False) if use_adjusted else (False,),
        n_boot=n_boot,
        seed=seed,
        replicates=replicates,
    )
    if corr.empty:
        section.notes.append(
            f"No correlations: no score source scores {correlation.MIN_ITEMS} or more judged items."
        )
        return section, corr
    corr = corr.assign(category=source_categories(corr))
    # Table 7.1 lists third-party metrics; the WMT human score and the degree are not metrics.
    partial = corr.loc[corr["category"] == "partial", C.METRIC].unique()
    coverage = correlation.coverage_table(adjusted, scores, metrics=partial, adjusted=use_adjusted)
    section.tables.append(
        Table(
            "correlations",
            "All correlations",
            corr,
            "Every judgment × adjustment × sentence group × source.",
            show=False,
        )
    )
    for group in corr[C.GROUP].unique():
        section.tables.append(
            Table(
                f"correlations_{group}",
                f"Correlations: {F.GROUP_TITLES.get(group, group)}",
                correlation_overview(corr, group),
            )
        )
    section.tables.append(
        Table(
            "table_7_1",
            "Table 7.1: score sources that score only some WMT hypotheses",
            coverage,
            "Count and share (%) of the judged hypotheses each source scores; ρ with "
            f"{'adjusted' if use_adjusted else 'unadjusted'} order judgments; significance "
            "(p < 0.05) tested on unadjusted scores.",
        )
    )
    if draw:
        figures, notes = _correlation_figures(corr, use_adjusted)
        section.figures += figures
        section.notes += notes
    return section, corr
