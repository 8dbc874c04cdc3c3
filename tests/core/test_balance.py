"""Balance statistics and drift warnings (wojdb.core.design.balance) on hand-made entries tables."""

import math

import pandas as pd
import pytest

from wojdb.core.design import balance
from wojdb.core.design.balance import ENTRY_COLUMNS
from wojdb.core.design.composition import make_layout

# 10 items: 5 hypotheses (2 shared, 3 unique) and 5 permutations (2 shared, 3 unique), every
# permutation of a random type: Table 6.3's derivation at this size.
LAYOUT = make_layout(items=10)


def entry(q, position, item, kind, shared, quality, lang="de", triple=None, ref=10, hyp=10):
    return {
        "questionnaire": q,
        "version": 1,
        "position": position,
        "item": item,
        "kind": kind,
        "perm_type": "order" if kind == "permutation" else None,
        "degree": 3 if kind == "permutation" else None,
        "shared": shared,
        "quality": quality,
        "source_lang": lang,
        "source_length": ref,
        "reference_length": ref,
        "hypothesis_length": hyp,
        "triple": triple if triple is not None else item,
        "segment": triple if triple is not None else item,
    }


def questionnaire(q, first_item, hyp_quality=0.5, perm_quality=0.5, langs=("de", "cs", "de")):
    """Shared items 1-4 (two hypotheses, two permutations), then three unique of each kind."""
    rows = [
        entry(q, 1, 1, "hypothesis", True, 0.3, triple=1),
        entry(q, 2, 2, "hypothesis", True, 0.7, lang="cs", triple=2),
        entry(q, 3, 3, "permutation", True, 0.2, triple=1),
        entry(q, 4, 4, "permutation", True, 0.8, lang="cs", triple=2),
    ]
    for i in range(3):
        item = first_item + i
        rows.append(entry(q, 5 + i, item, "hypothesis", False, hyp_quality, lang=langs[i]))
        rows.append(entry(q, 8 + i, item + 100, "permutation", False, perm_quality, triple=item))
    return rows


def table(*questionnaires):
    return pd.DataFrame([row for q in questionnaires for row in q], columns=ENTRY_COLUMNS)


BALANCED = table(questionnaire(1, 10), questionnaire(2, 20))


def test_the_example_matches_its_layout():
    assert LAYOUT.shared.hypotheses == 2 and LAYOUT.shared.random == 2
    assert LAYOUT.unique.hypotheses == 3 and LAYOUT.unique.random == 3


def test_a_balanced_study_has_no_drift():
    assert balance.drift(BALANCED, LAYOUT) == []


def test_part_counts_per_questionnaire():
    counts = balance.part_counts(BALANCED)
    assert counts.loc[1].to_dict() == {
        "items": 10,
        "shared hypothesis": 2,
        "shared permutation": 2,
        "unique hypothesis": 3,
        "unique permutation": 3,
    }


def test_a_missing_item_is_drift_from_the_configured_counts():
    entries = BALANCED.drop(BALANCED.index[-1])  # questionnaire 2 loses a unique permutation
    assert [d.message for d in balance.drift(entries, LAYOUT)] == [
        "9 items, configured 10",
        "2 unique permutations, configured 3",
    ]
    assert {d.questionnaire for d in balance.drift(entries, LAYOUT)} == {2}


def test_named_types_below_their_configured_count_are_reported():
    layout = make_layout(
        items=10, type_counts={"shared": {"swap": 2}, "unique": {"order": 2, "random": 1}}
    )
    found = balance.drift(BALANCED, layout)
    assert {(d.questionnaire, d.message) for d in found} == {
        (q, "0 swap permutations in the shared part, configured at least 2") for q in (1, 2)
    }


def test_different_shared_items_and_repeated_unique_items_are_reported():
    entries = table(questionnaire(1, 10), questionnaire(2, 20), questionnaire(3, 10))
    entries.loc[(entries["questionnaire"] == 3) & (entries["item"] == 1), "shared"] = False
    messages = [(d.questionnaire, d.message) for d in balance.drift(entries, LAYOUT)]
    assert (3, "shared items differ from the other questionnaires") in messages
    assert (None, "unique item 10 appears in questionnaires 1, 3") in messages


def test_quality_beyond_the_tolerance_is_reported():
    entries = table(questionnaire(1, 10, perm_quality=0.9), questionnaire(2, 20))
    # permutation means: (0.2 + 0.8 + 3 × 0.9) / 5 = 0.74 and 0.5; overall 0.62
    found = balance.drift(entries, LAYOUT)
    assert [(d.questionnaire, d.message) for d in found] == [
        (1, "mean permutation quality 0.74, against 0.62 over all questionnaires (tolerance 0.10)"),
        (2, "mean permutation quality 0.50, against 0.62 over all questionnaires (tolerance 0.10)"),
    ]
    assert balance.drift(entries, LAYOUT, quality_tolerance=0.2) == []


def test_a_language_share_beyond_the_tolerance_is_reported():
    entries = table(
        questionnaire(1, 10, langs=("de", "de", "de")),
        questionnaire(2, 20, langs=("cs", "cs", "cs")),
    )
    # German: 4/5 of hypotheses in questionnaire 1, 1/5 in 2, 5/10 overall
    found = balance.drift(entries, LAYOUT)
    assert (
        1,
        "80% of hypotheses from source language de, against 50% over all questionnaires",
    ) in [(d.questionnaire, d.message) for d in found]
    assert balance.drift(entries, LAYOUT, language_tolerance=0.35) == []


def test_quality_by_questionnaire_is_the_mean_per_kind():
    means = balance.quality_by_questionnaire(table(questionnaire(1, 10, 0.9, 0.1)))
    # hypotheses (0.3 + 0.7 + 3 × 0.9) / 5, permutations (0.2 + 0.8 + 3 × 0.1) / 5
    assert means.loc[1, "hypothesis"] == pytest.approx(0.74)
    assert means.loc[1, "permutation"] == pytest.approx(0.26)


def test_length_correlation_counts_each_hypothesis_once():
    rows = [
        entry(1, i + 1, i, "hypothesis", False, 0.5, ref=length, hyp=2 * length + 1)
        for i, length in enumerate((5, 9, 14, 30))
    ]
    rows.append(entry(2, 1, 0, "hypothesis", False, 0.5, ref=5, hyp=11))  # item 0 again
    r, n = balance.length_correlation(pd.DataFrame(rows, columns=ENTRY_COLUMNS))
    assert (r, n) == (pytest.approx(1.0), 4)
    r, n = balance.length_correlation(pd.DataFrame(rows[:1], columns=ENTRY_COLUMNS))
    assert math.isnan(r) and n == 1


def test_language_counts_count_distinct_items():
    counts = balance.language_counts(BALANCED)
    # shared: items 1 and 3 German, 2 and 4 Czech; unique per questionnaire: two German and
    # one Czech hypothesis, three German permutations
    assert counts.to_dict() == {"de": 2 + 2 * 5, "cs": 2 + 2 * 1}
