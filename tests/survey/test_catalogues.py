"""The French and German catalogues hold every message of the participant pages, translated,
with the same placeholders as the English.

The messages are read from the sources as gettext's tools would: the templates through Django's
own `templatize` (what makemessages feeds xgettext), the Python modules by their gettext calls
and `N_`/`Nn_` marks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import polib
import pytest
from django.utils.translation.template import templatize

ROOT = Path(__file__).resolve().parent.parent.parent
# The participant pages and the crowd platforms' parts of them; not dashboard/.
TEMPLATES = [
    *sorted((ROOT / "survey/templates/survey").glob("*.html")),
    *sorted((ROOT / "survey/templates/survey/platforms").rglob("*.html")),
]
MODULES = [
    *(
        ROOT / name
        for name in (
            "survey/participants/forms.py",
            "survey/participants/views.py",
            "survey/models.py",
            "survey/participants/participation.py",
            "survey/paper/print_runs.py",
            "survey/paper/scan_import.py",
            "wojdb/core/texts/en.py",
            "wojdb/core/paper/printing.py",
        )
    ),
    *sorted((ROOT / "survey/platforms").glob("*.py")),
]
LANGUAGES = ("fr", "de")
SINGULAR = {"gettext", "gettext_lazy", "_", "N_"}
PLURAL = {"ngettext", "ngettext_lazy", "Nn_"}
STRING = r"""u?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")"""
CALL = re.compile(rf"\b(n?gettext)\(({STRING})(?:, ({STRING}), count)?\)")
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|\{(\w+)\}")


def template_messages(path: Path) -> set[tuple[str, str | None]]:
    text = templatize(path.read_text(), origin=str(path))
    return {
        (ast.literal_eval(one), ast.literal_eval(other) if other else None)
        for _, one, other in CALL.findall(text)
    }


def python_messages(path: Path) -> set[tuple[str, str | None]]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        strings = [a.value for a in node.args if isinstance(a, ast.Constant)]
        if node.func.id in SINGULAR and len(strings) == 1:
            found.add((strings[0], None))
        elif node.func.id in PLURAL and len(strings) == 2:
            found.add((strings[0], strings[1]))
    return found


def source_messages() -> set[tuple[str, str | None]]:
    messages = set()
    for path in TEMPLATES:
        messages |= template_messages(path)
    for path in MODULES:
        messages |= python_messages(path)
    return messages


def catalogue(language: str) -> polib.POFile:
    return polib.pofile(str(ROOT / "survey/locale" / language / "LC_MESSAGES/django.po"))


def placeholders(text: str) -> list[str]:
    return sorted(a or b for a, b in PLACEHOLDER.findall(text))


def test_the_sources_are_read():
    """The reader finds messages of every kind: a template's, a blocktranslate's with its
    variable, a plural, a form's and a text's mark."""
    messages = source_messages()
    assert ("Skip to the main content", None) in messages
    assert ("Pair %(position)s of %(total)s", None) in messages
    assert any(plural and "%(minutes)s minutes" in plural for _, plural in messages)
    assert ("Please name the language.", None) in messages
    assert ("Is %(language)s your first language?", None) in messages
    assert ("Submit the HIT on MTurk", None) in messages  # a platform's part of a page
    assert ("%(parameter)s is not an MTurk address", None) in messages  # a platform's message


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_is_translated_and_none_is_stale(language):
    entries = catalogue(language)
    held = {(e.msgid, e.msgid_plural or None) for e in entries if not e.obsolete}
    messages = source_messages()
    assert sorted(messages - held) == [], "missing from the catalogue"
    assert sorted(held - messages) == [], "no longer in the sources"
    assert [e.msgid for e in entries if "fuzzy" in e.flags] == []
    assert [e.msgid for e in entries.untranslated_entries()] == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_the_placeholders(language):
    for entry in catalogue(language):
        wanted = placeholders(entry.msgid)
        if entry.msgid_plural:
            for form in entry.msgstr_plural.values():
                # A language's singular form may spell out the one, as English does not.
                assert set(placeholders(form)) <= set(placeholders(entry.msgid_plural)), entry
        else:
            assert placeholders(entry.msgstr) == wanted, entry.msgid


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_translation_is_a_copy_of_the_english(language):
    assert [e.msgid for e in catalogue(language) if e.msgstr == e.msgid] == []
