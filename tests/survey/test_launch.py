"""Pilot, then launch: one status with its reasons, pilot participants who freeze nothing and
stay out of the data, the launch (command and dashboard button) and clearing the pilot data."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from analysis import frames
from analysis.analysing import departures
from survey.design import lifecycle
from survey.design.plan import study_fields
from survey.design.questionnaires import is_frozen, revise
from survey.models import (
    DeclinedConsent,
    Participant,
    PlatformIdentity,
    PoolEntry,
    Questionnaire,
    Rating,
    Study,
    Triple,
    Withdrawal,
)
from survey.participants.assignment import enrol
from tests.factories import make_study, make_triple
from tests.survey.test_participant_views import answer, consent, enter, languages, text_of

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def pilot_study(**fields) -> Study:
    return make_study(questionnaires=2, items=2, launched_at=None, **fields)


def started(client, study, **params) -> Participant:
    person = enter(client, study, **params)
    consent(client, person)
    client.post(f"/p/{person.token}/about/", languages())
    person.refresh_from_db()
    return person


@pytest.fixture
def staff():
    client = Client()
    client.force_login(User.objects.create_user("r", is_staff=True, is_superuser=True))
    return client


def study_page(client, study) -> str:
    return text_of(client.get(reverse("dashboard:study", args=[study.slug])))


# --- one status -------------------------------------------------------------------------------


def test_each_status_comes_with_its_reasons():
    study = pilot_study()
    status = lifecycle.study_status(study)
    assert (status.state, status.label, status.takes_newcomers) == ("pilot", "Piloting", True)
    assert "pilot participant" in status.reasons[0]

    study.reward = ""
    study.sample_item = None
    status = lifecycle.study_status(study)
    assert (status.state, status.takes_newcomers) == ("not ready", False)
    assert status.reasons == ("needs reward", "needs sample_item (the practice pair)")

    study.is_open = False
    status = lifecycle.study_status(study)
    assert status.state == "closed" and not status.takes_newcomers
    assert status.reasons[0] == "closed by the researcher (is_open is off)"
    assert status.reasons[1:] == ("needs reward", "needs sample_item (the practice pair)")

    launched = make_study()
    status = lifecycle.study_status(launched)
    assert (status.state, status.label, status.takes_newcomers) == ("open", "Open", True)
    assert status.reasons[0].startswith("launched on ")


def test_a_study_without_an_active_questionnaire_is_not_ready():
    study = make_study()
    study.questionnaires.update(active=False)
    status = lifecycle.study_status(study)
    assert status.state == "not ready"
    assert status.reasons == ("has no questionnaire to hand out: build them first",)


def test_the_list_the_study_page_and_the_link_say_the_same(client, staff):
    """The dashboard's list, its study page, the public list and the study link each used to
    decide on their own ("open", "Open to new participants", "Not open to participants",
    "This study is closed")."""
    unready = make_study(reward="")
    closed = make_study(is_open=False)
    piloting = pilot_study()
    live = make_study()
    expected = {
        unready: ("not ready", "Not ready", False),
        closed: ("closed", "Closed", False),
        piloting: ("pilot", "Piloting", True),
        live: ("open", "Open", True),
    }
    listed = {s.slug: s.status for s in staff.get(reverse("dashboard:index")).context["studies"]}
    public = client.get("/").content.decode()
    for study, (state, label, takes) in expected.items():
        status = lifecycle.study_status(study)
        assert listed[study.slug] == status and status.state == state
        page = staff.get(reverse("dashboard:study", args=[study.slug]))
        assert page.context["status"] == status
        assert f"Status: {label}" in text_of(page)
        for reason in status.reasons:
            assert reason in text_of(page)
        link = text_of(client.get(f"/s/{study.slug}/"))
        assert ("This study is closed" not in link) == takes
        assert (f'href="/s/{study.slug}/"' in public) == takes


# --- pilot participants -----------------------------------------------------------------------


def test_who_arrives_before_the_launch_is_a_pilot_participant_and_freezes_nothing(client):
    study = pilot_study()
    person = started(client, study)
    answer(client, person, 1, holistic=2, order=3, go="next")
    assert person.pilot and not person.simulated
    questionnaire = person.questionnaire
    assert not questionnaire.frozen and not is_frozen(questionnaire)
    # The design stays editable: the entries change in place, no new version.
    entries = [(e.item, e.shared) for e in questionnaire.entries.order_by("-position")]
    assert revise(questionnaire, entries).pk == questionnaire.pk

    lifecycle.launch(study)
    after = started(Client(), study)
    assert not after.pilot
    assert Questionnaire.objects.filter(study=study, frozen=False).count() == 0


def test_real_participants_are_balanced_whatever_the_pilot_took():
    study = pilot_study()
    first = study.questionnaires.get(number=1)
    for _ in range(2):
        person = enrol(study, rng=random.Random(0))
        Participant.objects.filter(pk=person.pk).update(questionnaire=first, status="completed")
    lifecycle.launch(study)
    real = [enrol(study, rng=random.Random(n)) for n in range(2)]
    assert not any(p.pilot for p in real)
    assert {p.questionnaire.number for p in real} == {1, 2}


def test_simulated_participants_freeze_nothing_either():
    study = pilot_study()
    call_command("simulate_responses", participants=4, study=study.slug, stdout=StringIO())
    assert Participant.objects.filter(study=study, simulated=True).count() == 4
    assert not any(is_frozen(q) for q in study.questionnaires.all())
    assert not Participant.objects.filter(study=study, pilot=True).exists()


def test_pilot_participants_stay_out_of_the_analysis_and_the_release(client):
    study = pilot_study()
    pilot = started(client, study)
    answer(client, pilot, 1, holistic=2, order=3)
    lifecycle.launch(study)
    real = started(Client(), study)
    answer(Client(), real, 1, holistic=4, order=4)
    assert list(frames.select_participants(study)) == [real]
    assert list(frames.select_participants(study, sharing_only=True)) == [real]
    # Asked for (a pilot's Figure 6.4), they are there.
    assert set(frames.select_participants(study, include_pilot=True)) == {pilot, real}


def test_who_left_during_the_pilot_is_counted_apart(client):
    study = pilot_study()
    client.post(f"/p/{enter(client, study).token}/consent/", {"decline": "1"})
    client.post(f"/p/{started(Client(), study).token}/withdraw/")
    assert DeclinedConsent.objects.get(study=study).pilot
    assert Withdrawal.objects.get(study=study).pilot
    assert departures(study) == {"declined": 0, "withdrawn_real": 0, "withdrawn_simulated": 0}


# --- the launch -------------------------------------------------------------------------------


def test_launching_freezes_the_design_and_later_arrivals_are_real(capsys):
    study = pilot_study()
    call_command("launch", study=study.slug)
    out = capsys.readouterr().out
    assert f"Launched study {study.slug!r}: 2 questionnaire(s) frozen" in out
    assert "Status: Open (launched on " in out
    study.refresh_from_db()
    assert study.launched and all(q.frozen for q in study.questionnaires.all())
    with pytest.raises(CommandError, match="was launched already"):
        call_command("launch", study=study.slug)


def test_pilot_participants_go_with_a_redrawn_pool_and_a_launch_locks_it(client):
    study = pilot_study()
    make_triple(lp="de-en")
    PoolEntry.objects.bulk_create(
        PoolEntry(study=study, triple_id=t.pk) for t in Triple.objects.all()
    )
    started(client, study)
    out = StringIO()
    call_command("sample_pool", study=study.slug, per_corpus=1, stdout=out)
    assert "and 1 pilot participant(s)" in out.getvalue()
    assert not study.participants.exists() and not study.questionnaires.exists()
    study = pilot_study()
    lifecycle.launch(study)
    with pytest.raises(CommandError, match="it was launched, so its pool can no longer be redrawn"):
        call_command("sample_pool", study=study.slug, per_corpus=1, stdout=StringIO())


def test_a_study_that_is_not_ready_is_not_launched():
    study = pilot_study(reward="")
    with pytest.raises(CommandError) as refused:
        call_command("launch", study=study.slug)
    assert str(refused.value) == (
        f"study {study.slug!r} cannot be launched: it needs reward. Nothing was changed."
    )
    study.refresh_from_db()
    assert not study.launched and not any(q.frozen for q in study.questionnaires.all())


def test_an_empty_study_name_launches_nothing():
    """`launch --study "$SLUG"` with SLUG unset launched the only study there was."""
    study = pilot_study()
    with pytest.raises(CommandError, match="no study with slug ''"):
        call_command("launch", "--study", "")
    study.refresh_from_db()
    assert not study.launched


def test_launch_tells_of_the_pilot_data_it_keeps(client, capsys):
    study = pilot_study()
    started(client, study)
    call_command("launch", study=study.slug)
    out = capsys.readouterr().out
    assert "It holds 1 pilot and 0 simulated participant(s), kept apart" in out
    assert Participant.objects.get(study=study).pilot


# --- clearing the pilot data ------------------------------------------------------------------


@pytest.fixture
def piloted(client):
    """A study in its pilot: two pilot participants (one with Prolific ids and answers), three
    simulated ones, a decline and a withdrawal; and a launched study beside it."""
    study = pilot_study()
    person = started(client, study, PROLIFIC_PID="p1", STUDY_ID="s", SESSION_ID="x")
    answer(client, person, 1, holistic=3, order=3)
    started(Client(), study)
    call_command("simulate_responses", participants=3, study=study.slug, stdout=StringIO())
    other = Client()
    other.post(f"/p/{enter(other, study).token}/consent/", {"decline": "1"})
    other = Client()
    other.post(f"/p/{started(other, study).token}/withdraw/")
    return study


def test_clearing_deletes_the_pilot_and_simulated_participants_and_nothing_real(
    piloted, capsys, monkeypatch
):
    bystander = make_study()
    real = Participant.objects.create(
        study=bystander, questionnaire=bystander.questionnaires.get(number=1)
    )
    monkeypatch.setattr("builtins.input", lambda question: "y")
    call_command("launch", study=piloted.slug, clear_pilot=True)
    out = capsys.readouterr().out
    assert "Deleted 2 pilot and 3 simulated participant(s) with their answers, and 2" in out
    assert not Participant.objects.filter(study=piloted).exists()
    assert not Rating.objects.filter(participant__study=piloted).exists()
    assert not PlatformIdentity.objects.exists()
    assert not piloted.declines.exists() and not piloted.withdrawals.exists()
    assert Participant.objects.filter(pk=real.pk).exists()
    piloted.refresh_from_db()
    assert piloted.launched


def test_clearing_asks_first_and_a_no_changes_nothing(piloted, monkeypatch):
    asked = []
    monkeypatch.setattr("builtins.input", lambda question: asked.append(question) or "n")
    with pytest.raises(CommandError, match="Nothing was deleted or launched"):
        call_command("launch", study=piloted.slug, clear_pilot=True)
    assert "Delete 2 pilot and 3 simulated participant(s)" in asked[0]
    assert Participant.objects.filter(study=piloted).count() == 5
    piloted.refresh_from_db()
    assert not piloted.launched


def test_clearing_without_launching(piloted):
    call_command(
        "launch", study=piloted.slug, clear_pilot=True, keep_piloting=True, interactive=False
    )
    piloted.refresh_from_db()
    assert not piloted.launched and not Participant.objects.filter(study=piloted).exists()
    with pytest.raises(CommandError, match="--keep-piloting goes with --clear-pilot"):
        call_command("launch", study=piloted.slug, keep_piloting=True)


def test_a_launched_study_can_still_clear_its_pilot_data(piloted):
    lifecycle.launch(piloted)
    call_command("launch", study=piloted.slug, clear_pilot=True, interactive=False)
    assert not Participant.objects.filter(study=piloted).exists()


# --- the dashboard's buttons ------------------------------------------------------------------


def test_the_dashboard_launches_a_study(staff):
    study = pilot_study()
    assert "Launch the study" in study_page(staff, study)
    response = staff.post(reverse("dashboard:launch", args=[study.slug]), follow=True)
    assert "Launched: the questionnaires are frozen" in text_of(response)
    assert "Status: Open" in text_of(response)
    assert "Launch the study" not in text_of(response)
    study.refresh_from_db()
    assert study.launched
    again = staff.post(reverse("dashboard:launch", args=[study.slug]), follow=True)
    assert "was launched already" in text_of(again)


def test_the_dashboard_says_why_a_study_cannot_be_launched(staff):
    study = pilot_study(reward="")
    page = staff.get(reverse("dashboard:study", args=[study.slug])).content.decode()
    assert "Not yet: study" in page and "it needs reward" in page
    assert '<button type="submit" disabled>Launch</button>' in page
    response = staff.post(reverse("dashboard:launch", args=[study.slug]), follow=True)
    assert "cannot be launched: it needs reward. Nothing was changed." in text_of(response)
    study.refresh_from_db()
    assert not study.launched


def test_the_dashboard_clears_the_pilot_data_only_once_confirmed(staff, piloted):
    page = study_page(staff, piloted)
    assert "Deletes the 2 pilot and 3 simulated participant(s)" in page
    url = reverse("dashboard:clear_pilot", args=[piloted.slug])
    refused = staff.post(url, follow=True)
    assert "Nothing was deleted: tick the box" in text_of(refused)
    assert Participant.objects.filter(study=piloted).count() == 5
    done = staff.post(url, {"confirm": "on"}, follow=True)
    assert "Deleted 2 pilot and 3 simulated participant(s)" in text_of(done)
    assert not Participant.objects.filter(study=piloted).exists()
    assert "Clear the pilot data" not in text_of(done)


def test_the_dashboard_counts_pilot_participants_apart(staff, piloted):
    response = staff.get(reverse("dashboard:study", args=[piloted.slug]))
    people = response.context["people"]
    assert (sum(people["real"]), people["pilot_total"], people["simulated_total"]) == (0, 2, 3)
    assert (people["declined"], people["declined_pilot"], people["withdrawn_pilot"]) == (0, 1, 1)
    assert all(sum(row["counts"]) == 0 for row in response.context["rows"])
    listed = {s.slug: s for s in staff.get(reverse("dashboard:index")).context["studies"]}
    assert (listed[piloted.slug].participant_count, listed[piloted.slug].pilot_count) == (0, 2)


@pytest.mark.parametrize("name", ["launch", "clear_pilot"])
def test_the_buttons_are_for_staff_only_and_posts_only(client, piloted, name):
    url = reverse(f"dashboard:{name}", args=[piloted.slug])
    assert client.post(url, {"confirm": "on"})["Location"].startswith("/admin/login/")
    student = Client()
    student.force_login(User.objects.create_user("s"))
    assert student.post(url, {"confirm": "on"}).status_code == 403
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(User.objects.create_user("r", is_staff=True, is_superuser=True))
    assert staff.post(url, {"confirm": "on"}).status_code == 403  # no CSRF token
    assert staff.get(url).status_code == 405
    piloted.refresh_from_db()
    assert not piloted.launched and Participant.objects.filter(study=piloted).count() == 5


def test_launched_at_is_set_by_the_launch_only():
    """Neither a study file nor the admin's form can launch a study."""
    assert "launched_at" not in {f.name for f in study_fields()}
    study = pilot_study()
    when = timezone.now()
    lifecycle.launch(study, now=when)
    study.refresh_from_db()
    assert study.launched_at == when
    assert lifecycle.refusal(study) == f"study {study.slug!r} was launched already"
