"""What a report holds: sections of text, tables (DataFrames), figures and notes."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

import pandas as pd
from matplotlib.figure import Figure

from wojdb.core.report import figures as F


@dataclass
class Table:
    name: str  # file stem of the CSV
    title: str
    frame: pd.DataFrame
    caption: str = ""
    show: bool = True  # shown in the HTML (always written as CSV)


@dataclass
class FigureEntry:
    name: str  # file stem of the PNG and SVG
    title: str
    #: Builds the figure: a figure function with its data (functools.partial), called when
    #: the figure is first wanted.
    make: Callable[[], Figure]
    caption: str = ""

    @functools.cached_property
    def drawn(self) -> F.Drawing:
        """PNG and SVG, drawn once; the figure is not kept."""
        return F.draw(self.make())

    @property
    def svg(self) -> str:
        return self.drawn.svg


@dataclass
class Section:
    key: str
    title: str
    paragraphs: list[str] = field(default_factory=list)
    figures: list[FigureEntry] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    summaries: list[tuple[str, str]] = field(default_factory=list)  # (title, preformatted text)
    notes: list[str] = field(default_factory=list)


@dataclass
class Report:
    title: str
    generated: str
    facts: list[tuple[str, str]]
    sections: list[Section]
    simulated_participants: int = 0
    real_participants: int = 0
    #: Where the data came from (study, when it was read), for spotting newer answers.
    source: dict = field(default_factory=dict)

    @property
    def notes(self) -> list[str]:
        return [note for section in self.sections for note in section.notes]

    @property
    def tables(self) -> list[Table]:
        return [t for section in self.sections for t in section.tables]

    @property
    def figures(self) -> list[FigureEntry]:
        return [f for section in self.sections for f in section.figures]
