"""The participant texts as plain functions: line ends, placeholders, the practice feedback and
the units of sentence lengths."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wojdb.core import texts
from wojdb.core.io import length_unit, length_units, text_length
from wojdb.core.language.rules import rules_for
from wojdb.core.texts import de, en, fr
from wojdb.core.vocabulary import ORDER_CHANGING_TYPES, PERMUTATION_TYPES


@given(st.text(alphabet="ab #\r\n", max_size=60))
def test_normalised_text_has_only_newline_line_ends_and_the_same_lines(text):
    normal = texts.normalise_line_ends(text)
    assert "\r" not in normal
    assert normal.splitlines() == text.splitlines()  # str.splitlines knows all three
    assert texts.normalise_line_ends(normal) == normal


@given(st.text(alphabet="ab #\n", max_size=60))
def test_a_document_splits_the_same_with_either_line_ends(text):
    assert texts.blocks(text.replace("\n", "\r\n")) == texts.blocks(text)


def test_headings_survive_cr_lf_line_ends():
    typed = "## What is the study about?\r\nWe invite you.\r\n\r\n## Do I have to take part?\r\nNo."
    assert texts.blocks(typed) == [
        ("h", "What is the study about?"),
        ("p", "We invite you."),
        ("h", "Do I have to take part?"),
        ("p", "No."),
    ]


def study(**fields) -> SimpleNamespace:
    settings = dict.fromkeys(texts.PLACEHOLDERS, "")
    return SimpleNamespace(**(settings | {"name": "Study A", "project_title": ""} | fields))


def test_the_project_title_is_the_studys_own_or_its_name():
    assert texts.fill("{project_title}", study()) == "Study A"
    assert texts.fill("{project_title}", study(project_title="Word order")) == "Word order"


def test_the_data_use_text_is_the_studys_and_may_name_settings():
    filled = texts.fill(
        "Data: {data_use}", study(data_use="Ask {researcher_name}.", researcher_name="Ada")
    )
    assert filled == "Data: Ask Ada."
    assert texts.fill("{data_use}", study()) == "[data_use]"
    assert texts.unfilled(study(information_sheet="{data_use}")) == ["data_use"]
    named = study(information_sheet="{data_use}", data_use="Ask {reward}.")
    assert texts.unfilled(named) == ["reward"]


@pytest.mark.parametrize("module", [en, fr, de])
def test_no_default_text_carries_the_thesis_title(module):
    for document in (module.INFORMATION_SHEET, module.CONSENT_INTRO, module.DEBRIEFING):
        assert "{project_title}" in document
        assert "Word Order in Machine Translation" not in document
        assert "l'ordre des mots en traduction automatique" not in document
        assert "Wortstellung in maschinellen" not in document


def test_every_language_gives_a_new_study_its_data_use_text():
    for language, module in (("en", en), ("fr", fr), ("de", de), ("zh", en)):
        assert texts.study_defaults(language)["data_use"] == module.DATA_USE


def practice_item(perm_type: str | None, moved: int = 0):
    permutation = None
    if perm_type is not None:
        permutation = SimpleNamespace(perm_type=perm_type, moved=list(range(moved)))
    return SimpleNamespace(permutation=permutation)


# Words that would tell a participant the first sentence was made from the second.
GIVEAWAYS = ("second one", "swapped", "moved", "replaced", "phrases", "machine translation")


@pytest.mark.parametrize("perm_type", [None, *PERMUTATION_TYPES])
def test_the_practice_feedback_explains_the_questions_without_giving_away_the_design(perm_type):
    holistic, order = texts.practice_notes(practice_item(perm_type, moved=3))
    assert holistic == en.PRACTICE_HOLISTIC
    assert order.startswith(en.PRACTICE_ORDER)
    for words in GIVEAWAYS:
        assert words not in (holistic + order).lower(), words


def test_the_practice_feedback_counts_the_words_out_of_place_where_the_order_changed():
    assert "order" in ORDER_CHANGING_TYPES and "choice" not in ORDER_CHANGING_TYPES
    _, one = texts.practice_notes(practice_item("swap", moved=1))
    assert "Here 1 word of the first sentence is out of place." in one
    _, two = texts.practice_notes(practice_item("phrase", moved=2))
    assert "Here 2 words of the first sentence are out of place." in two
    _, words = texts.practice_notes(practice_item("choice", moved=2))
    assert words.endswith(en.PRACTICE_IN_ORDER)
    _, machine = texts.practice_notes(practice_item(None))
    assert machine == en.PRACTICE_ORDER


def test_lengths_are_counted_and_named_in_one_unit_per_language():
    assert (text_length("我们今天去", "zh"), length_unit("zh")) == (5, "characters")
    assert (text_length("We go today", "en"), length_unit("en")) == (3, "words")
    assert length_units(["de", "cs"], "en") == {
        "source": "words",
        "reference": "words",
        "hypothesis": "words",
    }
    assert length_units(["zh"], "en")["source"] == "characters"
    assert length_units(["en"], "ja")["reference"] == "characters"
    assert length_units(["zh", "de", "ja"], "en")["source"] == "words; characters for ja, zh"


def test_lengths_in_characters_are_those_of_the_languages_written_without_spaces():
    # Lao ສະບາຍດີ ໂລກ ("hello world"): 7 + 3 characters, vowel signs included.
    assert (text_length("ສະບາຍດີ ໂລກ", "lo"), length_unit("lo")) == (10, "characters")
    for code in ("zh", "ja", "th", "lo", "km", "my", "en", "fr", "de", "vi", "ko"):
        assert (length_unit(code) == "characters") == (not rules_for(code).spaced), code
