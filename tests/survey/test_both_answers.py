"""Both answers of a pair before moving on (the thesis asked both questions of every pair): a
study option, on by default, checked by the server whatever the page does."""

from __future__ import annotations

import pytest

from survey.models import Rating, Study
from tests.factories import make_study
from tests.survey.test_participant_views import answer, item_url, started, text_of

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]
MESSAGE = "Please answer both questions about this pair before moving on."


def test_the_option_is_on_for_a_new_study():
    assert Study().require_both_answers is True


@pytest.mark.parametrize("given", [{"holistic": 3}, {"order": 2}, {}])
def test_next_with_a_question_unanswered_keeps_the_pair_and_saves_what_was_given(client, given):
    study = make_study(items=2)
    person = started(client, study)
    response = answer(client, person, 1, go="next", **given)
    assert response["Location"] == item_url(person, 1) + "?unanswered=1"
    response = client.get(response["Location"])
    page = text_of(response)
    assert MESSAGE in page and "Pair 1 of 2" in page
    html = response.content.decode()
    missing = {"holistic", "order"} - set(given)
    for name in ("holistic", "order"):
        marked = f'<fieldset class="scale missing" data-scale="{name}"' in html
        assert marked == (name in missing), name
    rating = Rating.objects.filter(participant=person, position=1).first()
    if given:
        assert {k: getattr(rating, k) for k in given} == given  # nothing given is lost
    person.refresh_from_db()
    assert person.furthest in (None, 0, 1)  # not moved on


def test_both_answers_move_on(client):
    study = make_study(items=2)
    person = started(client, study)
    answer(client, person, 1, holistic=3, go="stay")  # a background save asks nothing
    response = answer(client, person, 1, order=4, go="next")
    assert response["Location"] == item_url(person, 2)


def test_back_is_always_allowed(client):
    study = make_study(items=2)
    person = started(client, study)
    assert answer(client, person, 2, holistic=1, go="back")["Location"] == item_url(person, 1)


def test_the_practice_pair_needs_both_before_its_feedback(client):
    study = make_study(items=2)
    person = started(client, study)
    response = answer(client, person, 0, holistic=2, go="next")
    assert response["Location"] == item_url(person, 0) + "?unanswered=1"
    assert MESSAGE in text_of(client.get(response["Location"]))
    response = answer(client, person, 0, order=2, go="next")
    assert response["Location"] == item_url(person, 0) + "?feedback=1"


def test_the_page_script_is_told_what_is_missing(client):
    study = make_study(items=2)
    person = started(client, study)
    response = answer(client, person, 1, json=True, holistic=5, go="next")
    assert response.status_code == 400
    assert response.json() == {
        "saved": True,
        "reason": "incomplete",
        "message": MESSAGE,
        "missing": ["order"],
        "revisions": 0,
        "holistic": 5,
        "order": None,
    }


def test_the_message_follows_what_is_saved_not_the_address(client):
    study = make_study(items=2)
    person = started(client, study)
    answer(client, person, 1, holistic=3, order=4, go="stay")
    page = text_of(client.get(item_url(person, 1) + "?unanswered=1"))
    assert MESSAGE not in page  # both are answered by now


def test_a_study_may_let_participants_move_on_with_one_answer(client):
    study = make_study(items=2, require_both_answers=False)
    person = started(client, study)
    assert answer(client, person, 1, holistic=3, go="next")["Location"] == item_url(person, 2)


def test_the_message_is_in_the_studys_language(client):
    study = make_study(items=2, language="fr")
    person = started(client, study)
    page = text_of(client.get(answer(client, person, 1, holistic=3, go="next")["Location"]))
    assert "Veuillez répondre aux deux questions sur cette paire avant de continuer." in page
    assert "Vous n'avez pas encore répondu à cette question." in page
