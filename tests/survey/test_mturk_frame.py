"""An MTurk study in MTurk's frame: its pages allow MTurk's origins as frame ancestors and form
targets (no other study's do), the hand-in goes only to an MTurk host, a post from the page's
own origin is taken without the CSRF cookie browsers withhold in a cross-site frame, and a
worker who previews the HIT, starts, then accepts it in the same browser can hand it in."""

from __future__ import annotations

import pytest
from django.test import Client

from survey.models import Participant, PlatformIdentity
from survey.participants import participation
from tests.factories import make_study
from tests.survey.test_participant_views import consent, enter, finish_all

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


def test_an_mturk_studys_pages_may_be_framed_by_mturk_only(client):
    study = make_study(items=2, platform="mturk")
    participant = enter(client, study, **ACCEPTED)
    consent(client, participant)
    finish_all(client, participant, 2)
    pages = [
        client.get(f"/s/{study.slug}/", ACCEPTED),
        client.get(f"/p/{participant.token}/done/"),
        client.get(f"/p/{participant.token}/withdraw/"),
        client.get(f"/withdrawn/?study={study.slug}"),
    ]
    for page in pages:
        assert page.status_code == 200
        assert "X-Frame-Options" not in page
        assert policy(page)["frame-ancestors"] == " ".join(MTURK)
        assert policy(page)["form-action"] == "'self' " + " ".join(MTURK)
    assert f'action="{SANDBOX}/mturk/externalSubmit"' in pages[1].content.decode()


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
    assert participation.mturk_submit(participant) == (f"{SANDBOX}/mturk/externalSubmit", "A7")
    settings.WOJDB_MTURK_HOSTS = ("https://www.mturk.com",)  # the sandbox no longer allowed
    assert participation.mturk_submit(participant) is None
    assert "externalSubmit" not in client.get(f"/p/{participant.token}/done/").content.decode()


def test_preview_then_accept_in_one_browser_ends_in_a_hit_that_can_be_handed_in(client):
    study = make_study(items=2, platform="mturk")
    previewing = enter(client, study, **PREVIEW)  # started while previewing
    consent(client, previewing)
    assert participation.mturk_submit(previewing) is None
    # Accepted: MTurk opens the study link again, with the assignment's ids.
    page = client.get(f"/s/{study.slug}/", ACCEPTED)
    assert "You have already started this study" in page.content.decode()
    assert Participant.objects.count() == 1
    identity = PlatformIdentity.objects.get(participant=previewing)
    assert (identity.assignment_id, identity.worker_id, identity.submit_to) == ("A7", "W1", SANDBOX)
    finish_all(client, previewing, 2)
    html = client.get(f"/p/{previewing.token}/done/").content.decode()
    assert f'action="{SANDBOX}/mturk/externalSubmit"' in html
    assert 'name="assignmentId" value="A7"' in html


def test_an_accepted_assignment_is_not_replaced_or_taken_twice(client):
    study = make_study(items=2, platform="mturk")
    other = enter(Client(), study, **ACCEPTED)
    previewing = enter(client, study, **PREVIEW)
    client.get(f"/s/{study.slug}/", ACCEPTED)  # A7 is the other browser's participation's
    assert (
        PlatformIdentity.objects.get(participant=previewing).assignment_id
        == PREVIEW["assignmentId"]
    )
    client.get(f"/s/{study.slug}/", ACCEPTED | {"assignmentId": "A8"})
    client.get(f"/s/{study.slug}/", ACCEPTED | {"assignmentId": "A9"})
    assert PlatformIdentity.objects.get(participant=previewing).assignment_id == "A8"
    assert PlatformIdentity.objects.get(participant=other).assignment_id == "A7"


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
    assert browser.post(f"/s/{study.slug}/", PREVIEW, **by_origin).status_code == 302


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
