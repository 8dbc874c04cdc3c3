"""The item page's script spares requests without losing an answer, in Debian's chromium: a
pair's answers are sent together, the one completing it a moment later, so that "Next" pressed
meanwhile sends them with the move on; an answer leaving a question open waits for the rest (at
most HOLD_MS); "Next" on a pair already saved opens the next page without posting; answers given
just before the tab is closed or put aside are saved all the same. The pair a move leads to comes
with the save's reply and is shown in place: one request a pair, its address in the history."""

from __future__ import annotations

import re
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect

from survey.models import Participant, Rating
from survey.participants import participation
from tests.browser.conftest import put_aside
from tests.factories import make_study

SCRIPT = (Path(__file__).resolve().parents[2] / "survey/static/survey/participant.js").read_text()
SETTLE_MS, HOLD_MS = (
    int(re.search(rf"var {name} = (\d+);", SCRIPT)[1]) for name in ("SETTLE_MS", "HOLD_MS")
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]


@pytest.fixture
def person(live_server):
    study = make_study(questionnaires=1, items=3)
    person = participation.enter(study, {})
    participation.give_consent(person, participation.current_consent(study))
    Participant.objects.filter(pk=person.pk).update(about_done=True)
    return person


@pytest.fixture
def posts(page):
    """The answers each post of the page sent (its `go` included), in order."""
    sent = []

    def record(request):
        if request.method == "POST":
            sent.append(dict(pair.split("=", 1) for pair in request.post_data.split("&")))

    page.on("request", record)
    return sent


@pytest.fixture
def sent(page):
    """The requests for the participant's pages (not their assets), in order."""
    made = []
    page.on("request", lambda r: "/p/" in r.url and made.append((r.method, r.url)))
    return made


def open_pair(page, live_server, person, position: int) -> None:
    page.goto(f"{live_server.url}/p/{person.token}/item/{position}/")
    expect(page.get_by_role("heading", level=1)).to_have_text(f"Pair {position} of 3")


def moved_on_by_keys(page, live_server, person, sent, position: int, keys, then: str) -> None:
    """The pair at `position` opened and answered from the keyboard until the page headed
    `then` shows; the window marked first (`loadedAs`, gone if a page is loaded) and the
    requests `sent` counted from there."""
    open_pair(page, live_server, person, position)
    page.evaluate(f"window.loadedAs = 'pair {position}'")
    sent.clear()
    for key in keys:
        page.keyboard.press(key)
    expect(page.get_by_role("heading", level=1)).to_have_text(then)


def choose(page, name: str, value: int) -> None:
    page.locator(f"label[for='{name}-{value}']").click()


def stored(person, position: int) -> tuple:
    rating = Rating.objects.filter(participant=person, position=position).first()
    return (rating.holistic, rating.order) if rating else (None, None)


def eventually_stored(person, position: int, expected: tuple, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while stored(person, position) != expected and time.monotonic() < deadline:
        time.sleep(0.1)
    assert stored(person, position) == expected


def test_next_right_after_the_last_answer_sends_the_pair_with_the_move(
    page, live_server, person, posts
):
    open_pair(page, live_server, person, 1)
    choose(page, "holistic", 4)
    choose(page, "order", 2)
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Pair 2 of 3")
    assert [(post["holistic"], post["order"], post["go"]) for post in posts] == [("4", "2", "next")]
    assert stored(person, 1) == (4, 2)


def test_an_answer_waits_for_the_rest_of_its_pair(page, live_server, person, posts):
    # Time stands still but for run_for: on a busy machine, time flowing between the steps
    # would make the wait for the second answer run out before it is given.
    start = datetime.now()
    page.clock.install(time=start)
    page.clock.pause_at(start + timedelta(seconds=1))
    open_pair(page, live_server, person, 1)
    choose(page, "holistic", 3)
    page.clock.run_for(HOLD_MS - 1000)
    assert posts == []
    expect(page.locator("[data-save-state]")).to_have_text("")  # nothing said to be saving
    choose(page, "order", 5)
    page.clock.run_for(SETTLE_MS + 100)
    expect(page.locator("[data-save-state]")).to_have_text("Saved.")
    assert [(post["holistic"], post["order"], post["go"]) for post in posts] == [("3", "5", "stay")]
    # Left alone, an answer leaving the pair open is saved when its wait is over.
    open_pair(page, live_server, person, 2)
    choose(page, "order", 1)
    page.clock.run_for(HOLD_MS - 1000)
    assert len(posts) == 1
    page.clock.run_for(1100)
    expect(page.locator("[data-save-state]")).to_have_text("Saved.")
    assert stored(person, 2) == (None, 1)


def test_next_on_a_pair_already_saved_moves_on_without_posting(page, live_server, person, posts):
    open_pair(page, live_server, person, 1)
    choose(page, "holistic", 3)
    choose(page, "order", 5)
    expect(page.locator("[data-save-state]")).to_have_text("Saved.")  # saved alone, later
    assert [post["go"] for post in posts] == ["stay"]
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Pair 2 of 3")
    assert len(posts) == 1  # nothing posted again
    assert stored(person, 1) == (3, 5)
    person.refresh_from_db()
    assert person.furthest == 2
    # Back, unchanged, is a plain move too; a changed answer is posted with it.
    page.get_by_role("button", name="Back").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Pair 1 of 3")
    assert [post["go"] for post in posts] == ["stay", "back"]  # pair 2 had no save
    choose(page, "holistic", 1)
    page.get_by_role("button", name="Next").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Pair 2 of 3")
    assert posts[-1]["go"] == "next" and stored(person, 1) == (1, 5)


def test_next_with_a_question_unanswered_still_asks_for_it(page, live_server, person, posts):
    open_pair(page, live_server, person, 1)
    choose(page, "holistic", 3)
    page.get_by_role("button", name="Next").click()
    expect(page.locator("[data-save-state]")).to_have_text(
        "Please answer both questions about this pair before moving on."
    )
    expect(page.get_by_role("heading", level=1)).to_have_text("Pair 1 of 3")
    assert [post["go"] for post in posts] == ["next"]
    assert stored(person, 1) == (3, None)  # saved all the same


@pytest.mark.parametrize("order", [4, None], ids=["pair-complete", "pair-open"])
def test_answers_given_and_the_tab_closed_are_saved(page, live_server, person, order):
    open_pair(page, live_server, person, 1)
    choose(page, "holistic", 2)
    if order:
        choose(page, "order", order)
    page.close(run_before_unload=True)  # before the answers' save would have gone by itself
    eventually_stored(person, 1, (2, order))


@pytest.mark.parametrize("order", [1, None], ids=["pair-complete", "pair-open"])
def test_answers_given_and_the_tab_put_aside_are_saved_at_once(page, live_server, person, order):
    open_pair(page, live_server, person, 1)
    choose(page, "holistic", 5)
    if order:
        choose(page, "order", order)
    # Sent at once, not when the wait would have ended (SETTLE_MS or HOLD_MS).
    with page.expect_request(lambda r: r.method == "POST", timeout=1000):
        put_aside(page)
    eventually_stored(person, 1, (5, order))


def test_the_next_pair_comes_with_the_save_and_is_shown_in_place(
    page, live_server, person, posts, sent
):
    item = f"{live_server.url}/p/{person.token}/item/"
    moved_on_by_keys(page, live_server, person, sent, 1, ("4", "2", "Enter"), "Pair 2 of 3")
    assert sent == [("POST", f"{item}1/")]  # the pair's answers, and nothing else
    assert page.evaluate("window.loadedAs") == "pair 1"
    expect(page).to_have_url(f"{item}2/")
    expect(page).to_have_title(re.compile("^Pair 2 of 3 "))
    assert page.evaluate("document.activeElement.id") == "main"  # as on a page just loaded
    assert stored(person, 1) == (4, 2)
    # The page shown answers its keys, once each, and moves on likewise.
    for key in ("5", "1", "Enter"):
        page.keyboard.press(key)
    expect(page.get_by_role("heading", level=1)).to_have_text("Pair 3 of 3")
    assert [(post["holistic"], post["order"], post["go"]) for post in posts] == [
        ("4", "2", "next"),
        ("5", "1", "next"),
    ]
    assert stored(person, 2) == (5, 1)
    # The browser's Back and Forward load the pairs their addresses name, as saved.
    page.go_back()
    expect(page.get_by_role("heading", level=1)).to_have_text("Pair 2 of 3")
    expect(page.locator("#holistic-5")).to_be_checked()
    expect(page.locator("#order-1")).to_be_checked()
    page.go_forward()
    expect(page.get_by_role("heading", level=1)).to_have_text("Pair 3 of 3")


def test_the_practice_pairs_feedback_is_shown_in_place_and_back_leaves_it(
    page, live_server, person
):
    page.goto(f"{live_server.url}/p/{person.token}/item/0/")
    page.evaluate("window.loadedAs = 'practice'")
    choose(page, "holistic", 2)
    choose(page, "order", 3)
    page.get_by_role("button", name="Check my answers").click()
    expect(page.get_by_text("Here is how the questions apply to this pair.")).to_be_visible()
    expect(page).to_have_url(f"{live_server.url}/p/{person.token}/item/0/?feedback=1")
    assert page.evaluate("window.loadedAs") == "practice"
    # The same pair's address without its feedback: Back loads it.
    page.go_back()
    expect(page.get_by_role("button", name="Check my answers")).to_be_visible()
    expect(page.get_by_text("Here is how the questions apply to this pair.")).to_have_count(0)


def test_the_final_check_and_the_debriefing_come_with_their_posts(page, live_server, person, sent):
    own = f"{live_server.url}/p/{person.token}"
    moved_on_by_keys(page, live_server, person, sent, 3, ("3", "4", "Enter"), "Before you finish")
    assert sent == [("POST", f"{own}/item/3/")]
    expect(page).to_have_url(f"{own}/review/")
    expect(page.get_by_text("Pair 1: neither question answered")).to_be_visible()
    sent.clear()
    page.get_by_role("button", name="Finish and submit my answers").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Thank you — your answers are saved")
    assert sent == [("POST", f"{own}/review/")]
    expect(page).to_have_url(f"{own}/done/")
    expect(page).to_have_title(re.compile("^Thank you "))
    assert page.evaluate("document.activeElement.id") == "main"
    assert page.evaluate("window.loadedAs") == "pair 3"
    person.refresh_from_db()
    assert person.status == "completed"
