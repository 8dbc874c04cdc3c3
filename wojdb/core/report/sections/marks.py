"""Where participants see the disorder: a study's word marks against the known truths."""

from __future__ import annotations

from functools import partial

import pandas as pd

from wojdb.core.report import figures as F
from wojdb.core.report.model import FigureEntry, Section, Table
from wojdb.core.stats import columns as C
from wojdb.core.stats import marks as M


def marks_section(
    answered: pd.DataFrame,
    truths: pd.DataFrame,
    ratings: pd.DataFrame,
    figures: bool,
    n_boot: int,
    seed: int,
) -> Section:
    """The section of one group of participants' marks (`answered`, its answers frame) on the
    items of `truths`; `ratings` are their answered ratings."""
    section = Section(
        "word_marks",
        "Where participants see the disorder",
        [
            "Participants marked the units of the first sentence they found out of place (or "
            "said none were). For a permutation their marks are scored against two truths: the "
            "units the permutation displaced, and a smallest set whose moving back restores the "
            "reference (minimal moves); for a WMT hypothesis, against the units whose alignment "
            "links to the reference cross (crossing words, from the aligner compute_metrics "
            "used). Micro figures pool the units of a group's pairs; macro figures average "
            "each pair's figure over the pairs where it is defined (precision needs a mark, "
            "recall a unit in the truth). 95% intervals are percentile bootstraps resampling "
            f"participants ({n_boot:,} resamples, seed {seed}). A group with fewer than "
            f"{M.MIN_MARKED_PAIRS} pairs answered is not estimable.",
        ],
    )
    permutations = M.permutation_table(answered, truths, n_boot=n_boot, seed=seed)
    systems = M.system_table(answered, truths, n_boot=n_boot, seed=seed)
    section.tables += [
        Table(
            "marks_permutations",
            "Marks against the truths, per permutation type and degree",
            permutations,
            "Columns _low and _high: the 95% interval.",
        ),
        Table(
            "marks_systems",
            "Marks on WMT hypotheses against their crossing words, per system",
            systems,
        ),
        Table(
            "marks_agreement",
            "Agreement between participants on the units of the same item",
            M.agreement_table(answered, truths),
            "Krippendorff's α, nominal (marked or not), each unit of an item two or more "
            "participants answered a unit of analysis, participants as coders.",
        ),
        Table(
            "marks_and_ratings",
            "Units marked against the two ratings",
            M.ratings_table(answered, ratings),
            "Spearman's ρ between a pair's number of marked units and each of its answers, with "
            "scipy's p-value, which treats pairs as independent (a participant's are not): a "
            "guide, not a test.",
        ),
    ]
    hypotheses = answered[C.ITEM].map(truths.set_index(C.ITEM)[C.KIND]) == C.HYPOTHESIS
    unaligned = truths[(truths[C.KIND] == C.HYPOTHESIS) & truths[M.CROSSING].isna()]
    if hypotheses.any() and len(unaligned):
        section.notes.append(
            f"{len(unaligned)} marked hypothesis(es) have no crossing words (never aligned: "
            "compute_metrics stores them; a release holds none) and are left out of the "
            "per-system table."
        )
    if figures:
        pairs = M.strip_pairs(answered, truths)
        section.figures.append(
            FigureEntry(
                "marks_heat_strips",
                "Which units participants marked, on the most answered pairs",
                partial(F.mark_strips, pairs),
                "Each cell a unit of the sentence, shaded and labelled by the share of "
                "participants who marked it (blank: no one did); the truth is outlined.",
            )
        )
    return section
