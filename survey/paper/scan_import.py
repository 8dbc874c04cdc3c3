"""Paper questionnaires read back: scanned pages stored, paper participants made from them.

The pure work is in wojdb/core/paper/; this module turns a study into what is printed, records the
copies, stores scanned pages and, once a copy's pages are all in, makes its answers one
participant (`mode="paper"`) with ratings exactly like a web participant's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone, translation

from survey import scan_store
from survey.models import (
    PaperAnswer,
    PaperCopy,
    PaperLayout,
    Participant,
    ParticipantLanguage,
    Rating,
    ScanPage,
    Study,
)
from survey.paper.print_runs import PaperError
from survey.participants.forms import AboutForm, LanguageForm
from wojdb.core.io import InputError, parse_number
from wojdb.core.paper import scanning
from wojdb.core.paper.layout import MM, Layout, PageCode
from wojdb.core.vocabulary import COMPLETED

SCALE_FIELDS = {"holistic": "holistic", "word_order": "order"}  # field suffix -> Rating field
PAIR_FIELD = re.compile(r"(?:pair-(\d+)|practice)\.(holistic|word_order)")
# The printed about-you fields keep the names of the first print runs, from before the questions
# named the study's language: paper field -> Participant field.
PAPER_NAMES = {"english_first": "target_first", "english_years": "target_years"}
TEXT_FIELDS = ("english_years", "languages", "nationality", "reading_disability_details", "age")


# Reading scans ----------------------------------------------------------------------------------


@dataclass
class Imported:
    pages: int = 0
    duplicates: list[str] = field(default_factory=list)
    completed: list[str] = field(default_factory=list)  # copy codes that became participants
    waiting: dict[str, list[int]] = field(default_factory=dict)  # copy -> missing pages
    flagged: int = 0
    texts: int = 0
    skipped: list[str] = field(default_factory=list)  # bad pages left out with --skip-bad
    withdrawn: list[str] = field(default_factory=list)  # pages of withdrawn participants' copies


class ScanRefused(PaperError):
    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(
            f"{len(problems)} page(s) or file(s) cannot be imported; nothing was written:\n  "
            + "\n  ".join(problems)
        )


class Withdrawn(scanning.ScanError):
    """A page of a copy whose participant withdrew: left out, never stored again."""

    def __init__(self, code: PageCode):
        super().__init__(f"copy {code.copy} page {code.page}: its participant withdrew")


class _Copies:
    """Copies by code, with their layouts, checked against the study asked for."""

    def __init__(self, study: Study | None):
        self.study = study
        self.cache: dict[str, tuple[PaperCopy, Layout]] = {}
        self.withdrawn: set[str] = set()

    def layout_for(self, code: PageCode) -> Layout:
        if self.study and code.study != self.study.slug:
            raise scanning.ScanError(
                f"a page of study {code.study!r} (copy {code.copy}), not of {self.study.slug!r}"
            )
        if code.copy in self.withdrawn:
            raise Withdrawn(code)
        if code.copy not in self.cache:
            copy = (
                PaperCopy.objects.select_related("layout__study", "layout__questionnaire")
                .filter(code=code.copy)
                .first()
            )
            if copy is None and _withdrawn(code):
                self.withdrawn.add(code.copy)
                raise Withdrawn(code)
            if copy is None:
                raise scanning.ScanError(f"copy {code.copy} was never printed by this database")
            self.cache[code.copy] = (copy, Layout.from_dict(copy.layout.layout))
        copy, layout = self.cache[code.copy]
        if (copy.layout.study.slug, copy.layout.questionnaire.number) != (
            code.study,
            code.questionnaire,
        ):
            raise scanning.ScanError(f"copy {code.copy}: its code does not match its print record")
        return layout


def _withdrawn(code: PageCode) -> bool:
    """A copy its print run lists but the database no longer holds: a withdrawal deletes the
    copy with its pages (survey.participants.participation.withdraw), the print record stays."""
    runs = PaperLayout.objects.filter(
        study__slug=code.study, questionnaire__number=code.questionnaire
    ).values_list("layout", flat=True)
    return any(printed.get("id") == code.copy for run in runs for printed in run["copies"])


def import_scans(
    paths: list[Path],
    study: Study | None = None,
    dpi: int = 200,
    thresholds: scanning.Thresholds | None = None,
    skip_bad: bool = False,
    progress=lambda: None,
) -> Imported:
    """Read every page first; refuse (writing nothing) if any is bad, unless `skip_bad`. Pages
    of a copy whose participant withdrew are left out and named, never stored again."""
    thresholds = thresholds or scanning.Thresholds()
    copies = _Copies(study)
    readings: list[tuple[str, scanning.PageReading, bytes, Path]] = []
    problems, withdrawn = [], []
    for path in paths:
        pages = scanning.iter_pages(path, dpi)
        while True:
            try:
                label, grey = next(pages)
            except StopIteration:
                break
            except scanning.ScanError as e:
                problems.append(str(e))
                break
            try:
                reading = scanning.read_page(grey, copies.layout_for, thresholds)
            except Withdrawn as e:
                withdrawn.append(f"{label}: {e}")
            except scanning.ScanError as e:
                problems.append(f"{label}: {e}")
            else:
                # Only the compressed page is kept, so a long batch fits in memory.
                readings.append((label, reading, _jpeg(reading.image), path))
                reading.image = None
            progress()
    remarked, doubtful = _marked_differently(readings)
    problems += remarked
    if problems and not skip_bad:
        raise ScanRefused(problems)
    readings = [r for r in readings if (r[1].code.copy, r[1].code.page) not in doubtful]
    result = Imported(skipped=problems, withdrawn=withdrawn)
    kept, new_files = scan_store.keep({path for *_, path in readings})
    try:
        with transaction.atomic():
            _store_readings(readings, kept, copies, result)
    except BaseException:
        for made in new_files:  # a refused import leaves nothing behind
            made.unlink(missing_ok=True)
        raise
    return result


def _marked_differently(readings) -> tuple[list[str], set[tuple[str, int]]]:
    """Pages read twice with different marks, in this run or against the page stored: which
    marking stands cannot be told, so each is a problem (a page read again with the same marks
    is only a duplicate). Returns the problems and the (copy, page) keys concerned."""
    earlier: dict[tuple[str, int], tuple[str, dict]] = {}
    stored = ScanPage.objects.filter(copy__code__in={r.code.copy for _, r, _, _ in readings})
    for code, page, boxes in stored.values_list("copy__code", "page", "boxes"):
        earlier[code, page] = (
            "the page stored",
            {(b["field"], b["value"]): b["state"] for b in boxes},
        )
    problems, keys = [], set()
    for label, reading, _, _ in readings:
        key = (reading.code.copy, reading.code.page)
        marks = {(b.field, b.value): b.state for b in reading.boxes}
        where, first = earlier.setdefault(key, (label, marks))
        if first != marks:
            fields = sorted(
                {
                    f
                    for f, v in marks.keys() | first.keys()
                    if marks.get((f, v)) != first.get((f, v))
                }
            )
            problems.append(
                f"{label}: copy {key[0]} page {key[1]} is marked differently from {where} "
                f"({', '.join(fields)}); which marking stands cannot be told: import one scan "
                "of each page"
            )
            keys.add(key)
    return problems, keys


def _store_readings(readings, kept: dict[Path, str], copies, result: Imported) -> None:
    seen = {
        (code, page)
        for code, page in ScanPage.objects.filter(
            copy__code__in={r.code.copy for _, r, _, _ in readings}
        ).values_list("copy__code", "page")
    }
    touched = set()
    for label, reading, image, path in readings:
        key = (reading.code.copy, reading.code.page)
        if key in seen:
            result.duplicates.append(f"{label}: copy {key[0]} page {key[1]} is stored already")
            continue
        seen.add(key)
        copy, _ = copies.cache[reading.code.copy]
        _store_page(copy, scan_store.source(label, kept[path]), reading, image)
        touched.add(copy.code)
        result.pages += 1
    for code in sorted(touched):
        copy, layout = copies.cache[code]
        have = set(copy.pages.values_list("page", flat=True))
        missing = [p for p in range(1, layout.pages + 1) if p not in have]
        if missing:
            result.waiting[code] = missing
        elif copy.participant_id is None:
            complete_copy(copy, layout)
            result.completed.append(code)
    result.flagged = PaperAnswer.objects.filter(
        copy__code__in=touched, kind="box", status="pending"
    ).count()
    result.texts = PaperAnswer.objects.filter(copy__code__in=touched, kind="text").count()


def waiting_copies(studies: QuerySet[Study] | None = None) -> dict[str, list[int]]:
    """Copies (of `studies`, or every study) with some pages scanned and some missing: code ->
    missing pages."""
    found = PaperCopy.objects.filter(participant__isnull=True, pages__isnull=False).distinct()
    if studies is not None:
        found = found.filter(layout__study__in=studies)
    result = {}
    for copy in found.select_related("layout"):
        have = set(copy.pages.values_list("page", flat=True))
        pages = copy.layout.layout["pages"]
        missing = [p for p in range(1, pages + 1) if p not in have]
        if missing:  # a complete copy without a participant is one whose participant withdrew
            result[copy.code] = missing
    return result


def _png(image: np.ndarray) -> bytes:
    return cv2.imencode(".png", image)[1].tobytes()


def _jpeg(image: np.ndarray) -> bytes:
    # JPEG at quality 90: a third of a noisy scan's PNG, and the boxes stay legible.
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes()


def _store_page(copy: PaperCopy, label: str, reading: scanning.PageReading, image: bytes):
    ScanPage.objects.create(
        copy=copy,
        page=reading.code.page,
        image=image,
        source=label,
        boxes=[
            {"field": b.field, "value": b.value, "coverage": round(b.coverage, 4), "state": b.state}
            for b in reading.boxes
        ],
    )
    PaperAnswer.objects.bulk_create(
        PaperAnswer(
            copy=copy,
            page=reading.code.page,
            field=t.field,
            kind="text",
            crop=t.png,
            status="pending" if t.written else "blank",
        )
        for t in reading.texts
    )


def _box_crop(page_image: bytes, boxes: list[dict]) -> bytes:
    """The area of a question's boxes with some room around them, from the stored page."""
    image = cv2.imdecode(np.frombuffer(page_image, np.uint8), cv2.IMREAD_GRAYSCALE)
    scale = scanning.SCALE
    left = max(0, round((min(b["x"] for b in boxes) - 28 * MM) * scale))
    right = round((max(b["x"] + b["w"] for b in boxes) + 28 * MM) * scale)
    top = max(0, round((min(b["y"] for b in boxes) - 6 * MM) * scale))
    bottom = round((max(b["y"] + b["h"] for b in boxes) + 4 * MM) * scale)
    return _png(image[top:bottom, left:right])


def complete_copy(copy: PaperCopy, layout: Layout) -> Participant:
    """All pages are in: make the copy's answers one paper participant."""
    pages = {p.page: p for p in copy.pages.all()}
    readings = [
        scanning.BoxReading(b["field"], b["value"], b["coverage"], b["state"])
        for p in pages.values()
        for b in p.boxes
    ]
    decisions = scanning.decide(readings)
    questionnaire = copy.layout.questionnaire
    study = copy.layout.study
    now = timezone.now()
    person = Participant.objects.create(
        study=study,
        questionnaire=questionnaire,
        mode="paper",
        status=COMPLETED,
        completed_at=now,
        about_done=True,
        position=questionnaire.entries.count() + 1,
    )
    copy.participant = person
    copy.save(update_fields=["participant"])
    items = dict(questionnaire.entries.values_list("position", "item_id"))
    ratings = {
        position: Rating(participant=person, item_id=item, position=position, answered_at=now)
        for position, item in items.items()
    }
    if study.sample_item_id:
        ratings[0] = Rating(
            participant=person,
            item_id=study.sample_item_id,
            position=0,
            practice=True,
            answered_at=now,
        )
    by_field = layout.questions()
    flagged = []
    values = {}
    for name, decision in decisions.items():
        if decision.status == "flagged":
            boxes = [b.__dict__ for b in by_field[name]]
            flagged.append(
                PaperAnswer(
                    copy=copy,
                    page=by_field[name][0].page,
                    field=name,
                    kind="box",
                    reason=decision.reason,
                    crop=_box_crop(pages[by_field[name][0].page].image, boxes),
                )
            )
        else:
            values[name] = decision.value
    for name, value in values.items():
        _apply_box(person, ratings, name, value)
    Rating.objects.bulk_create(ratings.values())
    PaperAnswer.objects.bulk_create(flagged)
    _apply_consent(person, copy, layout, values)
    for answer in copy.answers.filter(status="resolved", kind="text"):
        _apply_text(person, answer.field, answer.value)
    person.save()
    return person


def _apply_box(person: Participant, ratings: dict[int, Rating], name: str, value: str | None):
    match = PAIR_FIELD.fullmatch(name)
    if match:
        position = int(match.group(1) or 0)
        if position in ratings:
            setattr(ratings[position], SCALE_FIELDS[match.group(2)], int(value) if value else None)
        return
    about = name.removeprefix("about.")
    if about == "english_first":
        person.target_first = {"yes": True, "no": False}.get(value)
    elif about in ("gender", "education"):
        setattr(person, about, value or "")
    elif about == "grammar_attention":
        person.grammar_attention = int(value) if value else None
    elif about == "reading_disability" and (value == "no" or not person.reading_disability):
        # Stored as on the web: "No", "Yes", or the details given (typed in later).
        person.reading_disability = {"no": "No", "yes": "Yes"}.get(value, "")


def _apply_consent(
    person: Participant, copy: PaperCopy, layout: Layout, values: dict[str, str | None]
) -> None:
    """As on the web: taking part and sharing data need every printed statement agreed to."""
    statements = [name for name in layout.questions() if name.startswith("consent.")]
    if statements and all(values.get(name) == "agree" for name in statements):
        person.consent_version = copy.layout.consent_version
        person.consented_at = person.completed_at
        person.share_data = True
    else:
        person.consent_version = None
        person.consented_at = None
        person.share_data = False


def fluency_names(language: str) -> dict[str, int]:
    """Fluency as written on a copy: its English name, or its name in the study's language as
    the paper printed it."""
    names = {}
    for shown in ("en", language):
        with translation.override(shown):
            names |= {str(label).lower(): value for value, label in ParticipantLanguage.FLUENCY}
    return names


def _limit(form, name: str) -> int:
    """The web form's longest answer to a field: a typed paper answer keeps the same limit."""
    return form.base_fields[name].max_length


def parse_text(name: str, text: str, study_language: str = "en"):
    """A typed-in answer checked for its field as the web form checks it (fluency named in
    English or in the study's language); ValueError says what is wrong."""
    text = text.strip()
    about = name.removeprefix("about.")
    if about in ("age", "english_years"):
        if not text:
            return None
        try:
            return parse_number(text, name, kind=int, minimum=0, maximum=120)
        except InputError:
            raise ValueError("a whole number of years, 0-120, or nothing") from None
    if about == "languages":
        rows, levels = [], fluency_names(study_language)
        longest = _limit(LanguageForm, "language"), _limit(LanguageForm, "qualifications")
        for line in filter(None, (line.strip() for line in text.splitlines())):
            language, _, rest = line.partition(":")
            fluency, _, qualifications = rest.strip().partition(",")
            level = levels.get(fluency.strip().lower())
            if not language.strip() or level is None:
                raise ValueError(
                    f"{line!r}: one language per line as 'Language: fluency[, qualifications]', "
                    f"fluency one of {', '.join(levels)}"
                )
            language, qualifications = language.strip(), qualifications.strip()
            if len(language) > longest[0] or len(qualifications) > longest[1]:
                raise ValueError(
                    f"{line[:40]!r}…: a language's name is at most {longest[0]} characters and "
                    f"its qualifications at most {longest[1]}, as on the web form"
                )
            rows.append((language, level, qualifications))
        return rows
    if about in ("nationality", "reading_disability_details"):
        longest = _limit(
            AboutForm, "nationality" if about == "nationality" else "disability_detail"
        )
        if len(text) > longest:
            raise ValueError(
                f"at most {longest} characters, as on the web form ({len(text)} typed)"
            )
        return text
    raise ValueError(f"{name} is not a write-in field")


def _apply_text(person: Participant, name: str, text: str) -> None:
    value = parse_text(name, text, person.study.language)
    about = name.removeprefix("about.")
    if about == "languages":
        person.languages.all().delete()
        ParticipantLanguage.objects.bulk_create(
            ParticipantLanguage(participant=person, language=lang, fluency=f, qualifications=q)
            for lang, f, q in value
        )
    elif about == "reading_disability_details":
        if value:
            person.reading_disability = value
    else:
        setattr(person, PAPER_NAMES.get(about, about), value)


def box_choices(answer: PaperAnswer) -> list[tuple[str, str]]:
    """The values a flagged box question can be given, with "" for unanswered."""
    layout = Layout.from_dict(answer.copy.layout.layout)
    return [("", "no answer")] + [(b.value, b.value) for b in layout.questions()[answer.field]]


def resolve(answer: PaperAnswer, value: str, reviewer: str) -> None:
    """Store a researcher's decision or typing and carry it into the participant."""
    value = value.strip()
    if answer.kind == "text":
        # raises ValueError before anything is written
        parse_text(answer.field, value, answer.copy.layout.study.language)
    elif value not in {v for v, _ in box_choices(answer)}:
        raise ValueError(f"{value!r} is not one of this question's boxes")
    longest = PaperAnswer._meta.get_field("value").max_length
    if len(value) > longest:  # every line within the web form's limits, but all of them not
        raise ValueError(f"at most {longest} characters in all ({len(value)} typed)")
    if "\x00" in value:  # as the web form refuses it: no database stores it in a text
        raise ValueError("holds a NUL character")
    with transaction.atomic():
        answer.value, answer.status = value, "resolved"
        answer.reviewed_by, answer.reviewed_at = reviewer[:150], timezone.now()
        answer.save()
        person = answer.copy.participant
        if person is None:
            return  # applied when the copy's last page arrives
        if answer.kind == "text":
            _apply_text(person, answer.field, value)
        else:
            ratings = {r.position: r for r in person.ratings.all()}
            _apply_box(person, ratings, answer.field, value or None)
            Rating.objects.bulk_update(ratings.values(), ["holistic", "order"])
            if answer.field.startswith("consent."):
                layout = Layout.from_dict(answer.copy.layout.layout)
                _apply_consent(person, answer.copy, layout, _consent_values(answer.copy, layout))
        person.save()


def _consent_values(copy: PaperCopy, layout: Layout) -> dict[str, str | None]:
    readings = [
        scanning.BoxReading(b["field"], b["value"], b["coverage"], b["state"])
        for p in copy.pages.all()
        for b in p.boxes
        if b["field"].startswith("consent.")
    ]
    values = {k: d.value for k, d in scanning.decide(readings).items()}
    for a in copy.answers.filter(kind="box", status="resolved", field__startswith="consent."):
        values[a.field] = a.value or None
    return values
