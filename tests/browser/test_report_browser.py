"""The analysis report page in Debian's chromium at desktop width (1280 × 800).

Screenshots go to test-artifacts/screenshots/report-*.png.
"""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from playwright.sync_api import expect

from analysis import report_views
from survey import access
from tests.analysis.test_analyse_command import rated_study
from wojdb.core.vocabulary import ANALYST

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

#: The analysis runs within the request here, once per group of participants: on a busy
#: machine it takes longer than a click's default 30 s.
RUN_TIMEOUT = 120_000
NO_SIDEWAYS_SCROLL = (
    "document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth"
)


@pytest.fixture
def staff_user(db):
    return get_user_model().objects.create_user(
        "researcher", password="a-long-password", is_staff=True
    )


@pytest.fixture
def synchronous(monkeypatch, settings, tmp_path):
    settings.WOJDB_REPORTS_DIR = tmp_path / "reports"
    # The run finishes within the request, so the page after it shows the new report.
    monkeypatch.setattr(report_views, "run_in_background", lambda job: job())


@pytest.mark.slow
def test_the_report_fits_1280_px_and_tells_of_newer_answers(
    live_server, page, staff_user, log_in_as, synchronous, screenshot
):
    study = rated_study(participants=4)
    # One person among simulated participants: the report shows each group apart.
    first = study.participants.order_by("pk").first()
    study.participants.filter(pk=first.pk).update(simulated=False)
    access.set_role(study, staff_user, ANALYST)  # an analyst of the study: reports are theirs
    log_in_as(page, live_server, staff_user)
    page.goto(f"{live_server.url}/researcher/studies/{study.slug}/")
    page.get_by_role("link", name="Report", exact=True).first.click()
    page.get_by_role("button", name="Generate", exact=True).click(timeout=RUN_TIMEOUT)
    expect(page.get_by_role("link", name="Open the report")).to_be_visible()
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    expect(page.locator("#newer-answers")).to_have_count(0)

    page.goto(f"{live_server.url}/researcher/report/{study.slug}/latest/")
    expect(page.get_by_role("heading", name=f"WOJ-DB analysis: {study.name}")).to_be_visible()
    for group in ("real", "simulated"):
        heading = page.get_by_role("heading", name=f"Response trends ({group} participants)")
        expect(heading).to_be_visible()
    screenshot(page, "report-1280")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    call_command(
        "simulate_responses", "--participants", "1", "--study", study.slug, stdout=StringIO()
    )
    page.goto(f"{live_server.url}/researcher/report/{study.slug}/")
    notice = page.locator("#newer-answers")
    expect(notice).to_contain_text("newer than this report")
    screenshot(page, "report-index-newer")
    notice.get_by_role("button", name="Regenerate the report").click(timeout=RUN_TIMEOUT)
    expect(page.get_by_role("link", name="Open the report")).to_be_visible()
    expect(page.locator("#newer-answers")).to_have_count(0)
    row = page.locator("tr", has_text="Participants analysed: simulated")
    expect(row.locator("td")).to_have_text("4")
