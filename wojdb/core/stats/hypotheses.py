"""Table 7.4: the thesis's hypotheses decided from a correlation table (§7.1).

Definitions (§7.1.1): a *tool* is a metric variant (a set of flags); its *configurations* are
the third-party tools it ran with (``config``). Tool T "is more reliable" than U only if every
configuration of T correlates better than every configuration of U: min(T) > max(U). T is "at
least as accurate" as U if the ranges overlap or T is above: max(T) >= min(U). The configuration
threshold is one standard deviation of all correlations of structured (not flattened) variants
of the study's own tools (0.122 in the thesis). Flattened variants carry an ``f`` prefix and
correspond to the variant without it (``fc`` -> ``c``; DERP ``f`` -> the default ``""``).

For H^ORD the thesis's wording and its results disagree on direction; this follows Table 7.4's
results ("order correlations overlap with or are better than holistic"): order at least as
accurate as holistic. "Better" and "below the threshold" are decided on the unrounded numbers but
need a margin of at least TIE: a null hypothesis is never rejected on a difference the report
prints as 0.000.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from wojdb.core.stats import columns as col

DTED, DERP = "DTED", "DERP"
#: A difference in r below this prints as 0.000 in the report: a tie, never grounds for "better".
TIE = 0.0005
#: Sources that are not evaluation tools: human WMT scores and the permutation degree.
NOT_TOOLS = ("WMT", "Permutation degree")


def compared(correlations: pd.DataFrame) -> str:
    """The coefficient compared: orientation-corrected r where the table has it.

    A lower-is-better source such as TER agrees with the participants when its r is negative;
    comparing raw r would make it look worst for the wrong reason.
    """
    return "r_oriented" if "r_oriented" in correlations.columns else "r"


def tool_ranges(correlations: pd.DataFrame) -> pd.DataFrame:
    """Per (metric, variant): lowest and highest r over its configurations, and how many."""
    grouped = correlations.groupby([col.METRIC, col.VARIANT], sort=True)[compared(correlations)]
    return grouped.agg(low="min", high="max", configs="count").reset_index()


def _label(metric: str, variant: str) -> str:
    return f"'{variant}' {metric}" if variant else metric


#: Names of a tool's plain structured variant, whose flattened form is "f" (DERP's).
PLAIN_VARIANTS = ("", "structured")


def flattened_counterpart(variant: str) -> str | None:
    """The structured variant a flattened one corresponds to, or None if not flattened."""
    return variant[1:] if variant.startswith("f") else None


def _structured_names(counterpart: str) -> tuple[str, ...]:
    return (counterpart,) if counterpart else PLAIN_VARIANTS


def _select(table: pd.DataFrame, judgment: str, group: str, adjusted: bool) -> pd.DataFrame:
    chosen = table[
        (table["judgment"] == judgment)
        & (table[col.GROUP] == group)
        & (table["adjusted"] == adjusted)
    ]
    return chosen.dropna(subset=[compared(chosen)])


def configuration_threshold(correlations: pd.DataFrame, own: Sequence[str] = (DTED, DERP)) -> float:
    """Sample SD of every correlation of a structured variant of the own tools."""
    mine = correlations[correlations[col.METRIC].isin(own)]
    structured = mine[mine[col.VARIANT].map(flattened_counterpart).isna()]
    return float(structured[compared(structured)].std(ddof=1))


def hypotheses_table(
    correlations: pd.DataFrame,
    group: str = col.HYPOTHESIS,
    adjusted: bool = True,
    dted: str = DTED,
    derp: str = DERP,
    baselines: Sequence[str] | None = None,
    threshold: float | None = None,
) -> tuple[pd.DataFrame, float]:
    """Table 7.4 from correlation_table() output, and the configuration threshold used.

    ``dted`` and ``derp`` name the study's own tools (H^DD asks whether the second beats the
    first).
    ``baselines`` names the metrics the own tools must beat; by default every other source
    scoring all the group's items (the thesis left out partially-covered WMT metrics), except
    the human WMT score and the permutation degree. Columns: hypothesis, null_rejected, result.
    """
    own = (dted, derp)
    order = _select(correlations, col.ORDER, group, adjusted)
    holistic = _select(correlations, col.HOLISTIC, group, adjusted)
    if baselines is None:
        full = order[(order["coverage"] >= 1) & ~order[col.METRIC].isin([*own, *NOT_TOOLS])]
        baselines = sorted(full[col.METRIC].unique())
    ranges = tool_ranges(order)
    mine = ranges[ranges[col.METRIC].isin(own)]
    rival = ranges[ranges[col.METRIC].isin(baselines)]
    if threshold is None:
        threshold = configuration_threshold(order, own)

    def beats_all(tool, others) -> bool:
        return bool(len(others)) and bool((tool.low - others["high"] >= TIE).all())

    def winners(metrics) -> list[str]:
        return [
            _label(t.metric, t.variant)
            for t in mine[mine[col.METRIC].isin(metrics)].itertuples()
            if beats_all(t, rival)
        ]

    def structured_pairs():
        for flat in mine.itertuples():
            counterpart = flattened_counterpart(flat.variant)
            if counterpart is None:
                continue
            names = _structured_names(counterpart)
            match = mine[(mine[col.METRIC] == flat.metric) & mine[col.VARIANT].isin(names)]
            if len(match):
                yield next(match.itertuples()), flat

    pairs = list(structured_pairs())
    struct_wins = [_label(s.metric, s.variant) for s, f in pairs if s.low - f.high >= TIE]
    holistic_ranges = tool_ranges(holistic).set_index([col.METRIC, col.VARIANT])
    ord_ok = [
        _label(t.metric, t.variant)
        for t in mine.itertuples()
        if (t.metric, t.variant) in holistic_ranges.index
        and t.high >= holistic_ranges.loc[(t.metric, t.variant), "low"]
    ]
    derp_over_dted = [
        _label(t.metric, t.variant)
        for t in mine[mine[col.METRIC] == derp].itertuples()
        if beats_all(t, mine[mine[col.METRIC] == dted])
    ]
    spread = (mine["high"] - mine["low"]).max() if len(mine) else np.nan

    def listed(names: list[str], none: str) -> str:
        return ", ".join(names) if names else none

    rows = [
        ("EVAL", bool(winners(own)), listed(winners(own), "no variant beats every baseline")),
        (
            "STRUC",
            bool(struct_wins),
            listed(struct_wins, "no structured variant beats its flattened one"),
        ),
        (
            "ORD",
            bool(ord_ok),
            listed(ord_ok, "no variant predicts order as well as holistic adequacy"),
        ),
        (
            f"{dted} EVAL",
            bool(winners([dted])),
            listed(winners([dted]), "no variant beats every baseline"),
        ),
        (
            f"{derp} EVAL",
            bool(winners([derp])),
            listed(winners([derp]), "no variant beats every baseline"),
        ),
        (
            "DD EVAL",
            bool(derp_over_dted),
            listed(derp_over_dted, f"no {derp} variant beats every {dted} variant"),
        ),
        (
            "CONF EVAL",
            bool(threshold - spread >= TIE),
            f"configuration changes r by up to {spread:.3f} (threshold {threshold:.3f})",
        ),
        (
            "ALL STRUC",
            bool(pairs) and len(struct_wins) == len(pairs),
            f"{len(struct_wins)}/{len(pairs)} structured variants beat their flattened ones",
        ),
        (
            "ALL ORD",
            bool(len(mine)) and len(ord_ok) == len(mine),
            f"{len(ord_ok)}/{len(mine)} variants predict order at least as well as holistic",
        ),
    ]
    table = pd.DataFrame(rows, columns=["hypothesis", "null_rejected", "result"])
    return table, threshold


#: Columns of :func:`decisions`.
DECISION_COLUMNS = ("adjustment", "hypothesis", "null_rejected", "result", "threshold")


def decisions(
    correlations: Mapping[str, pd.DataFrame], dted: str = DTED, derp: str = DERP
) -> pd.DataFrame:
    """Table 7.4 decided once per adjustment of the scores, in :data:`DECISION_COLUMNS`.

    ``correlations`` maps the name of an adjustment (``linear``, ``ordinal``) to its
    correlation table; each is decided by :func:`hypotheses_table` with its own configuration
    threshold, which the ``threshold`` column gives.
    """
    frames = []
    for adjustment, table in correlations.items():
        decided, threshold = hypotheses_table(table, dted=dted, derp=derp)
        frames.append(decided.assign(adjustment=adjustment, threshold=threshold))
    return pd.concat(frames, ignore_index=True)[list(DECISION_COLUMNS)]
