"""Balance figures in the manner of the thesis's Figures 6.1–6.3, drawn with matplotlib's Agg.

Pure: each function takes the entries table of `survey.design.questionnaires.entries_frame` (and,
for quality, optional judgments) and returns PNG or SVG bytes. Figures are built on
`matplotlib.figure.Figure` without pyplot, so no global state is shared between requests.
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from wojdb.core.design import balance
from wojdb.core.io import length_units
from wojdb.core.language.codes import LANGUAGE_NAMES

FORMATS = {"png": "image/png", "svg": "image/svg+xml"}
# SVG element ids are random unless salted; a fixed salt makes the same data the same file.
matplotlib.rcParams["svg.hashsalt"] = "wojdb"
WIDTH = 7.0  # inches: a full text width in most journals
# Okabe & Ito's palette, distinguishable with any colour vision.
COLOURS = {
    "hypothesis": "#0072B2",
    "permutation": "#E69F00",
    "holistic": "#009E73",
    "order": "#CC79A7",
    "source": "#56B4E9",
    "reference": "#D55E00",
    "fit": "#D55E00",
    "neutral": "#999999",
}
LABELS = {
    "hypothesis": "WMT hypotheses (WMT score)",
    "permutation": "permutations (eq. 6.2)",
    "holistic": "holistic judgments",
    "order": "order judgments",
}
FONT = 8


def _figure(panels: int, height: float = 2.8) -> tuple[Figure, list[Axes]]:
    fig = Figure(figsize=(WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, panels, squeeze=False)[0]
    for ax in axes:
        ax.spines[["top", "right"]].set_visible(False)
        ax.tick_params(labelsize=FONT - 1)
        ax.xaxis.label.set_size(FONT)
        ax.yaxis.label.set_size(FONT)
        ax.title.set_size(FONT + 1)
    return fig, list(axes)


def _render(fig: Figure, fmt: str) -> bytes:
    if fmt not in FORMATS:
        raise ValueError(f"unknown figure format {fmt!r} (known: {', '.join(FORMATS)})")
    buf = io.BytesIO()
    # Without dates in the metadata the same data give the same bytes.
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    fig.savefig(buf, format=fmt, dpi=200, metadata=metadata)
    return buf.getvalue()


def _empty(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=FONT, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


def quality_figure(
    entries: pd.DataFrame, judgments: pd.DataFrame | None = None, fmt: str = "png"
) -> bytes:
    """Figure 6.1: quality by position within questionnaires (left), mean quality by
    questionnaire (right); with judgments (questionnaire, holistic, order on 0–1), their means
    per questionnaire too."""
    fig, (by_position, by_questionnaire) = _figure(2, height=3.1)
    if entries.empty:
        _empty(by_position, "no questionnaires yet")
        _empty(by_questionnaire, "no questionnaires yet")
        return _render(fig, fmt)
    for kind in ("hypothesis", "permutation"):
        rows = entries[(entries["kind"] == kind) & entries["quality"].notna()]
        if rows.empty:
            continue
        by_position.scatter(
            rows["position"], rows["quality"], s=5, alpha=0.3, color=COLOURS[kind], linewidths=0
        )
        means = rows.groupby("position")["quality"].mean()
        by_position.plot(means.index, means.values, color=COLOURS[kind], lw=1.2, label=LABELS[kind])
    by_position.set(xlabel="position in questionnaire", ylabel="quality (0–1)", ylim=(-0.03, 1.03))
    by_position.set_title("(a) quality by position", loc="left")

    series = balance.quality_by_questionnaire(entries)
    if judgments is not None and not judgments.empty:
        judged = judgments.groupby("questionnaire")[["holistic", "order"]].mean()
        series = series.join(judged, how="left")
    for column in series.columns:
        values = series[column].dropna()
        if values.empty:
            continue
        by_questionnaire.plot(
            values.index,
            values.values,
            marker="o",
            ms=3,
            lw=0.8,
            color=COLOURS[column],
            label=LABELS[column],
        )
    by_questionnaire.axhline(0.5, color=COLOURS["neutral"], lw=0.8, ls="--")
    by_questionnaire.set(xlabel="questionnaire", ylabel="mean quality (0–1)", ylim=(-0.03, 1.03))
    by_questionnaire.set_title("(b) mean quality by questionnaire", loc="left")
    by_questionnaire.xaxis.get_major_locator().set_params(integer=True)
    # One legend below both panels, clear of the data (panel (b) draws every series).
    fig.legend(
        *by_questionnaire.get_legend_handles_labels(),
        loc="outside lower center",
        ncol=4,
        fontsize=FONT - 1,
        frameon=False,
    )
    return _render(fig, fmt)


def length_figure(entries: pd.DataFrame, fmt: str = "png", target_lang: str = "en") -> bytes:
    """Figure 6.2: lengths of sources, references and hypotheses (left); reference against
    hypothesis length with a least-squares line and Pearson's r (right). Lengths are in words,
    or characters in a language written without spaces (`length_units`)."""
    fig, (distribution, relation) = _figure(2)
    rows = balance.hypotheses(entries) if not entries.empty else entries
    if len(rows) < 2:
        _empty(distribution, "too few sentences")
        _empty(relation, "too few sentences")
        return _render(fig, fmt)
    lengths = {
        "source": rows["source_length"],
        "reference": rows["reference_length"],
        "hypothesis": rows["hypothesis_length"],
    }
    units = length_units(rows["source_lang"].unique(), target_lang)
    same = len(set(units.values())) == 1
    longest = int(max(v.max() for v in lengths.values()))
    bins = np.arange(0, longest + 3, max(1, (longest + 2) // 30))
    for name, values in lengths.items():
        label = name if same else f"{name} ({units[name]})"
        distribution.hist(
            values, bins=bins, histtype="step", lw=1.2, color=COLOURS[name], label=label
        )
    distribution.set(xlabel=f"length ({units['source']})" if same else "length", ylabel="sentences")
    distribution.set_title("(a) sentence lengths", loc="left")
    distribution.legend(fontsize=FONT - 1, frameon=False)

    x = rows["reference_length"].astype(float).to_numpy()
    y = rows["hypothesis_length"].astype(float).to_numpy()
    relation.scatter(x, y, s=6, alpha=0.4, color=COLOURS["hypothesis"], linewidths=0)
    r, n = balance.length_correlation(entries)
    if np.ptp(x) > 0:
        slope, intercept = np.polyfit(x, y, 1)
        span = np.array([x.min(), x.max()])
        relation.plot(span, slope * span + intercept, color=COLOURS["fit"], lw=1.2)
    relation.text(
        0.03,
        0.97,
        f"Pearson r = {r:.2f} (n = {n})",
        transform=relation.transAxes,
        va="top",
        fontsize=FONT,
    )
    relation.set(
        xlabel=f"reference length ({units['reference']})",
        ylabel=f"hypothesis length ({units['hypothesis']})",
    )
    relation.set_title("(b) reference against hypothesis", loc="left")
    return _render(fig, fmt)


def language_figure(
    entries: pd.DataFrame, fmt: str = "png", names: Mapping[str, str] = LANGUAGE_NAMES
) -> bytes:
    """Figure 6.3: distinct items (hypotheses and permutations) per source language."""
    counts = balance.language_counts(entries) if not entries.empty else pd.Series(dtype=int)
    fig, (ax,) = _figure(1, height=max(1.6, 0.6 + 0.22 * len(counts)))
    if counts.empty:
        _empty(ax, "no questionnaires yet")
        return _render(fig, fmt)
    counts = counts.iloc[::-1]  # most frequent at the top
    labels = [names.get(code, code) for code in counts.index]
    bars = ax.barh(labels, counts.values, color=COLOURS["hypothesis"], height=0.65)
    ax.bar_label(bars, padding=2, fontsize=FONT - 1)
    ax.set(xlabel="items")
    ax.set_title("source languages of the items", loc="left")
    ax.margins(x=0.08)
    return _render(fig, fmt)
