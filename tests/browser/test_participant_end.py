"""The participant's end of a study and the researcher's texts, in Debian's chromium at
1280 × 800 and 390 × 844: the debriefing stays until the participant presses the hand-back
button; both answers of a pair are asked for (with the mouse, a finger, or one digit and
Enter); an unchanged save of the study's admin page leaves every text rendered; the dashboard
shows the study's one status, piloting, then launched.

Screenshots go to test-artifacts/screenshots/end-<size>-*.png.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from survey import access
from survey.models import Participant, Rating, Study
from survey.participants import participation
from tests.factories import make_study
from wojdb.core.vocabulary import OWNER

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
PROLIFIC = "https://app.prolific.com/"
CODE = "C3ENDCODE"
BOTH = "Please answer both questions about this pair before moving on."

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


@pytest.fixture
def new_page(browser):
    opened = []

    def open_page(size: str):
        context = browser.new_context(locale="en-GB", viewport=SIZES[size])
        opened.append(context)
        return context.new_page()

    yield open_page
    for context in opened:
        context.close()


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"end-{name}.png"), full_page=True)


def heading(page):
    return page.get_by_role("heading", level=1)


def prolific_answers(route):
    """Prolific's completion page, answered locally: the test never leaves the machine."""
    route.fulfill(status=200, content_type="text/html", body="<h1>Prolific says thanks</h1>")


def ready(study: Study, **platform) -> Participant:
    """A participant who has consented and answered about themselves."""
    person = participation.enter(study, platform)
    participation.give_consent(person, participation.current_consent(study))
    Participant.objects.filter(pk=person.pk).update(about_done=True)
    person.refresh_from_db()
    return person


@pytest.mark.parametrize("size", SIZES)
def test_the_debriefing_stays_until_the_participant_presses_the_hand_back_button(
    new_page, live_server, size
):
    study = make_study(
        questionnaires=1, items=2, platform="prolific", completion_code=CODE, launched_at=None
    )
    person = ready(study, prolific_pid="p1", study_id="s1", session_id="x1")
    page = new_page(size)
    page.context.route(f"{PROLIFIC}**", prolific_answers)
    page.goto(f"{live_server.url}/s/{study.slug}/")
    shot(page, f"{size}-01-information")
    expect(page.get_by_role("heading", name="Project Title")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("##")

    page.goto(f"{live_server.url}/p/{person.token}/item/1/")
    for position in (1, 2):
        expect(heading(page)).to_have_text(f"Pair {position} of 2")
        page.locator("label[for='holistic-4']").click()
        page.locator("label[for='order-3']").click()
        expect(page.locator("[data-save-state]")).to_have_text("Saved.")
        if position == 1:
            shot(page, f"{size}-02-item")
        page.get_by_role("button", name="Next").first.click()
    expect(heading(page)).to_have_text("Before you finish")
    page.get_by_role("button", name="Finish and submit my answers").click()

    expect(heading(page)).to_have_text("Thank you — your answers are saved")
    done = page.url
    expect(page.locator("[data-debriefing]")).to_contain_text("deliberately moved")
    expect(page.locator("[data-completion-code]")).to_have_text(CODE)
    assert page.locator("meta[http-equiv='refresh']").count() == 0
    # The old page moved on to Prolific by itself after 5 s; this one is still here after 7.
    page.wait_for_timeout(7_000)
    assert page.url == done
    shot(page, f"{size}-03-done")
    button = page.get_by_role("link", name="Complete the study on Prolific")
    # The button comes after the debriefing, which the participant has read by then.
    debriefing = page.locator("[data-debriefing]").bounding_box()
    assert button.bounding_box()["y"] > debriefing["y"] + debriefing["height"]
    button.click()
    page.wait_for_url(f"{PROLIFIC}submissions/complete?cc={CODE}")
    expect(page.get_by_role("heading")).to_have_text("Prolific says thanks")


def test_an_mturk_worker_submits_the_hit_by_pressing_its_button(new_page, live_server):
    study = make_study(questionnaires=1, items=1, platform="mturk")
    person = ready(
        study,
        worker_id="W1",
        assignment_id="A1",
        hit_id="H1",
        submit_to="https://workersandbox.mturk.com",
    )
    participation.save_answer(
        person, 1, participation.item_id_at(person, 1), participation.Answer(3, 3)
    )
    participation.finish(person)
    page = new_page("desktop")
    submitted = []
    page.context.route("https://workersandbox.mturk.com/**", lambda r: submitted.append(r))
    page.goto(f"{live_server.url}/p/{person.token}/done/")
    expect(page.get_by_role("button", name="Submit the HIT on MTurk")).to_be_visible()
    page.wait_for_timeout(2_000)
    assert submitted == [] and page.url.endswith("/done/")  # nothing is sent by itself


@pytest.mark.parametrize("size", SIZES)
def test_both_answers_are_required_before_moving_on(new_page, live_server, size):
    study = make_study(questionnaires=1, items=3)
    person = ready(study)
    page = new_page(size)
    page.goto(f"{live_server.url}/p/{person.token}/item/1/")
    expect(heading(page)).to_have_text("Pair 1 of 3")

    # One answer, then Next: the pair stays, the unanswered question says so.
    page.locator("label[for='holistic-2']").click()
    page.get_by_role("button", name="Next").first.click()
    expect(page.locator("[data-save-state]")).to_have_text(BOTH)
    order = page.locator("fieldset[data-scale='order']")
    expect(order).to_have_class("scale missing")
    expect(order.get_by_text("This question is not answered yet.")).to_be_visible()
    expect(page.locator("fieldset[data-scale='holistic'] [data-missing]")).to_be_hidden()
    expect(heading(page)).to_have_text("Pair 1 of 3")
    shot(page, f"{size}-04-one-answer")
    page.locator("label[for='order-5']").click()
    expect(order.get_by_text("This question is not answered yet.")).to_be_hidden()
    page.get_by_role("button", name="Next").first.click()
    expect(heading(page)).to_have_text("Pair 2 of 3")

    if size == "desktop":
        # One digit and Enter: the focus goes to the second question, and stays on the pair.
        page.locator("main h1").click()
        page.keyboard.press("3")
        expect(page.locator("#holistic-3")).to_be_checked()
        page.keyboard.press("Enter")
        expect(page.locator("[data-save-state]")).to_have_text(BOTH)
        expect(heading(page)).to_have_text("Pair 2 of 3")
        assert page.evaluate("document.activeElement.name") == "order"
        page.keyboard.press("4")
        page.keyboard.press("Enter")
        expect(heading(page)).to_have_text("Pair 3 of 3")
        answers = Rating.objects.filter(participant=person).order_by("position")
        assert [(r.holistic, r.order) for r in answers] == [(2, 5), (3, 4), (None, None)]


def test_the_page_without_javascript_says_the_same(browser, live_server):
    study = make_study(questionnaires=1, items=2)
    person = ready(study)
    context = browser.new_context(locale="en-GB", java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/p/{person.token}/item/1/")
    page.locator("label[for='order-1']").click()
    page.get_by_role("button", name="Next").first.click()
    expect(page.get_by_role("alert")).to_have_text(BOTH)
    expect(heading(page)).to_have_text("Pair 1 of 2")
    expect(page.locator("#order-1")).to_be_checked()  # what was given is kept
    expect(page.locator("fieldset.missing")).to_have_attribute("data-scale", "holistic")
    context.close()


@pytest.mark.parametrize("size", SIZES)
def test_an_unchanged_admin_save_leaves_every_text_rendered(new_page, live_server, log_in_as, size):
    study = make_study(questionnaires=2, items=2, launched_at=None)
    boss = get_user_model().objects.create_superuser("boss", "b@example.org", "a-long-pw-1")
    page = new_page(size)
    log_in_as(page, live_server, boss)
    page.goto(f"{live_server.url}/admin/survey/study/{study.pk}/change/")
    page.get_by_role("button", name="Save and continue editing").click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    study.refresh_from_db()
    assert not any("\r" in getattr(study, name) for name in ("information_sheet", "debriefing"))
    preview = page.locator("[data-preview='information_sheet']")
    expect(preview.get_by_role("heading", name="What is the study about?")).to_be_visible()
    preview.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / f"end-{size}-05-admin-preview.png"))

    page.goto(f"{live_server.url}/s/{study.slug}/")
    expect(page.get_by_role("heading", name="What is the study about?")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("##")
    person = participation.enter(study, {})
    page.goto(f"{live_server.url}/p/{person.token}/consent/")
    expect(page.get_by_role("heading", name="What happens to your data")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("##")
    participation.give_consent(person, participation.current_consent(study))
    page.goto(f"{live_server.url}/p/{person.token}/instructions/")
    expect(page.get_by_role("heading", name="How to answer")).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("##")


@pytest.mark.parametrize("size", SIZES)
def test_the_dashboard_shows_one_status_and_launches(new_page, live_server, log_in_as, size):
    study = make_study(questionnaires=2, items=2, launched_at=None)
    ready(study)  # a pilot participant
    user = get_user_model().objects.create_user("r", password="a-long-pw-1", is_staff=True)
    access.set_role(study, user, OWNER)
    page = new_page(size)
    log_in_as(page, live_server, user)
    page.goto(f"{live_server.url}/researcher/studies/{study.slug}/")
    expect(page.get_by_role("heading", name="Status: Piloting")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    expect(page.locator("tr[data-people='pilot'] td").nth(1)).to_have_text("1")
    shot(page, f"{size}-06-dashboard-pilot")
    page.get_by_role("button", name="Launch").click()
    expect(page.get_by_role("heading", name="Status: Open")).to_be_visible()
    shot(page, f"{size}-07-dashboard-launched")
    page.get_by_role("button", name="Delete the pilot data").click()  # not yet confirmed
    assert Participant.objects.filter(study=study).count() == 1
    page.get_by_label("Yes, delete them with all their answers").check()
    page.get_by_role("button", name="Delete the pilot data").click()
    expect(page.locator(".messages")).to_contain_text("Deleted 1 pilot and 0 simulated")
    assert not Participant.objects.filter(study=study).exists()
    page.goto(f"{live_server.url}/researcher/")
    expect(page.locator("td[data-status='open']")).to_contain_text("Open")
    shot(page, f"{size}-08-dashboard-studies")
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
