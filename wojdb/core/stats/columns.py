"""The two tidy frames every statistic takes: their column names, codes and checks.

**Ratings frame** — one row per rating (a participant's answers for one item):

==================  =========================================================================
participant         participant id (any hashable; int or str)
item                item id: a WMT hypothesis or a permutation of its reference
questionnaire       questionnaire id
position            1-based position in the questionnaire (0 for the practice sample)
kind                ``"hypothesis"`` or ``"permutation"``
perm_type           ``None``/NaN for hypotheses; ``order``, ``swap``, ``phrase``, ``choice``,
                    ``both`` for permutations
degree              permutation degree (number of words affected); NaN for hypotheses
quality             eq. 6.2 score for permutations, eq. 6.1 WMT score for hypotheses; may be NaN
wmt_score           WMT score (eq. 6.1, or a direct-assessment score) of the item's hypothesis;
                    may be NaN
target_lang         optional: ISO 639 code of the item's language (its corpus's target
                    language); the frames from the database and from a release have it
holistic, order     raw answers 1-5 as given; NaN when left blank
holistic01,         ``wojdb.core.scales.answer_to_unit``: 0, .25, .5, .75, 1 as in the thesis
(§6.3.5)
order01
seconds             time spent on the item; may be NaN
practice            bool: the unscored sample sentence
shared              bool: the item is in every questionnaire
simulated           bool: answers produced by :func:`wojdb.core.stats.simulate.simulate_responses`
age                 participant's age in years (NaN if not given)
target_first       bool or NaN
languages_score     language-knowledge points (native 7 ... a few words 1, summed)
education           one of :data:`EDUCATION_LEVELS` (or empty/NaN)
gender              ``male``, ``female``, ``other``, ``not_say`` (or empty/NaN)
==================  =========================================================================

Further demographic columns may be present; demographic subsets can use any column.

**Scores frame** — one row per automatic score of one item, long format:

==========  ===============================================================================
item        item id, as in the ratings frame
metric      tool name: ``DTED``, ``DERP``, ``BLEU``, ``Meteor``, ``BEER`` ...
variant     flags or variant of the tool (``c``, ``fco``; ``""`` when the tool has none)
config      optional: third-party tools used (parser/tagger/aligner) and a built-in metric's
            version, ``""`` when none
score       the score
higher_is_  optional bool: higher scores mean better translations (True when absent); TER
better      and other error counts are False
==========  ===============================================================================

A *score source* is one (metric, variant, config) triple.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wojdb.core import vocabulary
from wojdb.core.scales import LIKERT_MAX, LIKERT_MIN

if TYPE_CHECKING:  # the names alone are read by every command's options, without pandas
    import pandas as pd

PARTICIPANT = "participant"
ITEM = "item"
QUESTIONNAIRE = "questionnaire"
POSITION = "position"
KIND = "kind"
PERM_TYPE = "perm_type"
DEGREE = "degree"
QUALITY = "quality"
WMT_SCORE = "wmt_score"
TARGET_LANG = "target_lang"
HOLISTIC = "holistic"
ORDER = "order"
SECONDS = "seconds"
PRACTICE = "practice"
SHARED = "shared"
SIMULATED = "simulated"
AGE = "age"
TARGET_FIRST = "target_first"
LANGUAGES_SCORE = "languages_score"
EDUCATION = "education"
GENDER = "gender"

METRIC = "metric"
VARIANT = "variant"
CONFIG = "config"
SCORE = "score"
HIGHER_IS_BETTER = "higher_is_better"

HYPOTHESIS, PERMUTATION = vocabulary.HYPOTHESIS, vocabulary.PERMUTATION
PERM_TYPES = vocabulary.PERMUTATION_TYPES
EDUCATION_LEVELS = vocabulary.EDUCATION_LEVELS
JUDGMENTS = (HOLISTIC, ORDER)

RATING_COLUMNS = (
    PARTICIPANT,
    ITEM,
    QUESTIONNAIRE,
    POSITION,
    KIND,
    PERM_TYPE,
    DEGREE,
    QUALITY,
    WMT_SCORE,
    HOLISTIC,
    ORDER,
    HOLISTIC + "01",
    ORDER + "01",
    SECONDS,
    PRACTICE,
    SHARED,
    SIMULATED,
)
SCORE_COLUMNS = (ITEM, METRIC, VARIANT, SCORE)

#: Column added by :func:`sentence_group`: ``hypothesis`` or the permutation type.
GROUP = "group"


def unit(judgment: str) -> str:
    """Name of the 0-1 column of a judgment (``order`` -> ``order01``)."""
    return judgment + "01"


def adjusted(judgment: str) -> str:
    """Name of the participant-adjusted 0-1 column (``order`` -> ``order01_adjusted``)."""
    return unit(judgment) + "_adjusted"


#: The participants analysed apart, real first: a group's name and its ``simulated`` value.
PARTICIPANT_GROUPS = (("real", False), ("simulated", True))


def participant_groups(ratings: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The ratings of real and of simulated participants, each group that has any."""
    simulated = ratings[SIMULATED].astype(bool)
    parts = {name: ratings[simulated == flag] for name, flag in PARTICIPANT_GROUPS}
    return {name: part for name, part in parts.items() if not part.empty}


def check_ratings(ratings: pd.DataFrame) -> None:
    """Raise ValueError naming missing columns or answers outside 1-5."""
    missing = [c for c in RATING_COLUMNS if c not in ratings.columns]
    if missing:
        raise ValueError(f"ratings frame lacks columns: {', '.join(missing)}")
    for judgment in JUDGMENTS:
        answers = ratings[judgment].dropna()
        bad = answers[(answers < LIKERT_MIN) | (answers > LIKERT_MAX)]
        if len(bad):
            raise ValueError(f"{judgment} answers outside 1-5 in rows {list(bad.index[:5])}")


def check_scores(scores: pd.DataFrame) -> None:
    """Raise ValueError naming missing columns of a scores frame."""
    missing = [c for c in SCORE_COLUMNS if c not in scores.columns]
    if missing:
        raise ValueError(f"scores frame lacks columns: {', '.join(missing)}")


def sentence_group(ratings: pd.DataFrame) -> pd.Series:
    """``hypothesis`` for WMT hypotheses, else the permutation type."""
    import numpy as np
    import pandas as pd

    is_hypothesis = ratings[KIND] == HYPOTHESIS
    return pd.Series(
        np.where(is_hypothesis, HYPOTHESIS, ratings[PERM_TYPE].astype(object)),
        index=ratings.index,
        name=GROUP,
    )


def scored(ratings: pd.DataFrame) -> pd.DataFrame:
    """Ratings that count: practice samples dropped, group column added."""
    kept = ratings[~ratings[PRACTICE].astype(bool)]
    return kept.assign(**{GROUP: sentence_group(kept)})


def with_config(scores: pd.DataFrame) -> pd.DataFrame:
    """Scores frame with the optional ``config`` column filled in."""
    if CONFIG in scores.columns:
        return scores.assign(**{CONFIG: scores[CONFIG].fillna("").astype(str)})
    return scores.assign(**{CONFIG: ""})
