"""The study link opened again in the same browser, in Debian's chromium: the participation is
resumed, and starting afresh is a choice the page offers."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from survey.models import Participant
from tests.factories import make_study

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


def test_the_same_browser_resumes_and_may_start_afresh(live_server, page, screenshot):
    study = make_study(questionnaires=2)
    link = f"{live_server.url}/s/{study.slug}/"
    page.goto(link)
    page.get_by_role("button", name="Continue to the consent form").click()
    expect(page).to_have_url(re.compile(r"/p/[^/]+/consent/$"))
    first = Participant.objects.get()

    page.goto(link)
    expect(page.get_by_role("heading", level=1)).to_have_text("You have already started this study")
    screenshot(page, "study-link-again")
    page.get_by_role("link", name="Continue where you left off").click()
    expect(page).to_have_url(f"{live_server.url}/p/{first.token}/consent/")
    assert Participant.objects.count() == 1

    page.goto(link)
    page.get_by_role("button", name="Start afresh as a new participant").focus()
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/p/[^/]+/consent/$"))
    assert first.token not in page.url
    first.refresh_from_db()
    assert first.status == "abandoned" and Participant.objects.count() == 2
