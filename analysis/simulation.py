"""Simulated participants with answers from wojdb.core.stats.simulate's generative model, added to
a study as real arrivals would be (`simulate_responses`).

In a study with word marks each pair also gets marks from `wojdb.core.stats.marks.draw_marks`:
a permutation's displaced units are its truth, a hypothesis's its crossing words where
compute_metrics stored them (else it gets only false marks).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
import pandas as pd
from django.db import transaction
from django.utils import timezone

from analysis import frames
from survey.models import (
    Participant,
    ParticipantLanguage,
    Questionnaire,
    QuestionnaireEntry,
    QuestionnaireLoad,
    Rating,
    Study,
)
from survey.participants import assignment, participation
from wojdb.core.release.derived import item_quality
from wojdb.core.stats import columns as C
from wojdb.core.stats import marks as word_marks
from wojdb.core.stats import simulate
from wojdb.core.vocabulary import COMPLETED

# About-you answers drawn to resemble the thesis's participants (§6.5.2): mostly young (a quarter
# aged 30 or over), mostly British, five more women than men in 36, at least moderate attention
# to grammar, a mix of education levels and of languages besides English.
AGE_YOUNG_SHARE = 0.75
GENDERS = {"female": 0.55, "male": 0.41, "other": 0.02, "not_say": 0.02}
NATIONALITIES = {"British": 0.78, "Scottish": 0.15, "Irish": 0.04, "German": 0.03}
EDUCATION = {"school": 0.25, "college": 0.15, "undergraduate": 0.2, "masters": 0.25, "phd": 0.15}
GRAMMAR_ATTENTION = {3: 0.3, 4: 0.4, 5: 0.3}
TARGET_FIRST_SHARE = 0.95
OTHER_LANGUAGES = ("French", "German", "Spanish", "Italian", "Gaelic", "Japanese", "Polish")
OTHER_LANGUAGE_COUNT = {0: 0.3, 1: 0.35, 2: 0.25, 3: 0.1}
FLUENCY = {1: 0.35, 2: 0.2, 3: 0.15, 4: 0.2, 5: 0.05, 6: 0.05}


def _pick(rng: random.Random, weights: dict):
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def simulated_about_you(
    rng: random.Random, language: str = "English"
) -> tuple[dict, list[tuple[str, int]]]:
    """Participant fields and (language, fluency) pairs for one simulated participant of a
    study in `language` (by name), mostly its native speakers."""
    others_known = tuple(name for name in OTHER_LANGUAGES + ("English",) if name != language)
    young = rng.random() < AGE_YOUNG_SHARE
    target_first = rng.random() < TARGET_FIRST_SHARE
    fields = {
        "age": rng.randint(18, 29) if young else rng.randint(30, 74),
        "gender": _pick(rng, GENDERS),
        "nationality": _pick(rng, NATIONALITIES),
        "education": _pick(rng, EDUCATION),
        "grammar_attention": _pick(rng, GRAMMAR_ATTENTION),
        "target_first": target_first,
        "target_years": None if target_first else rng.randint(5, 20),
    }
    extra = _pick(rng, OTHER_LANGUAGE_COUNT)
    if target_first:
        languages, others = [(language, 7)], rng.sample(others_known, extra)
    else:
        native, *others = rng.sample(others_known, extra + 1)
        languages = [(native, 7), (language, 6)]
    languages += [(name, _pick(rng, FLUENCY)) for name in others]
    return fields, languages


class SimulationError(ValueError):
    """A study that cannot take simulated participants; nothing was written."""


@dataclass
class SimulationReport:
    removed: int
    added: int
    ratings: int


def add_simulated_participants(
    study: Study,
    count: int,
    seed: int,
    model: simulate.SimulationModel,
    *,
    replace: bool = False,
) -> SimulationReport:
    """Add `count` simulated participants with their answers, in one transaction; `replace`
    first deletes the study's earlier simulated participants (never real ones)."""
    if not Questionnaire.objects.filter(study=study, active=True).exists():
        raise SimulationError(
            f"study {study.slug!r} has no active questionnaire: run build_questionnaires first"
        )
    with transaction.atomic():
        removed = _remove_simulated(study) if replace else 0
        people = _enrol(study, count, seed)
        ratings = _answer_all(study, people, model, seed)
    return SimulationReport(removed, len(people), ratings)


def _remove_simulated(study: Study) -> int:
    simulated = Participant.objects.filter(study=study, simulated=True)
    count = simulated.count()
    simulated.delete()
    QuestionnaireLoad.forget(study)
    return count


def _enrol(study: Study, count: int, seed: int) -> list[Participant]:
    """Participants on balanced questionnaires, with about-you answers and languages."""
    rng = random.Random(f"simulate_responses:{seed}")
    consent = participation.current_consent(study)
    now = timezone.now()
    people, languages = [], []
    for _ in range(count):
        fields, spoken = simulated_about_you(rng, study.language_name)
        try:
            person = assignment.enrol(
                study,
                rng=rng,
                simulated=True,
                status=COMPLETED,
                consent_version=consent.version,
                consented_at=now,
                share_data=True,
                about_done=True,
                completed_at=now,
                **fields,
            )
        except assignment.StudyClosed as e:
            raise SimulationError(f"{e}: open it to simulate arrivals") from None
        people.append(person)
        languages += [
            ParticipantLanguage(participant=person, language=name, fluency=fluency)
            for name, fluency in spoken
        ]
    ParticipantLanguage.objects.bulk_create(languages)
    return people  # their questionnaires stay editable: simulated answers freeze nothing


def _assignments(study: Study, people: list[Participant]) -> pd.DataFrame:
    """One row per (participant, item) to answer: the practice sample and every pair."""
    entries = pd.DataFrame.from_records(
        QuestionnaireEntry.objects.filter(
            questionnaire__in={p.questionnaire_id for p in people}
        ).values_list("questionnaire_id", "position", "item_id", "shared"),
        columns=[C.QUESTIONNAIRE, C.POSITION, C.ITEM, C.SHARED],
    )
    people_frame = pd.DataFrame(
        {
            C.PARTICIPANT: [p.pk for p in people],
            C.QUESTIONNAIRE: [p.questionnaire_id for p in people],
        }
    )
    rows = people_frame.merge(entries, on=C.QUESTIONNAIRE)
    if study.sample_item_id:
        sample = people_frame.assign(
            **{C.POSITION: 0, C.ITEM: study.sample_item_id, C.SHARED: False}
        )
        rows = pd.concat([sample, rows], ignore_index=True)
    rows[C.PRACTICE] = rows[C.POSITION] == 0
    items = frames.items_frame(rows[C.ITEM].unique())
    items = items.assign(**{C.QUALITY: item_quality(items)})
    attributes = items[[C.ITEM, C.KIND, C.PERM_TYPE, C.DEGREE, C.QUALITY, C.WMT_SCORE]]
    rows = rows.merge(attributes, on=C.ITEM, how="left")
    if study.word_marks:
        truths = frames.truths_frame(items)
        rows = rows.merge(truths[[C.ITEM, word_marks.SHOWN, word_marks.DISPLACED,
                                  word_marks.CROSSING]], on=C.ITEM, how="left")  # fmt: skip
    return rows.sort_values([C.PARTICIPANT, C.POSITION], ignore_index=True)


def _answer_all(
    study: Study, people: list[Participant], model: simulate.SimulationModel, seed: int
) -> int:
    assigned = _assignments(study, people)
    answers = simulate.simulate_responses(assigned, model, seed=seed)
    start = timezone.now().replace(microsecond=0) - timedelta(hours=1)
    milliseconds = (answers[C.SECONDS] * 1000).round().astype("int64")
    # Each participant works through their items in order, from the same starting time.
    elapsed = milliseconds.groupby(answers[C.PARTICIPANT]).cumsum()
    answered_at = start + pd.to_timedelta(elapsed, unit="ms")
    shown_at = answered_at - pd.to_timedelta(milliseconds, unit="ms")
    ratings = [
        Rating(
            participant_id=row[C.PARTICIPANT],
            item_id=row[C.ITEM],
            position=row[C.POSITION],
            practice=row[C.PRACTICE],
            holistic=_answer(row[C.HOLISTIC]),
            order=_answer(row[C.ORDER]),
            shown_at=shown.to_pydatetime(),
            answered_at=done.to_pydatetime(),
            client_ms=int(ms),
            marks=_stamped(marked, done.to_pydatetime()),
        )
        for row, ms, shown, done, marked in zip(
            answers.to_dict("records"),
            milliseconds,
            shown_at,
            answered_at,
            _marks(study, assigned, model, seed),
            strict=True,
        )
    ]
    Rating.objects.bulk_create(ratings, batch_size=2000)
    last = answers.groupby(C.PARTICIPANT)[C.POSITION].max()
    for person in people:
        person.position = int(last[person.pk]) + 1
    Participant.objects.bulk_update(people, ["position"])
    return len(ratings)


#: The marks draw from their own stream of the seed, so a study's ratings are the same with
#: word marks on or off.
MARKS_STREAM = 1


def _marks(study: Study, assigned: pd.DataFrame, model: simulate.SimulationModel, seed: int):
    """Per assigned pair, its units marked as (position, unit as shown); None for a study
    without word marks."""
    if not study.word_marks:
        return [None] * len(assigned)
    rng = np.random.default_rng([seed, MARKS_STREAM])
    out = []
    for shown, displaced, crossing, kind in zip(
        assigned[word_marks.SHOWN],
        assigned[word_marks.DISPLACED],
        assigned[word_marks.CROSSING],
        assigned[C.KIND],
        strict=True,
    ):
        truth = displaced if kind == C.PERMUTATION else crossing
        chosen = word_marks.draw_marks(len(shown), truth, model.mark_recall, model.mark_false, rng)
        out.append([(u, shown[u]) for u in chosen])
    return out


def _stamped(marked: list | None, at) -> list | None:
    """Rating.marks: each unit with the time it was marked (here, when the pair was answered)."""
    return None if marked is None else [[u, unit, at.isoformat()] for u, unit in marked]


def _answer(value: float) -> int | None:
    return None if np.isnan(value) else int(value)
