"""Paper questionnaires printed: what each copy shows (the same texts, from the same study fields,
as the web pages), its PDFs and layout, and the copies recorded so their scans can be read back.

The pure work is in wojdb/core/paper/printing.py.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext

from survey.models import (
    ConsentText,
    PaperCopy,
    PaperLayout,
    Participant,
    ParticipantLanguage,
    Questionnaire,
    Study,
)
from survey.participants import participation
from survey.participants.forms import language_name
from wojdb.core import texts
from wojdb.core.paper import printing
from wojdb.core.paper.layout import MM, PAPER_SIZES, Layout
from wojdb.core.texts import en


class PaperError(Exception):
    """A request that cannot be carried out; nothing was written."""


def about_questions(language: str) -> list[printing.Choice]:
    """The about-you questions as on the web page (en.ABOUT_YOU), as boxes and write-ins, in
    the active language; `language` is the study's language by name. The field names and box
    values stay the same in every language."""
    q = {key: gettext(text) % {"language": language} for key, text in en.ABOUT_YOU.items()}
    fluency = ", ".join(str(label) for _, label in ParticipantLanguage.FLUENCY)
    yes, no = gettext("Yes"), gettext("No")
    return [
        printing.Choice(
            "english_first",
            q["target_first"],
            (("yes", yes), ("no", no)),
            text_label=gettext("%(question)s (years)") % {"question": q["target_years"]},
            text_name="english_years",
            text_width=60 * MM,
        ),
        printing.Choice(
            "languages",
            q["languages"],
            text_label=gettext(
                "One language per line, with its fluency (%(fluency)s) and qualifications"
            )
            % {"fluency": fluency},
            text_height=24 * MM,
        ),
        printing.Choice(
            "gender", q["gender"], tuple((key, str(label)) for key, label in Participant.GENDERS)
        ),
        printing.Choice("nationality", q["nationality"], text_width=90 * MM),
        printing.Choice(
            "education",
            q["education"],
            tuple((key, gettext(label)) for key, label in en.EDUCATION_LABELS.items()),
        ),
        printing.Choice(
            "reading_disability",
            q["reading_disability"],
            (("no", no), ("yes", yes)),
            text_label=gettext("If yes, please specify"),
            text_name="reading_disability_details",
        ),
        printing.Choice(
            "grammar_attention",
            q["grammar_attention"],
            scale=(gettext(en.GRAMMAR_LOW), gettext(en.GRAMMAR_HIGH)),
        ),
        printing.Choice("age", q["age"], text_width=30 * MM),
    ]


def _pair(position: int, item) -> printing.Pair:
    language = language_name(item.triple.segment.source_lang)
    return printing.Pair(position, language, item.text, item.reference)


def questionnaire_text(
    questionnaire: Questionnaire, paper: str, consent: ConsentText
) -> printing.Questionnaire:
    """What is printed: the same texts, from the same study fields, as the web pages, and the
    fixed ones in the active language (the study's, while printing)."""
    study = questionnaire.study
    entries = questionnaire.entries.select_related(
        "item__triple__segment", "item__permutation"
    ).order_by("position")
    sample = study.sample_item
    return printing.Questionnaire(
        study=study.slug,
        number=questionnaire.number,
        title=study.title,
        researcher=study.researcher_name,
        paper=paper,
        scales=(
            printing.Scale(
                "holistic", study.holistic_question, study.holistic_low, study.holistic_high
            ),
            printing.Scale("word_order", study.order_question, study.order_low, study.order_high),
        ),
        about=about_questions(language_name(study.language)),
        consent_statements=list(consent.statements),
        consent_closing=texts.fill(study.consent_closing, study),
        practice=_pair(0, sample) if sample else None,
        practice_notes=participation.practice_notes(study, sample) if sample else ("", ""),
        practice_lead=gettext(
            "This example shows how the questions work. Your answers to it are kept as practice "
            "and not used in the research."
        ),
        pairs=[_pair(e.position, e.item) for e in entries],
        wording=printing.Wording().translated(gettext),
    )


@dataclass
class Printed:
    layouts: list[tuple[Path, Layout]]
    documents: list[Path]


def new_copy_code() -> str:
    return "".join(secrets.choice(participation.CODE_ALPHABET) for _ in range(8))


def print_questionnaires(
    study: Study,
    numbers: list[int] | None,
    copies: int,
    paper: str,
    out: Path,
    progress=None,
) -> Printed:
    """PDFs of `copies` copies of each questionnaire (all active ones by default), their
    layout.json, the information sheet and the debriefing, in the study's language; the copies
    are recorded."""
    with translation.override(study.language):
        return _print_questionnaires(study, numbers, copies, paper, out, progress)


def _print_questionnaires(study, numbers, copies, paper, out, progress) -> Printed:
    if study.word_marks:  # a paper form has no boxes for a sentence's words
        raise PaperError(
            f"study {study.slug!r}: word marks are asked on the web only: turn word_marks off "
            "for a paper run"
        )
    if copies < 1:
        raise PaperError("--copies must be at least 1")
    if paper not in PAPER_SIZES:
        raise PaperError(f"--paper must be one of {', '.join(PAPER_SIZES)}")
    latest = {}
    for q in Questionnaire.objects.filter(study=study).order_by("number", "version"):
        latest[q.number] = q
    wanted = numbers or sorted(n for n, q in latest.items() if q.active)
    unknown = [n for n in wanted if n not in latest]
    if unknown:
        raise PaperError(
            f"study {study.slug!r} has no questionnaire {', '.join(map(str, unknown))} "
            f"(it has {', '.join(map(str, sorted(latest))) or 'none'})"
        )
    if not wanted:
        raise PaperError(f"study {study.slug!r} has no active questionnaire")
    if out.exists() and not out.is_dir():
        raise PaperError(f"{out}: exists and is not a folder")
    taken = set(PaperCopy.objects.values_list("code", flat=True))
    consent = participation.current_consent(study)
    out.mkdir(parents=True, exist_ok=True)
    result = Printed([], [])
    with transaction.atomic():
        for number in wanted:
            questionnaire = latest[number]
            folder = out if len(wanted) == 1 else out / f"questionnaire-{number}"
            folder.mkdir(exist_ok=True)
            codes = []
            while len(codes) < copies:
                code = new_copy_code()
                if code not in taken:
                    taken.add(code)
                    codes.append(code)
            text = questionnaire_text(questionnaire, paper, consent)
            layout = printing.print_copies(text, codes, folder, progress)
            layout.write(folder / "layout.json")
            record = PaperLayout.objects.create(
                study=study,
                questionnaire=questionnaire,
                layout=layout.to_dict(),
                consent_version=consent.version,
            )
            PaperCopy.objects.bulk_create(PaperCopy(code=c, layout=record) for c in codes)
            # A handed-out questionnaire must not change under its copies.
            Questionnaire.objects.filter(pk=questionnaire.pk).update(frozen=True)
            result.layouts.append((folder, layout))
    for name, title, text in (
        ("information.pdf", gettext("Participant Information Sheet"), study.information_sheet),
        ("debriefing.pdf", gettext("Participant Debriefing Form"), study.debriefing),
    ):
        printing.print_document(title, texts.blocks(texts.fill(text, study)), paper, out / name)
        result.documents.append(out / name)
    return result
