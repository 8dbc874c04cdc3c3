"""Moving on from a pair the page's script has saved: a background save's reply names where each
button leads, where the pair may be left, so that "Next" on an unchanged pair posts nothing and
the next page is simply opened (participant.js); the rule asking for both answers holds. A save
that moves on carries the page it leads to (another pair, the final check, the instructions),
which the script shows in place."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_study
from tests.survey.test_participant_views import answer, item_url, started

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def moves(client, person, position, **values) -> dict:
    reply = answer(client, person, position, json=True, go="stay", **values)
    assert reply.status_code == 200 and reply.json()["saved"] is True
    return reply.json()["moves"]


def test_a_pair_with_both_answers_may_be_left_either_way(client):
    person = started(client, make_study(items=3))
    assert moves(client, person, 2, holistic=4, order=1) == {
        "next": item_url(person, 3),
        "back": item_url(person, 1),
    }


def test_a_pair_with_a_question_unanswered_may_only_be_left_backwards(client):
    person = started(client, make_study(items=3))
    assert moves(client, person, 2, holistic=4) == {"back": item_url(person, 1)}
    assert moves(client, person, 2, order=2)["next"] == item_url(person, 3)


def test_one_answer_is_enough_where_the_study_says_so(client):
    person = started(client, make_study(items=3, require_both_answers=False))
    assert moves(client, person, 1, holistic=4) == {
        "next": item_url(person, 2),
        "back": item_url(person, 0),
    }


def test_the_practice_pair_leads_to_its_feedback_and_then_to_pair_one(client):
    person = started(client, make_study(items=3))
    assert moves(client, person, 0, holistic=2, order=3) == {
        "next": item_url(person, 0) + "?feedback=1",
        "back": f"/p/{person.token}/instructions/",
        "start": item_url(person, 1),
    }


def test_the_last_pair_leads_to_the_final_check(client):
    person = started(client, make_study(items=2))
    assert moves(client, person, 2, holistic=2, order=3)["next"] == f"/p/{person.token}/review/"


def test_a_move_on_that_posts_needs_no_moves_back(client):
    person = started(client, make_study(items=2))
    reply = answer(client, person, 1, json=True, go="next", holistic=2, order=3).json()
    assert reply["next"] == item_url(person, 2) and "moves" not in reply


def test_the_next_pair_opened_without_a_post_is_recorded_as_reached(client):
    person = started(client, make_study(items=3))
    client.get(item_url(person, 1))
    opened = client.get(moves(client, person, 1, holistic=5, order=5)["next"])
    assert opened.status_code == 200 and "Pair 2 of 3" in opened.content.decode()
    person.refresh_from_db()
    assert (person.position, person.furthest) == (2, 2)
    assert client.get(f"/p/{person.token}/").url == item_url(person, 2)  # resumed there


def without_tokens(page: str) -> str:
    """A page with its CSRF tokens blanked: each rendering masks the token afresh."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", page)


@pytest.mark.parametrize(("position", "go", "shown"), [(1, "next", 2), (2, "back", 1)])
def test_a_move_to_another_pair_brings_its_page_as_opening_it_would(client, position, go, shown):
    person = started(client, make_study(items=3))
    client.get(item_url(person, 1))
    reply = answer(client, person, position, json=True, go=go, holistic=2, order=3).json()
    assert reply["next"] == item_url(person, shown)
    person.refresh_from_db()
    assert person.position == shown  # where the participant now is, as opening the page records
    opened = client.get(item_url(person, shown)).content.decode()
    assert without_tokens(reply["page"]) == without_tokens(opened)
    # The page's own address, not the save's: its form and the reading toggle come back to it.
    assert f'action="{item_url(person, shown)}"' in reply["page"]
    assert f'name="next" value="{item_url(person, shown)}"' in reply["page"]


def test_the_practice_pair_brings_its_feedback_then_pair_one(client):
    person = started(client, make_study(items=2))
    checked = answer(client, person, 0, json=True, go="next", holistic=2, order=3).json()
    feedback = f"{item_url(person, 0)}?feedback=1"
    assert checked["next"] == feedback
    opened = client.get(feedback).content.decode()
    assert without_tokens(checked["page"]) == without_tokens(opened)
    assert "Here is how the questions apply to this pair." in checked["page"]
    start = answer(client, person, 0, json=True, go="start", holistic=2, order=3).json()
    assert "Pair 1 of 2" in start["page"]


def test_the_final_check_and_the_instructions_come_with_the_save_too(client):
    person = started(client, make_study(items=2))
    last = answer(client, person, 2, json=True, go="next", holistic=2, order=3).json()
    review = f"/p/{person.token}/review/"
    assert last["next"] == review
    assert without_tokens(last["page"]) == without_tokens(client.get(review).content.decode())
    first = answer(client, person, 0, json=True, go="back", holistic=2, order=3).json()
    instructions = f"/p/{person.token}/instructions/"
    assert first["next"] == instructions
    opened = client.get(instructions).content.decode()
    assert without_tokens(first["page"]) == without_tokens(opened)
    stay = answer(client, person, 1, json=True, go="stay", holistic=2, order=3).json()
    assert "page" not in stay


def test_without_the_script_a_move_on_is_a_redirect_as_before(client):
    person = started(client, make_study(items=2))
    reply = answer(client, person, 1, go="next", holistic=2, order=3)
    assert reply.status_code == 302 and reply.url == item_url(person, 2)
