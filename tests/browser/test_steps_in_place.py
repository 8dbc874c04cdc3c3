"""The steps before the pairs in Debian's chromium: the study link's "Continue", the consent
and the about-you page each post once and show the next step's page from the reply, in place
(its address in the history, focus at its start), or the same page with what to correct;
declining leads to its page as before. The same steps without the script are covered by the
whole flow without JavaScript (test_participant_flow.py)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from survey.models import Participant
from tests.browser.test_participant_flow import heading
from tests.factories import make_study
from wojdb.core.texts import en

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


@pytest.fixture
def sent(page):
    """The requests for the study's pages (the browser fetches its assets too)."""
    made = []
    page.on(
        "request",
        lambda r: re.search(r"/(p|s|declined)/", r.url) and made.append((r.method, r.url)),
    )
    return made


def consent_to(page, statements: int | None = None) -> None:
    """Yes to the first `statements` statements of the consent form (to all: None)."""
    groups = page.locator("form[data-step] fieldset.question")
    for number in range(groups.count() if statements is None else statements):
        groups.nth(number).get_by_label("Yes", exact=True).check()


def test_each_step_posts_once_and_shows_the_next_in_place(page, live_server, sent):
    study = make_study(questionnaires=1, items=2)
    page.goto(f"{live_server.url}/s/{study.slug}/")
    page.evaluate("window.loadedAs = 'study link'")  # gone if a page is loaded
    sent.clear()
    page.get_by_role("button", name="Continue to the consent form").click()
    expect(heading(page)).to_contain_text("Participant Consent Form")
    person = Participant.objects.get(study=study)
    own = f"{live_server.url}/p/{person.token}"
    assert sent == [("POST", f"{live_server.url}/s/{study.slug}/")]
    expect(page).to_have_url(f"{own}/consent/")
    expect(page).to_have_title(re.compile("^Consent form "))
    assert page.evaluate("document.activeElement.id") == "main"

    # Half answered: the same page, saying what is missing, at the same address.
    sent.clear()
    consent_to(page, 1)
    page.get_by_role("button", name="I consent — continue").click()
    expect(page.get_by_text("Please answer Yes or No to every statement.")).to_be_visible()
    expect(page.locator("[data-error-summary]")).to_be_focused()
    expect(page).to_have_url(f"{own}/consent/")
    consent_to(page)
    page.get_by_role("button", name="I consent — continue").click()
    expect(heading(page)).to_have_text("About you")
    assert sent == [("POST", f"{own}/consent/")] * 2
    expect(page).to_have_url(f"{own}/about/")

    # The about-you page's own script works on the page shown: a language row added.
    page.locator("#id_languages-0-language").fill("Welsh")
    page.locator("#id_languages-0-fluency").select_option(label="Native")
    page.get_by_role("button", name="Add another language").click()
    expect(page.get_by_role("group", name="Language 2")).to_be_visible()
    page.get_by_label(en.ABOUT_YOU["age"]).fill("150")
    sent.clear()
    page.get_by_role("button", name="Continue", exact=True).click()
    expect(page.locator("[data-error-summary]")).to_be_focused()
    page.get_by_label(en.ABOUT_YOU["age"]).fill("41")
    page.get_by_role("button", name="Continue", exact=True).click()
    expect(heading(page)).to_have_text("Instructions")
    assert sent == [("POST", f"{own}/about/")] * 2
    expect(page).to_have_url(f"{own}/instructions/")
    assert page.evaluate("window.loadedAs") == "study link"
    person.refresh_from_db()
    assert (person.about_done, person.age) == (True, 41)
    assert list(person.languages.values_list("language", flat=True)) == ["Welsh"]

    # The browser's Back loads the page its address names; so does Forward pressed on that
    # page before its script has run (the script held back until then): the address moves
    # within the page loaded, which its script, once run, finds naming another.
    held = []
    page.route(
        "**/participant*.js",
        lambda route: route.continue_() if held else held.append(route),
    )
    page.go_back()
    expect(heading(page)).to_have_text("About you")
    assert page.evaluate("window.loadedAs") is None
    page.go_forward(wait_until="commit")
    expect(page).to_have_url(f"{own}/instructions/")
    held[0].continue_()
    expect(heading(page)).to_have_text("Instructions")
    page.get_by_role("link", name="Start the practice pair").click()
    expect(heading(page)).to_have_text("Practice pair")


def test_declining_shows_its_page(page, live_server, sent):
    study = make_study(questionnaires=1, items=2)
    page.goto(f"{live_server.url}/s/{study.slug}/")
    page.get_by_role("button", name="Continue to the consent form").click()
    expect(heading(page)).to_contain_text("Participant Consent Form")
    page.get_by_role("button", name="I do not wish to take part").click()
    expect(heading(page)).to_have_text("Thank you for considering taking part")
    expect(page).to_have_url(f"{live_server.url}/declined/?study={study.slug}")
    assert not Participant.objects.filter(study=study).exists()
