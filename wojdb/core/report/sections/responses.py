"""Response trends: answers per level and the two questions' agreement (§7.2.1, Figs 7.1-7.2)."""

from __future__ import annotations

from functools import partial

import pandas as pd

from wojdb.core.report import figures as F
from wojdb.core.report.model import FigureEntry, Section, Table
from wojdb.core.stats import responses


def responses_section(
    ratings: pd.DataFrame, scale_ends, draw: bool, n_boot: int, seed: int
) -> Section:
    section = Section(
        "responses",
        "Response trends",
        [
            "How participants used the five levels of both questions (§7.2.1). The thesis found "
            "Pearson's r between the two questions of 0.605 for hypotheses and 0.699 for "
            "permutations."
        ],
    )
    section.tables += [
        Table("levels", "Answers at each level", responses.level_counts(ratings)),
        Table(
            "holistic_order_pearson",
            "Holistic vs order answers: Pearson's r",
            responses.holistic_order_agreement(ratings, n_boot, seed),
            "Per rating; 95% percentile bootstrap interval.",
        ),
    ]
    if draw:
        section.figures += [
            FigureEntry(
                "figure_7_1",
                "Figure 7.1: distribution across participants of different score levels",
                partial(F.score_distributions, ratings, scale_ends),
            ),
            FigureEntry(
                "figure_7_2",
                "Figure 7.2: similarity between holistic and order-focused adequacy scores",
                partial(F.holistic_vs_order, ratings),
                "Marker area is proportional to how often the pair of scores was given.",
            ),
        ]
    return section
