"""Ratings and scores frames for the report's tests: built from the stated generative model
(wojdb.core.stats.simulate), with a scores frame whose sources are noisy copies of the items' true
quality, so every section of the report has content."""

from __future__ import annotations

import numpy as np
import pandas as pd

from wojdb.core.report.build import build_report
from wojdb.core.report.model import Report
from wojdb.core.stats import columns as C
from wojdb.core.stats import simulate

PERM_TYPES = ("order", "swap", "phrase", "choice")
CONFIGS = ("GIZA++", "cdec")


def design(participants: int = 18, questionnaires: int = 6, seed: int = 0) -> pd.DataFrame:
    """Each questionnaire: 20 shared items (10 hypotheses, 10 permutations) and 20 unique."""
    rng = np.random.default_rng(seed)
    items = []
    for item in range(20 + 20 * questionnaires):
        hypothesis = item % 2 == 0
        degree = int(rng.integers(1, 11))
        items.append(
            {
                C.ITEM: item,
                C.KIND: C.HYPOTHESIS if hypothesis else C.PERMUTATION,
                C.PERM_TYPE: None if hypothesis else PERM_TYPES[(item // 2) % 4],
                C.DEGREE: np.nan if hypothesis else degree,
                C.WMT_SCORE: rng.uniform() if hypothesis else np.nan,
                C.QUALITY: np.nan if hypothesis else 1 - (degree - 1) / 9,
                C.SHARED: item < 20,
            }
        )
    items = pd.DataFrame(items)
    items[C.QUALITY] = items[C.QUALITY].fillna(items[C.WMT_SCORE])
    rows = []
    for person in range(participants):
        q = person % questionnaires
        chosen = items[(items[C.ITEM] < 20) | (items[C.ITEM] // 20 - 1 == q)]
        rows.append(
            chosen.assign(
                **{
                    C.PARTICIPANT: person + 1,
                    C.QUESTIONNAIRE: q + 1,
                    C.POSITION: range(1, len(chosen) + 1),
                    C.PRACTICE: False,
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    people = pd.DataFrame(
        {
            C.PARTICIPANT: range(1, participants + 1),
            C.AGE: [22 + 5 * (p % 9) for p in range(participants)],
            C.GENDER: ["female", "male"] * (participants // 2),
            "nationality": "British",
            C.EDUCATION: [C.EDUCATION_LEVELS[p % 5] for p in range(participants)],
            "grammar_attention": [3 + p % 3 for p in range(participants)],
            C.LANGUAGES_SCORE: [7 + 2 * (p % 5) for p in range(participants)],
            C.TARGET_FIRST: True,
        }
    )
    return frame.merge(people, on=C.PARTICIPANT)


def scores_for(ratings: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    """Noisy copies of each item's quality; BEER scores only half the hypotheses."""
    rng = np.random.default_rng(seed)
    items = ratings.drop_duplicates(C.ITEM).set_index(C.ITEM)
    rows = []

    def add(metric, variant, config, noise, subset=items):
        for item, quality in subset[C.QUALITY].items():
            rows.append((item, metric, variant, config, quality + rng.normal(0, noise)))

    add("BLEU", "", "", 0.3)
    for config in CONFIGS:
        add("Kendall", "", config, 0.25)
        add("DTED", "c", config, 0.15)
        add("DTED", "fc", config, 0.2)
        add("DERP", "", config, 0.25)
    hypotheses = items[items[C.KIND] == C.HYPOTHESIS]
    add("BEER", "", "", 0.2, hypotheses.iloc[::2])
    add("WMT", "", "", 0.0, hypotheses)
    return pd.DataFrame(rows, columns=[C.ITEM, C.METRIC, C.VARIANT, C.CONFIG, C.SCORE])


def study_frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Ratings, scores and languages of a study into French (the items' target language, as the
    database and a release give it)."""
    ratings = simulate.simulate_responses(design(), seed=3).assign(target_lang="fr")
    languages = pd.DataFrame(
        {C.PARTICIPANT: [1, 1, 2], "language": ["English", "French", "English"]}
    )
    return ratings, scores_for(ratings), languages


def study_report(frames) -> tuple[Report, list[str]]:
    """The report of the study's frames with every section, and the steps it announced."""
    ratings, scores, languages = frames
    steps = []
    report = build_report(
        ratings,
        scores,
        title="Test study",
        generated="2024-01-01 12:00 UTC",
        languages=languages,
        pilot=ratings[ratings[C.PARTICIPANT] <= 3],
        n_boot=50,
        subsets={"over-30s": "age >= 30", "women": "gender == 'female'"},
        progress=steps.append,
    )
    return report, steps
