"""Who may open every researcher URL of the URLconf and every admin page: each role of a study's
team, on their own study, on another study and on a study that does not exist.

A researcher outside a study's team meets it exactly as a study that does not exist (404), so
slugs cannot be probed; a member whose role lacks the right is refused (403, or 404 where the
page lists only what the role may see). A new researcher URL without an entry in `PAGES` fails
`test_every_researcher_url_is_in_the_table`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from analysis import report_store, report_views
from survey import access
from survey.access import DATA, MANAGE, TEAM, VIEW
from survey.models import (
    PaperAnswer,
    PaperCopy,
    PaperLayout,
    Participant,
    Study,
    StudyEvent,
    StudyMember,
)
from tests.factories import make_study
from wojdb.core.vocabulary import OWNER, ROLES, VIEWER

NO_ROLE, SUPERUSER = "no role", "superuser"
#: Not researcher pages: the participants' own (namespace "survey") and the admin (below).
OTHER_NAMESPACES = {"survey", "admin"}


@dataclass(frozen=True)
class Page:
    right: str
    method: str = "GET"
    #: How a member lacking the right is refused: 403, or 404 where the page looks its object up
    #: among those the role may see (a paper answer).
    refused: int = 403


PAGES = {
    "dashboard:index": None,  # lists the user's own studies (test_the_index_lists_only_…)
    "dashboard:paper": None,  # lists the paper answers of the studies the user manages
    "dashboard:paper_answer": Page(MANAGE, refused=404),
    "dashboard:paper_crop": Page(MANAGE, refused=404),
    "dashboard:study": Page(VIEW),
    "dashboard:questionnaire": Page(VIEW),
    "dashboard:figure": Page(VIEW),
    "dashboard:build": Page(MANAGE, "POST"),
    "dashboard:launch": Page(MANAGE, "POST"),
    "dashboard:clear_pilot": Page(MANAGE, "POST"),
    "dashboard:release_slots": Page(MANAGE, "POST"),
    "dashboard:team": Page(TEAM, "POST"),
    "dashboard:team_remove": Page(TEAM, "POST"),
    "report:index": Page(DATA),
    "report:generate": Page(DATA, "POST"),
    "report:latest": Page(DATA),
    "report:table": Page(DATA),
    "report:figure": Page(DATA),
    "analysis:download_release": Page(DATA),
}


def researcher_urls() -> list[str]:
    """Every named URL of the URLconf outside the participant pages and the admin."""
    names = []

    def walk(patterns, namespace):
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, p.namespace or namespace)
            elif isinstance(p, URLPattern) and namespace not in OTHER_NAMESPACES:
                names.append(f"{namespace}:{p.name}" if namespace else p.name)

    walk(get_resolver().url_patterns, None)
    return names


def test_every_researcher_url_is_in_the_table():
    missing = sorted(set(researcher_urls()) - set(PAGES))
    assert not missing, f"researcher URLs with no entry in PAGES: {missing}"
    assert not set(PAGES) - set(researcher_urls()), "PAGES names URLs that no longer exist"


@dataclass
class Lab:
    own: Study
    other: Study
    answer: dict[str, int]  # paper answer per study slug
    bystander: object
    users: dict[str, object]


def _paper_answer(study: Study, code: str) -> int:
    layout = PaperLayout.objects.create(
        study=study,
        questionnaire=study.questionnaires.first(),
        layout={"pages": 1},
        consent_version=1,
    )
    copy = PaperCopy.objects.create(code=code, layout=layout)
    return PaperAnswer.objects.create(
        copy=copy, page=1, field="about.age", kind="text", crop=b"\x89PNG"
    ).pk


@pytest.fixture
def lab(db, settings, tmp_path, monkeypatch):
    settings.WOJDB_REPORTS_DIR = tmp_path / "reports"
    monkeypatch.setattr(report_views, "run_in_background", lambda job: None)
    # Their own study is in its pilot (so it can still be launched); the other is live.
    own = make_study(questionnaires=1, items=2, launched_at=None)
    other = make_study(questionnaires=1, items=2)
    for study in (own, other):  # a report with a table and a figure, as `analyse` leaves it
        folder = report_store.report_dir(study.slug)
        (folder / "tables").mkdir(parents=True)
        (folder / "figures").mkdir()
        (folder / "report.html").write_text("<h1>report</h1>")
        (folder / "tables" / "levels.csv").write_text("a\n1\n")
        (folder / "figures" / "f.png").write_bytes(b"\x89PNG")
    User = get_user_model()
    users = {}
    for role in (*ROLES, NO_ROLE):
        users[role] = User.objects.create_user(role.replace(" ", "-"), is_staff=True)
        if role in ROLES:
            StudyMember.objects.create(study=own, user=users[role], role=role)
    users[SUPERUSER] = User.objects.create_user("boss", is_staff=True, is_superuser=True)
    bystander = User.objects.create_user("bystander", is_staff=True)
    for study in (own, other):
        StudyMember.objects.create(study=study, user=bystander, role=VIEWER)
    answers = {
        own.slug: _paper_answer(own, "OWNCOPY1"),
        other.slug: _paper_answer(other, "OTHER001"),
    }
    return Lab(own, other, answers, bystander, users)


def url_for(name: str, lab: Lab, slug: str) -> str:
    study = Study.objects.filter(slug=slug).first()
    args = {
        "dashboard:paper_answer": lambda: [lab.answer.get(slug, 10**9)],
        "dashboard:paper_crop": lambda: [lab.answer.get(slug, 10**9)],
        "dashboard:questionnaire": lambda: [slug, 1],
        "dashboard:figure": lambda: [slug, "languages", "svg"],
        "dashboard:team_remove": lambda: [slug, lab.bystander.pk],
        "report:table": lambda: [slug, "levels"],
        "report:figure": lambda: [slug, "f", "png"],
    }.get(name, lambda: [slug])()
    assert study is not None or slug == "no-such-study"
    return reverse(name, args=args)


def form_for(name: str, lab: Lab) -> dict:
    return {
        "dashboard:build": {"count": "1", "seed": "1"},
        "dashboard:clear_pilot": {"confirm": "on"},
        "dashboard:team": {"username": lab.bystander.get_username(), "role": VIEWER},
    }.get(name, {})


def request(client: Client, name: str, lab: Lab, slug: str):
    page = PAGES[name]
    url = url_for(name, lab, slug)
    if page.method == "POST":
        return client.post(url, form_for(name, lab))
    return client.get(url)


def role_rights(role: str) -> frozenset:
    if role == SUPERUSER:
        return access.RIGHTS[OWNER]
    return access.RIGHTS.get(role, frozenset())


@pytest.mark.parametrize("role", [*ROLES, NO_ROLE, SUPERUSER])
def test_each_role_opens_what_its_rights_allow_and_nothing_of_other_studies(lab, role):
    client = Client()
    client.force_login(lab.users[role])
    allowed, refused = [], []
    for name, page in PAGES.items():
        if page is None:
            continue
        own = request(client, name, lab, lab.own.slug)
        if page.right in role_rights(role):
            # 409: a release of a study with nobody to export, which it tells its analysts.
            assert own.status_code in (200, 302, 409), (name, role, own.status_code)
            allowed.append(name)
        elif role == NO_ROLE:
            assert own.status_code == 404, (name, role, own.status_code)
        else:
            assert own.status_code == page.refused, (name, role, own.status_code)
            refused.append(name)
        if role != SUPERUSER:
            # Another team's study answers as a study that does not exist.
            other = request(client, name, lab, lab.other.slug)
            missing = request(client, name, lab, "no-such-study")
            assert other.status_code == missing.status_code == 404, (name, role)
            assert other.content == missing.content, (name, role)
    if role == VIEWER:
        assert allowed == ["dashboard:study", "dashboard:questionnaire", "dashboard:figure"]


def test_nothing_was_done_by_a_refused_request(lab):
    """Refusals change nothing: every POST of every role but the superuser on the other study."""
    for role in (*ROLES, NO_ROLE):
        client = Client()
        client.force_login(lab.users[role])
        for name, page in PAGES.items():
            if page is not None and page.method == "POST":
                request(client, name, lab, lab.other.slug)
    lab.other.refresh_from_db()
    assert lab.other.questionnaires.count() == 1
    assert lab.other.members.count() == 1  # the bystander alone, untouched
    assert not StudyEvent.objects.filter(study=lab.other).exists()


def test_the_index_lists_only_the_users_studies_and_the_paper_review_theirs(lab):
    for role in (*ROLES, NO_ROLE, SUPERUSER):
        client = Client()
        client.force_login(lab.users[role])
        index = client.get(reverse("dashboard:index")).content.decode()
        assert (lab.own.name in index) == (role != NO_ROLE), role
        assert (lab.other.name in index) == (role == SUPERUSER), role
        paper = client.get(reverse("dashboard:paper")).content.decode()
        assert ("OWNCOPY1" in paper) == (MANAGE in role_rights(role)), role
        assert ("OTHER001" in paper) == (role == SUPERUSER), role


def test_a_viewer_sees_counts_but_no_downloads_nor_what_people_wrote(lab):
    marks = ("data-release-link", "data-report-link", "Flags and comments", "data-launch")
    shown = {}
    for role in (OWNER, VIEWER):
        client = Client()
        client.force_login(lab.users[role])
        shown[role] = client.get(reverse("dashboard:study", args=[lab.own.slug])).content.decode()
    assert all(mark in shown[OWNER] for mark in (*marks, "data-record", "data-add-member"))
    page = shown[VIEWER]
    assert "People" in page and "Design of every questionnaire" in page and "data-team" in page
    for hidden in (*marks, "data-record", "data-add-member"):
        assert hidden not in page, hidden


# --- the admin ----------------------------------------------------------------------------------

#: Each model of the admin: the right to list and open its objects (None: WMT data every study
#: shares, read by every researcher and changed by superusers alone; "superuser": superusers
#: alone), and the right to change them (None: nobody through the admin).
ADMIN = {
    "Study": (VIEW, MANAGE),
    "PoolEntry": (VIEW, None),
    "StudyPlan": (VIEW, MANAGE),
    "Questionnaire": (VIEW, MANAGE),
    "QuestionnaireEntry": (VIEW, MANAGE),
    "Participant": (access.PEOPLE, MANAGE),
    "Rating": (access.PEOPLE, MANAGE),
    "ParticipantLanguage": (access.PEOPLE, MANAGE),
    "PlatformIdentity": (access.PEOPLE, MANAGE),
    "DeclinedConsent": (VIEW, MANAGE),
    "Withdrawal": (VIEW, MANAGE),
    "ConsentText": (VIEW, MANAGE),
    "PaperLayout": (VIEW, MANAGE),
    "PaperCopy": (access.PEOPLE, MANAGE),
    "ScanPage": (access.PEOPLE, MANAGE),
    "PaperAnswer": (access.PEOPLE, MANAGE),
    "StudyEvent": (access.RECORD, None),
    "Segment": (None, "superuser"),
    "Corpus": (None, "superuser"),
    "Triple": (None, "superuser"),
    "ExternalJudgment": (None, "superuser"),
    "ExternalSegmentScore": (None, "superuser"),
    "ErrorAnnotation": (None, "superuser"),
    "JudgmentImport": (None, "superuser"),
    "SystemScore": (None, "superuser"),
    "Permutation": (None, "superuser"),
    "Item": (None, "superuser"),
    "Metric": (None, "superuser"),
    "MetricScore": (None, "superuser"),
    "Alignment": (None, "superuser"),
    "EntryCount": ("superuser", "superuser"),
}
#: Django's own and django-axes's: superusers alone, by Django's per-model permissions.
DJANGO_ADMINS = {"Group", "User", "AccessAttempt", "AccessLog", "AccessFailureLog"}


def test_every_model_admin_is_in_the_table():
    registered = {model.__name__ for model in admin.site._registry}
    assert registered - DJANGO_ADMINS == set(ADMIN), "every model admin needs an ADMIN entry"


def _changelist(model) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")


@pytest.mark.parametrize("role", [*ROLES, NO_ROLE])
def test_the_admin_lists_and_changes_only_what_the_role_allows(lab, role):
    client = Client()
    client.force_login(lab.users[role])
    rights = role_rights(role)
    for model, model_admin in admin.site._registry.items():
        if model.__name__ in DJANGO_ADMINS:
            continue
        view, change = ADMIN[model.__name__]
        listing = client.get(_changelist(model))
        may_view = view is None or view in rights
        assert listing.status_code == (200 if may_view else 403), (model.__name__, role)
        req = type("R", (), {"user": lab.users[role]})()
        if view not in (None, "superuser"):
            shown = model_admin.get_queryset(req)
            studies = {access_study(obj) for obj in shown}
            assert lab.other.pk not in studies, (model.__name__, role)
        can_change = change not in (None, "superuser") and change in rights
        assert model_admin.has_change_permission(req) == can_change, (model.__name__, role)


def access_study(obj) -> int | None:
    from survey.admin import _study_of

    study = _study_of(obj)
    return study.pk if study else None


def test_another_studys_objects_open_in_the_admin_as_objects_that_do_not_exist(lab):
    client = Client()
    client.force_login(lab.users[OWNER])
    theirs = reverse("admin:survey_study_change", args=[lab.other.pk])
    nothing = reverse("admin:survey_study_change", args=[10**9])
    first, second = client.get(theirs), client.get(nothing)
    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    # The study filter of a list offers only the user's studies.
    participants = client.get(_changelist(Participant)).content.decode()
    assert lab.other.name not in participants
