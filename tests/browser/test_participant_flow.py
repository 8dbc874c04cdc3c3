"""A participant's whole journey in Debian's chromium: with the mouse, with the keyboard only,
on a 375-px phone with a reload and a resume on another device, and without JavaScript.

Each test saves a screenshot of every page under test-artifacts/screenshots/ and checks what
the page shows and, at the end, that the database holds exactly the answers given. The
session's chromium is the `browser` fixture of tests/browser/conftest.py; each test opens its
own context (desktop, phone, or without JavaScript).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from survey.models import Participant, ParticipantLanguage, PlatformIdentity, Rating
from tests.browser.conftest import put_aside
from tests.factories import make_study
from wojdb.core.texts import en

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
PAIRS = 5
STATEMENTS = len(en.CONSENT_STATEMENTS)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


@pytest.fixture
def new_context(browser):
    """Open browser contexts (one per device) that are closed after the test, passed or not."""
    opened = []

    def open_context(**options):
        context = browser.new_context(locale="en-GB", **options)
        opened.append(context)
        return context

    yield open_context
    for context in opened:
        context.close()


@pytest.fixture
def study(live_server):
    study = make_study(
        questionnaires=1,
        items=PAIRS,
        researcher_name="R. Searcher",
        researcher_email="researcher@example.org",
        supervisor_name="S. Upervisor",
        supervisor_email="supervisor@example.org",
        platform="generic",
        platform_return_url=f"{live_server.url}/?cc={{code}}",
        # These flows leave questions unanswered on purpose, to reach the final check with them;
        # a study asking for both answers is walked in test_participant_end.py.
        require_both_answers=False,
    )
    study.consent_texts.all().delete()  # the default statements
    return study


class Camera:
    """Numbered full-page screenshots of one flow."""

    def __init__(self, flow: str):
        self.flow = f"participant-{flow}"
        self.count = 0
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        for old in SCREENSHOTS.glob(f"{self.flow}-*.png"):
            old.unlink()

    def __call__(self, page, name: str) -> None:
        self.count += 1
        path = SCREENSHOTS / f"{self.flow}-{self.count:02d}-{name}.png"
        # A full-page capture resizes the page for a moment, after which chromium would scroll a
        # focused text box back into view at the next click; so such a box is left during it.
        page.evaluate(STEP_ASIDE)
        page.screenshot(path=str(path), full_page=True)
        page.evaluate(STEP_BACK)


STEP_ASIDE = """() => {
  const e = document.activeElement;
  window.focusBeforeShot = e && e.matches("input:not([type=radio]), select, textarea") ? e : null;
  if (window.focusBeforeShot) e.blur();
}"""
STEP_BACK = "() => window.focusBeforeShot && window.focusBeforeShot.focus({preventScroll: true})"


def saved_answers(participant_id) -> dict[int, tuple]:
    return {
        r.position: (r.holistic, r.order, r.practice)
        for r in Rating.objects.filter(participant_id=participant_id)
    }


def the_participant() -> Participant:
    return Participant.objects.get()


def heading(page):
    return page.get_by_role("heading", level=1)


def statement_group(page, number: int):
    statement = en.CONSENT_STATEMENTS[number - 1]
    return page.get_by_role("group", name=f"{number} {statement}")


def scale(page, name: str):
    return page.locator(f"fieldset[data-scale='{name}']")


def expect_saved(page):
    expect(page.locator("[data-save-state]")).to_have_text("Saved.")


def answer_with_mouse(page, holistic=None, order=None):
    for name, value in (("holistic", holistic), ("order", order)):
        if value is not None:
            page.locator(f"label[for='{name}-{value}']").click()
    if holistic is not None and order is not None:
        expect_saved(page)  # a pair's answers are saved together


def expect_item(page, position: int):
    title = "Practice pair" if position == 0 else f"Pair {position} of {PAIRS}"
    expect(heading(page)).to_have_text(title)


def through_the_instructions(page, press=None):
    """The instructions page, then its link to the practice pair (clicked, or `press`ed)."""
    expect(heading(page)).to_have_text("Instructions")
    start = page.get_by_role("link", name="Start the practice pair")
    if press:
        start.focus()
        page.keyboard.press(press)
    else:
        start.click()


def expect_checked(page, holistic, order):
    for name, value in (("holistic", holistic), ("order", order)):
        if value is None:
            expect(scale(page, name).locator("input:checked")).to_have_count(0)
        else:
            expect(page.locator(f"#{name}-{value}")).to_be_checked()


def test_the_whole_flow_with_the_mouse(new_context, live_server, study):
    shot = Camera("mouse")
    context = new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{study.slug}/?pid=60aa11")
    expect(heading(page)).to_have_text("Participant Information Sheet")
    expect(page.get_by_text("Researcher: R. Searcher Contact Details:")).to_be_visible()
    shot(page, "information")
    page.get_by_role("button", name="Continue to the consent form").click()

    expect(heading(page)).to_contain_text("Participant Consent Form")
    for number in range(1, STATEMENTS + 1):
        statement_group(page, number).get_by_label("Yes").check()
    shot(page, "consent")
    page.get_by_role("button", name="I consent — continue").click()

    expect(heading(page)).to_have_text("About you")
    page.get_by_role("group", name=re.compile("Is English your first language")).get_by_label(
        "No"
    ).check()
    page.get_by_label(en.ABOUT_YOU["target_years"]).fill("15")
    page.locator("#id_languages-0-language").fill("English")
    page.locator("#id_languages-0-fluency").select_option(label="Fluent")
    page.locator("#id_languages-1-language").fill("Polish")
    page.locator("#id_languages-1-fluency").select_option(label="Native")
    page.get_by_role("button", name="Add another language").click()
    expect(page.get_by_role("group", name="Language 3")).to_be_visible()
    page.locator("#id_languages-2-language").fill("German")
    page.locator("#id_languages-2-fluency").select_option(label="A few words")
    page.locator("#id_languages-2-qualifications").fill("GCSE")
    page.get_by_role("group", name=re.compile("What gender")).get_by_label("Female").check()
    page.get_by_label(en.ABOUT_YOU["nationality"]).fill("Polish")
    page.get_by_label("Masters degree").check()
    page.get_by_role("group", name=re.compile("disabilities")).get_by_label("No").check()
    page.locator("label[for='grammar_attention-4']").click()
    page.get_by_label(en.ABOUT_YOU["age"]).fill("29")
    shot(page, "about-you")
    page.get_by_role("button", name="Continue", exact=True).click()

    through_the_instructions(page)
    expect_item(page, 0)
    answer_with_mouse(page, 2, 4)
    shot(page, "sample")
    page.get_by_role("button", name="Check my answers").click()
    expect(page.locator(".scale .note")).to_have_count(2)
    page.get_by_role("button", name="Start pair 1").click()

    plan = {1: (5, 4), 2: (3, None), 3: (1, 2), 4: (4, 4), 5: (None, None)}
    refused = []
    for position, (holistic, order) in plan.items():
        expect_item(page, position)
        expect(page.locator("progress")).to_have_attribute("value", str(position))
        if position == 4:
            # The page's security cookie is gone (as after clearing cookies): the first save is
            # refused, and the page renews its token and saves without the participant noticing.
            context.clear_cookies()
            page.on(
                "response", lambda r, refused=refused: r.status == 403 and refused.append(r.url)
            )
        answer_with_mouse(page, holistic, order)
        if position == 4:
            assert refused == [page.url]  # refused once, then saved with the renewed token
        shot(page, f"pair-{position}")
        page.get_by_role("button", name=re.compile("^Next")).click()
        if position == 4:
            # Back to pair 3 to revise the first answer.
            expect_item(page, 5)
            for back_to in (4, 3):
                page.get_by_role("button", name="Back").click()
                expect_item(page, back_to)
            expect_checked(page, 1, 2)
            answer_with_mouse(page, holistic=2)
            shot(page, "pair-3-revised")
            page.get_by_role("button", name="Next").click()
            expect_item(page, 4)
            expect_checked(page, 4, 4)
            page.get_by_role("button", name="Next").click()

    expect(heading(page)).to_have_text("Before you finish")
    expect(page.get_by_role("listitem")).to_have_text(
        ["Pair 2: question 2 not answered", "Pair 5: neither question answered"]
    )
    shot(page, "review")
    page.get_by_role("link", name="Pair 5", exact=True).click()
    expect_item(page, 5)
    answer_with_mouse(page, 2, 3)
    page.get_by_role("button", name="Next: finish").click()
    expect(page.get_by_role("listitem")).to_have_text(["Pair 2: question 2 not answered"])
    page.get_by_role("button", name="Finish and submit my answers").click()

    expect(heading(page)).to_have_text("Thank you — your answers are saved")
    participant = the_participant()
    expect(page.locator("[data-completion-code]")).to_have_text(participant.completion_code)
    expect(page.get_by_text("This research project was conducted")).to_be_visible()
    shot(page, "debriefing")

    assert participant.status == "completed"
    assert saved_answers(participant.pk) == {
        0: (2, 4, True),
        1: (5, 4, False),
        2: (3, None, False),
        3: (2, 2, False),
        4: (4, 4, False),
        5: (2, 3, False),
    }
    ratings = {r.position: r for r in Rating.objects.filter(participant=participant)}
    assert ratings[3].revisions == 1
    assert sum(r.revisions for r in ratings.values()) == 1
    assert all(r.client_ms and r.client_ms > 0 for r in ratings.values())
    assert all(r.shown_at <= r.answered_at for r in ratings.values())
    assert (participant.target_first, participant.target_years) == (False, 15)
    assert (participant.gender, participant.nationality) == ("female", "Polish")
    assert (participant.education, participant.reading_disability) == ("masters", "No")
    assert (participant.grammar_attention, participant.age) == (4, 29)
    languages = ParticipantLanguage.objects.filter(participant=participant).order_by("pk")
    assert [(lang.language, lang.fluency, lang.qualifications) for lang in languages] == [
        ("English", 4, ""),
        ("Polish", 7, ""),
        ("German", 1, "GCSE"),
    ]
    assert PlatformIdentity.objects.get(participant=participant).pid == "60aa11"

    # The platform's return link is followed only now that everything is saved.
    page.get_by_role("link", name="Return to the study platform").click()
    expect(page).to_have_url(f"{live_server.url}/?cc={participant.completion_code}")


def focused(page) -> str:
    return page.evaluate(
        "() => { const e = document.activeElement;"
        " return (e.labels && e.labels[0] ? e.labels[0].innerText : e.innerText || e.name)"
        ".trim(); }"
    )


def tab_to(page, name: str, limit: int = 80) -> None:
    """Press Tab until the focused element is called `name`."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if focused(page) == name:
            return
    raise AssertionError(f"{name!r} never took the focus")


def keys(page, *pressed):
    for key in pressed:
        page.keyboard.press(key)


def test_the_whole_flow_with_the_keyboard_only(new_context, live_server, study):
    shot = Camera("keyboard")
    context = new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{study.slug}/")
    page.keyboard.press("Tab")
    assert focused(page) == "Skip to the main content"
    tab_to(page, "Continue to the consent form")
    shot(page, "information")
    page.keyboard.press("Enter")

    expect(heading(page)).to_contain_text("Participant Consent Form")
    tab_to(page, "Yes")
    for number in range(1, STATEMENTS + 1):
        page.keyboard.press("Space")
        expect(statement_group(page, number).get_by_label("Yes")).to_be_checked()
        page.keyboard.press("Tab")
    assert focused(page) == "I consent — continue"
    shot(page, "consent")
    page.keyboard.press("Enter")

    expect(heading(page)).to_have_text("About you")
    tab_to(page, "Yes")  # the first answer of question 1.1
    page.keyboard.press("ArrowRight")  # moves to, and selects, "No"
    page.keyboard.press("Tab")
    page.keyboard.type("3")
    page.keyboard.press("Tab")
    page.keyboard.type("English")
    page.keyboard.press("Tab")
    page.keyboard.type("F")  # "Fluent"
    tab_to(page, "Add another language")
    page.keyboard.press("Enter")
    page.keyboard.type("Gaelic")
    page.keyboard.press("Tab")
    page.keyboard.type("N")  # "Native"
    tab_to(page, "Male")  # the first answer of question 1.3
    keys(page, "ArrowDown", "ArrowDown", "ArrowDown")  # arrows select as they move
    assert focused(page) == "Prefer not to say"
    tab_to(page, en.ABOUT_YOU["age"].join(["1.8 ", ""]))
    page.keyboard.type("52")
    shot(page, "about-you")
    page.keyboard.press("Enter")  # submits the form, as Enter in a text box does

    through_the_instructions(page, press="Enter")
    expect_item(page, 0)
    expect(page.get_by_text("Keyboard: press 1–5")).to_be_visible()
    keys(page, "3")
    expect(page.locator("#holistic-3")).to_be_checked()
    assert page.evaluate("document.activeElement.name") == "order"  # on to the second question
    keys(page, "3")
    expect_saved(page)
    shot(page, "sample")
    keys(page, "Enter")
    expect(page.get_by_role("button", name="Start pair 1")).to_be_visible()
    keys(page, "Enter")

    plan = {1: ("4", "5"), 2: ("2", "1"), 3: (), 4: ("5",), 5: ("1", "1")}
    for position, pressed in plan.items():
        expect_item(page, position)
        keys(page, *pressed)
        if len(pressed) == 2:
            expect_saved(page)  # an answer leaving the pair open goes with Enter
        shot(page, f"pair-{position}")
        keys(page, "Enter")

    expect(heading(page)).to_have_text("Before you finish")
    expect(page.get_by_role("listitem")).to_have_text(
        ["Pair 3: neither question answered", "Pair 4: question 2 not answered"]
    )
    tab_to(page, "Finish and submit my answers")
    shot(page, "review")
    page.keyboard.press("Enter")

    expect(heading(page)).to_have_text("Thank you — your answers are saved")
    participant = the_participant()
    expect(page.locator("[data-completion-code]")).to_have_text(participant.completion_code)
    shot(page, "debriefing")
    assert saved_answers(participant.pk) == {
        0: (3, 3, True),
        1: (4, 5, False),
        2: (2, 1, False),
        3: (None, None, False),
        4: (5, None, False),
        5: (1, 1, False),
    }
    assert (participant.target_first, participant.target_years) == (False, 3)
    assert (participant.gender, participant.age) == ("not_say", 52)
    languages = ParticipantLanguage.objects.filter(participant=participant).order_by("pk")
    assert [(lang.language, lang.fluency) for lang in languages] == [
        ("English", 4),
        ("Gaelic", 7),
    ]


def assert_fits_the_phone(page):
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page is {width}px wide"


def test_the_whole_flow_on_a_phone_with_a_reload_and_a_resume_elsewhere(
    new_context, live_server, study
):
    shot = Camera("phone")
    phone = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True}
    context = new_context(**phone)
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{study.slug}/")
    assert_fits_the_phone(page)
    shot(page, "information")
    page.get_by_role("button", name="Continue to the consent form").tap()

    for number in range(1, STATEMENTS + 1):
        statement_group(page, number).get_by_label("Yes").tap()
    assert_fits_the_phone(page)
    shot(page, "consent")
    page.get_by_role("button", name="I consent — continue").tap()

    expect(heading(page)).to_have_text("About you")
    assert_fits_the_phone(page)
    shot(page, "about-you")
    page.get_by_role("button", name="Continue", exact=True).tap()

    expect(heading(page)).to_have_text("Instructions")
    page.get_by_role("link", name="Start the practice pair").tap()
    expect_item(page, 0)
    page.locator("label[for='holistic-4']").tap()
    page.locator("label[for='order-4']").tap()
    expect_saved(page)
    assert_fits_the_phone(page)
    shot(page, "sample")
    page.get_by_role("button", name="Check my answers").tap()
    page.get_by_role("button", name="Start pair 1").tap()

    expect_item(page, 1)
    page.locator("label[for='holistic-2']").tap()
    put_aside(page)  # the answer leaving the pair open is sent at once
    expect_saved(page)
    page.reload()
    expect_item(page, 1)
    expect_checked(page, 2, None)
    expect(page.locator("[data-save-state]")).to_have_text(
        "Saved. One question is not answered yet."
    )
    page.locator("label[for='order-3']").tap()
    expect_saved(page)
    page.get_by_role("button", name="Larger text").tap()
    expect(page.locator("body")).to_have_class("reading")
    expect_checked(page, 2, 3)
    assert_fits_the_phone(page)
    shot(page, "pair-1-reading")
    page.get_by_role("button", name="Next").tap()

    expect_item(page, 2)
    # The connection drops while answering: the page says so, and saves once it is back.
    context.set_offline(True)
    page.locator("label[for='holistic-5']").tap()
    put_aside(page)
    expect(page.locator("[data-save-state]")).to_contain_text(
        "the connection to the server was lost"
    )
    shot(page, "pair-2-offline")
    assert Rating.objects.get(position=2).holistic is None
    context.set_offline(False)
    expect(page.locator("[data-save-state]")).to_have_text("Saved.", timeout=10_000)
    shot(page, "pair-2")
    personal_link = page.locator("a.personal-link").get_attribute("href")
    context.close()

    # Another phone opens the personal link and carries on where the first one stopped.
    context = new_context(**phone)
    page = context.new_page()
    page.goto(personal_link)
    expect_item(page, 2)
    expect_checked(page, 5, None)
    expect(page.locator("body")).to_have_class("reading")
    shot(page, "resumed")
    page.locator("label[for='order-1']").tap()
    expect_saved(page)
    page.get_by_role("button", name="Next").tap()
    for position in range(3, PAIRS + 1):
        expect_item(page, position)
        page.locator("label[for='holistic-3']").tap()
        page.locator("label[for='order-3']").tap()
        expect_saved(page)
        page.get_by_role("button", name=re.compile("^Next")).tap()

    expect(heading(page)).to_have_text("Before you finish")
    expect(page.get_by_text("Every question is answered.")).to_be_visible()
    assert_fits_the_phone(page)
    shot(page, "review")
    page.get_by_role("button", name="Finish and submit my answers").tap()
    expect(heading(page)).to_have_text("Thank you — your answers are saved")
    assert_fits_the_phone(page)
    shot(page, "debriefing")

    participant = the_participant()
    assert participant.status == "completed"
    assert saved_answers(participant.pk) == {
        0: (4, 4, True),
        1: (2, 3, False),
        2: (5, 1, False),
        3: (3, 3, False),
        4: (3, 3, False),
        5: (3, 3, False),
    }
    assert not Rating.objects.filter(revisions__gt=0).exists()


def test_the_whole_flow_without_javascript(new_context, live_server, study):
    shot = Camera("nojs")
    context = new_context(viewport={"width": 1024, "height": 800}, java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{study.slug}/?pid=volunteer-7")
    shot(page, "information")
    page.get_by_role("button", name="Continue to the consent form").click()

    for number in range(1, STATEMENTS):
        statement_group(page, number).get_by_label("Yes").check()
    statement_group(page, STATEMENTS).get_by_label("No").check()
    page.get_by_role("button", name="I consent — continue").click()
    expect(page.get_by_role("alert")).to_contain_text("Taking part needs a Yes to every statement")
    shot(page, "consent-refused")
    statement_group(page, STATEMENTS).get_by_label("Yes").check()
    page.get_by_role("button", name="I consent — continue").click()

    expect(heading(page)).to_have_text("About you")
    page.locator("#id_languages-0-language").fill("English")
    page.locator("#id_languages-0-fluency").select_option(label="Native")
    page.locator("#id_languages-1-language").fill("Hindi")
    page.locator("#id_languages-1-fluency").select_option(label="Conversational")
    page.get_by_role("button", name="Add another language").click()  # a round trip
    expect(page.locator("#id_languages-1-language")).to_have_value("Hindi")
    page.locator("#id_languages-2-language").fill("Tamil")
    page.locator("#id_languages-2-fluency").select_option(label="Basic")
    page.get_by_role("group", name=re.compile("What gender")).get_by_label("Other").check()
    page.get_by_role("group", name=re.compile("disabilities")).get_by_label("Yes").check()
    page.get_by_label("If yes, please specify").fill("Visual stress")
    shot(page, "about-you")
    page.get_by_role("button", name="Continue", exact=True).click()

    through_the_instructions(page)
    expect_item(page, 0)
    expect(page.get_by_text("Keyboard: press 1–5")).to_be_hidden()
    page.locator("label[for='holistic-1']").click()
    page.locator("label[for='order-2']").click()
    shot(page, "sample")
    page.get_by_role("button", name="Check my answers").click()
    expect(page.locator(".scale .note")).to_have_count(2)
    page.get_by_role("button", name="Start pair 1").click()

    plan = {1: (3, 5), 2: (4, 4), 3: (None, 2), 4: (1, 1), 5: (5, 5)}
    for position, (holistic, order) in plan.items():
        expect_item(page, position)
        for name, value in (("holistic", holistic), ("order", order)):
            if value is not None:
                page.locator(f"label[for='{name}-{value}']").click()
        shot(page, f"pair-{position}")
        page.get_by_role("button", name=re.compile("^Next")).click()
        if position == 2:
            page.get_by_role("button", name="Back").click()
            expect_item(page, 2)
            expect_checked(page, 4, 4)
            expect(page.locator("[data-save-state]")).to_have_text(
                "Your answers to this pair are saved."
            )
            page.locator("label[for='order-3']").click()
            page.get_by_role("button", name="Next").click()

    expect(heading(page)).to_have_text("Before you finish")
    expect(page.get_by_role("listitem")).to_have_text(["Pair 3: question 1 not answered"])
    shot(page, "review")
    page.get_by_role("button", name="Finish and submit my answers").click()
    expect(heading(page)).to_have_text("Thank you — your answers are saved")
    participant = the_participant()
    expect(page.locator("[data-completion-code]")).to_have_text(participant.completion_code)
    shot(page, "debriefing")

    assert saved_answers(participant.pk) == {
        0: (1, 2, True),
        1: (3, 5, False),
        2: (4, 3, False),
        3: (None, 2, False),
        4: (1, 1, False),
        5: (5, 5, False),
    }
    ratings = Rating.objects.filter(participant=participant)
    assert [r.revisions for r in ratings.order_by("position")] == [0, 0, 1, 0, 0, 0]
    assert all(r.client_ms is None for r in ratings)
    assert (participant.gender, participant.reading_disability) == ("other", "Visual stress")
    assert participant.languages_score == 7 + 3 + 2
    assert PlatformIdentity.objects.get(participant=participant).pid == "volunteer-7"

    # Withdrawal from the personal link deletes everything, as the consent form promises.
    page.get_by_role("link", name="Withdraw from the study").click()
    shot(page, "withdraw")
    page.get_by_role("button", name="Withdraw and delete my answers").click()
    expect(heading(page)).to_have_text("You have withdrawn from the study")
    shot(page, "withdrawn")
    assert not Participant.objects.exists()
    assert not Rating.objects.exists()
    assert not ParticipantLanguage.objects.exists()
    assert not PlatformIdentity.objects.exists()
