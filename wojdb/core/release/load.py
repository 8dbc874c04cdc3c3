"""A release as the analysis frames of :mod:`wojdb.core.stats.columns`, without Django.

    from wojdb.core.release import load_release
    ratings, scores = load_release("wojdb-demo-1.0")
    ratings, scores, judgments = load_release("wojdb-demo-1.0", judgments=True)
    ratings, scores, answers, truths = load_release("wojdb-demo-1.0", marks=True)

The frames are built by the same functions (:func:`tidy_ratings`, :func:`tidy_scores`) that turn
the live database into frames (:mod:`analysis.frames`), so a release analyses exactly like the
database it came from.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from wojdb.core import scales
from wojdb.core.release.derived import item_quality
from wojdb.core.release.read import read_release
from wojdb.core.release.schema import (
    DEMOGRAPHICS,
    PERMUTATION_METRIC,
    RATINGS_FRAME_TYPES,
    SCORES_FRAME_TYPES,
    TRIPLE_KEY,
    WMT_METRIC,
)
from wojdb.core.stats import columns as col
from wojdb.core.stats import marks as word_marks


def tidy_ratings(
    ratings: pd.DataFrame,
    participants: pd.DataFrame,
    items: pd.DataFrame,
    questionnaires: pd.DataFrame,
    *,
    include_practice: bool = False,
    include_simulated: bool = True,
) -> pd.DataFrame:
    """The ratings frame of wojdb.core.stats.columns from the release's tables.

    One row per rating, sorted by participant and position; columns in RATINGS_FRAME_TYPES order.
    """
    people = participants[[col.PARTICIPANT, col.QUESTIONNAIRE, col.SIMULATED, *DEMOGRAPHICS]]
    if not include_simulated:
        people = people[~people[col.SIMULATED]]
    rows = ratings if include_practice else ratings[~ratings[col.PRACTICE]]
    frame = rows[
        [
            col.PARTICIPANT,
            col.ITEM,
            col.POSITION,
            col.PRACTICE,
            col.HOLISTIC,
            col.ORDER,
            col.SECONDS,
        ]
    ].merge(people, on=col.PARTICIPANT, how="inner", validate="many_to_one")
    item_columns = items[
        [col.ITEM, col.KIND, col.PERM_TYPE, col.DEGREE, col.WMT_SCORE, col.TARGET_LANG]
    ].assign(**{col.QUALITY: item_quality(items)})
    frame = frame.merge(item_columns, on=col.ITEM, how="left", validate="many_to_one")
    shared = questionnaires[[col.QUESTIONNAIRE, col.ITEM, col.SHARED]]
    frame = frame.merge(
        shared, on=[col.QUESTIONNAIRE, col.ITEM], how="left", validate="many_to_one"
    )
    frame[col.SHARED] = frame[col.SHARED].fillna(False).astype("bool")
    for judgment in col.JUDGMENTS:
        frame[judgment] = frame[judgment].astype("float64")
        frame[col.unit(judgment)] = scales.answer_to_unit(frame[judgment])
    frame = frame.sort_values([col.PARTICIPANT, col.POSITION, col.ITEM], kind="stable")
    frame = frame[list(RATINGS_FRAME_TYPES)].astype(RATINGS_FRAME_TYPES)
    return frame.reset_index(drop=True)


def builtin_scores(items: pd.DataFrame) -> pd.DataFrame:
    """The score sources that live on the items, in the scores frame's long format.

    ``WMT``: the WMT score of hypothesis items (eq. 6.1 rank score, else DA raw / 100);
    ``Permutation degree``: eq. 6.2 of permutation items. Items without a score get no row.
    """
    is_perm = items[col.KIND] == col.PERMUTATION
    parts = [
        (WMT_METRIC, items[~is_perm], col.WMT_SCORE),
        (PERMUTATION_METRIC, items[is_perm], "perm_quality"),
    ]
    frames = [
        pd.DataFrame(
            {
                col.ITEM: subset[col.ITEM],
                col.METRIC: metric,
                col.VARIANT: "",
                col.CONFIG: "",
                col.SCORE: subset[column],
                col.HIGHER_IS_BETTER: True,  # eq. 6.1 and eq. 6.2 both score quality
            }
        ).dropna(subset=[col.SCORE])
        for metric, subset, column in parts
    ]
    return pd.concat(frames, ignore_index=True)


def tidy_scores(
    metric_scores: pd.DataFrame,
    items: pd.DataFrame | None = None,
    metrics: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The scores frame: stored metric scores, plus the built-in sources of `items` if given.

    ``metrics`` (metrics.csv) gives each configuration's ``higher_is_better``; without it, or
    for a configuration it lacks, higher is taken as better. Sorted by metric, variant, config
    and item; ``variant`` and ``config`` are "" when none.
    """
    better = pd.Series(True, index=metric_scores.index)
    if metrics is not None and len(metrics):
        by_id = metrics.set_index("metric_id")[col.HIGHER_IS_BETTER].astype(bool)
        better = metric_scores["metric_id"].map(by_id).fillna(True).astype(bool)
    stored = pd.DataFrame(
        {
            col.ITEM: metric_scores[col.ITEM],
            col.METRIC: metric_scores[col.METRIC],
            col.VARIANT: metric_scores[col.VARIANT].fillna(""),
            col.CONFIG: metric_scores[col.CONFIG].fillna(""),
            col.SCORE: metric_scores[col.SCORE],
            col.HIGHER_IS_BETTER: better,
        }
    )
    parts = [stored] if items is None else [stored, builtin_scores(items)]
    frame = pd.concat([p.astype(SCORES_FRAME_TYPES) for p in parts], ignore_index=True)
    frame = frame.sort_values([col.METRIC, col.VARIANT, col.CONFIG, col.ITEM], kind="stable")
    return frame.astype(SCORES_FRAME_TYPES).reset_index(drop=True)


def tidy_judgments(judgments: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """judgments.csv with each row's ``lp`` and the ``item`` rating its hypothesis (missing
    where the release rates only permutations of the triple's reference), so the study's
    ratings of an item and the imported judgments of its hypothesis meet on ``item``."""
    hypotheses = items.loc[items[col.KIND] == col.HYPOTHESIS, [*TRIPLE_KEY, col.ITEM]]
    frame = judgments.merge(hypotheses, on=list(TRIPLE_KEY), how="left", validate="many_to_one")
    frame.insert(3, "lp", frame["source_lang"] + "-" + frame["target_lang"])
    return frame.astype({col.ITEM: "Int64"})


def load_release(
    path: str | Path,
    *,
    include_practice: bool = False,
    include_simulated: bool = True,
    allow_extra_files: bool = False,
    judgments: bool = False,
    marks: bool = False,
) -> tuple[pd.DataFrame, ...]:
    """The ratings and scores frames of a release folder or zip archive, validated first
    (ReleaseError); with `judgments`, the imported judgments too (:func:`tidy_judgments`;
    empty where the release has none); with `marks`, then the word marks' answers and truths
    frames (`wojdb.core.stats.marks`; no answers where the study never asked; a release holds
    no alignments, so no hypothesis has crossing words)."""
    release = read_release(path, allow_extra_files=allow_extra_files)
    t = release.tables
    ratings = tidy_ratings(
        t["ratings"],
        t["participants"],
        t["items"],
        t["questionnaires"],
        include_practice=include_practice,
        include_simulated=include_simulated,
    )
    scores = tidy_scores(t["metric_scores"], t["items"], t.get("metrics"))
    out = (ratings, scores)
    if judgments:
        out += (tidy_judgments(t["judgments"], t["items"]),)
    if marks:
        answered = word_marks.answers(t["ratings"], t["marks"])
        answered = answered[answered[col.PARTICIPANT].isin(ratings[col.PARTICIPANT])]
        items = t["items"][t["items"][col.ITEM].isin(answered[col.ITEM])]
        out += (answered.reset_index(drop=True), word_marks.item_truths(items, {}))
    return out
