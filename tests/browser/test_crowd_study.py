"""A crowd study in Debian's chromium: a whole Prolific participation on a phone and on a
desktop, from the entry link with Prolific's parameters to the hand-back to Prolific; the
demo's pairs measured against one screen at 1280 × 800 and 390 × 844; the keyboard shortcuts
turned off; what the researcher sees of it.

Screenshots go to test-artifacts/screenshots/crowd-*.png (full pages) and
crowd-fit-*.png (the first screen only, as a participant sees it).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from analysis.demo_studies import DEMOS, demo_study
from survey.models import Participant, PlatformIdentity, Rating, Study
from survey.participants import participation
from tests.factories import make_study
from wojdb.core import texts
from wojdb.core.texts import en

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
PAIRS = 3
CODE = "C1PROLIFIC"
PROLIFIC = "https://app.prolific.com/"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


@pytest.fixture
def new_context(browser):
    opened = []

    def open_context(viewport, **options):
        context = browser.new_context(locale="en-GB", viewport=viewport, **options)
        opened.append(context)
        return context

    yield open_context
    for context in opened:
        context.close()


def shot(page, name: str, full_page: bool = True) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"crowd-{name}.png"), full_page=full_page)


def heading(page):
    return page.get_by_role("heading", level=1)


def prolific_answers(route):
    """Prolific's completion page, answered locally: the test never leaves the machine."""
    route.fulfill(status=200, content_type="text/html", body="<h1>Prolific</h1>")


def answer(page, holistic, order):
    # The page's deferred script saves the pair's answers together: wait until it runs.
    page.wait_for_load_state("load")
    for name, value in (("holistic", holistic), ("order", order)):
        page.locator(f"label[for='{name}-{value}']").click()
    expect(page.locator("[data-save-state]")).to_have_text("Saved.")


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_whole_prolific_participation(new_context, live_server, size):
    study = make_study(
        questionnaires=1,
        items=PAIRS,
        platform="prolific",
        completion_code=CODE,
        decline_code="C2NOCONSENT",
        min_answered_pairs=2,
    )
    study.consent_texts.all().delete()  # the default statements, data sharing optional
    viewport = {"phone": PHONE, "desktop": DESKTOP}[size]
    context = new_context(viewport)
    context.route(f"{PROLIFIC}**", prolific_answers)
    page = context.new_page()
    ids = "PROLIFIC_PID=60aa11bb&STUDY_ID=st1&SESSION_ID=se1"
    page.goto(f"{live_server.url}/s/{study.slug}/?{ids}")
    expect(heading(page)).to_have_text("Participant Information Sheet")
    assert "[" not in page.locator("main").inner_text()  # no placeholder left
    shot(page, f"{size}-01-information")
    page.get_by_role("button", name="Continue to the consent form").click()

    expect(heading(page)).to_contain_text("Participant Consent Form")
    for number, statement in enumerate(en.CONSENT_STATEMENTS, start=1):
        group = page.get_by_role("group", name=f"{number} {statement}")
        group.get_by_label("No" if number == texts.CONSENT_SHARING else "Yes").check()
    expect(page.get_by_text("(optional)")).to_have_count(1)
    shot(page, f"{size}-02-consent")
    page.get_by_role("button", name="I consent — continue").click()

    expect(heading(page)).to_have_text("About you")
    page.get_by_role("button", name="Continue", exact=True).click()
    expect(heading(page)).to_have_text("Instructions")
    expect(page.get_by_text("5 is the best answer and 1 the worst")).to_be_visible()
    shot(page, f"{size}-03-instructions")
    page.get_by_role("link", name="Start the practice pair").click()

    expect(heading(page)).to_have_text("Practice pair")
    answer(page, 4, 2)
    shot(page, f"{size}-04-practice")
    page.get_by_role("button", name="Check my answers").click()
    expect(page.locator(".scale .note")).to_have_count(2)
    shot(page, f"{size}-05-practice-feedback")
    page.get_by_role("button", name="Start pair 1").click()

    expect(heading(page)).to_have_text(f"Pair 1 of {PAIRS}")
    answer(page, 5, 4)
    page.get_by_text("Flag this pair or leave a comment").click()
    page.get_by_label("Something is wrong with this pair").check()
    page.get_by_label("Comment (optional)").fill("The second sentence seems cut short.")
    shot(page, f"{size}-06-pair-1-flagged")
    page.get_by_role("button", name="Next").click()
    expect(heading(page)).to_have_text(f"Pair 2 of {PAIRS}")
    answer(page, 3, 3)
    page.get_by_role("button", name="Next").click()
    expect(heading(page)).to_have_text(f"Pair 3 of {PAIRS}")
    # Back to pair 1: the personal link still resumes at the furthest pair reached.
    for back_to in (2, 1):
        page.get_by_role("button", name="Back").click()
        expect(heading(page)).to_have_text(f"Pair {back_to} of {PAIRS}")
    personal_link = page.locator("a.personal-link").get_attribute("href")

    # The same Prolific ids from another browser resume nothing: the personal link is needed.
    # The same person in another session is told so too, before reading the sheet again.
    elsewhere = new_context(viewport).new_page()
    elsewhere.goto(f"{live_server.url}/s/{study.slug}/?{ids.replace('se1', 'se2')}")
    expect(heading(elsewhere)).to_have_text("You have already started this study")
    assert "/p/" not in elsewhere.url
    shot(elsewhere, f"{size}-07-started-elsewhere")
    elsewhere.goto(personal_link)
    expect(heading(elsewhere)).to_have_text(f"Pair 3 of {PAIRS}")

    page.goto(personal_link)
    expect(heading(page)).to_have_text(f"Pair 3 of {PAIRS}")
    answer(page, 2, 1)
    page.get_by_role("button", name="Next: finish").click()
    expect(heading(page)).to_have_text("Before you finish")
    page.get_by_role("button", name="Finish and submit my answers").click()

    expect(heading(page)).to_have_text("Thank you — your answers are saved")
    expect(page.locator("[data-completion-code]")).to_have_text(CODE)
    expect(page.get_by_text("deliberately moved")).to_be_visible()
    shot(page, f"{size}-08-done")
    # The debriefing stays; the participant hands in on Prolific by pressing the button.
    page.get_by_role("link", name="Complete the study on Prolific").click()
    page.wait_for_url(f"{PROLIFIC}submissions/complete?cc={CODE}")

    participant = Participant.objects.get()
    assert participant.status == "completed" and participant.completion_code == CODE
    assert participant.share_data is False  # the optional statement was answered No
    assert PlatformIdentity.objects.get(participant=participant).prolific_pid == "60aa11bb"
    flagged = Rating.objects.get(participant=participant, position=1)
    assert (flagged.flagged, flagged.comment) == (True, "The second sentence seems cut short.")
    assert [r.position for r in Rating.objects.filter(flagged=True)] == [1]


def test_declining_on_prolific_goes_back_to_prolific(new_context, live_server):
    study = make_study(platform="prolific", completion_code=CODE, decline_code="C2NOCONSENT")
    context = new_context(DESKTOP)
    context.route(f"{PROLIFIC}**", prolific_answers)
    page = context.new_page()
    page.goto(f"{live_server.url}/s/{study.slug}/?PROLIFIC_PID=p9&STUDY_ID=s&SESSION_ID=x")
    page.get_by_role("button", name="Continue to the consent form").click()
    page.get_by_role("button", name="I do not wish to take part").click()
    expect(heading(page)).to_have_text("Thank you for considering taking part")
    shot(page, "desktop-declined")
    page.get_by_role("link", name="Back to Prolific").click()
    expect(page).to_have_url(f"{PROLIFIC}submissions/complete?cc=C2NOCONSENT")
    assert not Participant.objects.exists()


def test_the_keyboard_shortcuts_can_be_turned_off(new_context, live_server):
    study = make_study(questionnaires=1, items=2)
    page = new_context(DESKTOP).new_page()
    person = participation.enter(study, {})
    participation.give_consent(person, participation.current_consent(study))
    Participant.objects.filter(pk=person.pk).update(about_done=True)
    page.goto(f"{live_server.url}/p/{person.token}/item/1/")
    hint = page.locator("[data-keyboard-hint]")
    expect(hint).to_be_visible()
    page.get_by_role("button", name="Turn keyboard shortcuts off").click()
    page.locator("main h1").click()  # the focus leaves the button
    page.keyboard.press("3")
    expect(page.locator("#holistic-3")).not_to_be_checked()
    shot(page, "desktop-shortcuts-off", full_page=False)
    page.reload()  # the choice is remembered
    expect(page.get_by_role("button", name="Turn keyboard shortcuts on")).to_be_visible()
    page.keyboard.press("3")
    expect(page.locator("#holistic-3")).not_to_be_checked()
    page.get_by_role("button", name="Turn keyboard shortcuts on").click()
    page.locator("main h1").click()
    page.keyboard.press("3")
    expect(page.locator("#holistic-3")).to_be_checked()


def build_demo_pairs() -> Study:
    """The demo's study, built from its file (manage.py demo, without simulating, scoring or
    analysing)."""
    return demo_study(DEMOS["en"])


FIT = """() => {
  const next = document.querySelector(".nav button.primary").getBoundingClientRect();
  const scales = [...document.querySelectorAll("fieldset[data-scale]")];
  const sentences = [...document.querySelectorAll(".sentence")];
  const hint = document.querySelector("[data-keyboard-hint]").getBoundingClientRect();
  const bottom = Math.max(
    next.bottom, ...scales.map(s => s.getBoundingClientRect().bottom),
    ...sentences.map(s => s.getBoundingClientRect().bottom));
  return {bottom, hint: hint.bottom, height: window.innerHeight,
          wide: document.documentElement.scrollWidth > window.innerWidth};
}"""


# Ids from 1, as in a fresh demo database (the build's choices follow the texts, not the ids).
@pytest.mark.django_db(transaction=True, reset_sequences=True)
def test_the_demos_pairs_fit_on_one_screen(new_context, live_server, capsys):
    study = build_demo_pairs()
    assert study.unfilled() == []
    person = participation.enter(study, {})
    participation.give_consent(person, participation.current_consent(study))
    # Questionnaire 1, whichever the least-used rule handed out.
    first = study.questionnaires.get(number=1)
    Participant.objects.filter(pk=person.pk).update(about_done=True, questionnaire=first)
    person.refresh_from_db()
    positions = range(0, participation.pair_count(person) + 1)
    words = {
        position: max(len(item.text.split()), len(item.reference.split()))
        for position in positions
        for item in [participation.item_at(person, position)]
    }
    report = []
    for name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        # The demo asks for word marks: a desktop fits all three questions; a phone scrolls to
        # the third, so there the thesis's two questions are what must fit.
        Study.objects.filter(pk=study.pk).update(word_marks=name == "desktop")
        page = new_context(viewport).new_page()
        page.goto(f"{live_server.url}/s/{study.slug}/")
        text = page.locator("main").inner_text()
        assert "[" not in text and not any(w in text for w in texts.FOREIGN)
        fits, short_fits, short, misses, spare = 0, 0, 0, [], float("inf")
        for position in positions:
            page.goto(f"{live_server.url}/p/{person.token}/item/{position}/")
            measure = page.evaluate(FIT)
            assert not measure["wide"], f"pair {position} scrolls sideways on the {name}"
            fit = measure["bottom"] <= measure["height"]
            fit = fit and (name == "phone" or measure["hint"] <= measure["height"])
            fits += fit
            if words[position] <= 40:
                short += 1
                short_fits += fit
                spare = min(spare, measure["height"] - measure["bottom"])
                if not fit:
                    over = round(max(measure["bottom"], measure["hint"]) - measure["height"])
                    misses.append(f"pair {position}: {words[position]} words, {over} px over")
            if position in (0, 1, max(words, key=words.get)):
                shot(page, f"fit-{name}-pair-{position}", full_page=False)
        total = len(positions)
        report.append(
            f"{name} {viewport['width']}×{viewport['height']}: {fits} of {total} pages "
            f"({fits / total:.0%}) fit on one screen; {short_fits} of {short} pairs of up to "
            f"40 words ({short_fits / short:.0%}; the tightest has {spare:.0f} px to spare)"
        )
        page.context.close()
        assert short_fits == short, f"{report[-1]}; {'; '.join(misses)}"
    with capsys.disabled():
        print("\nOne screen, the demo's questionnaire 1 (practice pair and 50 pairs):")
        for line in report:
            print("  " + line)


def test_the_researcher_sees_the_code_flags_and_who_left(new_context, live_server, log_in_as):
    study = make_study(platform="prolific", completion_code=CODE)
    person = participation.enter(study, {})
    participation.give_consent(person, participation.current_consent(study))
    item = participation.item_id_at(person, 1)
    participation.save_answer(
        person, 1, item, participation.Answer(holistic=2, note=(True, "Not English."))
    )
    Participant.objects.create(
        study=study, questionnaire=person.questionnaire, simulated=True, status="completed"
    )
    leaver = participation.enter(study, {})
    participation.withdraw(leaver)
    participation.decline(participation.enter(study, {}))
    user = get_user_model().objects.create_user(
        "r", password="a-long-password", is_staff=True, is_superuser=True
    )
    page = new_context(DESKTOP).new_page()
    log_in_as(page, live_server, user)
    page.goto(f"{live_server.url}/researcher/studies/{study.slug}/")
    expect(page.locator("[data-completion-code]")).to_have_text(CODE)
    expect(page.locator("tr[data-people='real'] td").nth(1)).to_have_text("1")
    expect(page.locator("tr[data-people='simulated'] td").nth(2)).to_have_text("1")
    expect(page.locator("[data-left]")).to_contain_text("Declined consent: 1 · Withdrew: 1")
    expect(page.get_by_role("cell", name="Not English.")).to_be_visible()
    shot(page, "desktop-dashboard")
