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

Each hypothesis is decided twice. The thesis's rule compares the point estimates. The second
decision needs the 95% percentile bootstrap interval of the same comparison to clear it: the
comparison is made again on every resample of the items (`correlation.Replicates`, one set of
resamples for every source, so the comparison keeps its pairing), and the interval's lower end
must reach the margin the rule needs (its upper end the threshold, for CONF EVAL).

A hypothesis that cannot be tested says so, and why: without adjusted scores (too few
participants for the participant model), without the tools or baselines it compares, with
every tool in one configuration (CONF EVAL), or when no correlation of the tools it is about is
significant (``significant``: p < 0.05 on unadjusted scores, as the thesis judges it), since
ranking correlations that cannot be told from none decides nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wojdb.core.stats import columns as col
from wojdb.core.stats.correlation import Replicates, percentile_interval

DTED, DERP = "DTED", "DERP"
#: A difference in r below this prints as 0.000 in the report: a tie, never grounds for "better".
TIE = 0.0005
#: Sources that are not evaluation tools: human WMT scores and the permutation degree.
NOT_TOOLS = ("WMT", "Permutation degree")
NOT_TESTABLE = "not testable"


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


#: Columns of :func:`hypotheses_table`: the hypothesis; whether it could be tested; H0 rejected
#: by the thesis's rule and by the 95% interval (None when not testable, or for the interval,
#: without paired replicates); what decided it in words; the decisive margin (by how much the
#: claim holds: positive passes) and its 95% bootstrap interval.
HYPOTHESIS_COLUMNS = (
    "hypothesis",
    "testable",
    "thesis_rule",
    "interval_rule",
    "result",
    "margin",
    "margin_low",
    "margin_high",
)


@dataclass(frozen=True)
class _Comparison:
    """One claim of a hypothesis about one tool (or pair): its margin, positive when it holds,
    and the margin on every resample (None without paired replicates)."""

    label: str
    margin: float
    replicated: np.ndarray | None
    needed: float  # the margin the claim needs: TIE, or 0 for "at least as accurate"

    @property
    def passes(self) -> bool:
        return bool(self.margin >= self.needed)

    @property
    def interval(self) -> tuple[float, float]:
        if self.replicated is None:
            return np.nan, np.nan
        return percentile_interval(self.replicated)

    @property
    def clears(self) -> bool | None:
        low = self.interval[0]
        return None if np.isnan(low) else bool(low >= self.needed)


def _decided(name: str, comparisons: list[_Comparison], every: bool, result: str) -> dict:
    """A hypothesis's row: rejected when some claim holds (``every``: all of them), by the
    point estimates and by the intervals; the margin shown is the best claim's (``every``: the
    worst one's)."""
    passes = [c.passes for c in comparisons]
    clears = [c.clears for c in comparisons]
    if every:
        thesis = bool(comparisons) and all(passes)
        interval = False if False in clears else (None if None in clears else bool(comparisons))
    else:
        thesis = any(passes)
        interval = True if True in clears else (None if None in clears else False)

    def rank(c: _Comparison) -> float:
        low = c.interval[0]
        return c.margin if np.isnan(low) else low

    shown = (min if every else max)(comparisons, key=rank) if comparisons else None
    low, high = shown.interval if shown else (np.nan, np.nan)
    return {
        "hypothesis": name,
        "testable": True,
        "thesis_rule": thesis,
        "interval_rule": interval,
        "result": result,
        "margin": shown.margin if shown else np.nan,
        "margin_low": low,
        "margin_high": high,
    }


def _untestable(name: str, why: str) -> dict:
    return {
        "hypothesis": name,
        "testable": False,
        "thesis_rule": None,
        "interval_rule": None,
        "result": f"{NOT_TESTABLE}: {why}",
        "margin": np.nan,
        "margin_low": np.nan,
        "margin_high": np.nan,
    }


def hypotheses_table(
    correlations: pd.DataFrame,
    group: str = col.HYPOTHESIS,
    adjusted: bool = True,
    dted: str = DTED,
    derp: str = DERP,
    baselines: Sequence[str] | None = None,
    threshold: float | None = None,
    replicates: Replicates | None = None,
) -> tuple[pd.DataFrame, float]:
    """Table 7.4 from correlation_table() output, and the configuration threshold used.

    ``dted`` and ``derp`` name the study's own tools (H^DD asks whether the second beats the
    first).
    ``baselines`` names the metrics the own tools must beat; by default every other source
    scoring all the group's items (the thesis left out partially-covered WMT metrics), except
    the human WMT score and the permutation degree. ``replicates`` (filled by
    correlation_table) gives the intervals; without it every ``interval_rule`` is None.
    Columns: :data:`HYPOTHESIS_COLUMNS`.
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
    order_rows = _Rows(order, col.ORDER, adjusted, group)
    holistic_rows = _Rows(holistic, col.HOLISTIC, adjusted, group)

    def boot(*sides: list[tuple]) -> list[np.ndarray] | None:
        """Each side's replicates (resamples x rows), or None unless all are paired."""
        everything = [key for side in sides for key in side]
        if replicates is None or not everything or not replicates.paired(everything):
            return None
        return [np.column_stack([replicates.values[key] for key in side]) for side in sides]

    def beats(name: str, tool: pd.DataFrame, others: pd.DataFrame) -> _Comparison:
        """min(tool) - max(others), over the order rows of both."""
        ours, theirs = order_rows.of(tool), order_rows.of(others)
        margin = order_rows.low(ours) - order_rows.high(theirs)
        sides = boot(order_rows.keys(ours), order_rows.keys(theirs))
        replicated = None if sides is None else sides[0].min(1) - sides[1].max(1)
        return _Comparison(name, margin, replicated, TIE)

    def significant(tools: pd.DataFrame) -> bool:
        return bool(order_rows.significant[order_rows.of(tools)].any())

    def tools_of(metrics) -> pd.DataFrame:
        return mine[mine[col.METRIC].isin(list(metrics))]

    def names(metrics) -> str:
        return " or ".join(metrics)

    none_significant = "no correlation of {} with the order judgments is significant"
    out: dict[str, dict] = {}

    # EVAL, <DTED> EVAL, <DERP> EVAL: some variant beats every baseline.
    for name, metrics in (("EVAL", own), (f"{dted} EVAL", (dted,)), (f"{derp} EVAL", (derp,))):
        tools = tools_of(metrics)
        if tools.empty:
            out[name] = _untestable(name, f"no {names(metrics)} correlations")
        elif rival.empty:
            out[name] = _untestable(name, "no baseline scores every item of the group")
        elif not significant(tools):
            out[name] = _untestable(name, none_significant.format(names(metrics)))
        else:
            claims = [beats(_label(m, v), tools.loc[[i]], rival) for i, m, v in _tools(tools)]
            winners = ", ".join(c.label for c in claims if c.passes)
            out[name] = _decided(name, claims, False, winners or "no variant beats every baseline")

    # STRUC, ALL STRUC: structured variants beat their flattened ones.
    pairs = []
    for i, metric, variant in _tools(mine):
        counterpart = flattened_counterpart(variant)
        if counterpart is None:
            continue
        same = (mine[col.METRIC] == metric) & mine[col.VARIANT].isin(_structured_names(counterpart))
        if same.any():
            pairs.append((mine[same].iloc[[0]], mine.loc[[i]]))
    structured = pd.concat([s for s, _ in pairs]) if pairs else mine.iloc[:0]
    why = (
        "no flattened variant has its structured one"
        if not pairs
        else None
        if significant(structured)
        else none_significant.format("a structured variant")
    )
    if why:
        for name in ("STRUC", "ALL STRUC"):
            out[name] = _untestable(name, why)
    else:
        claims = [beats(_label(m, v), s, f) for s, f in pairs for _, m, v in _tools(s)]
        wins = [c.label for c in claims if c.passes]
        out["STRUC"] = _decided(
            "STRUC",
            claims,
            False,
            ", ".join(wins) or "no structured variant beats its flattened one",
        )
        out["ALL STRUC"] = _decided(
            "ALL STRUC",
            claims,
            True,
            f"{len(wins)}/{len(claims)} structured variants beat their flattened ones",
        )

    # ORD, ALL ORD: order correlations at least as high as holistic ones, per variant.
    holistic_tools = set(zip(holistic[col.METRIC], holistic[col.VARIANT], strict=True))
    paired_tools = [(i, m, v) for i, m, v in _tools(mine) if (m, v) in holistic_tools]
    why = (
        f"no holistic correlations of {names(own)}"
        if not paired_tools
        else None
        if significant(mine)
        else none_significant.format(names(own))
    )
    if why:
        for name in ("ORD", "ALL ORD"):
            out[name] = _untestable(name, why)
    else:
        claims = []
        for i, metric, variant in paired_tools:
            ours, theirs = order_rows.of(mine.loc[[i]]), holistic_rows.of(mine.loc[[i]])
            sides = boot(order_rows.keys(ours), holistic_rows.keys(theirs))
            claims.append(
                _Comparison(
                    _label(metric, variant),
                    order_rows.high(ours) - holistic_rows.low(theirs),
                    None if sides is None else sides[0].max(1) - sides[1].min(1),
                    0.0,
                )
            )
        fine = [c.label for c in claims if c.passes]
        out["ORD"] = _decided(
            "ORD",
            claims,
            False,
            ", ".join(fine) or "no variant predicts order as well as holistic adequacy",
        )
        out["ALL ORD"] = _decided(
            "ALL ORD",
            claims,
            True,
            f"{len(fine)}/{len(mine)} variants predict order at least as well as holistic",
        )
        if len(paired_tools) < len(mine):  # a variant without holistic correlations fails it
            out["ALL ORD"].update(thesis_rule=False, interval_rule=False)

    # DD EVAL: some DERP variant beats every DTED variant.
    derps, dteds = tools_of([derp]), tools_of([dted])
    if derps.empty or dteds.empty:
        out["DD EVAL"] = _untestable("DD EVAL", f"it needs both {dted} and {derp} correlations")
    elif not significant(derps):
        out["DD EVAL"] = _untestable("DD EVAL", none_significant.format(derp))
    else:
        claims = [beats(_label(m, v), derps.loc[[i]], dteds) for i, m, v in _tools(derps)]
        wins = ", ".join(c.label for c in claims if c.passes)
        out["DD EVAL"] = _decided(
            "DD EVAL", claims, False, wins or f"no {derp} variant beats every {dted} variant"
        )

    # CONF EVAL: no tool's configurations spread its r by the threshold or more.
    several = mine[mine["configs"] > 1]
    if several.empty:
        out["CONF EVAL"] = _untestable(
            "CONF EVAL", f"every {names(own)} variant ran in one configuration: nothing to compare"
        )
    elif not np.isfinite(threshold):
        out["CONF EVAL"] = _untestable(
            "CONF EVAL", "the threshold needs two or more correlations of structured variants"
        )
    elif not significant(mine):
        out["CONF EVAL"] = _untestable("CONF EVAL", none_significant.format(names(own)))
    else:
        claims = []
        for i, metric, variant in _tools(several):
            sides = boot(order_rows.keys(order_rows.of(several.loc[[i]])))
            tool = several.loc[i]
            claims.append(
                _Comparison(
                    _label(metric, variant),
                    threshold - (tool["high"] - tool["low"]),
                    None if sides is None else threshold - (sides[0].max(1) - sides[0].min(1)),
                    TIE,
                )
            )
        spread = (several["high"] - several["low"]).max()
        out["CONF EVAL"] = _decided(
            "CONF EVAL",
            claims,
            True,
            f"configuration changes r by up to {spread:.3f} (threshold {threshold:.3f})",
        )

    names_in_order = [h.format(dted=dted, derp=derp) for h in HYPOTHESES]
    table = pd.DataFrame([out[name] for name in names_in_order], columns=list(HYPOTHESIS_COLUMNS))
    return table, threshold


class _Rows:
    """One judgment's rows of a correlation table (from ``_select``) as plain arrays, found by
    tool: Table 7.4 asks for the rows of one tool or another some hundred times."""

    def __init__(self, table: pd.DataFrame, judgment: str, adjusted: bool, group: str):
        self.r = table[compared(table)].to_numpy()
        self.significant = table["significant"].astype(bool).to_numpy()
        sources = zip(table[col.METRIC], table[col.VARIANT], table[col.CONFIG], strict=True)
        self.sources = [(judgment, adjusted, group, *source) for source in sources]

    def of(self, tools: pd.DataFrame) -> np.ndarray:
        """Positions of the rows of the tools (metric, variant) in ``tools``, in table order."""
        wanted = set(zip(tools[col.METRIC], tools[col.VARIANT], strict=True))
        found = [i for i, key in enumerate(self.sources) if key[3:5] in wanted]
        return np.array(found, dtype=np.intp)

    def keys(self, rows: np.ndarray) -> list[tuple]:
        """The rows' keys in `Replicates`."""
        return [self.sources[i] for i in rows]

    def low(self, rows: np.ndarray) -> float:
        return self.r[rows].min() if len(rows) else np.nan

    def high(self, rows: np.ndarray) -> float:
        return self.r[rows].max() if len(rows) else np.nan


def _tools(tools: pd.DataFrame):
    """(index, metric, variant) of each row of a tool_ranges() frame."""
    return zip(tools.index, tools[col.METRIC], tools[col.VARIANT], strict=True)


#: Table 7.4's hypotheses, in its order; {dted} and {derp} name the study's own tools.
HYPOTHESES = (
    "EVAL",
    "STRUC",
    "ORD",
    "{dted} EVAL",
    "{derp} EVAL",
    "DD EVAL",
    "CONF EVAL",
    "ALL STRUC",
    "ALL ORD",
)


@dataclass(frozen=True)
class Adjustment:
    """One adjustment's correlations for Table 7.4, or why there are none (``missing``)."""

    correlations: pd.DataFrame | None = None
    replicates: Replicates | None = None
    missing: str = ""


#: Columns of :func:`decisions`.
DECISION_COLUMNS = ("adjustment", *HYPOTHESIS_COLUMNS, "threshold")


def decisions(
    adjustments: Mapping[str, Adjustment], dted: str = DTED, derp: str = DERP
) -> pd.DataFrame:
    """Table 7.4 decided once per adjustment of the scores, in :data:`DECISION_COLUMNS`.

    ``adjustments`` maps the name of an adjustment (``linear``, ``ordinal``) to its
    correlation table and replicates; each is decided by :func:`hypotheses_table` with its own
    configuration threshold, which the ``threshold`` column gives. An adjustment without
    correlations gets every hypothesis as not testable, with its ``missing`` reason.
    """
    frames = []
    for name, adjustment in adjustments.items():
        if adjustment.correlations is None:
            rows = [
                _untestable(h.format(dted=dted, derp=derp), adjustment.missing) for h in HYPOTHESES
            ]
            decided, threshold = pd.DataFrame(rows, columns=list(HYPOTHESIS_COLUMNS)), np.nan
        else:
            decided, threshold = hypotheses_table(
                adjustment.correlations, dted=dted, derp=derp, replicates=adjustment.replicates
            )
        frames.append(decided.assign(adjustment=name, threshold=threshold))
    return pd.concat(frames, ignore_index=True)[list(DECISION_COLUMNS)]
