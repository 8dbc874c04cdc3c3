"""What wojdb.core.report.figures draws more cheaply than matplotlib's defaults, read back: bars
drawn as one collection (stacked, correlation and heat-strip bars) as ax.bar's rectangles would
be, anchored at the corner the bar starts from, width and height signed as a Rectangle's; and
categories named by texts where tick labels would be."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    facecolor: tuple


def collected_bars(ax: Axes) -> list[Bar]:
    """Every rectangle of the axes' polygon collections, in drawing order."""
    bars = []
    for collection in ax.collections:
        if not isinstance(collection, PolyCollection):
            continue
        colours = collection.get_facecolor()
        for i, path in enumerate(collection.get_paths()):
            corners = np.asarray(path.vertices[:4])
            bars.append(
                Bar(
                    x=float(corners[0, 0]),
                    y=float(corners[0, 1]),
                    width=float(corners[1, 0] - corners[0, 0]),
                    height=float(corners[2, 1] - corners[1, 1]),
                    facecolor=tuple(colours[i % len(colours)]),
                )
            )
    return bars


def category_names(ax: Axes, axis: str) -> list[str]:
    """The categories named along the axis (x or y) where its tick labels would be, in the
    order of their positions."""
    label = f"{axis} category"
    return [t.get_text() for t in ax.texts if t.get_label() == label]


def unlabelled_texts(ax: Axes) -> list[str]:
    """The axes' texts other than the names of its categories."""
    return [t.get_text() for t in ax.texts if not t.get_label().endswith(" category")]
