"""Balanced assignment of questionnaires to arriving participants.

A new participant gets the questionnaire (by number, over all its versions) with the fewest
completed-or-active participants of their kind (real, pilot or simulated), ties broken at
random. Participants idle for longer than the study's `abandon_after_minutes` are marked
abandoned, which frees their slot; their answers stay.

A join is a few statements, written as SQL for the reason survey/participants/participation.py
gives: the study row is locked and its revision read (the caller's copy, from the process's cache,
is used where it is current), then one query counts every questionnaire's participants. It counts
idle participants as released whether or not they have been marked yet, so the marking, an update
over the study's participants, runs at most once a minute per process and study."""

from __future__ import annotations

import random
import time
from collections import Counter
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from survey.models import Participant, Study
from survey.participants import study_cache
from wojdb.core.vocabulary import ABANDONED, ASSIGNED, COMPLETED, IN_PROGRESS

HOLDING = (ASSIGNED, IN_PROGRESS, COMPLETED)
#: How often a process marks a study's idle participants abandoned as people join.
RELEASE_EVERY = 60.0  # seconds

STUDY_REVISION = "SELECT revision FROM survey_study WHERE id = %s"
# Per questionnaire version, oldest first: its number, whether it is offered, and its holding
# participants of one kind, those idle (`{active}`: last active before a cutoff) left out.
LOAD = (
    "SELECT q.id, q.number, q.active, COUNT(p.id) FROM survey_questionnaire q"
    " LEFT JOIN survey_participant p ON p.questionnaire_id = q.id"
    " AND p.pilot = %s AND p.simulated = %s"
    f" AND (p.status = '{COMPLETED}' OR (p.status IN ('{ASSIGNED}', '{IN_PROGRESS}'){{active}}))"
    " WHERE q.study_id = %s GROUP BY q.id, q.number, q.active, q.version ORDER BY q.version"
)

_released: dict[int, float] = {}  # study id -> when this process last marked its idle


class StudyClosed(Exception):
    """The study takes no new participants (closed, or no active questionnaire)."""


def idle_cutoff(study: Study, now=None):
    """Participants last active before this are idle; None when no one can have been idle
    that long (a wait reaching back before the calendar's first day)."""
    try:
        return (now or timezone.now()) - timedelta(minutes=study.abandon_after_minutes)
    except OverflowError:
        return None


def release_abandoned(study: Study, now=None) -> int:
    """Mark idle participants abandoned; returns how many were released."""
    cutoff = idle_cutoff(study, now)
    if cutoff is None:
        return 0
    return Participant.objects.filter(
        study=study, status__in=(ASSIGNED, IN_PROGRESS), last_activity__lt=cutoff
    ).update(status=ABANDONED)


def enrol(study: Study, *, rng: random.Random | None = None, **fields) -> Participant:
    """Create a participant on the least-used active questionnaire, safely under concurrency.
    Before the study's launch, a person who arrives is a pilot participant."""
    rng = rng or random.SystemRandom()
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    with transaction.atomic(savepoint=False):
        # Locking the study row serialises concurrent arrivals on PostgreSQL; SQLite's
        # IMMEDIATE transactions serialise them already.
        with connection.cursor() as cursor:
            cursor.execute(STUDY_REVISION + lock, [study.pk])
            (revision,) = cursor.fetchone()
        if revision != study.revision:
            study = study_cache.study(study.pk, revision)
        if not study.is_open:
            raise StudyClosed(f"study {study.name!r} is closed")
        now = timezone.now()
        cutoff = idle_cutoff(study, now)
        last = _released.get(study.pk)
        if last is None or time.monotonic() - last >= RELEASE_EVERY:
            release_abandoned(study, now)
            _released[study.pk] = time.monotonic()
        fields.setdefault("pilot", not study.launched and not fields.get("simulated"))
        # Balanced among their own kind: real participants whatever pilot ones took before.
        kind = [fields["pilot"], bool(fields.get("simulated"))]
        sql, params = LOAD.format(active=""), [*kind, study.pk]
        if cutoff is not None:
            since = connection.ops.adapt_datetimefield_value(cutoff)
            sql, params = LOAD.format(active=" AND p.last_activity >= %s"), [*kind, since, study.pk]
        load, active = Counter(), {}
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            for pk, number, offered, holding in cursor.fetchall():
                load[number] += holding
                if offered:
                    active[number] = pk  # the newest offered version
        if not active:
            raise StudyClosed(f"study {study.name!r} has no active questionnaire")
        fewest = min(load[n] for n in active)
        number = rng.choice(sorted(n for n in active if load[n] == fewest))
        return Participant.objects.create(study=study, questionnaire_id=active[number], **fields)
