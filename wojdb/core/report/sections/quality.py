"""Agreement on the shared items and the checks on every participant."""

from __future__ import annotations

import pandas as pd

from wojdb.core.report.model import Section, Table
from wojdb.core.stats import columns as C
from wojdb.core.stats import quality


def quality_section(ratings: pd.DataFrame) -> Section:
    section = Section(
        "quality",
        "Agreement and judgment quality",
        [
            "Krippendorff's α (ordinal, raw 1–5 answers) over the shared items every "
            "questionnaire holds, and checks on each participant that use the permutations as "
            "an instrument (§6.2.3): order answers should fall as the permutation degree rises, "
            "and 'choice' permutations, which keep the reference's order, should score high. "
            "Checks only flag; nobody is left out of the analysis because of them."
        ],
    )
    checks = quality.participant_checks(ratings)
    # Simulated participants are kept apart from real ones in every per-participant table.
    simulated = ratings.drop_duplicates(C.PARTICIPANT).set_index(C.PARTICIPANT)[C.SIMULATED]
    checks.insert(1, C.SIMULATED, checks[C.PARTICIPANT].map(simulated).astype(bool))
    flagged = checks[checks["flags"] != ""]
    section.tables += [
        Table(
            "agreement",
            "Agreement on shared items",
            quality.agreement(ratings),
            "Participants as coders, items as units; blanks are missing values.",
        ),
        Table("participant_checks", "Checks on every participant", checks, show=False),
        Table(
            "flagged_participants",
            f"Flagged participants ({len(flagged)} of {len(checks)})",
            flagged,
            "Flags: degree (order answers do not fall with permutation degree), choice (low "
            "order scores on 'choice' permutations), time (median under 5 s per item), "
            "straightlining (long runs or one dominant answer pair).",
        ),
    ]
    return section
