"""Pages in French and German on a phone (390 × 844) in Debian's chromium: their longer labels
fit, and the header's button never covers the pair's heading.

Screenshots: test-artifacts/screenshots/language-{fr,de}-{practice,about}.png.
"""

from __future__ import annotations

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from survey.participants import participation
from tests.browser.test_right_to_left import box, overflowing
from tests.factories import make_study

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]
HEADINGS = {"fr": "Paire d'entraînement", "de": "Übungspaar"}


@pytest.mark.viewport(390, 844)
@pytest.mark.parametrize("language", HEADINGS)
def test_a_phone_fits_the_pages_of_a_study_in_french_or_german(
    page, live_server, screenshot, language
):
    study = make_study(language=language, questionnaires=1, items=2)
    study.take_language_defaults()
    study.save()
    participant = participation.enter(study, {})
    consent = participation.current_consent(study)
    participation.give_consent(participant, consent, now=timezone.now())

    page.goto(f"{live_server.url}/p/{participant.token}/about/")
    expect(page.locator("html")).to_have_attribute("lang", language)
    assert overflowing(page) == []
    screenshot(page, f"language-{language}-about")

    page.goto(f"{live_server.url}/p/{participant.token}/item/0/")
    heading = page.get_by_role("heading", level=1)
    expect(heading).to_have_text(HEADINGS[language])
    toggle = box(page.locator(".reading-toggle button"))
    text = heading.evaluate(
        "h => { const r = document.createRange(); r.selectNodeContents(h);"
        " const b = r.getBoundingClientRect(); return {x: b.x, width: b.width}; }"
    )
    assert text["x"] + text["width"] <= toggle["x"], "the button covers the heading"
    assert overflowing(page) == []
    screenshot(page, f"language-{language}-practice")
