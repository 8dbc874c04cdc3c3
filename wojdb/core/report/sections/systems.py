"""System-level human scores with their clusters."""

from __future__ import annotations

from functools import partial

import pandas as pd

from wojdb.core.report import figures as F
from wojdb.core.report.model import FigureEntry, Section, Table


def systems_section(systems: pd.DataFrame, draw: bool) -> Section:
    section = Section(
        "systems",
        "System-level human scores",
        [
            "Per system and language pair, as WMT's findings compute them: z is the mean over "
            "segments of each segment's mean rater-standardised score (raw: the same on 0–100), "
            "n the segments and judgments the judgments counted. Systems are ordered by z; a "
            "cluster ends where every system above beats every system below by a one-sided "
            "Wilcoxon rank-sum test on segment means (p < 0.05). Source 'study' is this "
            "study's ratings of WMT hypotheses (holistic answers standardised per participant), "
            "'da' the imported WMT direct-assessment judgments of the same language pairs, "
            "'mqm' their imported MQM segment scores (z is then the mean MQM score). A pair "
            "with no DA judgments but WMT's published system-level results (WMT21's clusters "
            "file) shows those as 'da': z and raw as released, judgments the annotations, n "
            "unknown, and WMT's own clusters."
        ],
    )
    section.tables.append(Table("system_scores", "System-level human scores", systems))
    if draw:
        section.figures.append(
            FigureEntry(
                "system_scores",
                "System-level z per language pair and source; dashed lines end a cluster",
                partial(F.system_scores, systems),
            )
        )
    return section
