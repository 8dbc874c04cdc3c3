"""The researcher's dashboard: staff only, progress per questionnaire, balance, actions."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.urls import reverse
from django.utils import timezone

from survey.design.questionnaires import build_questionnaires
from survey.models import (
    DeclinedConsent,
    Participant,
    QuestionnaireEntry,
    Rating,
    Study,
    Withdrawal,
)
from tests import factories
from tests.survey.test_questionnaires import make_pool, make_study

pytestmark = pytest.mark.filterwarnings("ignore:No directory at:UserWarning")


@pytest.fixture
def staff(client, db):
    user = get_user_model().objects.create_user(
        "researcher", password="pw", is_staff=True, is_superuser=True
    )  # every right: what each role may do is tests/test_permissions.py's
    client.force_login(user)
    return client


@pytest.fixture
def built(db):
    make_pool(size=70, degrees=(2, 10))
    study = make_study()
    build_questionnaires(study, 3, seed=4)
    return study


def study_url(study, view="study", **kwargs):
    return reverse(f"dashboard:{view}", kwargs={"slug": study.slug, **kwargs})


def test_anonymous_visitors_are_sent_to_log_in(client, built):
    for url in (reverse("dashboard:index"), study_url(built)):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))


def test_signed_in_people_who_are_not_staff_are_refused(client, built):
    client.force_login(get_user_model().objects.create_user("participant", password="pw"))
    assert client.get(reverse("dashboard:index")).status_code == 403
    assert client.get(study_url(built)).status_code == 403
    figure = study_url(built, "figure", name="quality", fmt="png")
    assert client.get(figure).status_code == 403
    assert client.post(study_url(built, "build"), {"count": 1, "seed": 1}).status_code == 403
    assert built.questionnaires.count() == 3


def test_the_index_lists_studies(staff, built):
    page = staff.get(reverse("dashboard:index")).content.decode()
    assert built.name in page and study_url(built) in page


def test_building_from_the_dashboard_then_extending(staff, db):
    make_pool(size=120)
    study = make_study()
    page = staff.get(study_url(study)).content.decode()
    assert "Build questionnaires" in page and "No questionnaires yet" in page
    response = staff.post(study_url(study, "build"), {"count": 2, "seed": 7})
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "Built 2 questionnaire(s), numbers 1–2, with seed 7."
    ]
    page = staff.get(study_url(study)).content.decode()
    assert "Add questionnaires" in page
    staff.post(study_url(study, "build"), {"count": 1, "seed": 8})
    assert list(study.questionnaires.values_list("number", "seed")) == [(1, 7), (2, 7), (3, 8)]


def test_a_build_that_cannot_be_done_says_why(staff, db):
    make_pool(size=30)
    study = make_study()
    response = staff.post(study_url(study, "build"), {"count": 2, "seed": 1}, follow=True)
    page = response.content.decode()
    assert "Nothing was built: rule" in page and "short by" in page
    assert not study.questionnaires.exists()
    response = staff.post(study_url(study, "build"), {"count": 0, "seed": 1}, follow=True)
    assert "Questionnaires: Ensure this value is greater than or equal to 1." in (
        response.content.decode()
    )
    assert staff.get(study_url(study, "build")).status_code == 405
    # Read by the program's one number rule: Django's IntegerField takes all three.
    for typed in ("1_0", "\u0663", "2.0"):
        response = staff.post(study_url(study, "build"), {"count": typed, "seed": 1}, follow=True)
        assert "Questionnaires: Enter a whole number." in response.content.decode(), typed


def test_the_study_page_names_the_target_language(staff, built):
    page = staff.get(study_url(built)).content.decode()
    assert "target language <span data-language>English (en)</span>" in page
    Study.objects.filter(pk=built.pk).update(language="fr")
    page = staff.get(study_url(built)).content.decode()
    assert "<span data-language>French (fr)</span>" in page


def test_the_study_page_says_what_each_pair_asks(staff, built):
    page = staff.get(study_url(built)).content.decode()
    assert (
        "<p data-questions>Each pair asks the two questions (both needed to move on).</p>" in page
    )
    Study.objects.filter(pk=built.pk).update(word_marks=True, require_both_answers=False)
    page = staff.get(study_url(built)).content.decode()
    assert (
        "<p data-questions>Each pair asks the two questions (either may be left unanswered), "
        "and which words of the first sentence are out of place, or that none is (needed to "
        "move on; asked on the web only, so the study is not printed).</p>"
    ) in page


def test_the_study_page_counts_participants_answers_and_time(staff, built):
    q1 = built.questionnaires.get(number=1)
    now = timezone.now()
    for status in ("assigned", "in_progress", "completed", "completed", "abandoned", "withdrawn"):
        Participant.objects.create(study=built, questionnaire=q1, status=status)
    # the two completed participants took 30 and 40 minutes: median 35
    for p, minutes in zip(q1.participants.filter(status="completed"), (30, 40), strict=True):
        Participant.objects.filter(pk=p.pk).update(
            consented_at=now - timedelta(minutes=minutes), completed_at=now
        )
        for entry in q1.entries.all():
            Rating.objects.create(participant=p, item=entry.item, position=entry.position, order=3)
    response = staff.get(study_url(built))
    rows = {row["questionnaire"].number: row for row in response.context["rows"]}
    assert rows[1]["counts"] == [1, 1, 2, 1, 1]  # assigned … withdrawn
    assert rows[1]["answers"] == (2, 2)
    assert rows[1]["minutes"] == pytest.approx(35)
    assert rows[2]["counts"] == [0, 0, 0, 0, 0] and rows[2]["answers"] == (0, 0)
    assert response.context["totals"] == [1, 1, 2, 1, 1]
    page = response.content.decode()
    assert "35.0" in page and "Every questionnaire matches the configured balance." in page


def test_a_questionnaire_that_drifts_is_flagged(staff, built):
    QuestionnaireEntry.objects.filter(questionnaire__number=2, position=50).delete()
    response = staff.get(study_url(built))
    page = response.content.decode()
    assert "Drift from the configured balance" in page
    assert "Questionnaire 2: 49 items, configured 50" in page
    assert [row["drift"] for row in response.context["rows"]] == [False, True, False]


def test_the_design_table_is_table_6_3(staff, built):
    rows = staff.get(study_url(built)).context["layout_rows"]
    assert [(r["n"], r["kind"], r["type"], r["part"]) for r in rows] == [
        (10, "hypotheses", "", "shared"),
        (2, "permutations", "order", "shared"),
        (2, "permutations", "swap", "shared"),
        (2, "permutations", "phrase", "shared"),
        (2, "permutations", "choice", "shared"),
        (2, "permutations", "random", "shared"),
        (15, "hypotheses", "", "unique"),
        (2, "permutations", "order", "unique"),
        (2, "permutations", "swap", "unique"),
        (2, "permutations", "phrase", "unique"),
        (2, "permutations", "choice", "unique"),
        (7, "permutations", "random", "unique"),
    ]


def test_figures_are_served_as_png_and_svg(staff, built):
    for name in ("quality", "lengths", "languages"):
        png = staff.get(study_url(built, "figure", name=name, fmt="png"))
        assert png["Content-Type"] == "image/png" and png.content.startswith(b"\x89PNG")
    svg = staff.get(study_url(built, "figure", name="lengths", fmt="svg"))
    assert svg["Content-Type"] == "image/svg+xml" and b"<svg" in svg.content
    assert staff.get(study_url(built, "figure", name="nope", fmt="png")).status_code == 404
    assert staff.get(study_url(built, "figure", name="quality", fmt="gif")).status_code == 404


def test_the_questionnaire_page_lists_its_items_in_order(staff, built):
    q = built.questionnaires.get(number=3)
    response = staff.get(study_url(built, "questionnaire", number=3))
    assert [row["entry"].position for row in response.context["rows"]] == list(range(1, 51))
    assert response.context["questionnaire"] == q
    assert staff.get(study_url(built, "questionnaire", number=9)).status_code == 404


def test_the_questionnaire_page_shows_where_participants_marked_a_pair(staff, db):
    study = factories.make_study(questionnaires=1, items=2, word_marks=True)
    q = study.questionnaires.get()
    permuted = q.entries.get(position=2).item  # its first two words swapped
    for n, marks in enumerate(([[0, "x", "t"], [1, "y", "t"]], [[0, "x", "t"]], [], None)):
        person = Participant.objects.create(study=study, questionnaire=q)
        Rating.objects.create(
            participant=person, item=permuted, position=2, marks=marks, order=n + 1
        )
    response = staff.get(study_url(study, "questionnaire", number=1))
    row = next(r for r in response.context["rows"] if r["entry"].item == permuted)
    # Three answered the marks; the fourth did not.
    assert row["marked"] == 3
    words = permuted.text.split()
    assert [(u["text"], u["percent"], u["level"], u["truth"]) for u in row["strip"][:3]] == [
        (words[0], 67, 4, True),
        (words[1], 33, 2, True),
        (words[2], 0, 0, False),
    ]
    page = response.content.decode()
    assert f'class="unit m4 truth" title="marked by 67% of 3; in the truth">{words[0]}' in page
    hypothesis = next(r for r in response.context["rows"] if r["entry"].position == 1)
    assert hypothesis["strip"] == []


def test_releasing_abandoned_slots(staff, built):
    q = built.questionnaires.get(number=1)
    idle = Participant.objects.create(study=built, questionnaire=q, status="in_progress")
    Participant.objects.filter(pk=idle.pk).update(
        last_activity=timezone.now() - timedelta(minutes=built.abandon_after_minutes + 1)
    )
    response = staff.post(study_url(built, "release_slots"))
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "Released 1 slot(s) of participants idle for more than 120 minutes."
    ]
    idle.refresh_from_db()
    assert idle.status == "abandoned"


def test_simulated_participants_are_kept_apart_and_leavers_counted(staff, built):
    q1 = built.questionnaires.get(number=1)
    real = Participant.objects.create(study=built, questionnaire=q1, status="completed")
    simulated = Participant.objects.create(
        study=built, questionnaire=q1, status="completed", simulated=True
    )
    for p in (real, simulated):
        entry = q1.entries.first()
        Rating.objects.create(participant=p, item=entry.item, position=entry.position, order=3)
    DeclinedConsent.objects.create(study=built)
    Withdrawal.objects.create(study=built)
    Withdrawal.objects.create(study=built, simulated=True)
    response = staff.get(study_url(built))
    people = response.context["people"]
    assert people["real"] == [0, 0, 1, 0, 0] and people["simulated"] == [0, 0, 1, 0, 0]
    assert (people["declined"], people["withdrawn_real"], people["withdrawn_simulated"]) == (
        1,
        1,
        1,
    )
    rows = {row["questionnaire"].number: row for row in response.context["rows"]}
    assert rows[1]["counts"] == [0, 0, 1, 0, 0]  # the simulated one is not among them
    assert rows[1]["answers"][1] == 1
    assert response.context["modes"] == {"web": 1}  # the real one only
    index = staff.get(reverse("dashboard:index")).context["studies"]
    assert (index[0].participant_count, index[0].simulated_count) == (1, 1)
    # Participants are the real ones, web and paper apart; the simulated are counted beside.
    assert (index[0].web_count, index[0].paper_count) == (1, 0)


def test_the_study_page_shows_flags_comments_code_and_unfilled_settings(staff, built):
    Study.objects.filter(pk=built.pk).update(platform="prolific", completion_code="CODE42")
    q1 = built.questionnaires.get(number=1)
    person = Participant.objects.create(study=built, questionnaire=q1, status="in_progress")
    entry = q1.entries.first()
    Rating.objects.create(
        participant=person, item=entry.item, position=entry.position, flagged=True, comment="Odd"
    )
    page = staff.get(study_url(built)).content.decode()
    assert "Odd" in page and "flagged" in page
    assert "completion code <code data-completion-code>CODE42</code>" in page
    # make_study here fills no contact: the page names what keeps the study closed.
    assert "Status: Not ready" in page and "<li>needs researcher_name</li>" in page


@pytest.fixture
def uncompiled(tmp_path, monkeypatch):
    """The apps' catalogues as shipped, .po files only: none compiled."""
    import shutil

    from survey import checks

    (root,) = checks.locale_folders()
    copy = shutil.copytree(root, tmp_path / "survey/locale", ignore=shutil.ignore_patterns("*.mo"))
    monkeypatch.setattr(checks, "locale_folders", lambda: [copy])
    return copy


def test_a_study_whose_language_has_no_compiled_catalogue_fails_the_check_and_the_dashboard(
    staff, built, uncompiled
):
    from django.core.management import call_command
    from django.core.management.base import SystemCheckError

    from survey.checks import uncompiled_catalogues

    french = make_study(name="Étude", slug="etude")
    Study.objects.filter(pk=french.pk).update(language="fr")
    (error,) = [e for e in uncompiled_catalogues() if e.obj == Study.objects.get(pk=french.pk)]
    assert error.id == "survey.E001" and error.is_serious()
    assert "study 'etude': the 'fr' catalogue is not compiled" in error.msg
    assert str(uncompiled / "fr/LC_MESSAGES/django.mo") in error.msg
    with pytest.raises(SystemCheckError, match="survey.E001"):
        call_command("check")
    page = staff.get(study_url(french)).content.decode()
    assert 'data-catalogue="error"' in page and "would not be in French" in page
    index = staff.get(reverse("dashboard:index")).content.decode()
    assert 'data-catalogue="error"' in index and "Étude</a>: the &#x27;fr&#x27; catalogue" in index
    # Compiled, the check passes; an English study needs none.
    from wojdb.catalogues import compile_catalogues

    compile_catalogues(uncompiled.parent.parent)
    assert [e for e in uncompiled_catalogues() if e.is_serious()] == []
    assert 'data-catalogue="' not in staff.get(study_url(built)).content.decode()


def test_a_study_in_a_language_without_a_catalogue_is_warned_of(staff, db):
    study = make_study(name="Līvõ", slug="livo")
    Study.objects.filter(pk=study.pk).update(language="liv")
    from survey.checks import uncompiled_catalogues

    (warning,) = uncompiled_catalogues()
    assert warning.id == "survey.W002" and not warning.is_serious()
    assert "no catalogue in 'liv'" in warning.msg
    page = staff.get(study_url(study)).content.decode()
    assert 'data-catalogue="warning"' in page and "own words are in English" in page
