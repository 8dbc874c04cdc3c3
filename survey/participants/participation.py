"""What a participant does, from entry to withdrawal, as small service functions.

The views parse requests and render pages; everything that reads or writes a participant's
state lives here. Positions: 0 is the practice sample, 1..n the questionnaire's pairs, n+1 the
final check before finishing.
"""

from __future__ import annotations

import functools
import posixpath
import secrets
from dataclasses import dataclass, field, replace
from datetime import timedelta
from urllib.parse import unquote, urlsplit

from django.db import connection, transaction
from django.dispatch import Signal
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from survey import platforms, record, scan_store
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
from survey.participants.assignment import enrol, free_slot
from wojdb.core import marks as word_marks
from wojdb.core import texts
from wojdb.core.language.rules import LanguageRules, rules_for
from wojdb.core.vocabulary import ABANDONED, ASSIGNED, COMPLETED, IN_PROGRESS

#: Sent after a withdrawal is stored, with the participant's former primary key (`pk`) and their
#: study's slug (`study`).
participant_withdrawn = Signal()


SCALES = ("holistic", "order")
#: The question of a study with `word_marks`: which words of the first sentence are out of place.
MARKS = "marks"
FEEDBACK = "feedback"  # the practice pair's page with how the questions apply to it (?feedback=1)
# What an answer save may change besides the scales.
SAVED_FIELDS = ("answered_at", "client_ms", "revisions", "flagged", "comment")
# What a save's decision reads: every save that writes changes at least one of them; one that
# changes the marks changes the answer time with them, which is compared in their place.
ANSWER_STATE = (*SCALES, "client_ms", "revisions", "flagged", "comment")
MARKS_STATE = (*ANSWER_STATE, "answered_at")
ACTIVITY_RESOLUTION = timedelta(minutes=1)
#: How long a browser remembers the participation it holds in a study (see `held_by_browser`).
BROWSER_MEMORY = timedelta(days=180)

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
    """The platform ids belong to a participation (`participant`) the caller may not hand out:
    only its personal link resumes it, so that knowing someone's ids does not open their
    answers."""

    def __init__(self, participant: Participant):
        super().__init__(participant.pk)
        self.participant = participant


@dataclass(frozen=True)
class Answer:
    """One submission for one item. `basis` holds the values the page was showing, per scale
    present in the submission, so a stale page cannot overwrite a newer answer unnoticed."""

    holistic: int | None = None
    order: int | None = None
    client_ms: int | None = None
    basis: dict[str, int | None] = field(default_factory=dict)
    note: tuple[bool, str] | None = None  # (flagged, comment), when the page sent them
    # The words marked out of place, when the page asked (`marked`): positions of the units
    # ticked, () for "no word is out of place", None for neither (not answered). The basis
    # may hold the marks' positions the page was showing, under MARKS.
    marks: tuple[int, ...] | None = None
    marked: bool = False


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


def link_ids(study: Study, params) -> dict[str, str]:
    """The ids the study's platform sent with its link, as PlatformIdentity fields; ValueError,
    naming the parameter, on a malformed one."""
    return platforms.of(study).read(study, params)


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
    ids: dict[str, str],
    reading_mode: bool = False,
    leaving: Participant | None = None,
) -> Participant:
    """A new participant on the study's least-used questionnaire (raises StudyClosed), keeping
    the platform `ids` (`link_ids`) apart from the answers.

    A person the ids name who has taken part already (`earlier`) is not given a second
    questionnaire: StartedElsewhere is raised, as the browser that holds the participation
    resumes it before this is called. `leaving` is a participation the browser held and chose
    to start afresh from: unless finished, it is marked abandoned and its slot released (its
    answers stay).
    """
    platform = platforms.of(study)
    with transaction.atomic():
        if leaving is not None and leaving.status in (ASSIGNED, IN_PROGRESS):
            free_slot(leaving)
            Participant.objects.filter(pk=leaving.pk, status__in=(ASSIGNED, IN_PROGRESS)).update(
                status=ABANDONED
            )
        participant = enrol(study, reading_mode=reading_mode)
        # After the study row is locked (enrol): the same person arriving twice at once
        # is one participation.
        if (taken := earlier(study, ids, pilot=participant.pilot)) is not None:
            raise StartedElsewhere(taken)
        if ids:
            PlatformIdentity.objects.create(participant=participant, **ids, **platform.kept(study))
    return participant


def earlier(study: Study, ids: dict[str, str], pilot: bool | None = None) -> Participant | None:
    """The participation the person these ids name already has in the study, among its real
    participants (`pilot`: its pilot ones; by default those of the study's phase): the person's,
    whatever their assignment, session or browser, where the platform names a person and the
    study does not allow repeats; else the same session's (an MTurk assignment, a Prolific
    session). None for ids that name no one."""
    platform = platforms.of(study)
    names = platform.session if study.allow_repeats else (platform.person,)
    if not names or not all(ids.get(name) for name in names):
        return None
    match = {f"platform__{name}": ids[name] for name in names}
    pilot = not study.launched if pilot is None else pilot
    found = Participant.objects.filter(study=study, pilot=pilot, simulated=False, **match)
    return found.order_by("pk").first()


def may_start_afresh(study: Study, held: Participant, ids: dict[str, str]) -> bool:
    """Whether the browser holding `held` may start a new participation with these ids: not
    where they name its own person and the study wants each person once."""
    person = platforms.of(study).person
    if study.allow_repeats or not person or not ids.get(person):
        return True
    return identity(held).get(person) != ids[person]


def identity(participant: Participant) -> dict[str, str]:
    """The participant's platform ids, as PlatformIdentity fields (those they came without
    left out)."""
    values = PlatformIdentity.objects.filter(participant=participant).values().first() or {}
    return {
        name: value
        for name, value in values.items()
        if name not in ("id", "participant_id") and value
    }


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
        free_slot(participant)
        DeclinedConsent.objects.create(study_id=participant.study_id, pilot=participant.pilot)
        participant.delete()


def withdraw(participant: Participant) -> None:
    """Delete the participant with their answers, languages and platform ids (cascade) and,
    for a paper participant, their copy's scanned pages, typed answers and crops and the kept
    scan files no other page comes from, leaving only a count; `participant_withdrawn` tells
    whoever keeps other files about them."""
    pk = participant.pk
    with transaction.atomic():
        free_slot(participant)
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


def practice_marks(study: Study, item: Item) -> tuple[str, frozenset[int]]:
    """Feedback on the words marked on the practice pair, in the active language, and the
    positions of its first sentence's units out of place (those its permutation moved or
    replaced, shown on the sentence too); of a machine translation, where there is no such
    truth to give, how to mark."""
    permutation = item.permutation
    if permutation is None:
        return gettext(texts.en.PRACTICE_MARKS_UNKNOWN), frozenset()
    moved = permutation.displaced
    out = word_marks.in_units(set(moved), permutation.tokens, language_rules(study.language))
    if not out:
        return gettext(texts.en.PRACTICE_MARKS_NONE), frozenset()
    shown = units_of(study, item.text)
    words = ", ".join(gettext(texts.en.PRACTICE_MARKS_WORD) % {"word": shown[p]} for p in out)
    return gettext(texts.en.PRACTICE_MARKS) % {"words": words}, frozenset(out)


def sample_item(study: Study) -> Item:
    """The study's practice pair, with the sentences its page shows."""
    return Item.objects.select_related("triple__segment", "permutation").get(
        pk=study.sample_item_id
    )


def first_position(participant: Participant) -> int:
    return 0 if participant.study.sample_item_id else 1


def item_at(participant: Participant, position: int) -> Item:
    """The item shown at a position (the study's sample at 0, else the questionnaire's entry),
    with what its page shows loaded: the two sentences and the source language. Other fields
    are read from the database if used."""
    row = study_cache.item(item_id_at(participant, position), content_fixed(participant))
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


def content_fixed(participant: Participant) -> bool:
    """Whether what the participant's items show can no longer change: they consented and are
    real (neither pilot nor simulated), so the study is locked (survey/design/shown.py)."""
    return participant.consent_version is not None and not (
        participant.pilot or participant.simulated
    )


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

    A value already given and then changed counts as one revision per scale, and a change of
    the words marked as one more. A blank never erases a scale's answer; marks left blank (no
    word ticked, "none" not ticked) are no longer an answer. When the page's basis differs from
    what is stored and the submission would change it, nothing is written and the caller is
    told of the conflict. Marks outside the item's first sentence are refused (Refused).

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
    if answer.marked and not participant.study.word_marks:
        answer = replace(answer, marks=None, marked=False)  # not asked: ignored
    now = now or timezone.now()
    shown = first_shown(position, now)
    rating = rating_of(participant, item_id, **shown)
    state = MARKS_STATE if answer.marked else ANSWER_STATE
    read = {name: getattr(rating, name) for name in state}
    units = marked_units(participant, item_id, answer, rating)
    saved, changes = answered(rating, answer, now, units)
    if not changes or rows.update(Rating, rating.pk, changes, unless_changed=read):
        return saved
    with transaction.atomic():
        rating = rating_of(participant, item_id, lock=True, **shown)
        units = units or marked_units(participant, item_id, answer, rating)
        saved, changes = answered(rating, answer, now, units)
        if changes:
            rows.update(Rating, rating.pk, changes)
    return saved


def marked_positions(marks: list | None) -> tuple[int, ...] | None:
    """The positions of stored marks (`Rating.marks`): () for "no word is out of place", None
    for not answered."""
    return None if marks is None else tuple(mark[0] for mark in marks)


@functools.cache
def language_rules(code: str) -> LanguageRules:
    return rules_for(code)


def units_of(study: Study, text: str) -> list[str]:
    """The units of a first sentence a participant of the study marks (wojdb.core.marks)."""
    return word_marks.units(text, language_rules(study.language))


def marked_units(
    participant: Participant, item_id: int, answer: Answer, rating: Rating
) -> list | None:
    """The units of the item's first sentence, read only where the answer changes the words
    marked; Refused, naming the position, for one past them."""
    if not (answer.marked and answer.marks) or answer.marks == marked_positions(rating.marks):
        return None
    row = study_cache.item(item_id, content_fixed(participant))
    _, _, permutation_id, _, hypothesis, _, _, text = row
    units = units_of(participant.study, hypothesis if permutation_id is None else text)
    if outside := [p for p in answer.marks if p >= len(units)]:
        message = gettext("word %(position)s is not in the first sentence, which has %(count)s")
        raise Refused(message % {"position": outside[0], "count": len(units)})
    return units


def new_marks(
    positions: tuple[int, ...] | None, stored: list | None, units: list[str] | None, now
) -> list | None:
    """`Rating.marks` for the positions given (in order, each once): a word still marked keeps
    the time it was first marked, a new one is marked now (`units`: the sentence's, needed for
    a new one)."""
    if positions is None:
        return None
    earlier = {mark[0]: mark for mark in stored or ()}
    return [earlier.get(p) or [p, units[p], now.isoformat()] for p in positions]


def answered(rating: Rating, answer: Answer, now, units=None) -> tuple[Saved, dict]:
    """The rating with an answer applied (`save_answer`), and the fields to write."""
    given = {scale: getattr(answer, scale) for scale in SCALES}
    stored = {scale: getattr(rating, scale) for scale in SCALES}
    if answer.marked:
        given[MARKS] = answer.marks
        stored[MARKS] = marked_positions(rating.marks)
    questions = tuple(given)
    blank_erases = {MARKS}  # a scale's blank is no answer; blank marks are
    if any(
        (given[name] is not None or name in blank_erases)
        and given[name] != stored[name]
        and name in answer.basis
        and answer.basis[name] != stored[name]
        for name in questions
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
    fields = (*SCALES, *SAVED_FIELDS)
    if answer.marked and given[MARKS] != stored[MARKS]:
        if stored[MARKS] is not None:
            rating.revisions += 1
        rating.marks = new_marks(given[MARKS], rating.marks, units, now)
        changed = True
        fields = (*fields, MARKS)
    if changed:
        rating.answered_at = now
    timed = answer.client_ms is not None and answer.client_ms > (rating.client_ms or 0)
    if timed:
        rating.client_ms = answer.client_ms
    noted = answer.note is not None and answer.note != (rating.flagged, rating.comment)
    if noted:
        rating.flagged, rating.comment = answer.note
    fields = fields if changed or timed or noted else ()
    return Saved(rating, changed=changed), {name: getattr(rating, name) for name in fields}


def questions(study: Study) -> tuple[str, ...]:
    """What each pair of the study asks: the two scales, and the words out of place."""
    return (*SCALES, MARKS) if study.word_marks else SCALES


def unanswered_to_move_on(study: Study, rating: Rating, go: str) -> list[str]:
    """The questions of a pair still unanswered that keep the participant on it: moving on
    (to the next pair, the practice feedback or pair 1) needs both answers where the study
    requires them, and the words out of place (or "none") where it asks for them; going back
    never does."""
    if go not in ("next", "start"):
        return []
    missing = [s for s in SCALES if study.require_both_answers and getattr(rating, s) is None]
    if study.word_marks and rating.marks is None:
        missing.append(MARKS)
    return missing


def progress(participant: Participant) -> Progress:
    """Which pairs are fully answered; the practice sample does not count."""
    positions = sorted(entries(participant))
    asked = questions(participant.study)
    stored = {
        position: values
        for position, *values in Rating.objects.filter(
            participant=participant, practice=False
        ).values_list("position", *asked)
    }
    unanswered = []
    for position in positions:
        values = stored.get(position, [None] * len(asked))
        missing = [name for name, value in zip(asked, values, strict=True) if value is None]
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


def hand_in(participant: Participant) -> platforms.HandIn | None:
    """What a finished participant who earned a code hands in to the platform they came by (a
    link to follow or a form to post); None when there is nothing to hand in, or no code."""
    if participant.status != COMPLETED or not participant.completion_code:
        return None
    platform = platforms.serving(participant)
    return platform.hand_in(participant.study, identity(participant), participant.completion_code)


def framed_by(study: Study) -> tuple[str, ...]:
    """The origins that may show the study's pages in a frame and receive their forms: its
    platform's (MTurk shows an external question in a frame); none for most."""
    return platforms.of(study).framed_by()


def leaving_url(study: Study) -> str:
    """Where someone who declines or withdraws goes back to on the study's platform; "" for
    nowhere."""
    return platforms.of(study).leaving_url(study)


def own_address(name: str, token: str, *args) -> str:
    """The address of a participant's page by its URL name (`survey:<name>`)."""
    return reverse(f"survey:{name}", args=[token, *args])


def resume_step(participant: Participant) -> tuple[str, str]:
    """The step where the participant stopped: its page's URL name and address."""
    token = participant.token

    def step(name: str, *args) -> tuple[str, str]:
        return name, own_address(name, token, *args)

    if participant.status == COMPLETED:
        return step("done")
    if participant.consent_version is None:
        return step("consent")
    if not participant.about_done:
        return step("about")
    position = max(participant.position or 0, participant.furthest or 0)
    if participant.furthest is None and participant.position is None:
        return step("instructions")
    if position > 0 and position > pair_count(participant):
        return step("review")
    return step("item", position)


def resume_url(participant: Participant) -> str:
    """Where the personal link takes the participant: the step where they stopped."""
    return resume_step(participant)[1]


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


def moves(participant: Participant, position: int, rating: Rating) -> dict[str, str]:
    """Where each of the page's buttons leads from a pair whose answers are all saved as
    `rating` holds them, for those that may move on now (`unanswered_to_move_on`): the page's
    script then goes there without posting the same answers again."""
    buttons = ("next", "back", "start") if position == 0 else ("next", "back")
    study = participant.study
    return {
        go: neighbour(participant, position, go).url
        for go in buttons
        if not unanswered_to_move_on(study, rating, go)
    }


@dataclass(frozen=True)
class Move:
    """Where a button leads: the page's address and URL name and, where it is a pair's page,
    the pair's position and whether it shows the practice pair's feedback."""

    url: str
    name: str
    position: int | None = None
    feedback: bool = False


def neighbour(participant: Participant, position: int, go: str) -> Move:
    """The page after (go="next") or before (go="back") a position; else the position itself.
    After the practice pair, "next" shows its feedback and "start" the first pair."""
    token = participant.token

    def pair(at: int, feedback: bool = False) -> Move:
        url = own_address("item", token, at)
        return Move(f"{url}?{FEEDBACK}=1" if feedback else url, "item", at, feedback)

    def step(name: str) -> Move:
        return Move(own_address(name, token), name)

    if go == "start":
        go = "next" if position == 0 else go
        position = 1 if position == 0 else position
        if position <= pair_count(participant):
            return pair(position)
    if go == "back":
        if position <= first_position(participant):
            return step("instructions")
        return pair(position - 1)
    if go == "next":
        if position == 0:
            return pair(0, feedback=True)
        if position >= pair_count(participant):
            return step("review")
        return pair(position + 1)
    return pair(position)
