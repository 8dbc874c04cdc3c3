"""What the participant pages read on every request, kept in each process's memory.

A study: every page needs its language, texts, platform and whether it is open. Loading its
fifty-odd columns with the participant cost half a millisecond of a request. The participant's
own query reads the study's `revision` instead, which every write of the study row changes
(`Study.save`, `StudyQuerySet.update`, which Django's deletions use too), and a copy of another
revision is loaded again: a researcher's change is seen by the next request on every process
and every app server, and nothing but the database is shared. Whether a study has a
questionnaire to hand out is no part of its row, so the study link reads it with the revision.

A questionnaire's items, by position: they never change once a participant has consented
(a started questionnaire is revised as a new version, survey/design/questionnaires.py), so they are
kept without a check, for consented participants only.

What an item shows (its two sentences and the source language): fixed once real people took
part in a study that shows it (survey/design/shown.py, whose lock the admin keeps too), so it is
kept for a consented participant who is neither a pilot nor simulated, whose own participation
is such a lock; an item page then reads the participant and their rating alone.
"""

from __future__ import annotations

import copy

from django.db import connection

from survey.models import QuestionnaireEntry, Study

#: A bound on what a process keeps; past it, everything is loaded afresh.
MOST = 1024

BY_SLUG = (
    "SELECT s.id, s.revision, EXISTS (SELECT 1 FROM survey_questionnaire q"
    " WHERE q.study_id = s.id AND q.active) FROM survey_study s WHERE s.slug = %s"
)

ITEM = (
    "SELECT i.id, i.triple_id, i.permutation_id, t.segment_id, t.hypothesis, s.reference,"
    " s.source_lang, p.text FROM survey_item i JOIN survey_triple t ON t.id = i.triple_id"
    " JOIN survey_segment s ON s.id = t.segment_id"
    " LEFT JOIN survey_permutation p ON p.id = i.permutation_id WHERE i.id = %s"
)

_studies: dict[int, Study] = {}
_questionnaires: dict[int, dict[int, int]] = {}
_items: dict[int, tuple] = {}


def study(pk: int, revision: int) -> Study:
    """The study `pk` at `revision` or later; the caller's own copy."""
    cached = _studies.get(pk)
    if cached is None or cached.revision != revision:
        cached = Study.objects.get(pk=pk)
        _keep(_studies, pk, cached)
    return copy.copy(cached)  # a view may set attributes on its study


def by_slug(slug: str) -> Study | None:
    """The study of a study link, from the process's copy, with `has_active`: whether it has
    a questionnaire to hand out (which its revision does not follow), read in the same query."""
    with connection.cursor() as cursor:
        cursor.execute(BY_SLUG, [slug])
        row = cursor.fetchone()
    if row is None:
        return None
    pk, revision, has_active = row
    found = study(pk, revision)
    found.has_active = bool(has_active)
    return found


def questionnaire_items(questionnaire_id: int) -> dict[int, int]:
    """Position -> item id in a started questionnaire (read-only)."""
    items = _questionnaires.get(questionnaire_id)
    if items is None:
        entries = QuestionnaireEntry.objects.filter(questionnaire_id=questionnaire_id)
        items = dict(entries.order_by().values_list("position", "item_id"))
        _keep(_questionnaires, questionnaire_id, items)
    return items


def item(item_id: int, fixed: bool) -> tuple | None:
    """The item's row as ITEM reads it, or None: from the process's copy where `fixed`, what
    it shows being locked (see above)."""
    row = _items.get(item_id) if fixed else None
    if row is None:
        with connection.cursor() as cursor:
            cursor.execute(ITEM, [item_id])
            row = cursor.fetchone()
        if fixed and row is not None:
            _keep(_items, item_id, row)
    return row


def _keep(cache: dict, key: int, value) -> None:
    if len(cache) >= MOST:
        cache.clear()
    cache[key] = value


def clear() -> None:
    """Forget everything: after the database was replaced under the process (tests, restores)."""
    _studies.clear()
    _questionnaires.clear()
    _items.clear()
