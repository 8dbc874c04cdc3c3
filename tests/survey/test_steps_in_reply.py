"""The steps posted by the page's script: the study link's "Continue", the consent, the
about-you page and the final check's "Finish" each answer with the next step's page, which the
script shows in place (participant.js), rendered as opening it would render it; what was wrong
comes back as the page itself; a post without the script is answered with a redirect as
before."""

from __future__ import annotations

import pytest

from survey.models import Participant
from survey.participants.participation import browser_cookie
from tests.factories import make_study
from tests.survey.test_moving_on import without_tokens
from tests.survey.test_participant_views import JSON, answer, consent, enter, languages, started

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

CONSENTING = {"statement_1": "yes", "statement_2": "yes"}


def posted(client, url, data) -> dict:
    reply = client.post(url, data, **JSON)
    assert reply.status_code == 200 and reply["Content-Type"] == "application/json"
    return reply.json()


def opened(client, url) -> str:
    page = client.get(url)
    assert page.status_code == 200
    return without_tokens(page.content.decode())


def test_the_study_link_brings_the_consent_form_and_holds_the_participation(client):
    study = make_study()
    reply = posted(client, f"/s/{study.slug}/", {})
    person = Participant.objects.get(study=study)
    assert reply["next"] == f"/p/{person.token}/consent/"
    assert client.cookies[browser_cookie(study)].value == person.token  # held by the browser
    assert without_tokens(reply["page"]) == opened(client, reply["next"])
    assert f'name="next" value="{reply["next"]}"' in reply["page"]  # the reading toggle's way back


def test_consenting_brings_the_about_you_page(client):
    person = enter(client, make_study())
    reply = posted(client, f"/p/{person.token}/consent/", CONSENTING)
    assert reply["next"] == f"/p/{person.token}/about/"
    person.refresh_from_db()
    assert person.consent_version is not None
    assert without_tokens(reply["page"]) == opened(client, reply["next"])


def test_the_about_you_page_brings_the_instructions(client):
    person = enter(client, make_study())
    consent(client, person)
    data = languages(("Welsh", 6, "")) | {"age": "34"}
    reply = posted(client, f"/p/{person.token}/about/", data)
    assert reply["next"] == f"/p/{person.token}/instructions/"
    person.refresh_from_db()
    assert (person.about_done, person.age) == (True, 34)
    assert without_tokens(reply["page"]) == opened(client, reply["next"])


def test_finishing_brings_the_debriefing(client):
    person = started(client, make_study(items=2))
    for position in (1, 2):
        answer(client, person, position, holistic=3, order=4)
    reply = posted(client, f"/p/{person.token}/review/", {})
    assert reply["next"] == f"/p/{person.token}/done/"
    person.refresh_from_db()
    assert person.status == "completed" and person.completion_code
    assert "Thank you — your answers are saved" in reply["page"]
    assert without_tokens(reply["page"]) == opened(client, reply["next"])


def test_what_needs_correcting_comes_back_as_the_page_itself(client):
    person = enter(client, make_study())
    consent(client, person)
    reply = client.post(f"/p/{person.token}/about/", languages() | {"age": "old"}, **JSON)
    assert reply.status_code == 200 and reply["Content-Type"].startswith("text/html")
    assert "data-error-summary" in reply.content.decode()
    person.refresh_from_db()
    assert not person.about_done


def test_a_consent_form_half_answered_comes_back_as_the_page_itself(client):
    person = enter(client, make_study())
    reply = client.post(f"/p/{person.token}/consent/", {"statement_1": "yes"}, **JSON)
    assert reply.status_code == 200 and reply["Content-Type"].startswith("text/html")
    assert "Please answer Yes or No to every statement." in reply.content.decode()
    person.refresh_from_db()
    assert person.consent_version is None


def test_declining_is_a_redirect_the_script_follows(client):
    study = make_study()
    person = enter(client, study)
    reply = client.post(f"/p/{person.token}/consent/", {"decline": "1"}, **JSON)
    assert reply.status_code == 302 and reply.url == f"/declined/?study={study.slug}"


def test_a_step_already_done_leads_where_the_participant_is(client):
    """A consent posted twice (a reply lost, say): the second leads on as the first did."""
    person = enter(client, make_study())
    first = posted(client, f"/p/{person.token}/consent/", CONSENTING)
    again = client.post(f"/p/{person.token}/consent/", CONSENTING, **JSON)
    assert again.status_code == 302 and again.url == first["next"]


def test_without_the_script_each_step_is_a_redirect_as_before(client):
    study = make_study()
    reply = client.post(f"/s/{study.slug}/", {})
    person = Participant.objects.get(study=study)
    assert reply.status_code == 302 and reply.url == f"/p/{person.token}/consent/"
    assert consent(client, person).url == f"/p/{person.token}/about/"
    sent = client.post(f"/p/{person.token}/about/", languages())
    assert sent.status_code == 302 and sent.url == f"/p/{person.token}/instructions/"
    finished = client.post(f"/p/{person.token}/review/")
    assert finished.status_code == 302 and finished.url == f"/p/{person.token}/done/"
