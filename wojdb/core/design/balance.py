"""Balance of a study's questionnaires (thesis §6.3.5, Figures 6.1–6.3), and drift warnings.

Pure functions on the entries table (ENTRY_COLUMNS) of `survey.design.questionnaires.entries_frame`:
one row per entry, with questionnaire, position, kind, perm_type, shared, quality, source_lang,
lengths, triple.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from wojdb.core.design.composition import Layout

QUALITY_TOLERANCE = 0.1  # on the 0-1 quality scale
LANGUAGE_TOLERANCE = 0.25  # share of a questionnaire's hypotheses


#: The entries table's columns (written by survey.design.questionnaires.entries_frame).
ENTRY_COLUMNS = [
    "questionnaire",
    "version",
    "position",
    "item",
    "kind",
    "perm_type",
    "degree",
    "shared",
    "quality",
    "source_lang",
    "source_length",
    "reference_length",
    "hypothesis_length",
    "triple",
    "segment",
]
PART_COLUMNS = [
    "shared hypothesis",
    "shared permutation",
    "unique hypothesis",
    "unique permutation",
]
PLURALS = {
    "items": "items",
    "shared hypothesis": "shared hypotheses",
    "shared permutation": "shared permutations",
    "unique hypothesis": "unique hypotheses",
    "unique permutation": "unique permutations",
}


@dataclass(frozen=True)
class Drift:
    """A questionnaire (None: the study as a whole) that departs from the configured balance."""

    questionnaire: int | None
    message: str


def part_counts(entries: pd.DataFrame) -> pd.DataFrame:
    """Per questionnaire: items, and hypotheses and permutations in the shared and unique parts."""
    part = entries["shared"].map({True: "shared", False: "unique"})
    counts = pd.crosstab(entries["questionnaire"], [part, entries["kind"]])
    counts.columns = [f"{p} {k}" for p, k in counts.columns]
    for column in PART_COLUMNS:
        if column not in counts:
            counts[column] = 0
    counts = counts[PART_COLUMNS]
    counts.insert(0, "items", counts.sum(axis=1))
    return counts


def expected_part_counts(layout: Layout) -> dict[str, int]:
    return {
        "items": layout.items,
        "shared hypothesis": layout.shared.hypotheses,
        "shared permutation": layout.shared.permutations,
        "unique hypothesis": layout.unique.hypotheses,
        "unique permutation": layout.unique.permutations,
    }


def quality_by_questionnaire(entries: pd.DataFrame) -> pd.DataFrame:
    """Mean quality per questionnaire (rows) and kind (columns): WMT score for hypotheses,
    eq. 6.2 for permutations — the right-hand graph of Figure 6.1."""
    means = entries.pivot_table(
        index="questionnaire", columns="kind", values="quality", aggfunc="mean"
    )
    return means.reindex(columns=["hypothesis", "permutation"])


def hypotheses(entries: pd.DataFrame) -> pd.DataFrame:
    """The distinct WMT hypotheses the questionnaires show, one row per triple."""
    rows = entries[entries["kind"] == "hypothesis"]
    return rows.drop_duplicates("triple")


def length_correlation(entries: pd.DataFrame) -> tuple[float, int]:
    """Pearson's r between reference and hypothesis lengths (Figure 6.2), and how many pairs."""
    rows = hypotheses(entries)
    if len(rows) < 2:
        return math.nan, len(rows)
    r = rows["reference_length"].astype(float).corr(rows["hypothesis_length"].astype(float))
    return float(r), len(rows)


def language_counts(entries: pd.DataFrame) -> pd.Series:
    """Distinct items per source language, most frequent first (Figure 6.3)."""
    items = entries.drop_duplicates("item")
    return items["source_lang"].value_counts().sort_values(ascending=False, kind="stable")


def drift(
    entries: pd.DataFrame,
    layout: Layout,
    *,
    quality_tolerance: float = QUALITY_TOLERANCE,
    language_tolerance: float = LANGUAGE_TOLERANCE,
) -> list[Drift]:
    """Where questionnaires depart from the configured balance.

    Exact rules (Table 6.3 as configured): part sizes, named permutation types per part, one
    shared set, no unique item twice. Looser ones, by tolerance: mean quality per kind within
    `quality_tolerance` of the mean over all questionnaires; each source language's share of a
    questionnaire's hypotheses within `language_tolerance` of its share over all of them.
    """
    if entries.empty:
        return []
    found: list[Drift] = []
    expected = expected_part_counts(layout)
    for number, row in part_counts(entries).iterrows():
        for column, want in expected.items():
            if row[column] != want:
                found.append(Drift(number, f"{row[column]} {PLURALS[column]}, configured {want}"))
    for (number, shared), rows in entries[entries["kind"] == "permutation"].groupby(
        ["questionnaire", "shared"]
    ):
        part = layout.shared if shared else layout.unique
        have = rows["perm_type"].value_counts()
        for perm_type, want in part.typed.items():
            if have.get(perm_type, 0) < want:
                found.append(
                    Drift(
                        number,
                        f"{have.get(perm_type, 0)} {perm_type} permutations in the "
                        f"{'shared' if shared else 'unique'} part, configured at least {want}",
                    )
                )
    found += _shared_and_unique(entries)
    found += _quality(entries, quality_tolerance)
    found += _languages(entries, language_tolerance)
    return sorted(found, key=lambda d: d.questionnaire or 0)  # stable: rule order kept


def _shared_and_unique(entries: pd.DataFrame) -> list[Drift]:
    found = []
    shared = entries[entries["shared"]].groupby("questionnaire")["item"].agg(frozenset)
    # Built item by item: reindex refuses a frozenset as fill_value (not a scalar), which made
    # the study page fail for questionnaires without shared items.
    numbers = entries["questionnaire"].unique()
    shared = pd.Series([shared.get(n, frozenset()) for n in numbers], index=numbers, dtype=object)
    if shared.nunique() > 1:
        usual = shared.value_counts().index[0]
        for number, items in shared.items():
            if items != usual:
                found.append(Drift(number, "shared items differ from the other questionnaires"))
    unique = entries[~entries["shared"]]
    repeated = unique.groupby("item")["questionnaire"].nunique()
    for item in repeated[repeated > 1].index:
        numbers = sorted(unique.loc[unique["item"] == item, "questionnaire"].unique())
        found.append(Drift(None, f"unique item {item} appears in questionnaires {_list(numbers)}"))
    return found


def _quality(entries: pd.DataFrame, tolerance: float) -> list[Drift]:
    found = []
    overall = entries.groupby("kind")["quality"].mean()
    for number, row in quality_by_questionnaire(entries).iterrows():
        for kind, value in row.items():
            if pd.notna(value) and abs(value - overall[kind]) > tolerance:
                found.append(
                    Drift(
                        number,
                        f"mean {kind} quality {value:.2f}, against {overall[kind]:.2f} over all "
                        f"questionnaires (tolerance {tolerance:.2f})",
                    )
                )
    return found


def _languages(entries: pd.DataFrame, tolerance: float) -> list[Drift]:
    rows = entries[entries["kind"] == "hypothesis"]
    overall = rows["source_lang"].value_counts(normalize=True)
    shares = pd.crosstab(rows["questionnaire"], rows["source_lang"], normalize="index")
    found = []
    for number, row in shares.iterrows():
        for language, share in row.items():
            if abs(share - overall[language]) > tolerance:
                found.append(
                    Drift(
                        number,
                        f"{share:.0%} of hypotheses from source language {language}, against "
                        f"{overall[language]:.0%} over all questionnaires",
                    )
                )
    return found


def _list(numbers) -> str:
    return ", ".join(str(int(n)) for n in numbers)
