"""A SONA study in Debian's chromium, on a desktop and a phone: from the study link SONA gives
(its id in the parameter the researcher named) through the whole study to the credit address
on the institution's SONA site, which must receive the experiment, the token and the id.

Screenshots go to test-artifacts/screenshots/sona-*.png (full pages, and the credit button on
the screen as the participant sees it).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from survey.models import Participant, PlatformIdentity
from tests.browser.conftest import SCREENSHOTS, save_screenshot
from tests.factories import make_study
from wojdb.core.texts import en

SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
CREDIT = "https://psych.sona-systems.com/webstudy_credit.aspx?experiment_id=417&credit_token=e2a9"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def heading(page):
    return page.get_by_role("heading", level=1)


@pytest.mark.parametrize("size", SIZES)
def test_a_sona_participant_goes_from_the_link_to_their_credit(browser, live_server, size):
    study = make_study(
        questionnaires=1,
        items=2,
        platform="sona",
        platform_settings={
            "sona": {"credit_url": CREDIT + "&survey_code=XXXX", "id_parameter": "sid"}
        },
    )
    study.consent_texts.all().delete()  # the default statements
    context = browser.new_context(locale="en-GB", viewport=SIZES[size])
    credited = []

    def sona_answers(route):
        """SONA's credit page, answered locally: the test never leaves the machine."""
        credited.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<h1>Credit granted</h1>")

    context.route("https://psych.sona-systems.com/**", sona_answers)
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{study.slug}/?sid=83021")
    expect(heading(page)).to_have_text("Participant Information Sheet")
    save_screenshot(page, f"sona-{size}-01-information")
    page.get_by_role("button", name="Continue to the consent form").click()
    for number, statement in enumerate(en.CONSENT_STATEMENTS, start=1):
        page.get_by_role("group", name=f"{number} {statement}").get_by_label("Yes").check()
    page.get_by_role("button", name="I consent — continue").click()
    expect(heading(page)).to_have_text("About you")
    page.get_by_role("button", name="Continue", exact=True).click()
    page.get_by_role("link", name="Start the practice pair").click()
    for pair in ("Practice pair", "Pair 1 of 2", "Pair 2 of 2"):
        expect(heading(page)).to_have_text(pair)
        page.wait_for_load_state("load")
        for name in ("holistic", "order"):
            page.locator(f"label[for='{name}-4']").click()
        expect(page.locator("[data-save-state]")).to_have_text("Saved.")
        if pair == "Practice pair":
            page.get_by_role("button", name="Check my answers").click()
            page.get_by_role("button", name="Start pair 1").click()
        else:
            page.get_by_role(
                "button", name="Next: finish" if pair.startswith("Pair 2") else "Next"
            ).click()
    expect(heading(page)).to_have_text("Before you finish")
    page.get_by_role("button", name="Finish and submit my answers").click()

    expect(heading(page)).to_have_text("Thank you — your answers are saved")
    button = page.get_by_role("link", name="Receive your credit on SONA")
    expect(button).to_be_visible()
    save_screenshot(page, f"sona-{size}-02-done")
    button.scroll_into_view_if_needed()  # the hand-in as the participant sees it
    page.screenshot(path=str(SCREENSHOTS / f"sona-{size}-03-credit-button.png"))
    assert credited == []  # nothing moves on by itself
    button.click()
    page.wait_for_url("https://psych.sona-systems.com/**")
    expect(page.get_by_role("heading")).to_have_text("Credit granted")

    (url,) = credited
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "psych.sona-systems.com",
        "/webstudy_credit.aspx",
    )
    assert parse_qs(parts.query) == {
        "experiment_id": ["417"],
        "credit_token": ["e2a9"],
        "survey_code": ["83021"],
    }
    person = Participant.objects.get()
    assert person.status == "completed"
    assert PlatformIdentity.objects.get(participant=person).pid == "83021"
    context.close()
