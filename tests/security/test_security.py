"""What no one may do: act through another participant's link, guess a link, post without a
valid CSRF token, open staff pages without logging in, overwhelm a form, or inject HTML."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from survey.models import Participant, ParticipantLanguage, Rating, Study
from tests.factories import make_study
from tests.security.flow import JSON, about_data, consent, enter, item_id, item_url, started

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

PAYLOAD = "<script>alert('x')</script><img src=x onerror=alert(1)>"
ESCAPED = "&lt;script&gt;alert("


def participant_urls(token: str) -> list[str]:
    return [
        f"/p/{token}/{page}"
        for page in (
            "",
            "information/",
            "consent/",
            "about/",
            "item/0/",
            "item/1/",
            "review/",
            "done/",
            "withdraw/",
            "reading/",
        )
    ]


def state(participant: Participant) -> tuple:
    """Everything a post could change about a participant, to compare before and after."""
    fresh = Participant.objects.filter(pk=participant.pk).values().first()
    if fresh is not None:
        fresh.pop("last_activity")
    # A rating row without answers only records that a page was shown.
    ratings = list(
        Rating.objects.filter(participant_id=participant.pk)
        .exclude(holistic=None, order=None, client_ms=None)
        .order_by("pk")
        .values("item_id", "holistic", "order", "revisions", "client_ms")
    )
    languages = list(ParticipantLanguage.objects.filter(participant_id=participant.pk).values())
    return fresh, ratings, languages


# Another participant's link


def test_an_item_of_another_questionnaire_is_refused_and_nothing_is_written(client):
    study = make_study(questionnaires=2, items=4)
    alice, bob = started(client, study), started(Client(), study)
    assert alice.questionnaire_id != bob.questionnaire_id
    before = state(alice), state(bob)
    response = client.post(
        item_url(alice, 1), {"item": item_id(bob, 1), "holistic": 5, "order": 5}, **JSON
    )
    assert response.status_code == 400
    assert response.json()["saved"] is False
    assert (state(alice), state(bob)) == before


def test_a_personal_link_shows_only_its_own_answers(client):
    study = make_study(questionnaires=2, items=4)
    alice, bob = started(client, study), started(Client(), study)
    client.post(f"/p/{bob.token}/about/", about_data(nationality="Bobsland"))
    bob_item = Rating.objects.filter(participant=bob).values_list("item_id", flat=True)
    pages = [client.get(url, follow=True) for url in participant_urls(alice.token)[:7]]
    for page in pages:
        assert b"Bobsland" not in page.content
        assert bob.token.encode() not in page.content
    shown_items = {r.item_id for r in Rating.objects.filter(participant=alice)}
    assert not shown_items & set(bob_item)


def test_withdrawing_through_one_link_deletes_only_that_participant(client):
    study = make_study()
    alice, bob = started(client, study), started(Client(), study)
    client.post(f"/p/{alice.token}/withdraw/")
    assert not Participant.objects.filter(pk=alice.pk).exists()
    assert Participant.objects.filter(pk=bob.pk).exists()


def test_personal_pages_are_never_cached_nor_leak_the_link_in_the_referrer(client):
    participant = started(client, make_study())
    for url in participant_urls(participant.token)[:5]:
        response = client.get(url)
        cache_control = response.get("Cache-Control", "")
        assert "no-store" in cache_control and "private" in cache_control, url
        assert response["Referrer-Policy"] == "same-origin"


def test_the_reading_switch_only_returns_to_the_participants_own_pages(client):
    participant = started(client, make_study())
    for target in ("https://evil.example/", "//evil.example/p/", "/admin/", "/p/other-token/"):
        response = client.post(f"/p/{participant.token}/reading/", {"next": target})
        assert response.status_code == 302
        assert response["Location"].startswith(f"/p/{participant.token}/"), target


# Guessed tokens


@pytest.mark.parametrize(
    "token",
    [
        "RqViXerl4TKoOilCrmuyno5bomVG1z6L",  # a token of the right shape, issued to nobody
        "a" * 32,
        "x",
        "0" * 65,
        "' OR '1'='1' --" + "a" * 10,
        "%E2%80%AE" + "a" * 30,
    ],
)
def test_a_guessed_token_opens_nothing_and_writes_nothing(client, token):
    study = make_study()
    real = started(client, study)
    before = Participant.objects.count(), Rating.objects.count()
    for url in participant_urls(token):
        assert client.get(url).status_code == 404, url
        response = client.post(url, {"item": item_id(real, 1), "holistic": 3, "order": 3})
        assert response.status_code == 404, url
        assert b"This personal link is not valid" in response.content
    assert (Participant.objects.count(), Rating.objects.count()) == before


def test_a_nul_character_in_an_address_is_refused_before_the_database(client, admin_client):
    participant = started(client, make_study())
    for url in (f"/p/%00{participant.token[1:]}/", f"/p/{participant.token}/about/?x=%00"):
        assert client.get(url).status_code == 400
        assert client.post(url).status_code == 400
    assert admin_client.get("/admin/survey/participant/", {"q": "a\x00"}).status_code == 400
    assert admin_client.get("/admin/survey/participant/", {"q": "a"}).status_code == 200


def test_a_token_one_character_off_is_refused(client):
    participant = started(client, make_study())
    token = participant.token
    near = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert client.get(f"/p/{near}/").status_code == 404
    assert len(token) >= 32  # 24 random bytes: guessing is hopeless


# CSRF


@pytest.fixture
def csrf_client():
    return Client(enforce_csrf_checks=True)


def test_the_study_link_refuses_a_post_without_a_csrf_token(csrf_client):
    study = make_study()
    response = csrf_client.post(f"/s/{study.slug}/")
    assert response.status_code == 403
    assert not Participant.objects.exists()
    page = csrf_client.get(f"/s/{study.slug}/")
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content)[1]
    response = csrf_client.post(f"/s/{study.slug}/", {"csrfmiddlewaretoken": token.decode()})
    assert response.status_code == 302
    assert Participant.objects.count() == 1


POSTS = [
    ("consent/", {"statement_1": "yes", "statement_2": "yes"}),
    ("about/", about_data(nationality="Changed")),
    ("item/1/", {"holistic": "4", "order": "4"}),
    ("review/", {}),
    ("reading/", {}),
    ("withdraw/", {}),
]


@pytest.mark.parametrize("path,data", POSTS, ids=[p for p, _ in POSTS])
@pytest.mark.parametrize("token", ["missing", "wrong"])
def test_participant_posts_without_a_valid_csrf_token_write_nothing(
    client, csrf_client, path, data, token
):
    study = make_study()
    participant = enter(client, study)
    if path != "consent/":
        consent(client, participant)
        client.post(f"/p/{participant.token}/about/", about_data())
    participant.refresh_from_db()
    csrf_client.get(f"/p/{participant.token}/information/")  # sets the CSRF cookie
    if path == "item/1/":
        data = data | {"item": item_id(participant, 1)}
    if token == "wrong":
        data = data | {"csrfmiddlewaretoken": "x" * 64}
    before = state(participant)
    response = csrf_client.post(f"/p/{participant.token}/{path}", data)
    assert response.status_code == 403
    assert b"had expired" in response.content
    assert state(participant) == before


def test_a_json_save_without_a_csrf_token_is_refused_with_a_fresh_token(client, csrf_client):
    participant = started(client, make_study())
    data = {"item": item_id(participant, 1), "holistic": "2"}
    response = csrf_client.post(item_url(participant, 1), data, **JSON)
    assert response.status_code == 403
    body = response.json()
    assert body["saved"] is False and body["reason"] == "expired" and body["csrf"]
    assert not Rating.objects.filter(participant=participant, holistic=2).exists()
    response = csrf_client.post(
        item_url(participant, 1), data, HTTP_X_CSRFTOKEN=body["csrf"], **JSON
    )
    assert response.status_code == 200 and response.json()["saved"] is True


def test_the_staff_login_refuses_a_post_without_a_csrf_token(csrf_client, django_user_model):
    django_user_model.objects.create_user("staff", password="pw-long-enough-1", is_staff=True)
    response = csrf_client.post("/admin/login/", {"username": "staff", "password": "x"})
    assert response.status_code == 403


# Staff pages


def staff_pages(study) -> list[str]:
    return [
        reverse("dashboard:index"),
        reverse("dashboard:study", args=[study.slug]),
        reverse("dashboard:questionnaire", args=[study.slug, 1]),
        reverse("report:index", args=[study.slug]),
        reverse("analysis:download_release", args=[study.slug]),
        "/admin/",
        "/admin/survey/participant/",
        "/admin/survey/rating/",
        "/admin/survey/study/add/",
    ]


def test_staff_pages_need_a_staff_login(client, django_user_model):
    study = make_study()
    someone = django_user_model.objects.create_user("someone", password="pw-1-long")
    for url in staff_pages(study):
        client.logout()
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/admin/login/"), url
        client.force_login(someone)
        response = client.get(url)
        refused = response.status_code == 403 or (
            response.status_code == 302 and response["Location"].startswith("/admin/login/")
        )
        assert refused, (url, response.status_code)
    # The same pages open for staff, so the refusals above are about the login alone.
    client.force_login(django_user_model.objects.create_superuser("boss", password="pw-2-long"))
    for url in staff_pages(study):
        if "release" not in url:  # the dataset download needs completed participants
            assert client.get(url).status_code == 200, url


def test_a_participant_link_grants_no_staff_access(client):
    participant = started(client, make_study())
    client.get(f"/p/{participant.token}/")
    assert client.get("/researcher/").status_code == 302


def test_repeated_failed_logins_lock_the_login_even_for_the_right_password(
    client, django_user_model, settings
):
    django_user_model.objects.create_user("staff", password="right-password-1", is_staff=True)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        response = client.post("/admin/login/", {"username": "staff", "password": "wrong"})
        assert response.status_code == 200  # the form again, with its error
    response = client.post("/admin/login/", {"username": "staff", "password": "wrong"})
    assert response.status_code == 429
    assert b"Signing in is paused" in response.content
    response = client.post("/admin/login/", {"username": "staff", "password": "right-password-1"})
    assert response.status_code == 429
    assert client.get("/researcher/").status_code == 302
    # The user name is locked from every address, so spreading guesses does not help.
    other = Client(REMOTE_ADDR="10.1.2.3")
    response = other.post("/admin/login/", {"username": "staff", "password": "right-password-1"})
    assert response.status_code == 429


def test_a_successful_login_before_the_limit_works(client, django_user_model, settings):
    django_user_model.objects.create_user("staff", password="right-password-1", is_staff=True)
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        client.post("/admin/login/", {"username": "staff", "password": "wrong"})
    response = client.post("/admin/login/", {"username": "staff", "password": "right-password-1"})
    assert response.status_code == 302
    assert client.get("/researcher/").status_code == 200


# Rate limit on the study link


def test_the_study_link_is_rate_limited_per_address(client, settings):
    settings.WOJDB_ENTRY_RATE = (5, 600)
    study = make_study()
    for _ in range(3):
        assert client.get(f"/s/{study.slug}/").status_code == 200
    enter(Client(), study)  # new browsers: one browser entering again resumes instead
    enter(Client(), study)
    response = client.post(f"/s/{study.slug}/")
    assert response.status_code == 429
    assert 0 < int(response["Retry-After"]) <= 600
    assert b"Please wait a little" in response.content
    assert Participant.objects.count() == 2
    assert Client(REMOTE_ADDR="10.9.8.7").post(f"/s/{study.slug}/").status_code == 302


def test_a_french_study_link_is_refused_in_french(client, settings):
    settings.WOJDB_ENTRY_RATE = (1, 600)
    study = make_study(language="fr")
    assert client.get(f"/s/{study.slug}/").status_code == 200
    response = client.get(f"/s/{study.slug}/")
    assert response.status_code == 429
    page = response.content.decode()
    assert '<html lang="fr">' in page
    assert "Veuillez patienter un peu" in page
    assert "votre lien personnel fonctionne toujours" in page
    assert "Please wait" not in page
    # A link to no study is refused in the site's language.
    assert b"Please wait a little" in client.get("/s/no-such-study/").content


def test_forwarded_addresses_count_only_behind_a_trusted_proxy(settings):
    settings.WOJDB_ENTRY_RATE = (1, 600)
    study = make_study()
    url = f"/s/{study.slug}/"
    spoofing = Client(HTTP_X_FORWARDED_FOR="203.0.113.1")
    assert spoofing.get(url).status_code == 200
    # Without a trusted proxy a client cannot escape the limit by inventing addresses.
    spoofing = Client(HTTP_X_FORWARDED_FOR="203.0.113.2")
    assert spoofing.get(url).status_code == 429
    settings.WOJDB_PROXIES = 1
    # Behind one proxy the client's address is the one the proxy appended (rightmost).
    assert Client(HTTP_X_FORWARDED_FOR="1.1.1.1, 198.51.100.7").get(url).status_code == 200
    assert Client(HTTP_X_FORWARDED_FOR="2.2.2.2, 198.51.100.7").get(url).status_code == 429
    assert Client(HTTP_X_FORWARDED_FOR="198.51.100.8").get(url).status_code == 200


def test_personal_links_are_not_rate_limited(client, settings):
    settings.WOJDB_ENTRY_RATE = (1, 600)
    participant = enter(client, make_study())
    for _ in range(5):
        assert client.get(f"/p/{participant.token}/consent/").status_code == 200


# Oversized input


def test_a_body_over_the_upload_limit_is_refused_and_writes_nothing(client, csrf_client, settings):
    study = make_study()
    participant, newcomer = started(client, study), enter(Client(), study)
    before = state(participant), state(newcomer)
    # The CSRF check reads every post's body first, so even pages that take no input refuse.
    csrf_client.get(f"/s/{study.slug}/")  # sets the CSRF cookie
    huge = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    for path in ("about/", "item/1/", "review/", "withdraw/", "reading/"):
        response = csrf_client.post(f"/p/{participant.token}/{path}", {"nationality": huge})
        assert response.status_code == 400, path
    response = csrf_client.post(f"/p/{newcomer.token}/consent/", {"statement_1": huge})
    assert response.status_code == 400
    response = csrf_client.post(f"/s/{study.slug}/", {"pid": huge})
    assert response.status_code == 400
    assert (state(participant), state(newcomer)) == before
    assert Participant.objects.count() == 2


def test_too_many_fields_are_refused(client, csrf_client, settings):
    participant = started(client, make_study())
    before = state(participant)
    fields = {f"f{n}": "1" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1)}
    csrf_client.get(f"/p/{participant.token}/about/")  # sets the CSRF cookie
    response = csrf_client.post(f"/p/{participant.token}/about/", fields)
    assert response.status_code == 400
    assert state(participant) == before


def test_overlong_answers_are_refused_with_the_form_and_write_nothing(client):
    participant = started(client, make_study())
    before = state(participant)
    long_text = about_data(nationality="n" * 101, disability="yes", disability_detail="d" * 291)
    response = client.post(f"/p/{participant.token}/about/", long_text)
    assert response.status_code == 200
    assert b"at most 100 characters" in response.content
    languages = about_data() | {
        "languages-TOTAL_FORMS": "1",
        "languages-0-language": "L" * 101,
        "languages-0-fluency": "4",
    }
    assert client.post(f"/p/{participant.token}/about/", languages).status_code == 200
    # A tiny post claiming 100,000 language rows must not make the server build them all.
    many_rows = about_data() | {"languages-TOTAL_FORMS": "100000"}
    response = client.post(f"/p/{participant.token}/about/", many_rows)
    assert response.status_code == 200
    assert b"Please submit at most 30 forms" in response.content
    assert len(set(re.findall(rb'name="languages-(\d+)-language"', response.content))) <= 30
    answer = {"item": item_id(participant, 1), "holistic": "3", "client_ms": "9" * 40}
    assert client.post(item_url(participant, 1), answer).status_code == 400
    assert state(participant) == before


# HTML in free text


def test_html_in_participant_answers_is_shown_escaped_on_every_page(client, django_user_model):
    participant = started(client, make_study())
    answers = about_data(
        nationality=PAYLOAD,
        disability="yes",
        disability_detail=PAYLOAD,
        **{
            "languages-TOTAL_FORMS": "1",
            "languages-0-language": PAYLOAD,
            "languages-0-fluency": "4",
            "languages-0-qualifications": PAYLOAD,
        },
    )
    assert client.post(f"/p/{participant.token}/about/", answers).status_code == 302
    participant.refresh_from_db()
    assert participant.nationality == PAYLOAD  # stored as given
    staff = Client()
    staff.force_login(django_user_model.objects.create_superuser("boss", password="pw-2-long"))
    pages = {
        "about": client.get(f"/p/{participant.token}/about/"),
        "about, refused": client.post(
            f"/p/{participant.token}/about/", answers | {"age": "not a number"}
        ),
        "admin participant": staff.get(f"/admin/survey/participant/{participant.pk}/change/"),
        "admin participants": staff.get("/admin/survey/participant/"),
        "admin languages search": staff.get("/admin/survey/participant/", {"q": PAYLOAD}),
    }
    for name, page in pages.items():
        assert page.status_code == 200, name
        assert PAYLOAD.encode() not in page.content, name
    for name in ("about", "about, refused", "admin participant"):
        content = pages[name].content.decode()
        assert content.count(ESCAPED) >= 4, name  # all four free-text answers, escaped


def test_html_in_a_study_name_is_shown_escaped(client):
    study = make_study()
    Study.objects.filter(pk=study.pk).update(name=PAYLOAD)
    study.refresh_from_db()
    participant = started(client, study)
    urls = ["/", f"/s/{study.slug}/", *participant_urls(participant.token)[1:6]]
    for url in urls:
        page = client.get(url, follow=True)
        assert page.status_code == 200, url
        assert PAYLOAD.encode() not in page.content, url
        assert ESCAPED.encode() in page.content, url


# Headers and the content security policy


def test_pages_carry_the_security_headers(client):
    participant = started(client, make_study())
    for url in ["/", f"/p/{participant.token}/about/", "/admin/login/", "/no-such-page/"]:
        response = client.get(url)
        policy = response["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy, url
        assert "frame-ancestors 'none'" in policy
        assert response["X-Frame-Options"] == "DENY"
        assert response["X-Content-Type-Options"] == "nosniff"


INLINE = [
    re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I),
    re.compile(r"<[^>]+\son[a-z]+\s*=", re.I),
    re.compile(r"<[^>]+\sstyle\s*=", re.I),
    re.compile(r"<style\b", re.I),
    re.compile(r"javascript:", re.I),
]


def test_no_page_of_the_participant_flow_needs_inline_script_or_style(client):
    study = make_study(items=2)
    participant = enter(client, study)
    pages = [client.get("/"), client.get(f"/s/{study.slug}/")]
    pages.append(client.get(f"/p/{participant.token}/consent/"))
    pages.append(client.post(f"/p/{participant.token}/consent/", {"statement_1": "no"}))
    consent(client, participant)
    pages.append(client.get(f"/p/{participant.token}/about/"))
    pages.append(client.post(f"/p/{participant.token}/about/", about_data(age="x")))
    client.post(f"/p/{participant.token}/about/", about_data())
    for position in (0, 1, 2):
        pages.append(client.get(item_url(participant, position)))
    pages += [client.get(f"/p/{participant.token}/{p}") for p in ("review/", "withdraw/")]
    client.post(f"/p/{participant.token}/review/")
    pages.append(client.get(f"/p/{participant.token}/done/"))
    pages.append(client.get(f"/p/{participant.token}/information/"))
    for page in pages:
        assert page.status_code == 200, page.request["PATH_INFO"]
        html = page.content.decode()
        for pattern in INLINE:
            assert not pattern.search(html), (page.request["PATH_INFO"], pattern.pattern)
