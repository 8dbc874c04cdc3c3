"""The facts at the top of a report: who and what was analysed."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from wojdb.core.language.codes import LANGUAGE_NAMES
from wojdb.core.report import figures as F
from wojdb.core.stats import columns as C
from wojdb.core.stats import correlation


def _language_names(codes: pd.Series) -> str:
    """The items' languages, by name with the code: "French (fr)"."""
    return ", ".join(f"{LANGUAGE_NAMES.get(c, c)} ({c})" for c in sorted(codes.unique())) or "none"


def report_facts(
    ratings: pd.DataFrame,
    sources: correlation.Sources | None,
    departures: Mapping[str, int] | None,
) -> list[tuple[str, str]]:
    people = ratings.drop_duplicates(C.PARTICIPANT)
    simulated = int(people[C.SIMULATED].astype(bool).sum())
    groups = ratings.drop_duplicates(C.ITEM)[C.GROUP].value_counts()
    blanks = {j: int(ratings[j].isna().sum()) for j in C.JUDGMENTS}
    facts = [
        ("Participants analysed: real", str(len(people) - simulated)),
        ("Participants analysed: simulated", str(simulated)),
    ]
    if departures is not None:
        # Counts only: the data of people who declined or withdrew is deleted.
        facts += [
            ("Declined consent", str(departures["declined"])),
            (
                "Withdrew",
                f"{departures['withdrawn_real']} real, "
                f"{departures['withdrawn_simulated']} simulated",
            ),
        ]
    if C.TARGET_LANG in ratings:
        facts.append(("Target language", _language_names(ratings[C.TARGET_LANG])))
    facts += [
        ("Questionnaires", str(ratings[C.QUESTIONNAIRE].nunique())),
        ("Ratings (practice sample excluded)", _per_group(ratings)),
        ("Blank answers", f"holistic {blanks[C.HOLISTIC]}, order {blanks[C.ORDER]}"),
        (
            "Items rated",
            ", ".join(f"{n} {F.GROUP_TITLES.get(g, g)}" for g, n in groups.items()) or "none",
        ),
    ]
    if sources is not None:
        facts.append(("Score sources", str(len(sources.scores))))
    return facts


def _per_group(ratings: pd.DataFrame) -> str:
    """How many rows, and how many of each group when both are there."""
    counts = {group: len(part) for group, part in C.participant_groups(ratings).items()}
    if len(counts) < 2:
        return str(len(ratings))
    return f"{len(ratings)} ({', '.join(f'{n} {group}' for group, n in counts.items())})"
