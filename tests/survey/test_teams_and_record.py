"""Study teams (`study_team`, the study page, `create_study --owner`) and the study's record
(`study_log`): who did what, kept append-only, outliving the study, naming no participant."""

from __future__ import annotations

import csv
import getpass
import io
import json

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from survey import access, record
from survey.design import lifecycle
from survey.models import Participant, Study, StudyEvent, StudyMember
from survey.participants import participation
from tests.factories import make_study
from tests.migrations import at_migration, migrate
from wojdb.core.vocabulary import ANALYST, MANAGER, OWNER, VIEWER

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada():
    return get_user_model().objects.create_user("ada", password="pw-long-enough", is_staff=True)


@pytest.fixture
def ben():
    return get_user_model().objects.create_user("ben", password="pw-long-enough", is_staff=True)


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def refused(*args) -> str:
    with pytest.raises(CommandError) as caught:
        call_command(*args, stdout=io.StringIO())
    assert caught.value.returncode == 2
    return str(caught.value)


def actions(study: Study) -> list[str]:
    return [e.action for e in record.entries(study.slug)]


def test_study_team_adds_changes_lists_and_removes_members_and_keeps_an_owner(ada, ben):
    study = make_study()
    assert "no team" in run("study_team", study.slug)
    run("study_team", study.slug, "--add", "ada", OWNER)
    run("study_team", study.slug, "--add", "ben", ANALYST)
    assert run("study_team", study.slug) == "ada\towner\nben\tanalyst\n"
    run("study_team", study.slug, "--add", "ben", MANAGER)
    assert StudyMember.objects.get(study=study, user=ben).role == MANAGER
    assert "only owner" in refused("study_team", study.slug, "--remove", "ada")
    assert "only owner" in refused("study_team", study.slug, "--add", "ada", VIEWER)
    run("study_team", study.slug, "--remove", "ben")
    assert run("study_team", study.slug) == "ada\towner\n"
    entries = list(record.entries(study.slug))
    assert [e.action for e in entries] == [
        "member added", "member added", "role changed", "member removed",
    ]  # fmt: skip
    assert entries[2].details == {"member": "ben", "role": MANAGER, "before": ANALYST}
    assert entries[0].actor == f"a command run by {getpass.getuser()}" and entries[0].user is None


def test_study_team_refuses_unknown_users_roles_and_accounts_that_cannot_sign_in(ada):
    study = make_study()
    get_user_model().objects.create_user("pat")  # no staff status
    assert "no user 'zoe'" in refused("study_team", study.slug, "--add", "zoe", OWNER)
    assert "not staff" in refused("study_team", study.slug, "--add", "pat", OWNER)
    with pytest.raises(CommandError, match="invalid choice|no role"):
        call_command("study_team", study.slug, "--add", "ada", "boss", stdout=io.StringIO())
    assert not StudyMember.objects.exists() and not StudyEvent.objects.exists()


def test_the_owner_adds_an_analyst_from_the_study_page(ada, ben):
    study = make_study()
    access.set_role(study, ada, OWNER)
    client = Client()
    client.force_login(ada)
    page = client.get(reverse("dashboard:study", args=[study.slug])).content.decode()
    assert "data-add-member" in page
    response = client.post(
        reverse("dashboard:team", args=[study.slug]), {"username": "ben", "role": ANALYST}
    )
    assert response.status_code == 302
    assert StudyMember.objects.get(study=study, user=ben).role == ANALYST
    entry = record.entries(study.slug).get(action="member added", details__member="ben")
    assert entry.actor == "ada" and entry.user == ada
    response = client.post(
        reverse("dashboard:team", args=[study.slug]), {"username": "nobody", "role": ANALYST},
        follow=True,
    )  # fmt: skip
    assert "there is no researcher account &#x27;nobody&#x27;" in response.content.decode()
    client.post(reverse("dashboard:team_remove", args=[study.slug, ben.pk]))
    assert not StudyMember.objects.filter(user=ben).exists()


def test_create_study_names_the_owner_and_records_the_build(ada, tmp_path):
    from tests.survey.test_study_build import small  # a study file on the bundled slice

    path = small(tmp_path)
    assert "no user 'zoe'" in refused("create_study", str(path), "--owner", "zoe")
    assert not Study.objects.exists()
    run("create_study", str(path), "--owner", "ada", "--jobs", "1")
    study = Study.objects.get()
    assert access.role_of(ada, study) == OWNER
    created = record.entries(study.slug).get(action="study created")
    assert created.details["digest"].startswith("sha256:")
    assert "questionnaires built" in actions(study)
    # Applied again with a change, the record names the digests before and after.
    path.write_text(path.read_text().replace("count = 2", "count = 3"))
    run("create_study", str(path), "--jobs", "1")
    applied = record.entries(study.slug).get(action="study file applied")
    assert applied.details["before"] == created.details["digest"] != applied.details["digest"]


def test_launch_and_clearing_pilot_data_are_recorded_with_their_counts():
    study = make_study(launched_at=None)
    questionnaire = study.questionnaires.first()
    Participant.objects.create(study=study, questionnaire=questionnaire, token="p" * 32, pilot=True)
    lifecycle.launch(study, clear=True)
    assert actions(study) == ["pilot data cleared", "launched"]
    cleared = record.entries(study.slug).get(action="pilot data cleared")
    assert cleared.details == {"pilot": 1, "simulated": 0, "declines_and_withdrawals": 0}


def test_a_withdrawal_is_recorded_without_the_persons_data():
    study = make_study()
    person = Participant.objects.create(
        study=study,
        questionnaire=study.questionnaires.first(),
        token="w" * 32,
        age=34,
        nationality="Scottish",
        gender="female",
    )
    with record.acting_as(record.PARTICIPANT):
        participation.withdraw(person)
    entry = record.entries(study.slug).get()
    assert entry.action == "participant withdrew" and entry.actor == "the participant"
    text = json.dumps(entry.details)
    assert "Scottish" not in text and "34" not in text and "w" * 32 not in text
    assert entry.details == {"mode": "web", "pilot": False, "simulated": False}


def test_the_record_is_append_only_and_outlives_the_study(ada):
    study = make_study()
    access.set_role(study, ada, OWNER)
    entry = record.entries(study.slug).get()
    entry.action = "something else"
    with pytest.raises(TypeError, match="append-only"):
        entry.save()
    with pytest.raises(TypeError, match="append-only"):
        entry.delete()
    with pytest.raises(TypeError, match="append-only"):
        StudyEvent.objects.filter(pk=entry.pk).update(action="x")
    with pytest.raises(TypeError, match="append-only"):
        StudyEvent.objects.all().delete()
    slug = study.slug
    study.delete()
    kept = record.entries(slug).get()
    assert kept.study is None and kept.action == "member added"
    assert "member added" in run("study_log", slug)


def test_study_log_exports_csv_and_json_lines_guarded_for_spreadsheets(ada, tmp_path):
    study = make_study()
    evil = get_user_model().objects.create_user("=HYPERLINK(1)", is_staff=True)
    access.set_role(study, ada, OWNER)
    with record.acting_as(evil):
        record.note(study, "settings changed", fields=["title"])
    rows = list(csv.DictReader(io.StringIO(run("study_log", study.slug))))
    assert [r["action"] for r in rows] == ["member added", "settings changed"]
    assert rows[1]["actor"] == "'=HYPERLINK(1)"  # read as text, never run as a formula
    assert json.loads(rows[1]["details"]) == {"fields": ["title"]}
    lines = run("study_log", study.slug, "--format", "jsonl").splitlines()
    assert json.loads(lines[1])["actor"] == "=HYPERLINK(1)"
    out = tmp_path / "log.csv"
    run("study_log", study.slug, "--out", str(out))
    assert out.read_text().startswith("at,study,actor,action,details\n")
    assert "no record" in refused("study_log", "no-such-study")


def test_the_admin_records_who_changed_which_settings_and_makes_the_creator_owner(ada):
    study = make_study()
    access.set_role(study, ada, OWNER)
    client = Client()
    client.force_login(ada)
    url = reverse("admin:survey_study_change", args=[study.pk])
    page = client.get(url)
    assert page.status_code == 200
    from tests.survey.test_study_texts import unchanged_form

    data = unchanged_form(page.content.decode(), "study_form")  # as offered, one text changed
    data["debriefing"] = ["Thank you, and goodbye."]
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    entry = record.entries(study.slug).get(action="settings changed")
    assert "debriefing" in entry.details["fields"] and entry.actor == "ada"
    assert "name" not in entry.details["fields"]  # only what the save changed
    # The same form sent again changes nothing, and nothing is recorded.
    again = unchanged_form(client.get(url).content.decode(), "study_form")
    assert client.post(url, again).status_code == 302
    assert actions(study).count("settings changed") == 1


before_teams = at_migration([("survey", "0020_study_base_manager")])


def test_existing_studies_are_owned_by_the_staff_of_the_server_after_the_upgrade(before_teams):
    before_teams.get_model("survey", "Study").objects.create(name="Old", slug="old")
    User = get_user_model()  # auth's tables stay as they are
    User.objects.create(username="staff", is_staff=True)
    User.objects.create(username="gone", is_staff=True, is_active=False)
    User.objects.create(username="participant-ish")
    apps = migrate([("survey", "0021_study_teams_and_record")])
    members = apps.get_model("survey", "StudyMember").objects.all()
    assert [(m.study.slug, m.user.username, m.role) for m in members] == [("old", "staff", "owner")]


def test_the_owner_deletes_a_study_in_the_admin_after_seeing_what_goes_and_the_record_stays(ada):
    study = make_study(launched_at=None)
    access.set_role(study, ada, OWNER)
    client = Client()
    client.force_login(ada)
    url = reverse("admin:survey_study_delete", args=[study.pk])
    confirm = client.get(url).content.decode()  # a study with participants is protected
    assert "Questionnaires: 2" in confirm and "Questionnaire entries: 8" in confirm
    assert "permission to delete" not in confirm
    assert client.post(url, {"post": "yes"}).status_code == 302
    assert not Study.objects.filter(pk=study.pk).exists()
    deleted = record.entries(study.slug).get(action="study deleted")
    assert deleted.details == {"participants": 0, "questionnaires": 2, "ratings": 0}
    assert deleted.actor == "ada"


def test_add_researcher_makes_a_staff_account_that_signs_in_and_joins_a_team(ada):
    said = run("add_researcher", "ben", "--email", "ben@example.org")
    password = said.split("shown this once: ")[1].split()[0]
    ben = get_user_model().objects.get(username="ben")
    assert (ben.is_staff, ben.is_superuser, ben.email) == (True, False, "ben@example.org")
    assert ben.check_password(password) and not ben.user_permissions.exists()
    client = Client()
    signed_in = client.post("/admin/login/", {"username": "ben", "password": password})
    assert signed_in.status_code == 302
    studies = client.get(reverse("dashboard:index")).content.decode()
    assert 'href="/admin/password_change/">Password</a>' in studies
    assert client.get("/admin/password_change/").status_code == 200
    # Not in a team yet: the study answers as one that does not exist.
    study = make_study()
    page = reverse("dashboard:study", args=[study.slug])
    assert client.get(page).status_code == 404
    run("study_team", study.slug, "--add", "ben", ANALYST)
    assert client.get(page).status_code == 200


def test_add_researcher_gives_staff_status_keeping_the_password_and_refuses_the_rest(ada):
    get_user_model().objects.create_user("pat", password="pats-own-password")
    assert "not staff" in refused("study_team", make_study().slug, "--add", "pat", OWNER)
    assert "staff status given, password kept" in run("add_researcher", "pat")
    pat = get_user_model().objects.get(username="pat")
    assert pat.is_staff and not pat.is_superuser and pat.check_password("pats-own-password")

    users = get_user_model().objects.count()
    assert "is a researcher already" in refused("add_researcher", "ada")
    assert get_user_model().objects.get(username="ada").check_password("pw-long-enough")
    assert refused("add_researcher", "no spaces allowed").startswith("USER: Enter a valid")
    assert refused("add_researcher", "x" * 151).startswith(
        "USER: Ensure this value has at most 150 characters (it has 151)."
    )
    assert refused("add_researcher", "zoe", "--email", "zoe@").startswith("--email: Enter a")
    assert get_user_model().objects.count() == users
