"""Demographics: the participants' table and Figures 6.5-6.7."""

from __future__ import annotations

from functools import partial

import pandas as pd

from wojdb.core.report import figures as F
from wojdb.core.report.model import FigureEntry, Section, Table


def participants_section(
    ratings: pd.DataFrame, languages: pd.DataFrame | None, draw: bool
) -> Section:
    people = F.participant_table(ratings, languages)
    section = Section(
        "participants",
        "Demographics",
        [
            "Demographics of the participants who rated at least one item, as in §6.5.2 "
            "(Figures 6.5–6.7); a pilot's participants as in §6.4 (Figure 6.4)."
        ],
    )
    section.tables.append(
        Table("participants", "Participants", people, "One row per participant.", show=False)
    )
    if not draw:
        return section
    section.figures += [
        FigureEntry(
            "figure_6_5",
            "Figure 6.5: basic demographic details about participants",
            partial(F.basic_demographics, people, "Participants"),
        ),
        FigureEntry(
            "figure_6_6",
            "Figure 6.6: education level and grammatical focus of participants",
            partial(F.education_and_grammar, people),
        ),
        FigureEntry(
            "figure_6_7",
            f"Figure 6.7: language knowledge of all {len(people)} participants",
            partial(F.language_knowledge, people),
            "Language points per language known: native 7 … a few words 1, summed.",
        ),
    ]
    if languages is None:
        section.notes.append("Languages per participant were not given: Figure 6.7 lacks them.")
    return section
