"""The participant documents' machinery: their format, the study settings they name, the
markers of the pages' messages and the defaults of a study in its language.

The documents (after the thesis's Appendix A, McCaffery 2017) are the defaults of a new study and
can be edited per study. Format: paragraphs separated by blank lines; a line starting with "## " is
a heading; single line breaks are kept. Every fact that differs between studies (contacts,
institution, duration, reward, dates, where to raise concerns) is a study setting named in braces,
filled in when a page is shown; a study whose texts name an empty setting cannot be opened
(`unfilled`). {pairs} is the questionnaire's length, {project_title} the title participants read
(the study's name unless it has its own) and {data_use} the study's one text on what happens to the
data (itself a setting, which may name settings too). Line ends are "\n" (`normalise_line_ends`):
text typed in a browser arrives with "\r\n", which would hide every heading and paragraph break.

A study's defaults follow its language (`study_defaults`): the English texts in
wojdb/core/texts/en.py, the French and German ones in fr.py and de.py beside it. The short texts
of the pages (about-you questions, practice feedback), in en.py too, are English message ids
marked with `N_`, translated where a page shows them through Django's catalogues
(survey/locale/).
"""

from __future__ import annotations

from types import ModuleType

from wojdb.core.vocabulary import ORDER_CHANGING_TYPES


def N_(message: str) -> str:
    """Mark a message for the catalogues; the page translates it when shown."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:
    """Mark a message with a plural for the catalogues, as ngettext takes it."""
    return singular, plural


# The texts mark their messages with the markers above, so they are imported after them.
from wojdb.core.texts import de, en, fr  # noqa: E402

#: The statement (numbered from 1) agreeing to the data's release: optional by default.
CONSENT_SHARING = 5
CONSENT_OPTIONAL = [CONSENT_SHARING]

# Placeholder -> the study setting that fills it.
PLACEHOLDERS = {
    "data_use": "data_use",
    "researcher_name": "researcher_name",
    "researcher_email": "researcher_email",
    "supervisor_name": "supervisor_name",
    "supervisor_email": "supervisor_email",
    "institution": "institution",
    "duration": "duration",
    "reward": "reward",
    "results_date": "results_date",
    "ethics_contact": "ethics_contact",
}
#: The texts participants read, as study fields.
DOCUMENTS = (
    "information_sheet",
    "consent_intro",
    "consent_closing",
    "debriefing",
    "instructions",
    "data_use",
)
# What the thesis's texts said that fits no other study; none may reach a participant.
FOREIGN = ("St Andrews", "during 2017", "£5 Amazon voucher", "signature", "PhD Thesis")


# Callables, so migrations refer to them instead of copying the texts.
def information_sheet() -> str:
    return en.INFORMATION_SHEET


def consent_intro() -> str:
    return en.CONSENT_INTRO


def consent_closing() -> str:
    return en.CONSENT_CLOSING


def debriefing() -> str:
    return en.DEBRIEFING


def data_use_default() -> str:
    return en.DATA_USE


def sample_holistic_note() -> str:
    return en.SAMPLE_HOLISTIC_NOTE


def sample_order_note() -> str:
    return en.SAMPLE_ORDER_NOTE


def _english(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def practice_notes(item, gettext=str, ngettext=_english) -> tuple[str, str]:
    """Feedback on the two questions, written from the practice item itself, in the language
    of `gettext` and `ngettext` (English by default). Of a rearranged reference it says how
    many words are out of place (or that none is), never that it is one."""
    order = gettext(en.PRACTICE_ORDER)
    permutation = item.permutation
    if permutation is not None:
        if permutation.perm_type in ORDER_CHANGING_TYPES:
            moved = len(permutation.moved)
            detail = ngettext(*en.PRACTICE_OUT_OF_PLACE, moved) % {"count": moved}
        else:
            detail = gettext(en.PRACTICE_IN_ORDER)
        order += " " + detail
    return gettext(en.PRACTICE_HOLISTIC), order


def instructions() -> str:
    return en.INSTRUCTIONS


# The languages with their own default texts; any other study starts from the English ones.
TRANSLATIONS: dict[str, ModuleType] = {"fr": fr, "de": de}


def _texts(language: str):
    return TRANSLATIONS.get(language, en)


def study_defaults(language: str) -> dict[str, str]:
    """A new study's participant texts, questions and scale labels in its language."""
    source = _texts(language)
    return {
        "information_sheet": source.INFORMATION_SHEET,
        "consent_intro": source.CONSENT_INTRO,
        "consent_closing": source.CONSENT_CLOSING,
        "debriefing": source.DEBRIEFING,
        "instructions": source.INSTRUCTIONS,
        "data_use": source.DATA_USE,
        **source.QUESTIONS,
    }


def consent_statements(language: str) -> list[str]:
    return list(_texts(language).CONSENT_STATEMENTS)


def default_consent(language: str) -> dict:
    """The consent statements of a study that has none of its own, in its language."""
    return {
        "statements": consent_statements(language),
        "optional": CONSENT_OPTIONAL,
        "sharing": CONSENT_SHARING,
    }


def data_use(language: str) -> str:
    """What happens to the data, in a language: a new study's `data_use`."""
    return _texts(language).DATA_USE


def normalise_line_ends(text: str) -> str:
    """Text with "\n" line ends: a browser sends a text area's lines ended by "\r\n", and
    files written elsewhere may use either."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def project_title(study) -> str:
    """The title participants read: the study's own, else its name."""
    return getattr(study, "project_title", "") or getattr(study, "name", "")


def fill(text: str, study) -> str:
    """Put a study's settings (attributes of `study`) into the placeholders; {data_use} first,
    so that the settings it names are filled as well."""
    values = {
        name: getattr(study, field, "") or f"[{name}]" for name, field in PLACEHOLDERS.items()
    }
    values["pairs"] = str(getattr(study, "items_per_questionnaire", "") or "")
    values["project_title"] = project_title(study) or "[project_title]"
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text


def unfilled(study) -> list[str]:
    """The settings named in the study's texts that are empty, and the documents that still
    carry text from the thesis that fits no other study."""
    missing = []
    for document in DOCUMENTS:
        text = getattr(study, document, "") or ""
        missing += [
            field
            for name, field in PLACEHOLDERS.items()
            if "{" + name + "}" in text and not getattr(study, field, "") and field not in missing
        ]
        missing += [f"{document} (mentions “{words}”)" for words in FOREIGN if words in text]
    return missing


def blocks(text: str) -> list[tuple[str, str]]:
    """Split a document into ("h", heading) and ("p", paragraph) blocks, in order."""
    result = []
    for chunk in normalise_line_ends(text).strip().split("\n\n"):
        lines = chunk.strip().splitlines()
        if lines and lines[0].startswith("## "):
            result.append(("h", lines[0][3:].strip()))
            lines = lines[1:]
        if lines:
            result.append(("p", "\n".join(line.strip() for line in lines)))
    return result
