"""The crowd platforms (survey/platforms/), one suite that every platform passes: the link's
parameters kept apart from the answers and refused by name when wrong, one person taking part
once (unless the study allows repeats), the hand-in at the end, the frames, the texts on the
way out, what keeps the study closed, and what a release leaves out.

Each platform is a `Case`: a ready study on it, a person's link, what is kept of it, the same
person's link another time, and what they hand in, written out as the platform documents it.
Behaviour only one platform has (MTurk's preview and frame, Prolific's decline code, the other
platform's return address) is tested beside the participant pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from django.template.loader import select_template
from django.test import Client
from django.utils import translation

from analysis.releases import LEFT_OUT_STUDY_FIELDS, released_study_fields
from survey import platforms
from survey.models import Participant, PlatformIdentity, Study
from survey.platforms.interface import PARTS
from tests.factories import make_study
from tests.survey.test_participant_views import consent, finish_all, text_of

SANDBOX = "https://workersandbox.mturk.com"
SONA_CREDIT = (
    "https://uni.sona-systems.com/webstudy_credit.aspx?experiment_id=123&credit_token=9185d436e5f9"
)
pytestmark = pytest.mark.filterwarnings("ignore:No directory at:UserWarning")


@dataclass
class Case:
    name: str
    study: dict = field(default_factory=dict)  # what makes a ready study on the platform
    link: dict = field(default_factory=dict)  # a person's study link parameters
    kept: dict = field(default_factory=dict)  # what is stored of them (PlatformIdentity)
    again: dict = field(default_factory=dict)  # the same person another time
    # What they hand in once finished, given their completion code: ("link", address) or
    # ("form", action, fields).
    hand_in: Callable[[str], tuple] | None = None
    shows_code: bool = True
    frames: tuple[str, ...] = ()
    stopping: str = ""  # the footer's note before the end
    leaving: str = ""  # after declining: a text, or an address to go back to
    left_out: tuple[str, ...] = ()


CASES = [
    Case("none", shows_code=False, leaving="You can close this page now."),
    Case(
        "prolific",
        study={"completion_code": "C1PROLIFIC", "decline_code": "C2BACK"},
        link={"PROLIFIC_PID": "60aa11bb", "STUDY_ID": "st1", "SESSION_ID": "se1"},
        kept={"prolific_pid": "60aa11bb", "study_id": "st1", "session_id": "se1"},
        again={"PROLIFIC_PID": "60aa11bb", "STUDY_ID": "st1", "SESSION_ID": "se2"},
        hand_in=lambda code: (
            "link",
            "https://app.prolific.com/submissions/complete?cc=C1PROLIFIC",
        ),
        stopping="Stopping before the end? Please also return the study on Prolific",
        leaving="https://app.prolific.com/submissions/complete?cc=C2BACK",
        left_out=("completion_code", "decline_code"),
    ),
    Case(
        "mturk",
        link={"workerId": "W1", "assignmentId": "A1", "hitId": "H1", "turkSubmitTo": SANDBOX},
        kept={"worker_id": "W1", "assignment_id": "A1", "hit_id": "H1", "submit_to": SANDBOX},
        again={"workerId": "W1", "assignmentId": "A2", "hitId": "H2", "turkSubmitTo": SANDBOX},
        hand_in=lambda code: (
            "form",
            f"{SANDBOX}/mturk/externalSubmit",
            {"assignmentId": "A1", "completion_code": code},
        ),
        frames=("https://www.mturk.com", SANDBOX),
        stopping="Stopping before the end? Please also return the HIT on MTurk",
        leaving="If you came from MTurk, please return the HIT there",
    ),
    Case(
        "sona",
        study={"platform_settings": {"sona": {"credit_url": SONA_CREDIT + "&survey_code=XXXX"}}},
        link={"id": "4711"},
        kept={"pid": "4711"},
        again={"id": "4711"},
        hand_in=lambda code: ("link", SONA_CREDIT + "&survey_code=4711"),
        shows_code=False,
        leaving="You can close this page now.",
        left_out=("platform_settings",),
    ),
    Case(
        "generic",
        study={"platform_return_url": "https://panel.example/done?code={code}"},
        link={"pid": "volunteer-42"},
        kept={"pid": "volunteer-42", "return_url": "https://panel.example/done?code={code}"},
        again={"pid": "volunteer-42"},
        hand_in=lambda code: ("link", f"https://panel.example/done?code={code}"),
        leaving="You can close this page now.",
        left_out=("platform_return_url",),
    ),
]
BY_NAME = {case.name: case for case in CASES}
each = pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])


def study_on(case: Case, **fields) -> Study:
    return make_study(items=2, platform=case.name, **case.study | fields)


def entered(client, study, params) -> Participant | None:
    """The participant a post of the study link made, or None if it made none."""
    response = client.post(f"/s/{study.slug}/", params)
    if response.status_code != 302:
        return None
    return Participant.objects.get(token=response["Location"].split("/")[2])


def kept(participant) -> dict:
    values = PlatformIdentity.objects.filter(participant=participant).values().first() or {}
    return {k: v for k, v in values.items() if v and k not in ("id", "participant_id")}


def policy(response) -> dict[str, str]:
    rules = (r.strip().split(" ", 1) for r in response["Content-Security-Policy"].split(";"))
    return dict(rules)


# The registry ------------------------------------------------------------------------------


def test_every_platform_is_a_case_or_no_studys_choice():
    """A new platform cannot be registered without its case in this suite."""
    linked = {p.name for p in platforms.PLATFORMS.values() if p.selectable}
    assert linked == set(BY_NAME)
    assert [name for name, _ in Study._meta.get_field("platform").choices] == list(BY_NAME)
    assert not platforms.PLATFORMS["paper"].selectable


@pytest.mark.parametrize("platform", platforms.PLATFORMS.values(), ids=str)
def test_a_platform_names_only_what_the_models_hold(platform):
    study_fields = {f.name for f in Study._meta.get_fields()}
    identity_fields = {f.name for f in PlatformIdentity._meta.get_fields()}
    assert 0 < len(platform.name) <= Study._meta.get_field("platform").max_length
    assert set(platform.left_out) <= study_fields
    study = Study(platform=platform.name)
    named = [p.field for p in platform.parameters(study)] + list(platform.kept(study))
    assert set(named) <= identity_fields
    assert {platform.person, *platform.session} - {""} <= {
        p.field for p in platform.parameters(study)
    }


@pytest.mark.parametrize("platform", platforms.PLATFORMS.values(), ids=str)
@pytest.mark.parametrize("language", ["en", "fr", "de"])
def test_every_platform_has_every_part_of_its_pages(platform, language):
    previews = platform.name == "mturk"
    for part in PARTS:
        if part == "preview" and not previews:
            continue
        with translation.override(language):
            select_template(platform.parts[part])  # raises where it has none


# The link ----------------------------------------------------------------------------------


@each
@pytest.mark.django_db
def test_the_links_ids_are_carried_to_the_form_and_kept_apart(client, case):
    study = study_on(case)
    page = client.get(f"/s/{study.slug}/", case.link).content.decode()
    for name, value in case.link.items():
        assert f'name="{name}" value="{value}"' in page
    participant = entered(client, study, case.link)
    assert kept(participant) == case.kept
    assert Participant.objects.get().pk == participant.pk


@each
@pytest.mark.django_db
def test_other_platforms_parameters_are_no_concern_of_the_study(client, case):
    study = study_on(case)
    foreign = {k: v for c in CASES if c is not case for k, v in c.link.items()}
    page = client.get(f"/s/{study.slug}/", foreign).content.decode()
    assert "This link is not valid" not in page
    for name in set(foreign) - set(case.link):
        assert f'name="{name}"' not in page
    assert kept(entered(client, study, foreign)) == {}


@each
@pytest.mark.django_db
@pytest.mark.parametrize("problem", ["twice", "malformed"])
def test_a_wrong_parameter_is_refused_by_name_and_nothing_is_written(client, case, problem):
    study = study_on(case)
    for name, value in case.link.items():
        params = dict(case.link)
        if problem == "twice":
            params[name] = [value, value + "x"]
            expected = f"{name} is given twice"
        else:
            params[name] = "{{%" + name + "%}}"
            expected = f"{name} is not an MTurk address" if name == "turkSubmitTo" else (
                f"{name} is not a valid id"
            )  # fmt: skip
        for send in (client.get, client.post):
            response = send(f"/s/{study.slug}/", params)
            assert response.status_code == 400, (name, send)
            assert expected in text_of(response)
    assert not Participant.objects.exists() and not PlatformIdentity.objects.exists()


# One person, one participation ------------------------------------------------------------


@each
@pytest.mark.django_db
def test_a_person_takes_part_once_whatever_the_session_or_browser(client, case):
    study = study_on(case)
    first = entered(client, study, case.link)
    if not case.again:  # no ids: each browser is someone new
        assert entered(Client(), study, case.link) != first
        return
    for params in (case.again, case.link):
        elsewhere = Client()
        assert "You have already started this study" in text_of(
            elsewhere.get(f"/s/{study.slug}/", params)
        )
        response = elsewhere.post(f"/s/{study.slug}/", params)
        assert response.status_code == 409
        assert "personal link" in text_of(response)
        assert first.token not in response.content.decode()
    # In the browser that holds it, the participation resumes, and is not started afresh.
    assert client.post(f"/s/{study.slug}/", case.again)["Location"] == f"/p/{first.token}/consent/"
    page = client.get(f"/s/{study.slug}/", case.again).content.decode()
    assert 'name="afresh"' not in page
    client.post(f"/s/{study.slug}/", case.again | {"afresh": "1"})
    assert list(Participant.objects.all()) == [first]
    first.refresh_from_db()
    assert first.status == "assigned"  # not set aside by the refused afresh


@each
@pytest.mark.django_db
def test_a_finished_person_is_told_they_have_taken_part(client, case):
    if not case.again:
        return
    study = study_on(case)
    first = entered(client, study, case.link)
    consent(client, first)
    finish_all(client, first, 2)
    response = Client().get(f"/s/{study.slug}/", case.again)
    assert "You have already taken part in this study" in text_of(response)
    assert first.token not in response.content.decode()


@each
@pytest.mark.django_db
def test_a_study_may_allow_a_person_to_take_part_again(client, case):
    if not case.again:
        return
    study = study_on(case, allow_repeats=True)
    first = entered(client, study, case.link)
    again = entered(Client(), study, case.again)
    assert again is not None and again != first
    # The same session (a Prolific session, an MTurk assignment) is still one participation.
    same = entered(Client(), study, case.link)
    assert (same is None) == bool(platforms.PLATFORMS[case.name].session)


@each
@pytest.mark.django_db
def test_pilot_participation_does_not_count_against_the_launched_study(client, case):
    if not case.again:
        return
    study = study_on(case, launched_at=None)
    pilot = entered(client, study, case.link)
    assert pilot.pilot
    Study.objects.filter(pk=study.pk).update(launched_at=pilot.created)
    real = entered(Client(), study, case.again)
    assert real is not None and not real.pilot


# The end -----------------------------------------------------------------------------------


def handed_in(html: str) -> tuple | None:
    """What the last page hands in: its button's link, or its form's action and fields."""
    if link := re.search(r'<a class="button primary" href="([^"]+)" data-return>', html):
        return ("link", link[1].replace("&amp;", "&"))
    if form := re.search(r'<form method="post" action="(https?://[^"]+)"(.*?)</form>', html, re.S):
        fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form[2]))
        return ("form", form[1], fields)
    return None


@each
@pytest.mark.django_db
def test_a_finished_participant_hands_in_as_the_platform_wants(client, case):
    study = study_on(case)
    person = entered(client, study, case.link)
    consent(client, person)
    finish_all(client, person, 2)
    html = client.get(f"/p/{person.token}/done/").content.decode()
    expected = case.hand_in(person.completion_code) if case.hand_in else None
    assert handed_in(html) == expected
    assert (person.completion_code in html) == case.shows_code
    assert "http-equiv" not in html and "<script>" not in html  # nothing moves on by itself
    if expected:  # after the debriefing
        address = expected[1].replace("&", "&amp;")
        assert html.index("Participant Debriefing Form") < html.index(address)
    # Someone who came without the platform's ids has nothing to hand in.
    browser = Client()
    walk_in = entered(browser, study, {})
    consent(browser, walk_in)
    finish_all(browser, walk_in, 2)
    assert handed_in(browser.get(f"/p/{walk_in.token}/done/").content.decode()) is None


@each
@pytest.mark.django_db
def test_too_few_answered_pairs_earn_no_code_and_nothing_to_hand_in(client, case):
    study = study_on(case, min_answered_pairs=2)
    person = entered(client, study, case.link)
    consent(client, person)
    finish_all(client, person, 1)
    response = client.get(f"/p/{person.token}/done/")
    assert handed_in(response.content.decode()) is None
    assert "fewer pairs than this study asks for (2)" in text_of(response)


# Frames, texts on the way out, readiness, releases ------------------------------------------


@each
@pytest.mark.django_db
def test_only_the_platforms_frames_may_show_its_pages(client, case):
    study = study_on(case)
    person = entered(client, study, case.link)
    pages = [
        client.get(f"/s/{study.slug}/", case.link),
        client.get(f"/p/{person.token}/consent/"),
        client.get(f"/p/{person.token}/withdraw/"),
        client.get(f"/declined/?study={study.slug}"),
    ]
    for page in pages:
        assert page.status_code == 200
        if case.frames:
            assert "X-Frame-Options" not in page
            assert policy(page)["frame-ancestors"] == " ".join(case.frames)
            assert policy(page)["form-action"] == " ".join(("'self'", *case.frames))
        else:
            assert page["X-Frame-Options"] == "DENY"
            assert policy(page)["frame-ancestors"] == "'none'"
            assert policy(page)["form-action"] == "'self'"


@each
@pytest.mark.django_db
def test_the_way_out_is_the_platforms(client, case):
    study = study_on(case)
    person = entered(client, study, case.link)
    footer = text_of(client.get(f"/p/{person.token}/consent/"))
    for other in CASES:
        if other.stopping:
            assert (other.stopping in footer) == (other is case)
    declined = client.post(f"/p/{person.token}/consent/", {"decline": "1"}, follow=True)
    if case.leaving.startswith("https://"):
        assert f'href="{case.leaving}"' in declined.content.decode()
    else:
        assert case.leaving in text_of(declined)


@each
@pytest.mark.django_db
def test_a_study_missing_what_its_platform_needs_stays_closed(client, case):
    required = platforms.PLATFORMS[case.name].missing(study_on(case))
    assert required == []
    bare = make_study(platform=case.name)
    missing = platforms.PLATFORMS[case.name].missing(bare)
    assert bare.unfilled() == missing
    page = text_of(client.get(f"/s/{bare.slug}/"))
    assert ("This study is closed" in page) == bool(missing)


@each
def test_a_release_leaves_out_what_runs_the_live_study(case):
    released = {f.name for f in released_study_fields()}
    for name in case.left_out:
        assert name in LEFT_OUT_STUDY_FIELDS and name not in released
    assert set(platforms.PLATFORMS[case.name].left_out) == set(case.left_out)
