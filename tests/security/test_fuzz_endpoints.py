"""Every POST endpoint fed malformed input: never a server error, and either the whole change
the request asks for or nothing at all.

The expected change is worked out from the same forms the views use (which have tests of
their own); what is checked here is that the views never crash and never write half of it.
"""

from __future__ import annotations

from unittest import mock

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils.crypto import get_random_string
from django.utils.datastructures import MultiValueDict
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase

from survey import access
from survey.models import (
    DeclinedConsent,
    Participant,
    ParticipantLanguage,
    PlatformIdentity,
    Questionnaire,
    Rating,
)
from survey.participants import participation
from survey.participants.forms import AboutForm, AnswerForm, language_formset
from tests.factories import make_study
from tests.security.flow import enter, started
from wojdb.core.vocabulary import ANALYST, MANAGER

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

FUZZ = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
CSRF_SECRET = get_random_string(32)

junk = st.one_of(
    st.sampled_from(
        ["", "0", "1", "3", "5", "6", "-1", " 3", "3.0", "yes", "no", "next", "back", "stay"]
        + ["<script>alert(1)</script>", "x" * 400, "1e9", str(2**70), "\x00", "\u202e", "null"]
    ),
    st.integers(-(2**63), 2**63).map(str),
    st.text(max_size=20),
)


def either(*valid) -> st.SearchStrategy[str]:
    return st.sampled_from([str(v) for v in valid])


def text(max_size: int = 30) -> st.SearchStrategy[str]:
    return st.text(st.characters(exclude_characters="\x00"), max_size=max_size)


SCALE = either(1, 2, 3, 4, 5, "")
ITEM_FIELDS = {
    "holistic": SCALE,
    "order": SCALE,
    # The values the page showed: nothing is saved yet, so anything else is a conflict.
    "was_holistic": either(""),
    "was_order": either(""),
    "client_ms": either(0, 1500, 86_400_000),
    "go": either("next", "back", "stay", ""),
}
ABOUT_FIELDS = {
    "target_first": either("yes", "no", ""),
    "target_years": either(0, 12, 120, ""),
    "gender": either("male", "female", "other", "not_say", ""),
    "nationality": text(),
    "education": either("school", "college", "undergraduate", "masters", "phd", ""),
    "disability": either("yes", "no", ""),
    "disability_detail": text(),
    "grammar_attention": either(1, 3, 5, ""),
    "age": either(18, 45, 120, ""),
    "add_language": either(1),
} | {
    f"languages-{n}-{name}": strategy
    for n in range(2)
    for name, strategy in (
        ("language", text()),
        ("fluency", either(1, 4, 7, "")),
        ("qualifications", text()),
    )
}
CONSENT_FIELDS = {
    "statement_1": either("yes", "no"),
    "statement_2": either("yes", "no"),
    "statement_3": junk,
    "decline": junk,
}
PLATFORM_FIELDS = {
    "PROLIFIC_PID": either("5f0c1a2b3c4d5e6f7a8b9c0d"),
    "STUDY_ID": either("s-1"),
    "SESSION_ID": either("session.1"),
    "pid": either("worker:42"),
    "reading": either(1, 0),
}
OK_JSON = {"HTTP_ACCEPT": "application/json"}


def fields(
    strategies: dict[str, st.SearchStrategy], required: dict[str, st.SearchStrategy] | None = None
) -> st.SearchStrategy[dict]:
    """Any subset of the named fields (the required ones always): in half the examples every
    value is one the form accepts, in the other half any value may be junk or missing."""
    required = required or {}
    valid = st.fixed_dictionaries(required, optional=strategies)
    every = strategies | required
    broken = st.fixed_dictionaries({}, optional={k: v | junk for k, v in every.items()})
    return valid | broken


def answers() -> list[tuple]:
    """Every stored answer in the database, to compare before and after a request."""
    return list(
        Rating.objects.exclude(holistic=None, order=None, client_ms=None)
        .order_by("participant_id", "item_id")
        .values_list("participant_id", "item_id", "holistic", "order", "revisions", "client_ms")
    )


def about_state(participant_id: int) -> tuple:
    row = Participant.objects.filter(pk=participant_id).values().first()
    row.pop("last_activity")
    languages = list(
        ParticipantLanguage.objects.filter(participant_id=participant_id)
        .order_by("pk")
        .values_list("language", "fluency", "qualifications")
    )
    return row, languages


def csrf_client(**headers) -> Client:
    client = Client(enforce_csrf_checks=True, **headers)
    client.cookies["csrftoken"] = CSRF_SECRET
    return client


@override_settings(WOJDB_ENTRY_RATE=None)
class EndpointFuzz(TestCase):
    """Hypothesis runs every example in its own transaction, rolled back afterwards."""

    @classmethod
    def setUpTestData(cls):
        # On Prolific, so that the link's ids are read and kept.
        cls.study = make_study(
            questionnaires=2, items=4, platform="prolific", completion_code="C1PROLIFIC"
        )
        # Each its own browser: one browser entering again resumes its participation.
        cls.newcomer = enter(Client(), cls.study)
        cls.alice = started(Client(), cls.study)
        cls.bob = started(Client(), cls.study)
        cls.item_ids = {
            position: (cls.alice.questionnaire.entries.get(position=position).item_id)
            for position in range(1, 5)
        } | {0: cls.study.sample_item_id}

    def post(self, url: str, data: dict, json: bool = False, **headers):
        client = csrf_client(**headers)
        response = client.post(
            url, data | {"csrfmiddlewaretoken": CSRF_SECRET}, **(OK_JSON if json else {})
        )
        assert response.status_code < 500, (url, data, response.status_code)
        return response

    @FUZZ
    @given(
        position=st.integers(0, 5),
        data=fields(ITEM_FIELDS, {"item": st.sampled_from(["here", 0, 1, 2, 3, 4])}),
        json=st.booleans(),
    )
    @example(position=10**25, data={"item": 1, "holistic": "3"}, json=False)
    @example(position=1, data={"item": 1, "holistic": "3", "client_ms": "9" * 30}, json=True)
    @example(position=1, data={"item": 1, "holistic": "3", "order": "2"}, json=True)
    @example(position=0, data={"item": 0, "order": "5", "go": "next"}, json=False)
    def test_item(self, position, data, json):
        # "here" is the item at the posted position; a number, the item at that position.
        if data.get("item") == "here":
            data["item"] = str(self.item_ids.get(position, 0))
        elif data.get("item") in self.item_ids:
            data["item"] = str(self.item_ids[data["item"]])
        before = answers()
        url = f"/p/{self.alice.token}/item/{position}/"
        response = self.post(url, data, json)
        after = answers()
        saved = response.status_code == 302 or (json and response.json().get("saved"))
        event(f"saved: {bool(saved)}, changed: {after != before}")
        if after == before:
            return
        assert saved, "answers changed by a refused request"
        changed = set(after) - set(before)
        assert len(changed) == 1, "one request, one rating"
        (participant, item, holistic, order, _, _) = changed.pop()
        form = AnswerForm(data)
        assert form.is_valid()
        assert (participant, item) == (self.alice.pk, self.item_ids[position])
        for scale, value in (("holistic", holistic), ("order", order)):
            if form.cleaned_data[scale] is not None:
                assert value == form.cleaned_data[scale]

    @FUZZ
    @given(
        data=fields(
            ABOUT_FIELDS,
            {"languages-TOTAL_FORMS": either(0, 1, 2), "languages-INITIAL_FORMS": either(0)},
        )
    )
    @example(data={"languages-TOTAL_FORMS": "1", "languages-0-language": "x" * 101})
    @example(data={"languages-TOTAL_FORMS": str(2**70), "languages-INITIAL_FORMS": "0"})
    @example(data={"target_years": str(2**70), "languages-TOTAL_FORMS": "0"})
    def test_about(self, data):
        before = about_state(self.alice.pk)
        self.post(f"/p/{self.alice.token}/about/", data)
        after = about_state(self.alice.pk)
        form = AboutForm(self.alice.study, data)
        languages = language_formset(self.alice, data)
        event(f"valid: {form.is_valid() and languages.is_valid()}")
        if not (form.is_valid() and languages.is_valid()):
            assert after == before, "a refused about-you page changed something"
            return
        participant = Participant.objects.get(pk=self.alice.pk)
        expected = Participant.objects.get(pk=self.alice.pk)
        form.apply(expected)
        for name in ("nationality", "age", "target_years", "reading_disability", "gender"):
            assert getattr(participant, name) == getattr(expected, name)
        rows = [r for r in languages.cleaned_data if r and r["language"].strip()]
        assert len(after[1]) == len(rows)

    @FUZZ
    @given(data=fields(CONSENT_FIELDS))
    @example(data={"statement_1": "yes", "statement_2": "yes"})
    @example(data={"decline": ""})
    def test_consent(self, data):
        before = about_state(self.newcomer.pk)
        declines = DeclinedConsent.objects.count()
        self.post(f"/p/{self.newcomer.token}/consent/", data)
        if "decline" in data:
            assert not Participant.objects.filter(pk=self.newcomer.pk).exists()
            assert DeclinedConsent.objects.count() == declines + 1
            return
        after = about_state(self.newcomer.pk)
        if data.get("statement_1") == "yes" and data.get("statement_2") == "yes":
            assert after[0]["consent_version"] == 1 and after[0]["status"] == "in_progress"
        else:
            assert after == before

    @FUZZ
    @given(data=fields(PLATFORM_FIELDS), json=st.booleans())
    @example(data={"PROLIFIC_PID": "a" * 64, "SESSION_ID": "s"}, json=False)
    @example(data={"pid": "x" * 65}, json=False)
    def test_entry(self, data, json):
        count = Participant.objects.count()
        response = self.post(f"/s/{self.study.slug}/", data, json)
        try:
            platform = participation.link_ids(
                self.study, MultiValueDict({name: [value] for name, value in data.items()})
            )
        except ValueError:
            assert response.status_code == 400
            assert Participant.objects.count() == count
            return
        assert Participant.objects.count() == count + 1
        newest = Participant.objects.latest("pk")
        consent = f"/p/{newest.token}/consent/"
        if json:  # as the page's script posts it: the consent form comes in the reply
            assert response.status_code == 200 and response.json()["next"] == consent
        else:
            assert response.status_code == 302 and response["Location"] == consent
        assert newest.reading_mode == (data.get("reading") == "1")
        identity = PlatformIdentity.objects.filter(participant=newest).values().first() or {}
        for name, value in platform.items():
            assert identity[name] == value

    @FUZZ
    @given(next_url=junk | st.sampled_from(["//evil.example/", "https://evil.example/p/"]))
    def test_reading(self, next_url):
        before = Participant.objects.get(pk=self.alice.pk).reading_mode
        response = self.post(f"/p/{self.alice.token}/reading/", {"next": next_url})
        assert response.status_code == 302
        assert response["Location"].startswith(f"/p/{self.alice.token}/")
        assert Participant.objects.get(pk=self.alice.pk).reading_mode is not before

    @FUZZ
    @given(
        page=st.sampled_from(["consent/", "about/", "item/1/", "review/", "withdraw/", "reading/"]),
        token=st.one_of(st.none(), st.just(CSRF_SECRET), junk),
        data=fields(ITEM_FIELDS | CONSENT_FIELDS),
    )
    def test_csrf_token_on_every_participant_page(self, page, token, data):
        """Only a matching token writes; anything else is refused with nothing written."""
        before = answers(), about_state(self.alice.pk), about_state(self.bob.pk)
        client = csrf_client()
        if token is not None:
            data = data | {"csrfmiddlewaretoken": token}
        response = client.post(f"/p/{self.alice.token}/{page}", data)
        assert response.status_code < 500
        if token != CSRF_SECRET:
            assert response.status_code == 403
            after = answers(), about_state(self.alice.pk), about_state(self.bob.pk)
            assert after == before

    @FUZZ
    @given(
        page=st.sampled_from(["consent/", "about/", "item/1/", "review/", "reading/"]),
        content_type=st.sampled_from(
            [
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=xyz",
                "multipart/form-data",
                "application/json",
                "text/plain",
            ]
        ),
        body=st.one_of(
            st.binary(max_size=300),
            st.text(max_size=300).map(str.encode),
            st.just(b'--xyz\r\nContent-Disposition: form-data; name="item"\r\n\r\n1'),
            st.just(b"holistic=%ZZ&item=%E2%28%A1&" + b"a=1&" * 50),
        ),
    )
    def test_raw_bodies(self, page, content_type, body):
        before = answers(), about_state(self.alice.pk), about_state(self.newcomer.pk)
        client = csrf_client(HTTP_X_CSRFTOKEN=CSRF_SECRET)
        token = self.newcomer.token if page == "consent/" else self.alice.token
        response = client.generic("POST", f"/p/{token}/{page}", body, content_type=content_type)
        assert response.status_code < 500
        if page in ("consent/", "about/", "item/1/") and response.status_code != 302:
            assert (answers(), about_state(self.alice.pk), about_state(self.newcomer.pk)) == (
                before
            )

    @FUZZ
    @given(
        username=st.one_of(st.just("staff"), junk),
        password=st.one_of(st.just("right-password-1"), junk),
        next_url=st.one_of(st.just("/researcher/"), junk, st.just("https://evil.example/")),
    )
    def test_staff_login(self, username, password, next_url):
        from django.contrib.auth import get_user_model

        get_user_model().objects.create_user("staff", password="right-password-1", is_staff=True)
        client = csrf_client()
        response = client.post(
            "/admin/login/",
            {
                "username": username,
                "password": password,
                "next": next_url,
                "csrfmiddlewaretoken": CSRF_SECRET,
            },
        )
        assert response.status_code < 500
        logged_in = "_auth_user_id" in client.session
        assert logged_in == (username == "staff" and password == "right-password-1")
        if response.status_code == 302:
            assert not response["Location"].startswith(("http", "//")), response["Location"]

    @FUZZ
    @given(
        count=junk | st.integers(1, 3).map(str),
        seed=junk | st.integers(0, 1000).map(str),
        action=st.sampled_from(["b", "r"]),
    )
    def test_dashboard_actions(self, count, seed, action):
        from django.contrib.auth import get_user_model

        staff = get_user_model().objects.create_user("staff", password="x", is_staff=True)
        access.set_role(self.study, staff, MANAGER)  # one who runs the study
        client = csrf_client()
        client.force_login(staff)
        questionnaires = Questionnaire.objects.filter(study=self.study).count()
        url = reverse(
            f"dashboard:{'build' if action == 'b' else 'release_slots'}", args=[self.study.slug]
        )
        data = {"count": count, "seed": seed, "csrfmiddlewaretoken": CSRF_SECRET}
        response = client.post(url, data)
        assert response.status_code == 302
        added = Questionnaire.objects.filter(study=self.study).count() - questionnaires
        event(f"added {added}")
        assert added in (0, int(count) if count.isdigit() else 0), "a partial build"

    @FUZZ
    @given(data=fields({"include_simulated": junk, "figures": junk}))
    def test_report_request(self, data):
        from django.contrib.auth import get_user_model

        from analysis import report_views

        staff = get_user_model().objects.create_user("staff", password="x", is_staff=True)
        access.set_role(self.study, staff, ANALYST)
        client = csrf_client()
        client.force_login(staff)
        # The run itself is not started here (its own tests run it): only the request is fuzzed.
        with mock.patch.object(report_views, "run_in_background", lambda job: None):
            response = client.post(
                reverse("report:generate", args=[self.study.slug]),
                data | {"csrfmiddlewaretoken": CSRF_SECRET},
            )
        assert response.status_code == 302
        assert response["Location"] == reverse("report:index", args=[self.study.slug])
