"""Parts of the participant's pages kept rendered in the process ({% cache %} in item.html and
base.html): each is shown again only where all it shows is the same, whatever was shown before."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_study
from tests.survey.test_participant_views import answer, item_url, started, text_of

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]
# Django's French catalogue of survey/locale/fr/LC_MESSAGES/django.po.
MISSING = {"en": "This question is not answered yet.", "fr": "Vous n'avez pas encore répondu"}
SAVED = {"en": 'data-message-saved="Saved."', "fr": 'data-message-saved="Enregistré."'}
SECOND = {"en": "Second sentence", "fr": "Seconde phrase"}


def test_two_studies_asking_the_same_questions_each_show_their_own_language(client):
    # Both studies keep the default (English) wording of their questions; only the language
    # of the pages differs, so the questions' fragment must tell the two apart by more.
    pages = {}
    for language in ("en", "fr"):
        person = started(client, make_study(items=2, language=language))
        refused = answer(client, person, 1, holistic=3, go="next")
        assert refused["Location"] == item_url(person, 1) + "?unanswered=1"
        pages[language] = client.get(refused["Location"])
    for language, other in (("en", "fr"), ("fr", "en")):
        html, text = pages[language].content.decode(), text_of(pages[language])
        assert MISSING[language] in text and MISSING[other] not in text
        assert SAVED[language] in html and SAVED[other] not in html
        assert SECOND[language] in text and SECOND[other] not in text


def test_the_footer_follows_the_participant_to_the_end(client):
    study = make_study(items=1, platform="prolific", completion_code="C0DE")
    person = started(client, study)
    note = "Please also return the study on Prolific"
    assert note in text_of(client.get(item_url(person, 1)))
    answer(client, person, 1, holistic=3, order=4, go="next")
    client.post(f"/p/{person.token}/review/")
    done = text_of(client.get(f"/p/{person.token}/done/"))
    assert "Your personal link" in done and person.token in done
    assert note not in done


def test_the_footer_is_each_participants_own():
    study = make_study(items=1)
    browsers = [Client(), Client()]
    first, second = (started(browser, study) for browser in browsers)
    for browser, person, other in zip(browsers, (first, second), (second, first), strict=True):
        html = browser.get(item_url(person, 1)).content.decode()
        assert f"/p/{person.token}/withdraw/" in html
        assert other.token not in html
