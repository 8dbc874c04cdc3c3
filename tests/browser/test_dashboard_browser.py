"""The researcher's dashboard in Debian's chromium: what staff see, and who is kept out.

Screenshots at desktop width go to test-artifacts/screenshots/dashboard-*.png.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from survey.design.questionnaires import build_questionnaires
from survey.models import Participant, QuestionnaireEntry, Rating
from tests.survey.test_questionnaires import make_pool, make_study

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


@pytest.fixture
def staff_user(db):
    return get_user_model().objects.create_user(
        "researcher", password="a-long-password", is_staff=True, is_superuser=True
    )


def running_study(count=36):
    """A study of `count` questionnaires part-way through: participants in every state, and
    the completed ones' answers."""
    make_pool(size=15 * count + 30, degrees=(2, 8, 14))
    study = make_study(name="WOJ-DB main study")
    build_questionnaires(study, count, seed=2017)
    rng = random.Random(1)
    now = timezone.now()
    statuses = ["completed"] * 30 + ["in_progress"] * 4 + ["assigned"] * 2 + ["abandoned"] * 3
    ratings = []
    for i, status in enumerate(statuses):
        q = study.questionnaires.get(number=1 + i % count)
        minutes = rng.uniform(28, 45)
        p = Participant.objects.create(
            study=study,
            questionnaire=q,
            status=status,
            consented_at=now - timedelta(minutes=minutes),
            completed_at=now if status == "completed" else None,
        )
        if status == "completed":
            ratings += [
                Rating(
                    participant=p,
                    item_id=e.item_id,
                    position=e.position,
                    holistic=rng.randint(1, 5),
                    order=rng.randint(1, 5),
                    client_ms=rng.randint(9_000, 40_000),
                )
                for e in q.entries.all()
            ]
    Rating.objects.bulk_create(ratings)
    return study


def test_staff_see_the_dashboard(live_server, page, screenshot, staff_user):
    study = running_study()
    # Staff sign in through the admin's login page, where the dashboard sends them.
    page.goto(f"{live_server.url}/researcher/")
    expect(page).to_have_url(f"{live_server.url}/admin/login/?next=/researcher/")
    page.get_by_label("Username").fill("researcher")
    page.get_by_label("Password").fill("a-long-password")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Studies")
    screenshot(page, "dashboard-index")

    page.get_by_role("link", name=study.name).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(study.name)
    table = page.locator("table.questionnaires")
    expect(table.locator("tbody tr")).to_have_count(36)
    # questionnaire 1 has a completed participant, 36 only an assigned one
    expect(table.locator("tbody tr").first.locator("td").first).to_have_text("frozen")
    expect(table.locator("tbody tr").last.locator("td").first).to_have_text("editable")
    expect(table.locator("tfoot td").first).to_have_text("2")  # assigned, over all
    expect(page.get_by_text("Every questionnaire matches the configured balance.")).to_be_visible()
    page.wait_for_load_state("load")  # the figures are drawn on request
    figures = page.locator("figure img")
    expect(figures).to_have_count(3)
    for i in range(3):
        assert figures.nth(i).evaluate("img => img.complete && img.naturalWidth") == 1400
    assert page.locator("script").count() == 0  # nothing a strict CSP would block
    screenshot(page, "dashboard-study")

    page.get_by_role("link", name="1", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Questionnaire 1")
    expect(page.locator("table.entries tbody tr")).to_have_count(50)
    screenshot(page, "dashboard-questionnaire")


def test_staff_build_questionnaires_and_see_drift(
    live_server, page, screenshot, log_in_as, staff_user
):
    make_pool(size=120, degrees=(2, 8, 14))
    study = make_study(name="Pilot")
    log_in_as(page, live_server, staff_user)
    page.goto(f"{live_server.url}/researcher/studies/{study.slug}/")
    expect(page.get_by_text("No questionnaires yet")).to_be_visible()
    page.get_by_role("spinbutton", name="Questionnaires").fill("4")
    page.get_by_role("spinbutton", name="Seed").fill("5")
    page.get_by_role("button", name="Build").click()
    expect(page.get_by_role("status")).to_have_text(
        "Built 4 questionnaire(s), numbers 1–4, with seed 5."
    )
    expect(page.locator("table.questionnaires tbody tr")).to_have_count(4)

    QuestionnaireEntry.objects.filter(questionnaire__number=3, position=50).delete()
    page.reload()
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Questionnaire 3: 49 items, configured 50")
    expect(page.locator("tr.drift")).to_have_count(1)
    screenshot(page, "dashboard-drift")


def test_people_who_are_not_staff_are_kept_out(live_server, page, log_in_as, db):
    study = make_study(name="Closed doors")
    url = f"{live_server.url}/researcher/studies/{study.slug}/"
    page.goto(url)
    expect(page).to_have_url(
        f"{live_server.url}/admin/login/?next=/researcher/studies/{study.slug}/"
    )
    participant = get_user_model().objects.create_user("someone", password="a-long-password")
    log_in_as(page, live_server, participant)
    response = page.goto(url)
    assert response.status == 403
    expect(page.get_by_text(study.name)).to_have_count(0)
