"""A study's language: its pages, its default texts and its about-you questions."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from survey.models import Participant, Study
from tests.factories import FILLED_SETTINGS, make_study
from tests.survey.test_catalogues import source_messages
from tests.survey.test_participant_views import (
    answer,
    consent,
    enter,
    item_url,
    languages,
    text_of,
)
from wojdb.core import texts
from wojdb.core.texts import en, fr

pytestmark = pytest.mark.filterwarnings("ignore:No directory at:UserWarning")


def english_left(page: str) -> list[str]:
    """The English messages of the pages, and the English study texts' headings and
    statements, found in a page's text (whole words, so "Continue" is not in "Continuer")."""
    english = {msgid for msgid, _ in source_messages() if "%(" not in msgid}
    english |= {text for kind, text in texts.blocks(en.INFORMATION_SHEET) if kind == "h"}
    english |= {text for kind, text in texts.blocks(en.DEBRIEFING) if kind == "h"}
    english |= set(en.CONSENT_STATEMENTS) | set(en.QUESTIONS.values())
    return sorted(m for m in english if re.search(rf"(?<!\w){re.escape(m)}(?!\w)", page))


def page_text(response) -> str:
    """The visible text without the sentences rated (the test items are English)."""
    html = re.sub(r'<p class="sentence [^"]*"[^>]*>.*?</p>', " ", response.content.decode())
    response.content = html.encode()
    return text_of(response)


def study_in(language: str, **fields) -> Study:
    """A study made as a study file or the admin makes a new one: texts in its language."""
    study = make_study(language=language, **fields)
    study.take_language_defaults()
    study.save()
    return study


def french_study(**fields) -> Study:
    study = study_in("fr", **fields)
    study.consent_texts.all().delete()  # the default statements, in French, come instead
    return study


@pytest.mark.django_db
def test_a_french_study_is_french_from_the_information_sheet_to_the_debriefing(client):
    study = french_study(questionnaires=1, items=2)
    pages = {}
    pages["information"] = client.get(f"/s/{study.slug}/")
    participant = enter(client, study)
    token = participant.token
    pages["consent"] = client.get(f"/p/{token}/consent/")
    client.post(f"/p/{token}/consent/", {f"statement_{n}": "yes" for n in range(1, 8)})
    pages["about"] = client.get(f"/p/{token}/about/")
    client.post(f"/p/{token}/about/", languages(("anglais", 4, "")))
    pages["instructions"] = client.get(f"/p/{token}/instructions/")
    pages["practice"] = client.get(item_url(participant, 0))
    answer(client, participant, 0, holistic=3, order=4, go="next")
    pages["feedback"] = client.get(item_url(participant, 0) + "?feedback=1")
    pages["item"] = client.get(item_url(participant, 2))
    pages["withdraw"] = client.get(f"/p/{token}/withdraw/")
    pages["review"] = client.get(f"/p/{token}/review/")
    client.post(f"/p/{token}/review/")
    pages["done"] = client.get(f"/p/{token}/done/")

    for name, response in pages.items():
        assert response.status_code == 200, name
        html = response.content.decode()
        assert '<html lang="fr">' in html, name
        assert english_left(page_text(response)) == [], name
    text = {name: page_text(response) for name, response in pages.items()}
    assert "Notice d'information" in text["information"]
    assert "Sur quoi porte l'étude ?" in text["information"]
    assert "J'accepte de participer à l'étude." in text["consent"]
    assert "(facultatif)" in text["consent"]
    assert "Le français est-il votre langue maternelle ?" in text["about"]
    assert "(y compris le français)" in text["about"]
    assert "Très difficile" in text["instructions"] and "Pas du tout" in text["instructions"]
    assert "Paire d'entraînement" in text["practice"]
    assert "Lisez la première phrase" in text["feedback"]
    assert "Paire 2 sur 2" in text["item"]
    # The factory's items are German-English pairs: the source named in French.
    assert "(traduction automatique ; langue d'origine : allemand)" in text["item"]
    assert "Seuls les chercheurs et leurs encadrants" in text["withdraw"]
    assert "Avant de terminer" in text["review"]
    assert "Vous avez terminé l'étude." in text["done"]
    assert "Toutes les « traductions automatiques » n'en étaient pas" in text["done"]


@pytest.mark.django_db
def test_a_french_study_refuses_and_explains_in_french(client):
    study = french_study()
    participant = enter(client, study)
    response = client.post(f"/p/{participant.token}/consent/", {"statement_1": "yes"})
    assert "Veuillez répondre Oui ou Non à chaque affirmation." in text_of(response)
    consent(client, participant, statements=7)
    response = client.post(
        f"/p/{participant.token}/about/", languages(("", 4, "")) | {"age": "abc"}
    )
    page = text_of(response)
    assert "Veuillez indiquer le nom de la langue." in page
    assert "Saisissez un nombre entier." in page  # Django's own message, in French
    client.post(f"/p/{participant.token}/about/", languages())
    response = client.post(item_url(participant, 9), {"item": study.sample_item_id})
    assert "Cette réponse n'a pas pu être acceptée : il n'y a pas de paire à la position 9." in (
        text_of(response)
    )


@pytest.mark.django_db
def test_a_german_study_asks_about_you_in_german(client):
    study = study_in("de")
    participant = enter(client, study)
    consent(client, participant)
    response = client.get(f"/p/{participant.token}/about/")
    page = page_text(response)
    assert '<html lang="de">' in response.content.decode()
    assert "Zu Ihrer Person" in page
    assert "Ist Deutsch Ihre Muttersprache?" in page
    assert "(einschließlich Deutsch)" in page
    assert "Muttersprache" in page and "Fließend" in page  # the fluency choices
    assert english_left(page) == []


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["ar", "he", "fa", "ur", "ug", "ps", "yi", "dv", "sd"])
def test_a_right_to_left_study_sets_the_direction(client, language):
    study = make_study(language=language)
    response = client.get(f"/s/{study.slug}/")
    assert f'<html lang="{language}" dir="rtl">' in response.content.decode()
    # An English study, and the pages without a study, stay left to right.
    english = make_study()
    assert '<html lang="en">' in client.get(f"/s/{english.slug}/").content.decode()
    assert 'dir="rtl"' not in client.get("/").content.decode()


@pytest.mark.django_db
def test_a_page_in_another_language_leaves_the_next_request_in_english(client):
    french = french_study()
    client.get(f"/s/{french.slug}/")
    assert translation.get_language() != "fr"
    assert "Open studies" in text_of(client.get("/"))


def test_a_new_study_takes_the_texts_of_its_language_unless_given():
    french = Study(language="fr")
    french.take_language_defaults()
    assert french.information_sheet.startswith("## Titre du projet")
    assert french.order_question == fr.QUESTIONS["order_question"]
    own = Study(language="de", instructions="Eigene.")
    own.take_language_defaults(given={"instructions"})
    assert own.instructions == "Eigene."
    assert own.debriefing.startswith("## Titel des Projekts")
    # Any other language starts from the English texts, to be translated by the researcher.
    czech = Study(language="cs")
    czech.take_language_defaults()
    assert czech.information_sheet == en.INFORMATION_SHEET


@pytest.mark.django_db
def test_the_admin_gives_a_new_study_the_texts_of_its_language(admin_client):
    from django.forms.models import model_to_dict

    form = {
        k: v
        for k, v in model_to_dict(Study(), exclude=["id", "sample_item", "shared_items"]).items()
        if v is not None
    }
    form |= {"name": "Étude", "slug": "etude", "language": "fr", "reward": "Rien."}
    form |= {"holistic_low": "Ardu", "type_counts": "{}"}
    form |= {f"consent_texts-{k}": v for k, v in {"TOTAL_FORMS": 0, "INITIAL_FORMS": 0}.items()}
    # As the browser sends them: the form's hidden copies of the callable defaults.
    form |= {f"initial-{name}": form[name] for name in texts.DOCUMENTS}
    response = admin_client.post("/admin/survey/study/add/", form)
    assert response.status_code == 302, response.content.decode()[:3000]
    study = Study.objects.get(slug="etude")
    assert study.debriefing.startswith("## Titre du projet")
    assert (study.holistic_low, study.holistic_high) == ("Ardu", "Très facile")
    # Editing it later changes no text, whatever its language becomes.
    study.language = "de"
    study.save()
    study.refresh_from_db()
    assert study.debriefing.startswith("## Titre du projet")


@pytest.mark.parametrize("language", ["fr", "de"])
def test_the_translated_texts_name_the_same_settings_as_the_english(language):
    study = Study(language=language, **FILLED_SETTINGS)
    study.take_language_defaults()
    for name in texts.DOCUMENTS:
        english = set(re.findall(r"\{(\w+)\}", texts.study_defaults("en")[name]))
        assert set(re.findall(r"\{(\w+)\}", getattr(study, name))) == english, name
    assert study.unfilled() == ["sample_item (the practice pair)"]
    study.researcher_email = ""
    assert "researcher_email" in study.unfilled()
    filled = texts.fill(study.information_sheet, study)
    assert "{" not in filled and texts.data_use(language) in filled


@pytest.mark.django_db
@pytest.mark.parametrize("code", ["french", "FR", "xx", "fra"])
def test_a_language_that_is_no_standard_iso_639_code_is_refused(code):
    study = Study(name="s", slug="s", language=code)
    with pytest.raises(ValidationError) as error:
        study.full_clean()
    assert "language" in error.value.message_dict


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["pa", "hi", "liv", "sr"])
def test_a_study_in_a_left_to_right_script_has_no_direction(client, language):
    study = make_study(language=language)
    assert f'<html lang="{language}">' in client.get(f"/s/{study.slug}/").content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(("code", "standard"), [("sh", "sr"), ("prs", "fa"), ("ces", "cs")])
def test_a_code_refused_suggests_one_that_is_accepted(code, standard):
    study = Study(name="s", slug="s", language=code)
    with pytest.raises(ValidationError) as error:
        study.full_clean()
    assert f"(write {standard!r})" in str(error.value.message_dict["language"])
    study.language = standard
    study.full_clean()


@pytest.mark.django_db
def test_the_participant_model_is_untouched_by_the_page_language(client):
    study = french_study()
    participant = enter(client, study)
    consent(client, participant, statements=7)
    client.post(
        f"/p/{participant.token}/about/",
        languages(("anglais", 7, "")) | {"target_first": "no", "target_years": "12"},
    )
    stored = Participant.objects.get(pk=participant.pk)
    assert (stored.target_first, stored.target_years) == (False, 12)
    assert stored.languages.get().get_fluency_display() == "Native"


@pytest.mark.django_db
def test_a_study_in_a_language_neither_catalogue_nor_django_knows_shows_english_pages(client):
    study = make_study(language="liv")  # Livonian: a valid ISO 639 code, no Django locale
    participant = enter(client, study)
    consent(client, participant)
    response = client.get(f"/p/{participant.token}/about/")
    assert '<html lang="liv">' in response.content.decode()
    assert "Is liv your first language?" in text_of(response)
