"""Balanced assignment of questionnaires to arriving participants.

A new participant gets the questionnaire (by number, over all its versions) with the fewest
completed-or-active participants, ties broken at random. Participants idle for longer than the
study's `abandon_after_minutes` are marked abandoned, which frees their slot; their answers stay.
"""

from __future__ import annotations

import random
from datetime import timedelta

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from survey.models import Participant, Questionnaire, Study
from wojdb.core.vocabulary import ABANDONED, ASSIGNED, COMPLETED, IN_PROGRESS

HOLDING = (ASSIGNED, IN_PROGRESS, COMPLETED)


class StudyClosed(Exception):
    """The study takes no new participants (closed, or no active questionnaire)."""


def release_abandoned(study: Study, now=None) -> int:
    """Mark idle participants abandoned; returns how many were released."""
    try:
        cutoff = (now or timezone.now()) - timedelta(minutes=study.abandon_after_minutes)
    except OverflowError:  # before the calendar's first day: no one has been idle that long
        return 0
    return Participant.objects.filter(
        study=study, status__in=(ASSIGNED, IN_PROGRESS), last_activity__lt=cutoff
    ).update(status=ABANDONED)


def enrol(study: Study, *, rng: random.Random | None = None, **fields) -> Participant:
    """Create a participant on the least-used active questionnaire, safely under concurrency."""
    rng = rng or random.SystemRandom()
    with transaction.atomic():
        # Locking the study row serialises concurrent arrivals on PostgreSQL; SQLite's
        # IMMEDIATE transactions serialise them already.
        study = Study.objects.select_for_update().get(pk=study.pk)
        if not study.is_open:
            raise StudyClosed(f"study {study.name!r} is closed")
        release_abandoned(study)
        load = dict(
            Questionnaire.objects.filter(study=study)
            .values_list("number")
            .annotate(n=Count("participants", filter=Q(participants__status__in=HOLDING)))
        )
        active = {
            q.number: q
            for q in Questionnaire.objects.filter(study=study, active=True).order_by("version")
        }
        if not active:
            raise StudyClosed(f"study {study.name!r} has no active questionnaire")
        fewest = min(load.get(n, 0) for n in active)
        number = rng.choice(sorted(n for n in active if load.get(n, 0) == fewest))
        return Participant.objects.create(study=study, questionnaire=active[number], **fields)
