"""Balanced assignment of questionnaires to arriving participants.

A new participant gets the questionnaire (by number, over all its versions) with the fewest
completed-or-active participants of their kind (real, pilot or simulated), ties broken at
random. Participants idle for longer than the study's `abandon_after_minutes` are marked
abandoned, which frees their slot; their answers stay.

A join is a few statements, written as SQL for the reason survey/participants/participation.py
gives: the study row is locked and its revision read (the caller's copy, from the process's cache,
is used where it is current), then the kept counts of the joiner's kind are read
(`QuestionnaireLoad`, one row a questionnaire version) and the chosen one's raised. Counting
the study's participants at every join would read more rows the more people have joined, with
every other join waiting on the lock meanwhile; the counts are made afresh, the idle marked
abandoned first, when a version has none or they are over a minute old. A participant who
declines, withdraws or starts afresh frees their slot at once (`free_slot`); an idle one's,
or one's deleted in the admin, is free within a minute; where participants are deleted in
number (the pilot's, the simulated), the counts are forgotten (`QuestionnaireLoad.forget`)."""

from __future__ import annotations

import random
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from survey.models import Participant, QuestionnaireLoad, Study
from survey.participants import study_cache
from wojdb.core.vocabulary import ABANDONED, ASSIGNED, COMPLETED, IN_PROGRESS

HOLDING = (ASSIGNED, IN_PROGRESS, COMPLETED)
#: How long a join trusts the kept counts before counting afresh.
COUNTS_LAST = timedelta(seconds=60)

STUDY_REVISION = "SELECT revision FROM survey_study WHERE id = %s"
# Per questionnaire version, oldest first: its number, whether it is offered, and the kept
# count of one kind's participants holding it, with whether it was counted since a time (NULL:
# never counted).
KEPT = (
    "SELECT q.id, q.number, q.active, l.holding, l.counted >= %s FROM survey_questionnaire q"
    " LEFT JOIN survey_questionnaireload l ON l.questionnaire_id = q.id"
    " AND l.pilot = %s AND l.simulated = %s WHERE q.study_id = %s ORDER BY q.version"
)
FORGET = (
    "DELETE FROM survey_questionnaireload WHERE pilot = %s AND simulated = %s"
    " AND questionnaire_id IN (SELECT id FROM survey_questionnaire WHERE study_id = %s)"
)
# Every version of the study, with the participants of one kind holding it.
COUNT = (
    "INSERT INTO survey_questionnaireload (questionnaire_id, pilot, simulated, holding, counted)"
    " SELECT q.id, %s, %s, COUNT(p.id), %s FROM survey_questionnaire q"
    " LEFT JOIN survey_participant p ON p.questionnaire_id = q.id"
    " AND p.pilot = %s AND p.simulated = %s"
    f" AND p.status IN ('{ASSIGNED}', '{IN_PROGRESS}', '{COMPLETED}')"
    " WHERE q.study_id = %s GROUP BY q.id"
)
RAISE = (
    "UPDATE survey_questionnaireload SET holding = holding + 1"
    " WHERE questionnaire_id = %s AND pilot = %s AND simulated = %s"
)
LOWER = (
    "UPDATE survey_questionnaireload SET holding = holding - 1"
    " WHERE questionnaire_id = %s AND pilot = %s AND simulated = %s AND holding > 0"
)


class StudyClosed(Exception):
    """The study takes no new participants (closed, or no active questionnaire)."""


def idle_cutoff(study: Study, now=None):
    """Participants last active before this are idle; None when no one can have been idle
    that long (a wait reaching back before the calendar's first day)."""
    try:
        return (now or timezone.now()) - timedelta(minutes=study.abandon_after_minutes)
    except OverflowError:
        return None


def mark_idle(study: Study, now=None) -> int:
    """Mark idle participants abandoned; returns how many."""
    cutoff = idle_cutoff(study, now)
    if cutoff is None:
        return 0
    return Participant.objects.filter(
        study=study, status__in=(ASSIGNED, IN_PROGRESS), last_activity__lt=cutoff
    ).update(status=ABANDONED)


def release_abandoned(study: Study) -> int:
    """Mark idle participants abandoned, their slots free for the next join; returns how
    many were released."""
    released = mark_idle(study)
    if released:
        QuestionnaireLoad.forget(study)
    return released


def lock_study(study: Study) -> int:
    """Lock the study's row for the transaction (joins wait on it); returns its revision.
    Locking it serialises concurrent arrivals on PostgreSQL; SQLite's IMMEDIATE transactions
    serialise them already."""
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with connection.cursor() as cursor:
        cursor.execute(STUDY_REVISION + lock, [study.pk])
        return cursor.fetchone()[0]


def free_slot(participant: Participant) -> None:
    """The slot of a participant who holds it and leaves now (declining, withdrawing, starting
    afresh) is free for the next join at once. First in the transaction that lets them go:
    the study's row is locked before the participant's, in the order every join takes them."""
    lock_study(participant.study)
    if participant.status in HOLDING:
        with connection.cursor() as cursor:
            kind = [participant.pilot, participant.simulated]
            cursor.execute(LOWER, [participant.questionnaire_id, *kind])


def kept_counts(study: Study, kind: list, now) -> list[tuple]:
    """(version id, number, offered, holding) of every questionnaire version of the study,
    counted afresh where a count is missing or out of date. The study row is locked."""
    since = connection.ops.adapt_datetimefield_value(now - COUNTS_LAST)
    with connection.cursor() as cursor:
        cursor.execute(KEPT, [since, *kind, study.pk])
        rows = cursor.fetchall()
        if any(holding is None or not fresh for *_, holding, fresh in rows):
            mark_idle(study, now)
            cursor.execute(FORGET, [*kind, study.pk])
            stamp = connection.ops.adapt_datetimefield_value(now)
            cursor.execute(COUNT, [*kind, stamp, *kind, study.pk])
            cursor.execute(KEPT, [since, *kind, study.pk])
            rows = cursor.fetchall()
    return [row[:4] for row in rows]


def enrol(study: Study, *, rng: random.Random | None = None, **fields) -> Participant:
    """Create a participant on the least-used active questionnaire, safely under concurrency.
    Before the study's launch, a person who arrives is a pilot participant."""
    rng = rng or random.SystemRandom()
    with transaction.atomic(savepoint=False):
        revision = lock_study(study)
        if revision != study.revision:
            study = study_cache.study(study.pk, revision)
        if not study.is_open:
            raise StudyClosed(f"study {study.name!r} is closed")
        fields.setdefault("pilot", not study.launched and not fields.get("simulated"))
        # Balanced among their own kind: real participants whatever pilot ones took before.
        kind = [fields["pilot"], bool(fields.get("simulated"))]
        load, active = {}, {}
        for pk, number, offered, holding in kept_counts(study, kind, timezone.now()):
            load[number] = load.get(number, 0) + holding
            if offered:
                active[number] = pk  # the newest offered version
        if not active:
            raise StudyClosed(f"study {study.name!r} has no active questionnaire")
        fewest = min(load[n] for n in active)
        number = rng.choice(sorted(n for n in active if load[n] == fewest))
        with connection.cursor() as cursor:
            cursor.execute(RAISE, [active[number], *kind])
        return Participant.objects.create(study=study, questionnaire_id=active[number], **fields)
