"""The study's figures as in the thesis (McCaffery 2017, Figs 6.4-6.7 and 7.1-7.8).

Every function is pure: it takes a tidy frame (see :mod:`wojdb.core.stats.columns`) or a result
table and returns a :class:`matplotlib.figure.Figure`. Figures are built without pyplot, so they
hold no global state and can be drawn in any thread (the dashboard renders reports in requests).
:func:`draw` draws a figure as PNG and SVG (:func:`save` writes them); :func:`svg_text` gives the
SVG alone.

One paper style throughout: a text-width figure, small sans-serif type, no top/right spines, no
grid, and the Okabe-Ito palette (safe for colour-blind readers) mapped onto the meanings of the
thesis's Table 7.2 colours.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
from matplotlib import rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.lines import TICKDOWN, TICKLEFT, Line2D
from matplotlib.patches import Patch
from matplotlib.path import Path as MarkerPath
from matplotlib.text import Text, TextPath
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import Bbox

from wojdb.core.report import png
from wojdb.core.stats import columns as C
from wojdb.core.texts.en import EDUCATION_LABELS, GRAMMAR_HIGH, GRAMMAR_LOW

#: Participant-table columns beyond those of the ratings frame (see :func:`participant_table`).
NATIONALITY = "nationality"
GRAMMAR_ATTENTION = "grammar_attention"
LANGUAGES_COUNT = "languages_count"

#: A4 text width in inches.
WIDTH = 6.3

STYLE = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.titleweight": "bold",
    # A title placed where it goes: left to matplotlib, every draw of every axes measures what
    # lies above it to lift the title clear (nothing does here: no top spine or ticks).
    "axes.titley": 1.0,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 7,
    "legend.frameon": False,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": False,
    "axes.axisbelow": True,
    "axes.linewidth": 0.6,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    # Each figure has its own layout engine (_figure), run once and then removed
    # (_freeze_layout): neither setting may bring one back while the figure is saved.
    "figure.constrained_layout.use": False,
    "figure.autolayout": False,
    "savefig.dpi": 200,
    # Constrained layout already fits everything in; "tight" would draw every figure twice more.
    "savefig.bbox": "standard",
    # Text stays text in SVG (searchable, small); a fixed salt keeps SVG ids reproducible.
    "svg.fonttype": "none",
    "svg.hashsalt": "wojdb",
    # The PNG's glyphs as their outlines, unhinted: at 200 dpi hinting changes nothing the eye
    # sees and took a tenth of the time of drawing a figure.
    "text.hinting": "no_hinting",
}

# Okabe & Ito (2008), "Color universal design".
BLACK = "#000000"
ORANGE = "#E69F00"
SKY_BLUE = "#56B4E9"
GREEN = "#009E73"
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
GREY = "#666666"

#: Kinds of score source and their colours, as Table 7.2 of the thesis assigns them.
CATEGORIES = {
    "other": (PURPLE, "Other evaluation methods"),
    "full": (GREEN, "Third-party metrics, all sentences scored"),
    "partial": (BLUE, "Third-party metrics, some sentences scored"),
    "dted": (YELLOW, "DTED variants"),
    "derp": (VERMILLION, "DERP variants"),
}
#: Five answer levels, worst to best, on a sequential scale that survives grey-scale printing.
LEVEL_COLOURS = ("#3B0F70", "#8C2981", "#DE4968", "#FE9F6D", "#FCFDBF")
LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)
CONFIG_MARKERS = ("o", "s", "^", "D", "v", "P", "X")

JUDGMENT_TITLES = {C.ORDER: "Word-order adequacy", C.HOLISTIC: "Holistic adequacy"}
#: Short panel titles for the permutation types, side by side in one figure.
TYPE_TITLES = {t: f"'{t}'" for t in C.PERM_TYPES}
GROUP_TITLES = {
    C.HYPOTHESIS: "WMT hypotheses",
    "order": "'order' permutations",
    "swap": "'swap' permutations",
    "phrase": "'phrase' permutations",
    "choice": "'choice' permutations",
    "both": "'both' permutations",
}
GENDER_LABELS = {
    "male": "Male",
    "female": "Female",
    "other": "Other",
    "not_say": "Prefer not to say",
}
NOT_GIVEN = "Not given"


@contextmanager
def _style() -> Iterator[None]:
    with rc_context(STYLE):
        yield


def _figure(height: float, width: float = WIDTH) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def _freeze_layout(fig: Figure) -> None:
    """Lay the figure out once, so saving it as PNG and as SVG does not do it again.

    The layout engine is run by itself: savefig (and draw_without_rendering) would draw the
    whole figure once more around it."""
    engine = fig.get_layout_engine()
    if isinstance(engine, ConstrainedLayoutEngine):
        with _style():
            engine.execute(fig)
            # No engine at all: "none" leaves a placeholder, and savefig draws a figure with
            # any engine once more before drawing it.
            fig.set_layout_engine(None)


@dataclass(frozen=True)
class Drawing:
    """A figure drawn: its PNG, its SVG and its width in inches."""

    png: bytes
    svg: str
    width: float

    def write(self, directory: Path | str, name: str) -> list[Path]:
        """Write ``name.png`` and ``name.svg`` into ``directory``; return both paths."""
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        png, svg = directory / f"{name}.png", directory / f"{name}.svg"
        png.write_bytes(self.png)
        svg.write_text(self.svg, encoding="utf-8")
        return [png, svg]


def draw(fig: Figure) -> Drawing:
    """The figure drawn as PNG and as SVG, laid out once for both (on the PNG's canvas)."""
    return Drawing(_png(fig), svg_text(fig), fig.get_figwidth())


def _png(fig: Figure) -> bytes:
    """The figure as a PNG file at ``savefig.dpi``: drawn by Agg as savefig draws it, the
    pixels written by :func:`wojdb.core.report.png.encode`."""
    dpi, shown = STYLE["savefig.dpi"], fig.dpi
    with _style():
        fig.dpi = dpi
        try:
            canvas = FigureCanvasAgg(fig)
            # Laid out by the renderer that draws it, whose text sizes it then reuses: each
            # renderer measures every text anew.
            _freeze_layout(fig)
            canvas.draw()
            pixels = np.asarray(canvas.buffer_rgba())
        finally:
            fig.dpi = shown
    return png.encode(pixels, dpi)


def save(fig: Figure, directory: Path | str, name: str) -> list[Path]:
    """Write ``name.png`` and ``name.svg`` into ``directory``; return both paths."""
    return draw(fig).write(directory, name)


def svg_text(fig: Figure) -> str:
    """The figure as an SVG document."""
    _freeze_layout(fig)
    buffer = io.StringIO()
    with _style():
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def _no_data(ax: Axes, what: str) -> None:
    ax.text(0.5, 0.5, f"{what}: not recorded", ha="center", va="center", color=GREY)
    ax.set_xticks([])
    ax.set_yticks([])


#: The label of the texts :func:`_categories` writes, by axis ("x category", "y category").
CATEGORY = "{} category"


def _categories(
    ax: Axes, axis: str, positions, labels: Sequence[str], marks: bool = False, **text
) -> list[Text]:
    """Name the categories at ``positions`` (data units) along the x or y axis where its tick
    labels would go, as texts: a tick is five artists, each laid out again on every pass of
    the layout and of each drawing, which made dozens of named categories cost most of their
    figure's time. With ``marks``, their tick marks too (:func:`_tick_marks`). ``text``
    styles the texts (rotation, ha, fontsize). The axis is left without ticks."""
    length = matplotlib.rcParams[f"{axis}tick.major.size"] if marks else 0.0
    pad = matplotlib.rcParams[f"{axis}tick.major.pad"] + length
    if axis == "x":
        ax.set_xticks([])
        transform, va, ha = ax.get_xaxis_text1_transform(pad)
    else:
        ax.set_yticks([])
        transform, va, ha = ax.get_yaxis_text1_transform(pad)
    style = {"va": va, "ha": ha, "fontsize": matplotlib.rcParams[f"{axis}tick.labelsize"]} | text
    if marks:
        _tick_marks(ax, axis, positions)
    return [
        ax.text(
            *_on_axis(axis, at), name, transform=transform, label=CATEGORY.format(axis), **style
        )
        for at, name in zip(positions, labels, strict=True)
    ]


def _on_axis(axis: str, at: float) -> tuple[float, float]:
    return (at, 0.0) if axis == "x" else (0.0, at)


def _tick_marks(ax: Axes, axis: str, positions) -> None:
    """The axis's tick marks at ``positions`` (data units), as one line of the markers a tick
    draws, outside the axes; the data limits are left alone."""
    xy = np.array([_on_axis(axis, at) for at in positions], dtype=float).reshape(-1, 2)
    rc = matplotlib.rcParams
    ax.add_artist(
        Line2D(
            xy[:, 0],
            xy[:, 1],
            transform=ax.get_xaxis_transform() if axis == "x" else ax.get_yaxis_transform(),
            linestyle="none",
            marker=TICKDOWN if axis == "x" else TICKLEFT,
            markersize=rc[f"{axis}tick.major.size"],
            markeredgewidth=rc[f"{axis}tick.major.width"],
            color=rc[f"{axis}tick.color"],
            clip_on=False,
        )
    )


def _label_under(ax: Axes, label: str, texts: Sequence[Text]) -> None:
    """The x-axis label under ``texts`` (categories named by :func:`_categories`) as matplotlib
    puts it under tick labels: centred on the axes, ``axes.labelpad`` below the lowest."""
    rc = matplotlib.rcParams
    ax.annotate(
        label,
        xy=(0.5, 0),
        xycoords=(
            ax.transAxes,
            lambda renderer: Bbox.union([t.get_window_extent(renderer) for t in texts]),
        ),
        xytext=(0, -rc["axes.labelpad"]),
        textcoords="offset points",
        ha="center",
        va="top",
        fontsize=rc["axes.labelsize"],
    )


def _count_bars(ax: Axes, counts: pd.Series, horizontal: bool = False) -> None:
    """Bars of counts labelled with their values; categories in the order given."""
    labels = [str(label) for label in counts.index]
    positions = np.arange(len(counts))
    if horizontal:
        bars = ax.barh(positions, counts.to_numpy(), color=BLUE, height=0.7)
        _categories(ax, "y", positions, labels)
        ax.invert_yaxis()
        ax.set_xlabel("Participants")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.spines["left"].set_visible(False)
    else:
        bars = ax.bar(positions, counts.to_numpy(), color=BLUE, width=0.7)
        ax.set_xticks(positions, labels)
        ax.set_ylabel("Participants")
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.bar_label(bars, padding=1.5, fontsize=7)
    if horizontal:
        ax.margins(x=0.12)
    else:
        ax.margins(x=0.05, y=0.12)


def _categorical_counts(values: pd.Series, order: Sequence[str], labels: dict) -> pd.Series:
    """Counts of each level in ``order`` (all shown), plus 'Not given' if any are missing."""
    values = values.astype(object).where(values.notna() & (values.astype(str) != ""), None)
    counts = pd.Series(
        [int((values == level).sum()) for level in order], index=[labels[k] for k in order]
    )
    missing = int(values.isna().sum())
    if missing:
        counts[NOT_GIVEN] = missing
    return counts


def _has(participants: pd.DataFrame, column: str) -> bool:
    return column in participants.columns and participants[column].notna().any()


def participant_table(ratings: pd.DataFrame, languages: pd.DataFrame | None = None) -> pd.DataFrame:
    """One row per participant with the demographic columns the ratings frame carries.

    ``languages`` (one row per participant and language known) adds :data:`LANGUAGES_COUNT`;
    participants with no language rows did not answer, so their count is missing, not 0.
    """
    keep = [c for c in ratings.columns if c in _PARTICIPANT_COLUMNS]
    table = ratings[keep].drop_duplicates(C.PARTICIPANT).reset_index(drop=True)
    if languages is not None:
        counts = languages.groupby(C.PARTICIPANT).size()
        table[LANGUAGES_COUNT] = table[C.PARTICIPANT].map(counts).astype("float64")
    return table


_PARTICIPANT_COLUMNS = (
    C.PARTICIPANT,
    C.SIMULATED,
    C.AGE,
    C.GENDER,
    NATIONALITY,
    C.EDUCATION,
    GRAMMAR_ATTENTION,
    C.TARGET_FIRST,
    C.LANGUAGES_SCORE,
    LANGUAGES_COUNT,
)


def _age_panel(ax: Axes, ages: pd.Series) -> None:
    ages = ages.dropna().astype(int)
    if ages.empty:
        _no_data(ax, "Age")
        return
    # Five-year bands, as fine as 36 participants allow while showing the 18-74 spread.
    counts = ages.floordiv(5).mul(5).value_counts().sort_index()
    bars = ax.bar(counts.index, counts.to_numpy(), width=4.4, align="edge", color=BLUE)
    ax.bar_label(bars, padding=1.5, fontsize=7)
    low, high = (ages.min() // 10) * 10, (ages.max() // 10 + 1) * 10
    ax.set_xticks(range(low, high + 1, 10))
    ax.set_xlim(low - 1, high + 1)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.margins(y=0.12)
    ax.set_xlabel("Age (years, five-year bands)")
    ax.set_ylabel("Participants")
    ax.set_title("Age")


def basic_demographics(participants: pd.DataFrame, title: str | None = None) -> Figure:
    """Age, nationality and gender of participants (Fig. 6.5; Fig. 6.4 for a pilot's)."""
    with _style():
        fig = _figure(2.6)
        age_ax, nat_ax, gender_ax = fig.subplots(1, 3, width_ratios=[1.3, 1.2, 1])
        _age_panel(age_ax, participants.get(C.AGE, pd.Series(dtype=float)))
        if _has(participants, NATIONALITY):
            nationality = participants[NATIONALITY].astype(object)
            nationality = nationality.where(nationality.notna() & (nationality != ""), NOT_GIVEN)
            counts = nationality.value_counts()
            counts = counts.sort_index().sort_values(ascending=False, kind="stable")
            _count_bars(nat_ax, counts, horizontal=True)
            nat_ax.set_title("Nationality")
        else:
            _no_data(nat_ax, "Nationality")
        if _has(participants, C.GENDER):
            counts = _categorical_counts(participants[C.GENDER], GENDER_LABELS, GENDER_LABELS)
            _count_bars(gender_ax, counts, horizontal=True)
            gender_ax.set_title("Gender")
        else:
            _no_data(gender_ax, "Gender")
        if title:
            fig.suptitle(f"{title} (n = {len(participants)})", fontsize=9)
    return fig


def education_and_grammar(participants: pd.DataFrame) -> Figure:
    """Highest education completed and attention to grammar in everyday life (Fig. 6.6)."""
    with _style():
        fig = _figure(2.6)
        edu_ax, grammar_ax = fig.subplots(1, 2)
        if _has(participants, C.EDUCATION):
            counts = _categorical_counts(
                participants[C.EDUCATION], C.EDUCATION_LEVELS, EDUCATION_LABELS
            )
            _count_bars(edu_ax, counts, horizontal=True)
            edu_ax.set_title("Highest education completed")
        else:
            _no_data(edu_ax, "Education")
        if _has(participants, GRAMMAR_ATTENTION):
            points = participants[GRAMMAR_ATTENTION].dropna().astype(int)
            counts = points.value_counts().reindex(range(1, 6), fill_value=0)
            counts.index = ["1", "2", "3", "4", "5"]
            _count_bars(grammar_ax, counts)
            grammar_ax.set_xlabel(f"1 = “{GRAMMAR_LOW}”\n5 = “{GRAMMAR_HIGH}”")
            grammar_ax.set_title("Attention to grammar")
        else:
            _no_data(grammar_ax, "Attention to grammar")
    return fig


def _integer_counts(values: pd.Series) -> pd.Series:
    values = values.dropna().astype(int)
    return values.value_counts().reindex(range(values.min(), values.max() + 1), fill_value=0)


def language_knowledge(participants: pd.DataFrame) -> Figure:
    """Languages spoken and language points (native 7 … a few words 1, summed) (Fig. 6.7)."""
    with _style():
        fig = _figure(2.4)
        count_ax, points_ax = fig.subplots(1, 2, width_ratios=[1, 2])
        if _has(participants, LANGUAGES_COUNT):
            _count_bars(count_ax, _integer_counts(participants[LANGUAGES_COUNT]))
            count_ax.set_xlabel("Languages spoken, the study's included")
            count_ax.set_title("Languages")
        else:
            _no_data(count_ax, "Languages")
        if _has(participants, C.LANGUAGES_SCORE):
            _count_bars(points_ax, _integer_counts(participants[C.LANGUAGES_SCORE]))
            points_ax.set_xlabel("Language points (native 7, fluent 4, a few words 1)")
            points_ax.set_title("Cross-linguistic fluency")
        else:
            _no_data(points_ax, "Language points")
        fig.suptitle(f"Language knowledge of all {len(participants)} participants", fontsize=9)
    return fig


def _level_shares(ratings: pd.DataFrame, judgment: str) -> pd.DataFrame:
    """Per participant (rows), the share of their answers at each level (columns)."""
    answered = ratings[[C.PARTICIPANT, C.unit(judgment)]].dropna()
    table = pd.crosstab(answered[C.PARTICIPANT], answered[C.unit(judgment)], normalize="index")
    return table.reindex(columns=list(LEVELS), fill_value=0.0)


def score_distributions(
    ratings: pd.DataFrame, scale_ends: dict[str, tuple[str, str]] | None = None
) -> Figure:
    """Per participant, the share of each of the five levels, for both questions (Fig. 7.1).

    ``ratings`` is a ratings frame; practice answers are left out. ``scale_ends`` gives each
    judgment's end labels (worst, best) for the legend.
    """
    ratings = C.scored(ratings)
    with _style():
        fig = _figure(4.6)
        axes = fig.subplots(2, 1, sharex=True)
        participants = sorted(ratings[C.PARTICIPANT].unique(), key=_natural_key)
        positions = np.arange(len(participants))
        for ax, judgment in zip(axes, (C.HOLISTIC, C.ORDER), strict=True):
            shares = _level_shares(ratings, judgment).reindex(participants, fill_value=0.0)
            bottom = np.zeros(len(participants))
            for level, colour in zip(LEVELS, LEVEL_COLOURS, strict=True):
                values = shares[level].to_numpy()
                _bars(
                    ax,
                    positions,
                    values,
                    0.85,
                    bottom,
                    facecolor=colour,
                    edgecolor="none",
                    label=f"{level:g}",
                )
                bottom += values
            ends = (scale_ends or {}).get(judgment)
            ax.set_title(
                JUDGMENT_TITLES[judgment] + (f" (0 = {ends[0]}, 1 = {ends[1]})" if ends else ""),
                loc="left",
            )
            ax.set_ylabel("Share of answers")
            ax.set_ylim(0, 1)
            ax.set_xlim(-0.6, len(participants) - 0.4)
        axes[0].legend(
            title="Score", ncols=5, loc="lower left", bbox_to_anchor=(0, 1.12), borderaxespad=0
        )
        label = f"Participant (n = {len(participants)})"
        if len(participants) <= 60:
            names = [str(p) for p in participants]
            ids = _categories(axes[1], "x", positions, names, marks=True, rotation=90, fontsize=6)
            _tick_marks(axes[0], "x", positions)
            _label_under(axes[1], label, ids)
        else:
            axes[1].set_xticks([])
            axes[1].set_xlabel(label)
    return fig


def _bars(
    ax: Axes,
    at: np.ndarray,
    lengths: np.ndarray,
    thickness: float,
    start: np.ndarray,
    horizontal: bool = False,
    **style,
) -> None:
    """Bars centred on ``at``, from ``start`` for ``lengths``, drawn as ax.bar (ax.barh with
    ``horizontal``) draws them but as one collection of their rectangles: a Rectangle per bar
    costs its own data limits and its own draw, and every caller sets the axes' limits.
    ``style`` goes to the collection (ax.bar's Rectangles have no edge, mitred corners)."""
    low = at - thickness / 2
    high = low + thickness
    end = start + lengths
    if horizontal:
        corners = [(start, low), (end, low), (end, high), (start, high)]
    else:
        corners = [(low, start), (high, start), (high, end), (low, end)]
    verts = np.stack([np.column_stack(corner) for corner in corners], axis=1)
    ax.add_collection(PolyCollection(verts, **style), autolim=False)


def _natural_key(value) -> tuple:
    """Sort participant ids numerically when they are numbers, else as text."""
    try:
        return (0, float(value), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(value))


def holistic_vs_order(ratings: pd.DataFrame) -> Figure:
    """How often each (holistic, order) pair of scores was given to one item (Fig. 7.2)."""
    ratings = C.scored(ratings)
    both = ratings[[C.unit(C.HOLISTIC), C.unit(C.ORDER)]].dropna()
    counts = both.value_counts().rename("n").reset_index()
    with _style():
        fig = _figure(4.2, width=4.6)
        ax = fig.subplots()
        if counts.empty:
            _no_data(ax, "Answers to both questions")
            return fig
        largest = counts["n"].max()
        # Marker area proportional to the count, so the eye reads areas as frequencies.
        sizes = 1400 * counts["n"] / largest
        ax.scatter(
            counts[C.unit(C.HOLISTIC)],
            counts[C.unit(C.ORDER)],
            s=sizes,
            color=BLUE,
            alpha=0.55,
            edgecolors=BLUE,
            linewidths=0.6,
        )
        for _, row in counts.iterrows():
            ax.annotate(
                f"{int(row['n'])}",
                (row[C.unit(C.HOLISTIC)], row[C.unit(C.ORDER)]),
                ha="center",
                va="center",
                fontsize=6.5,
                color=BLACK,
                clip_on=True,  # inside its bubble: the layout need not measure it
            )
        ticks = list(LEVELS)
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
        ax.set_xlim(-0.15, 1.15)
        ax.set_ylim(-0.15, 1.15)
        ax.set_aspect("equal")
        ax.set_xlabel("Holistic adequacy score (question 1)")
        ax.set_ylabel("Word-order adequacy score (question 2)")
        ax.set_title(f"{len(both)} ratings with both questions answered", loc="left")
    return fig


#: Columns of the table :func:`correlation_bars` draws: one row per configuration of a source.
BAR_COLUMNS = ("panel", "label", "category", "config", "rho", "significant")


def _label_order(bars: pd.DataFrame) -> list[str]:
    """Labels grouped by category (in Table 7.2's order), each group in order of appearance."""
    first = bars.drop_duplicates("label")
    rank = {category: i for i, category in enumerate(CATEGORIES)}
    keyed = sorted(
        range(len(first)), key=lambda i: (rank.get(first["category"].iloc[i], len(rank)), i)
    )
    return [first["label"].iloc[i] for i in keyed]


def _config_markers(bars: pd.DataFrame) -> dict[str, str]:
    """A marker per configuration, for sources measured under more than one configuration."""
    configs_per_label = bars.groupby(["panel", "label"])["config"].nunique()
    multi = configs_per_label[configs_per_label > 1].index
    keyed = bars.set_index(["panel", "label"])
    configs = sorted(set(keyed.loc[keyed.index.isin(multi), "config"]))
    return {config: CONFIG_MARKERS[i % len(CONFIG_MARKERS)] for i, config in enumerate(configs)}


def _draw_sources(
    ax: Axes, rows: pd.DataFrame, position: dict[str, int], markers: dict, pad: float
) -> None:
    """One panel's sources: all bars in one call, the configuration ranges in one collection
    and each configuration's marks in one, so a panel costs a few artists, not a few per
    source."""
    grouped = rows.assign(significant=rows["significant"].astype(bool)).groupby("label", sort=False)
    per = pd.DataFrame(
        {
            "best": grouped["rho"].max(),
            "least": grouped["rho"].min(),
            "configs": grouped["rho"].size(),
            "category": grouped["category"].first(),
            "significant": grouped["significant"].all(),
        }
    )
    per = per.iloc[np.argsort(per.index.map(position).to_numpy(), kind="stable")]
    y = per.index.map(position).to_numpy()
    colours = [CATEGORIES.get(c, (GREY, ""))[0] for c in per["category"]]
    # Yellow needs an outline to stand out from white paper.
    _bars(
        ax, y, per["best"].to_numpy(), 0.72, np.zeros(len(y)), horizontal=True,
        facecolor=colours, edgecolor="#444444", linewidth=0.4, joinstyle="miter",
    )  # fmt: skip
    several = per[per["configs"] > 1]
    if len(several):
        ax.hlines(
            several.index.map(position), several["least"], several["best"], color=BLACK,
            linewidth=0.7,
        )  # fmt: skip
        marked = rows[rows["label"].isin(several.index)]
        for config, points in marked.groupby("config", sort=False):
            ax.scatter(
                points["rho"],
                points["label"].map(position),
                marker=markers.get(config, "o"),
                s=14,
                facecolor="white",
                edgecolor=BLACK,
                linewidth=0.7,
                zorder=3,
            )
    starred = per[per["significant"]]
    right = (starred["best"] >= 0).to_numpy()
    x = np.where(right, starred["best"] + pad, starred["least"] - pad)
    y = starred.index.map(position).to_numpy()
    for side, ha in ((right, "left"), (~right, "right")):
        if side.any():
            marker, size = _glyph_marker("*", 10, ha)
            ax.plot(
                x[side], y[side], linestyle="none", marker=marker, markersize=size,
                markeredgewidth=0, color=GREY, label="_significant",
            )  # fmt: skip


def _glyph_marker(glyph: str, size: float, ha: str) -> tuple[MarkerPath, float]:
    """A glyph as a marker, and its markersize: drawn at ``size`` points, its outline centred
    on the point in height and starting (``ha`` "left") or ending ("right") there, as a text
    would be. Many glyphs are then one line of markers, not a text each to lay out."""
    outline = TextPath((0, 0), glyph, size=size)
    (left, low), (right, high) = outline.get_extents().get_points()
    moved = outline.vertices - [left if ha == "left" else right, (low + high) / 2]
    # A marker path is scaled to fit its markersize by its furthest vertex: this size keeps
    # the outline at its own size in points.
    return MarkerPath(moved, outline.codes), 2 * float(np.abs(moved).max())


def correlation_bars(
    bars: pd.DataFrame,
    panels: Sequence[str] | None = None,
    panel_titles: dict[str, str] | None = None,
    xlabel: str = "Spearman's ρ",
    title: str | None = None,
) -> Figure:
    """Bars of correlations per score source, one panel per value of ``panel`` (Figs 7.3-7.8).

    ``bars`` has :data:`BAR_COLUMNS`: one row per configuration of a source (``label``). As in
    the thesis, a bar reaches the source's highest correlation; when a source was measured under
    several configurations (parser, tagger, aligner) each is marked on the bar, so the range
    shows; an asterisk marks sources whose correlations are *all* significant. Bar colours follow
    the thesis's Table 7.2 (see :data:`CATEGORIES`). Panels share the correlation axis.
    """
    missing = [c for c in BAR_COLUMNS if c not in bars.columns]
    if missing:
        raise ValueError(f"bars table lacks columns: {', '.join(missing)}")
    bars = bars.assign(config=bars["config"].fillna("").astype(str)).dropna(subset=["rho"])
    panels = list(panels) if panels is not None else list(dict.fromkeys(bars["panel"]))
    labels = _label_order(bars)
    markers = _config_markers(bars)
    low = min(0.0, bars["rho"].min()) if len(bars) else 0.0
    high = max(0.0, bars["rho"].max()) if len(bars) else 1.0
    pad = 0.02 * max(high - low, 0.1)
    with _style():
        legend_rows = math.ceil((bars["category"].nunique() + 1 + len(markers)) / 2)
        height = 0.75 + 0.2 * max(len(labels), 3) + 0.16 * legend_rows + (0.25 if title else 0)
        fig = _figure(height)
        axes = np.atleast_1d(fig.subplots(1, max(len(panels), 1), squeeze=False)[0])
        position = {label: y for y, label in enumerate(labels)}
        for ax, panel in zip(axes, panels, strict=False):
            shown = bars[bars["panel"] == panel]
            if len(shown):
                _draw_sources(ax, shown, position, markers, pad)
            ax.axvline(0, color=BLACK, linewidth=0.6)
            ax.set_xlim(low - 6 * pad if low < 0 else 0, high + 6 * pad)
            ax.set_title((panel_titles or {}).get(panel, str(panel)), loc="left")
            ax.set_xlabel(xlabel)
            ax.spines["left"].set_visible(False)
        # Sources are named on the first panel only; the others share its rows but not its
        # axis, whose ticks every draw of every panel would lay out again, unseen.
        _categories(axes[0], "y", range(len(labels)), labels)
        for ax in axes[1:]:
            ax.set_yticks([])
        for ax in axes:
            ax.set_ylim(len(labels) - 0.4, -0.6)
        if len(bars) == 0:
            _no_data(axes[0], "Correlations")
        if title:
            fig.suptitle(title, fontsize=9)
        _bar_legend(fig, bars, markers)
    return fig


def _bar_legend(fig: Figure, bars: pd.DataFrame, markers: dict[str, str]) -> None:
    present = [c for c in CATEGORIES if c in set(bars["category"])]
    handles = [
        Patch(
            facecolor=CATEGORIES[c][0], edgecolor="#444444", linewidth=0.4, label=CATEGORIES[c][1]
        )
        for c in present
    ]
    handles.append(
        Line2D(
            [],
            [],
            marker="$*$",
            linestyle="none",
            color=GREY,
            markersize=6,
            label="all correlations significant (p < 0.05)",
        )
    )
    handles += [
        Line2D(
            [],
            [],
            marker=m,
            linestyle="none",
            markerfacecolor="white",
            markeredgecolor=BLACK,
            markersize=4,
            label=config,
        )
        for config, m in markers.items()
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=2)


def system_scores(table: pd.DataFrame) -> Figure:
    """System-level human z per language pair and source, best first; dashed lines end clusters.

    ``table`` is `wojdb.core.stats.system.system_scores` output, with a ``source`` column when
    several sources are drawn.
    """
    table = table if "source" in table.columns else table.assign(source="")
    panels = list(table.groupby(["source", "lp"], sort=True))
    rows = max((len(part) for _, part in panels), default=1)
    with _style():
        fig = _figure(0.6 + 0.16 * rows * math.ceil(len(panels) / 2))
        grid = fig.subplots(math.ceil(len(panels) / 2) or 1, 2, squeeze=False)
        for ax, ((source, lp), part) in zip(grid.flat, panels, strict=False):
            part = part.sort_values("rank")
            y = np.arange(len(part))
            colours = [(BLUE, ORANGE)[c % 2] for c in part["cluster"]]
            ax.scatter(part["z"], y, c=colours, s=14, zorder=3)
            ax.axvline(0, color=GREY, linewidth=0.5)
            for k in np.flatnonzero(np.diff(part["cluster"].to_numpy()) != 0):
                ax.axhline(k + 0.5, color=GREY, linewidth=0.6, linestyle="--")
            _categories(ax, "y", y, part["system"].tolist(), marks=True)
            ax.invert_yaxis()
            ax.set_xlabel("mean z")  # of segments, or of annotations where published
            ax.set_title(" ".join(filter(None, [lp, f"({source})" if source else ""])))
        for ax in list(grid.flat)[len(panels) :]:
            ax.set_visible(False)
    return fig


def mark_strips(pairs: Sequence[dict]) -> Figure:
    """Heat strips of word marks: for each pair (`wojdb.core.stats.marks.strip_pairs`), each
    unit of its sentence shaded by the share of participants who marked it (cividis, which
    reads the same to colour-blind readers and in grey), the share written in the cell (none
    where no one marked it) and the truly displaced (or crossing) units outlined."""
    with _style():
        fig = _figure(0.3 + 0.95 * len(pairs))
        axes = fig.subplots(len(pairs), 1, squeeze=False)[:, 0]
        cmap = matplotlib.colormaps["cividis"]
        for ax, pair in zip(axes, pairs, strict=True):
            shares, shown, truth = pair["shares"], pair["shown"], set(pair["truth"] or ())
            x = np.arange(len(shares))
            _cells(ax, x, facecolor=cmap(shares), edgecolor="white", linewidth=0.5)
            if truth:
                _cells(ax, sorted(truth), facecolor="none", edgecolor=VERMILLION, linewidth=1.5)
            for u, share in enumerate(shares):
                if share:  # a cell left blank was marked by no one (fewer texts to lay out)
                    colour = "black" if share > 0.55 else "white"
                    ax.text(
                        u, 0.5, f"{share:.0%}", ha="center", va="center", color=colour, fontsize=5,
                        clip_on=True,  # inside its cell: the layout need not measure it
                    )  # fmt: skip
            _categories(ax, "x", x, shown, rotation=60, ha="right", fontsize=6)
            ax.set_xlim(-0.5, len(shares) - 0.5)
            ax.set_ylim(0, 1.05)  # as ax.bar's cells would set it
            ax.set_yticks([])
            ax.spines[["left", "bottom"]].set_visible(False)
            ax.set_title(
                f"Item {pair['item']}: {pair['answers']} answers; {_strip_truth(pair)}",
                loc="left",
                fontsize=7,
                fontweight="normal",
            )
    return fig


def _cells(ax: Axes, units: Sequence[int], **style) -> None:
    """A strip's cells at these units, as one collection (a Rectangle each cost its own
    artist's drawing)."""
    at = np.asarray(units, dtype=float)
    _bars(ax, at, np.ones(len(at)), 1.0, np.zeros(len(at)), joinstyle="miter", **style)


def _strip_truth(pair: dict) -> str:
    if pair["kind"] == C.PERMUTATION:
        return "outlined: the units the permutation displaced"
    if pair["truth"] is None:
        return "no crossing words stored (never aligned)"
    return "outlined: the units whose alignment links cross"
