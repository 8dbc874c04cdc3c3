"""An MTurk study in MTurk's frame: no other study's pages allow frames (those of every
platform are in tests/survey/test_platforms.py), the hand-in goes only to an MTurk host, a
preview shows what taking part is like and stores nothing, a post from the page's own origin is
taken without the CSRF cookie browsers withhold in a cross-site frame, and over HTTPS the
participation cookie is kept in the frame."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from survey.models import Participant, PlatformIdentity
from survey.participants import participation
from tests.factories import make_study
from tests.survey.test_participant_views import consent, enter, finish_all, text_of

MTURK = ("https://www.mturk.com", "https://workersandbox.mturk.com")
SANDBOX = "https://workersandbox.mturk.com"
PREVIEW = {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "H1"}
ACCEPTED = {"assignmentId": "A7", "hitId": "H1", "workerId": "W1", "turkSubmitTo": SANDBOX}
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def policy(response) -> dict[str, str]:
    rules = (r.strip().split(" ", 1) for r in response["Content-Security-Policy"].split(";"))
    return dict(rules)


def test_other_studies_and_pages_are_never_framed(client):
    study = make_study(items=2, platform="prolific", completion_code="C1PROLIFIC")
    for page in (client.get(f"/s/{study.slug}/"), client.get("/"), client.get("/admin/login/")):
        assert page["X-Frame-Options"] == "DENY"
        assert policy(page)["frame-ancestors"] == "'none'"
        assert policy(page)["form-action"] == "'self'"


def test_the_hand_in_goes_only_to_an_mturk_host(client, settings):
    study = make_study(items=2, platform="mturk")
    participant = enter(client, study, **ACCEPTED)
    consent(client, participant)
    finish_all(client, participant, 2)
    assert participation.hand_in(participant).action == f"{SANDBOX}/mturk/externalSubmit"
    settings.WOJDB_MTURK_HOSTS = ("https://www.mturk.com",)  # the sandbox no longer allowed
    assert participation.hand_in(participant) is None
    assert "externalSubmit" not in client.get(f"/p/{participant.token}/done/").content.decode()


def test_a_preview_shows_the_sheet_and_a_pair_read_only_and_stores_nothing(client):
    study = make_study(items=2, platform="mturk")
    page = client.get(f"/s/{study.slug}/", PREVIEW)
    html = page.content.decode()
    assert page.status_code == 200
    assert "Accept the HIT to begin" in text_of(page)
    assert "Participant Information Sheet" in text_of(page)
    sample = study.sample_item
    assert sample.triple.hypothesis in html and sample.triple.segment.reference in html
    assert re.search(r'<fieldset class="sample" disabled>', html)
    assert html.count('type="radio"') == 10  # two five-point scales, in the disabled fieldset
    assert "Continue to the consent form" not in html and 'name="afresh"' not in html
    assert policy(page)["frame-ancestors"] == " ".join(MTURK)
    # Posting the preview's link, as its page never does, takes part no more than reading it.
    assert client.post(f"/s/{study.slug}/", PREVIEW).status_code == 409
    assert not Participant.objects.exists() and not PlatformIdentity.objects.exists()
    assert participation.browser_cookie(study) not in client.cookies


def test_accepting_after_a_preview_starts_the_one_participation(client):
    study = make_study(items=2, platform="mturk")
    client.get(f"/s/{study.slug}/", PREVIEW)
    page = client.get(f"/s/{study.slug}/", ACCEPTED)
    assert "Continue to the consent form" in text_of(page)
    worker = enter(client, study, **ACCEPTED)
    consent(client, worker)
    finish_all(client, worker, 2)
    html = client.get(f"/p/{worker.token}/done/").content.decode()
    assert f'action="{SANDBOX}/mturk/externalSubmit"' in html
    assert 'name="assignmentId" value="A7"' in html
    # Nothing was held for the preview: no second participant, none abandoned, and the
    # questionnaires' counts hold the worker alone.
    assert list(Participant.objects.values_list("status", flat=True)) == ["completed"]


def csrf_checked() -> Client:
    return Client(enforce_csrf_checks=True)


def test_in_a_frame_a_post_from_the_pages_own_origin_needs_no_csrf_cookie():
    study = make_study(items=2, platform="mturk")
    browser = csrf_checked()
    same = {"HTTP_SEC_FETCH_SITE": "same-origin"}
    response = browser.post(f"/s/{study.slug}/", ACCEPTED, **same)
    assert response.status_code == 302
    token = response["Location"].split("/")[2]
    statements = {"statement_1": "yes", "statement_2": "yes"}
    assert browser.post(f"/p/{token}/consent/", statements, **same).status_code == 302
    assert Participant.objects.get(token=token).consent_version is not None
    by_origin = {"HTTP_ORIGIN": "http://testserver"}
    other = ACCEPTED | {"workerId": "W2", "assignmentId": "A8"}
    assert csrf_checked().post(f"/s/{study.slug}/", other, **by_origin).status_code == 302


@pytest.mark.parametrize(
    "platform, headers",
    [
        ("mturk", {"HTTP_SEC_FETCH_SITE": "cross-site"}),
        ("mturk", {"HTTP_SEC_FETCH_SITE": "same-site"}),
        ("mturk", {"HTTP_ORIGIN": "https://evil.example"}),
        ("mturk", {}),
        ("prolific", {"HTTP_SEC_FETCH_SITE": "same-origin"}),
    ],
)
def test_other_posts_without_the_csrf_token_are_refused(platform, headers):
    code = "C1PROLIFIC" if platform == "prolific" else ""
    study = make_study(items=2, platform=platform, completion_code=code)
    response = csrf_checked().post(f"/s/{study.slug}/", **headers)
    assert response.status_code == 403
    assert not Participant.objects.exists()


def test_over_https_the_browser_keeps_an_mturk_participation_in_the_frame(client, settings):
    settings.SESSION_COOKIE_SECURE = True
    mturk = make_study(platform="mturk")
    prolific = make_study(platform="prolific", completion_code="C1PROLIFIC")
    for study, same_site in ((mturk, "None"), (prolific, "Lax")):
        response = client.post(f"/s/{study.slug}/", secure=True)
        cookie = response.cookies[participation.browser_cookie(study)]
        assert (cookie["samesite"], cookie["secure"]) == (same_site, True)
