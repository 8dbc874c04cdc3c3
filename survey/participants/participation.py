"""What a participant does, from entry to withdrawal, as small service functions.

The views parse requests and render pages; everything that reads or writes a participant's
state lives here. Positions: 0 is the practice sample, 1..n the questionnaire's pairs, n+1 the
final check before finishing.
"""

from __future__ import annotations

import posixpath
import re
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from urllib.parse import quote, unquote, urlsplit

from django.conf import settings
from django.db import connection, transaction
from django.dispatch import Signal
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from survey import record, scan_store
from survey.models import (
    ConsentText,
    DeclinedConsent,
    Item,
    PaperCopy,
    Participant,
    Permutation,
    PlatformIdentity,
    QuestionnaireEntry,
    Rating,
    ScanPage,
    Segment,
    Study,
    Triple,
    Withdrawal,
)
from survey.participants import rows, study_cache
from survey.participants.assignment import enrol
from wojdb.core import texts
from wojdb.core.vocabulary import ABANDONED, ASSIGNED, COMPLETED, IN_PROGRESS

#: Sent after a withdrawal is stored, with the participant's former primary key (`pk`) and their
#: study's slug (`study`).
participant_withdrawn = Signal()


SCALES = ("holistic", "order")
# What an answer save may change besides the scales.
SAVED_FIELDS = ("answered_at", "client_ms", "revisions", "flagged", "comment")
# What a save's decision reads: every save that writes changes at least one of them.
ANSWER_STATE = (*SCALES, "client_ms", "revisions", "flagged", "comment")
ACTIVITY_RESOLUTION = timedelta(minutes=1)
#: How long a browser remembers the participation it holds in a study (see `held_by_browser`).
BROWSER_MEMORY = timedelta(days=180)

# Query parameter -> PlatformIdentity field. Prolific sends the first three, MTurk the next
# four (turkSubmitTo is checked apart, as an address); `pid` is generic.
PLATFORM_PARAMETERS = {
    "PROLIFIC_PID": "prolific_pid",
    "STUDY_ID": "study_id",
    "SESSION_ID": "session_id",
    "workerId": "worker_id",
    "assignmentId": "assignment_id",
    "hitId": "hit_id",
    "turkSubmitTo": "submit_to",
    "pid": "pid",
}
PLATFORM_VALUE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
MTURK_PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"
PROLIFIC_COMPLETE = "https://app.prolific.com/submissions/complete?cc="

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread

# The lookups of nearly every participant request, written as SQL: the ORM takes 0.3-0.5 ms to
# write each of them, more than the database takes to run it, in requests whose whole budget is
# 2-3 ms (bench/survey_page_bench.py). The study comes from the process's copy, checked against
# its revision.
PARTICIPANT_SQL = (
    "SELECT p.*, s.revision AS study_revision{columns} FROM survey_participant p"
    " JOIN survey_study s ON s.id = p.study_id{join} WHERE p.token = %s"
)
PARTICIPANT_BY_TOKEN = rows.Query(Participant, PARTICIPANT_SQL.format(columns="", join=""))
# An answer save's participant with their rating of the posted item, in one round trip.
PARTICIPANT_WITH_RATING = rows.Query(
    Participant,
    PARTICIPANT_SQL.format(
        columns="".join(
            f', r."{f.column}" AS "r__{f.column}"' for f in Rating._meta.concrete_fields
        ),
        join=" LEFT JOIN survey_rating r ON r.participant_id = p.id AND r.item_id = %s",
    ),
    joined=("rating_read", Rating, "r__"),
)
RATING_SQL = "SELECT * FROM survey_rating WHERE participant_id = %s AND item_id = %s"
RATING = rows.Query(Rating, RATING_SQL)
RATING_FOR_UPDATE = rows.Query(Rating, RATING_SQL + " FOR UPDATE")
ITEM = (
    "SELECT i.id, i.triple_id, i.permutation_id, t.segment_id, t.hypothesis, s.reference,"
    " s.source_lang, p.text FROM survey_item i JOIN survey_triple t ON t.id = i.triple_id"
    " JOIN survey_segment s ON s.id = t.segment_id"
    " LEFT JOIN survey_permutation p ON p.id = i.permutation_id WHERE i.id = %s"
)
CONSENT = rows.Query(
    ConsentText,
    "SELECT * FROM survey_consenttext WHERE study_id = %s ORDER BY version DESC LIMIT 1",
)
FREEZE = "UPDATE survey_questionnaire SET frozen = %s WHERE id = %s AND NOT frozen"
# A new rating, in one statement that needs no transaction of its own.
NEW_FIELDS = [f for f in Rating._meta.concrete_fields if not f.primary_key]
NEW_RATING = rows.Query(
    Rating,
    "INSERT INTO survey_rating (" + ", ".join(f'"{f.column}"' for f in NEW_FIELDS) + ")"
    " VALUES (" + ", ".join(["%s"] * len(NEW_FIELDS)) + ")"
    " ON CONFLICT (participant_id, item_id) DO NOTHING RETURNING *",
)


class Refused(Exception):
    """A request the participant's questionnaire cannot accept; nothing was written."""


class StartedElsewhere(Exception):
    """The platform ids belong to a participation this browser does not hold: only the
    personal link resumes it, so that knowing someone's ids does not open their answers."""


@dataclass(frozen=True)
class Answer:
    """One submission for one item. `basis` holds the values the page was showing, per scale
    present in the submission, so a stale page cannot overwrite a newer answer unnoticed."""

    holistic: int | None = None
    order: int | None = None
    client_ms: int | None = None
    basis: dict[str, int | None] = field(default_factory=dict)
    note: tuple[bool, str] | None = None  # (flagged, comment), when the page sent them


@dataclass(frozen=True)
class Saved:
    rating: Rating
    changed: bool
    conflict: bool = False


@dataclass(frozen=True)
class Progress:
    total: int
    answered: int
    unanswered: list[tuple[int, list[str]]]  # (position, scales not answered)


def platform_fields(params) -> dict[str, str]:
    """The crowd-platform ids among request parameters; ValueError on a malformed one."""
    fields = {}
    for parameter, name in PLATFORM_PARAMETERS.items():
        values = params.getlist(parameter)
        if len(values) > 1:  # which one the platform meant is not for us to guess
            raise ValueError(gettext("%(parameter)s is given twice") % {"parameter": parameter})
        value = values[0] if values else ""
        if not value:
            continue
        if parameter == "turkSubmitTo":
            if value.rstrip("/") not in settings.WOJDB_MTURK_HOSTS:
                message = gettext("%(parameter)s is not an MTurk address")
                raise ValueError(message % {"parameter": parameter})
        elif not PLATFORM_VALUE.fullmatch(value):
            raise ValueError(gettext("%(parameter)s is not a valid id") % {"parameter": parameter})
        fields[name] = value
    return fields


def browser_cookie(study: Study) -> str:
    """The cookie in which a browser keeps the token of its participation in a study."""
    return f"wojdb-participation-{study.slug}"


def held_by_browser(study: Study, cookies) -> Participant | None:
    """The participation of `study` this browser holds (its cookie), if it still exists."""
    participant = find(cookies.get(browser_cookie(study), ""))
    if participant is None or participant.study_id != study.pk:
        return None
    return participant


def enter(
    study: Study,
    platform: dict[str, str],
    reading_mode: bool = False,
    leaving: Participant | None = None,
) -> Participant:
    """A new participant on the study's least-used questionnaire (raises StudyClosed).

    A crowd worker who opens the study link again within the same platform session (or MTurk
    assignment) is not given a second questionnaire: StartedElsewhere is raised, as the browser
    that holds the participation resumes it before this is called. `leaving` is a participation
    the browser held and chose to start afresh from: unless finished, it is marked abandoned,
    which releases its slot as an idle participant's is (its answers stay).
    """
    with transaction.atomic():
        if leaving is not None:
            Participant.objects.filter(pk=leaving.pk, status__in=(ASSIGNED, IN_PROGRESS)).update(
                status=ABANDONED
            )
        for ids in (("prolific_pid", "session_id"), ("worker_id", "assignment_id")):
            if all(platform.get(name) for name in ids):
                match = {f"platform__{name}": platform[name] for name in ids}
                if Participant.objects.filter(study=study, **match).exists():
                    raise StartedElsewhere
        participant = enrol(study, reading_mode=reading_mode)
        if platform:
            PlatformIdentity.objects.create(
                participant=participant, return_url=study.platform_return_url, **platform
            )
    return participant


def find(token: str, item_id: int | None = None) -> Participant | None:
    """The participant of a personal link, with their study (see
    survey/participants/study_cache.py); with
    `item_id`, their rating of that item is read too, for `rating_of` to take."""
    if not 20 <= len(token) <= 64:
        return None
    if item_id is None:
        participant = PARTICIPANT_BY_TOKEN.first([token])
    else:
        participant = PARTICIPANT_WITH_RATING.first([item_id, token])
        if participant is not None:
            participant.rating_read = (item_id, participant.rating_read)
    if participant is None:
        return None
    participant.study = study_cache.study(participant.study_id, participant.study_revision)
    participant.loaded_position = participant.position
    return participant


def rating_of(
    participant: Participant, item_id: int, lock: bool = False, unseen: bool = False, **new
) -> Rating:
    """The participant's rating of an item, made with the fields `new` if there is none yet;
    `lock`: locked until the transaction ends, where the database can; `unseen`: most likely
    none yet, so made first and read only if it was there. A rating `find` read with the
    participant is taken once, unless locked."""
    lookup = RATING_FOR_UPDATE if lock and connection.features.has_select_for_update else RATING
    read = participant.__dict__.pop("rating_read", None)
    if read and read[0] == item_id and not lock:
        rating = read[1]  # None: there was none when the participant was read
    else:
        rating = None if unseen else lookup.first([participant.pk, item_id])
    if rating is None:
        made = Rating(participant_id=participant.pk, item_id=item_id, **new)
        values = [f.get_db_prep_save(getattr(made, f.attname), connection) for f in NEW_FIELDS]
        # None if the participant's page in another window made it meanwhile.
        rating = NEW_RATING.first(values) or lookup.first([participant.pk, item_id])
    return rating


def touch(participant: Participant, now=None) -> None:
    """Record a request's activity, with the position if it moved (see `find`).

    Activity is kept to the minute, as abandonment is judged in minutes: a request within a
    minute of the last one recorded, with nothing else to change, writes nothing, which spares
    most answer saves a second write transaction. A participant marked abandoned who comes back
    carries on.
    """
    now = now or timezone.now()
    changes = {}
    if participant.status == ABANDONED:
        changes["status"] = IN_PROGRESS if participant.consent_version else ASSIGNED
    if participant.position != getattr(participant, "loaded_position", participant.position):
        changes["position"] = participant.position
    last = participant.last_activity
    if participant.position is not None and participant.position > (participant.furthest or 0):
        changes["furthest"] = participant.position
    if changes or last is None or now - last >= ACTIVITY_RESOLUTION:
        changes["last_activity"] = now
        rows.update(Participant, participant.pk, changes)
    for name, value in changes.items():
        setattr(participant, name, value)
    participant.loaded_position = participant.position


def current_consent(study: Study) -> ConsentText:
    """The study's newest consent statements; a study without any gets the default ones."""
    consent = CONSENT.first([study.pk])
    if consent is None:
        consent, _ = ConsentText.objects.get_or_create(
            study=study, version=1, defaults=texts.default_consent(study.language)
        )
    return consent


def give_consent(
    participant: Participant, consent: ConsentText, share_data: bool = True, now=None
) -> None:
    """Every required statement accepted: the participant starts, and a real participant's
    questionnaire is frozen (a pilot one's stays editable). `share_data` is their answer to the
    statement on releasing the data."""
    consented = {
        "consent_version": consent.version,
        "consented_at": now or timezone.now(),
        "share_data": share_data,
        "status": IN_PROGRESS,
    }
    rows.update(Participant, participant.pk, consented)
    for name, value in consented.items():
        setattr(participant, name, value)
    if not (participant.pilot or participant.simulated):
        with connection.cursor() as cursor:
            cursor.execute(FREEZE, [True, participant.questionnaire_id])


def decline(participant: Participant) -> None:
    """Declining consent leaves only a count behind."""
    with transaction.atomic():
        DeclinedConsent.objects.create(study_id=participant.study_id, pilot=participant.pilot)
        participant.delete()


def withdraw(participant: Participant) -> None:
    """Delete the participant with their answers, languages and platform ids (cascade) and,
    for a paper participant, their copy's scanned pages, typed answers and crops and the kept
    scan files no other page comes from, leaving only a count; `participant_withdrawn` tells
    whoever keeps other files about them."""
    pk = participant.pk
    with transaction.atomic():
        Withdrawal.objects.create(
            study_id=participant.study_id, simulated=participant.simulated, pilot=participant.pilot
        )
        record.note(
            participant.study,
            "participant withdrew",
            mode=participant.mode,
            pilot=participant.pilot,
            simulated=participant.simulated,
        )
        copies = PaperCopy.objects.filter(participant=participant)
        scans = scan_store.kept_names(ScanPage.objects.filter(copy__in=copies))
        copies.delete()  # its pages and answers with it (cascade)
        participant.delete()
    # After the deletion, which a file that cannot be deleted or rewritten must not hold back.
    scan_store.forget_unshared(scans)
    participant_withdrawn.send(sender=Participant, pk=pk, study=participant.study.slug)


def entries(participant: Participant) -> dict[int, int]:
    """Position -> item id in the participant's questionnaire (read-only)."""
    if participant.consent_version is not None:  # started, so it no longer changes
        return study_cache.questionnaire_items(participant.questionnaire_id)
    found = QuestionnaireEntry.objects.filter(questionnaire_id=participant.questionnaire_id)
    return dict(found.order_by().values_list("position", "item_id"))


def pair_count(participant: Participant) -> int:
    return len(entries(participant))


def practice_notes(study: Study, item: Item) -> tuple[str, str]:
    """Feedback on the practice pair's two questions, in the active language: the study's own,
    else written from the item (texts.practice_notes)."""
    holistic, order = texts.practice_notes(item, gettext, ngettext)
    return study.sample_holistic_note or holistic, study.sample_order_note or order


def first_position(participant: Participant) -> int:
    return 0 if participant.study.sample_item_id else 1


def item_at(participant: Participant, position: int) -> Item:
    """The item shown at a position (the study's sample at 0, else the questionnaire's entry),
    with what its page shows loaded: the two sentences and the source language. Other fields
    are read from the database if used."""
    with connection.cursor() as cursor:
        cursor.execute(ITEM, [item_id_at(participant, position)])
        row = cursor.fetchone()
    if row is None:
        raise Refused(gettext("there is no item at position %(n)s") % {"n": position})
    item_id, triple_id, permutation_id, segment_id, hypothesis, reference, language, text = row
    item = _loaded(Item, id=item_id, triple_id=triple_id, permutation_id=permutation_id)
    item.triple = _loaded(Triple, id=triple_id, segment_id=segment_id, hypothesis=hypothesis)
    item.triple.segment = _loaded(Segment, id=segment_id, reference=reference, source_lang=language)
    if permutation_id is not None:
        item.permutation = _loaded(Permutation, id=permutation_id, text=text)
    return item


def _loaded(model, **values):
    """An instance with only `values` loaded from the database, as `QuerySet.only` makes."""
    names = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db(connection.alias, names, [values[name] for name in names])


def item_id_at(participant: Participant, position: int) -> int:
    """The id of the item at a position, without loading it (an answer save needs no more)."""
    if position == 0:
        item_id = participant.study.sample_item_id
    else:
        item_id = entries(participant).get(position)
    if item_id is None:
        raise Refused(gettext("there is no item at position %(n)s") % {"n": position})
    return item_id


def show(participant: Participant, position: int, now=None) -> tuple[Item, Rating]:
    """The item at a position and its rating, recording when it was first shown."""
    item = item_at(participant, position)
    # A position past the furthest reached has not been shown: its rating is made at once.
    unseen = participant.furthest is None or position > participant.furthest
    shown = first_shown(position, now or timezone.now())
    return item, rating_of(participant, item.pk, unseen=unseen, **shown)


def first_shown(position: int, now) -> dict:
    """The fields of a rating made when its pair is first shown (or first answered)."""
    return {"position": position, "practice": position == 0, "shown_at": now}


def save_answer(
    participant: Participant, position: int, item_id: int, answer: Answer, now=None
) -> Saved:
    """Save the answers given for one item; idempotent, and refuses a foreign item.

    A value already given and then changed counts as one revision per scale. A blank never
    erases an answer. When the page's basis differs from what is stored and the submission
    would change it, nothing is written and the caller is told of the conflict.

    The rating is read, the answer decided on it, and the change written only where the rating
    is still as read: a read and a write, where a transaction locking the rating took four
    round trips to the database. An outcome that writes nothing (a conflict, nothing new) is
    that of the moment of the read. A save of the same pair from another request in between
    (a double click, a retry racing its original, a second tab) makes the write miss; the
    answer is then decided again on the rating read locked.
    """
    if participant.status == COMPLETED:
        raise Refused(gettext("the study is already finished"))
    if item_id_at(participant, position) != item_id:
        raise Refused(gettext("this item is not in your questionnaire at this position"))
    now = now or timezone.now()
    shown = first_shown(position, now)
    rating = rating_of(participant, item_id, **shown)
    read = {name: getattr(rating, name) for name in ANSWER_STATE}
    saved, changes = answered(rating, answer, now)
    if not changes or rows.update(Rating, rating.pk, changes, unless_changed=read):
        return saved
    with transaction.atomic():
        rating = rating_of(participant, item_id, lock=True, **shown)
        saved, changes = answered(rating, answer, now)
        if changes:
            rows.update(Rating, rating.pk, changes)
    return saved


def answered(rating: Rating, answer: Answer, now) -> tuple[Saved, dict]:
    """The rating with an answer applied (`save_answer`), and the fields to write."""
    given = {scale: getattr(answer, scale) for scale in SCALES}
    stored = {scale: getattr(rating, scale) for scale in SCALES}
    if any(
        given[scale] is not None
        and given[scale] != stored[scale]
        and scale in answer.basis
        and answer.basis[scale] != stored[scale]
        for scale in SCALES
    ):
        return Saved(rating, changed=False, conflict=True), {}
    changed = False
    for scale in SCALES:
        if given[scale] is None or given[scale] == stored[scale]:
            continue
        if stored[scale] is not None:
            rating.revisions += 1
        setattr(rating, scale, given[scale])
        changed = True
    if changed:
        rating.answered_at = now
    timed = answer.client_ms is not None and answer.client_ms > (rating.client_ms or 0)
    if timed:
        rating.client_ms = answer.client_ms
    noted = answer.note is not None and answer.note != (rating.flagged, rating.comment)
    if noted:
        rating.flagged, rating.comment = answer.note
    fields = (*SCALES, *SAVED_FIELDS) if changed or timed or noted else ()
    return Saved(rating, changed=changed), {name: getattr(rating, name) for name in fields}


def unanswered_to_move_on(study: Study, rating: Rating, go: str) -> list[str]:
    """The questions of a pair still unanswered that keep the participant on it: moving on
    (to the next pair, the practice feedback or pair 1) needs both answers where the study
    requires them; going back never does."""
    if not study.require_both_answers or go not in ("next", "start"):
        return []
    return [scale for scale in SCALES if getattr(rating, scale) is None]


def progress(participant: Participant) -> Progress:
    """Which pairs are fully answered; the practice sample does not count."""
    positions = sorted(entries(participant))
    stored = {
        position: (holistic, order)
        for position, holistic, order in Rating.objects.filter(
            participant=participant, practice=False
        ).values_list("position", "holistic", "order")
    }
    unanswered = []
    for position in positions:
        values = stored.get(position, (None, None))
        missing = [scale for scale, value in zip(SCALES, values, strict=True) if value is None]
        if missing:
            unanswered.append((position, missing))
    return Progress(len(positions), len(positions) - len(unanswered), unanswered)


def finish(participant: Participant, now=None) -> None:
    """Mark the participant completed and give them a completion code (once): the study's
    fixed code where it has one (Prolific), else their own. Fewer answered pairs than the
    study's minimum earn no code."""
    if participant.status == COMPLETED:
        return
    study = participant.study
    participant.status = COMPLETED
    participant.completed_at = now or timezone.now()
    if progress(participant).answered < study.min_answered_pairs:
        participant.completion_code = ""
    else:
        participant.completion_code = study.completion_code or new_completion_code()
    participant.save(update_fields=["status", "completed_at", "completion_code"])


def new_completion_code() -> str:
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(10))
    return f"{code[:5]}-{code[5:]}"


def return_url(participant: Participant) -> str:
    """Where a finished participant hands back to their crowd platform: Prolific's completion
    address (for those who came with Prolific's ids), or the generic platform's return address
    with the code; "" for none (MTurk posts a form instead, see `mturk_submit`), or when they
    earned no code."""
    if participant.status != COMPLETED or not participant.completion_code:
        return ""
    platform = participant.study.platform
    identity = PlatformIdentity.objects.filter(participant=participant).first()
    if platform == "prolific":
        # Only people who came from Prolific are sent there; others just see their code.
        came = identity is not None and identity.prolific_pid
        return PROLIFIC_COMPLETE + quote(participant.completion_code) if came else ""
    if platform != "generic" or identity is None or not identity.return_url:
        return ""
    url = identity.return_url.replace("{code}", quote(participant.completion_code))
    parts = urlsplit(url)
    return url if parts.scheme in ("http", "https") and parts.netloc else ""


def mturk_submit(participant: Participant) -> tuple[str, str] | None:
    """MTurk's external-question submit (address, assignment id) for a finished worker who
    earned a code; None otherwise, or in a HIT preview."""
    if participant.study.platform != "mturk" or not participant.completion_code:
        return None
    identity = PlatformIdentity.objects.filter(participant=participant).first()
    if identity is None or not identity.submit_to or not identity.assignment_id:
        return None
    host = identity.submit_to.rstrip("/")
    if identity.assignment_id == MTURK_PREVIEW or host not in settings.WOJDB_MTURK_HOSTS:
        return None
    return host + "/mturk/externalSubmit", identity.assignment_id


def framed_by(study: Study) -> tuple[str, ...]:
    """The origins that may show the study's pages in a frame: MTurk's, for an MTurk study
    (its HITs show an external question in a frame); none for any other."""
    return tuple(settings.WOJDB_MTURK_HOSTS) if study.platform == "mturk" else ()


def take_up_assignment(participant: Participant, platform: dict[str, str]) -> None:
    """A worker who previewed the HIT, started, and then accepted it comes back with the
    accepted assignment's ids: they replace the preview's (or are added to a participation
    started without any), so the finished work can be handed in. A participation already
    holding an accepted assignment, or one of these ids held by another, is left as it is."""
    assignment = platform.get("assignment_id", "")
    if participant.study.platform != "mturk" or assignment in ("", MTURK_PREVIEW):
        return
    identity = PlatformIdentity.objects.filter(participant=participant).first()
    if identity is not None and identity.assignment_id not in ("", MTURK_PREVIEW):
        return
    taken = Participant.objects.filter(
        study=participant.study, platform__assignment_id=assignment
    ).exclude(pk=participant.pk)
    if taken.exists():
        return
    if identity is None:
        identity = PlatformIdentity(
            participant=participant, return_url=participant.study.platform_return_url
        )
    for name, value in platform.items():
        setattr(identity, name, value)
    identity.save()


def leaving_url(study: Study) -> str:
    """Where someone who declines or withdraws goes back to: Prolific with the study's code
    for it, where one is set; "" otherwise."""
    if study.platform == "prolific" and study.decline_code:
        return PROLIFIC_COMPLETE + quote(study.decline_code)
    return ""


def resume_url(participant: Participant) -> str:
    """Where the personal link takes the participant: the step where they stopped."""
    token = participant.token
    if participant.status == COMPLETED:
        return reverse("survey:done", args=[token])
    if participant.consent_version is None:
        return reverse("survey:consent", args=[token])
    if not participant.about_done:
        return reverse("survey:about", args=[token])
    position = max(participant.position or 0, participant.furthest or 0)
    if participant.furthest is None and participant.position is None:
        return reverse("survey:instructions", args=[token])
    if position > 0 and position > pair_count(participant):
        return reverse("survey:review", args=[token])
    return reverse("survey:item", args=[token, position])


def own_page(participant: Participant, address: str) -> str | None:
    """`address` as a path to one of the participant's own pages, or None if it is not one.

    Every `next=` a participant's page sends comes back through here. The path is decoded and
    normalised as a browser would resolve it (`..` and `%2e%2e` segments, doubled slashes) before
    it is matched against the URL patterns, so `/p/<own>/../<other>/item/1/` is refused.
    """
    parts = urlsplit(address)
    if parts.scheme or parts.netloc or not parts.path.startswith("/"):
        return None
    path = unquote(parts.path)
    if "\\" in path or any(ord(ch) < 32 for ch in path):
        return None  # browsers read a backslash as a slash; no page has either
    normal = posixpath.normpath(path).lstrip("/")
    path = "/" + normal + ("/" if normal and path.endswith("/") else "")
    try:
        match = resolve(path)
    except Resolver404:
        return None
    if match.namespace != "survey" or match.kwargs.get("token") != participant.token:
        return None
    return path


def neighbour_url(participant: Participant, position: int, go: str) -> str:
    """The page after (go="next") or before (go="back") a position; else the position itself.
    After the practice pair, "next" shows its feedback and "start" the first pair."""
    token = participant.token
    if go == "start":
        go = "next" if position == 0 else go
        position = 1 if position == 0 else position
        if position <= pair_count(participant):
            return reverse("survey:item", args=[token, position])
    if go == "back":
        if position <= first_position(participant):
            return reverse("survey:instructions", args=[token])
        return reverse("survey:item", args=[token, position - 1])
    if go == "next":
        if position == 0:
            return reverse("survey:item", args=[token, 0]) + "?feedback=1"
        if position >= pair_count(participant):
            return reverse("survey:review", args=[token])
        return reverse("survey:item", args=[token, position + 1])
    return reverse("survey:item", args=[token, position])
