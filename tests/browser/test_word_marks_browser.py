"""The words out of place (a study with `word_marks`) in Debian's chromium: a participant marks
words by clicking at 1280 × 800, by tapping at 390 × 844 and with the keyboard alone, and ticks
boxes without JavaScript, on every pair, and the database holds what was marked; a sentence in
Arabic reads from the right and one in Chinese is marked character by character, unspaced.

Screenshots: test-artifacts/screenshots/marks/, as the other browser tests keep theirs.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from playwright.sync_api import expect

from survey.models import Rating, Study
from survey.participants import participation
from tests.browser.conftest import put_aside
from tests.factories import make_permutation_item, make_study, make_triple

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots" / "marks"
PAIRS = 3
DESKTOP, PHONE = (1280, 800), (390, 844)
# A long first sentence, to wrap on a phone.
LONG = (
    "Yesterday the committee of the regional government finally announced a broad set of new "
    "measures to support small farmers through the unusually dry summer months ."
)
ARABIC = "الولد ذهب إلى المدرسة اليوم صباح ."
CHINESE = "我今天早上去学校了。"


def shot(page, name: str) -> None:
    """The whole page; on a touch screen, the screen as seen (chromium's whole-page capture drops
    the touch screen's media queries, showing what they hide), then scrolled to question 3."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    if not page.evaluate("matchMedia('(pointer: coarse)').matches"):
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
        return
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.locator("fieldset[data-marks]").scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / f"{name}-question-3.png"))
    page.evaluate("window.scrollTo(0, 0)")


@pytest.fixture
def study():
    study = make_study(questionnaires=1, items=PAIRS, word_marks=True)
    # The practice pair: a permutation (its first two words swapped), whose feedback names them.
    practice = make_permutation_item(make_triple())
    practice.permutation.displaced = [0, 1]
    practice.permutation.save()
    Study.objects.filter(pk=study.pk).update(sample_item=practice)
    first = study.questionnaires.get().entries.get(position=1).item.triple
    first.hypothesis = LONG
    first.save()
    study.refresh_from_db()
    return study


def started(study) -> str:
    """A participant past consent and the about-you page: their item pages' address."""
    participant = participation.enter(study, {})
    participation.give_consent(participant, participation.current_consent(study))
    participant.about_done = True
    participant.save(update_fields=["about_done"])
    return participant.token


def marks_by_position(token: str) -> dict[int, list[int] | None]:
    ratings = Rating.objects.filter(participant__token=token).order_by("position")
    return {r.position: r.marks and [m[0] for m in r.marks] for r in ratings}


def word(page, position: int):
    """The visible word (a label's text) of a position of the first sentence."""
    return page.locator(f"label.mark:has(input[value='{position}']) span")


def overflowing(page) -> list[str]:
    return page.evaluate(
        """() => {
          const width = document.documentElement.clientWidth;
          const out = [];
          if (document.documentElement.scrollWidth > width) out.push("the page scrolls sideways");
          for (const el of document.querySelectorAll("main *")) {
            if (el.closest(".vh, [hidden]")) continue;
            const r = el.getBoundingClientRect();
            if (r.width === 0 || r.height === 0 || getComputedStyle(el).opacity === "0") continue;
            if (r.left < -0.5 || r.right > width + 0.5)
              out.push(`${el.tagName.toLowerCase()}.${el.className}: ${r.left}-${r.right}`);
          }
          return out;
        }"""
    )


def answer_scales(page, holistic: int, order: int) -> None:
    for name, value in (("holistic", holistic), ("order", order)):
        page.locator(f"label[for='{name}-{value}']").click()


def expect_saved(page):
    expect(page.locator("[data-save-state]")).to_have_text("Saved.")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_words_are_marked_by_clicking_or_tapping_on_every_pair(browser, live_server, study, size):
    width, height = DESKTOP if size == "desktop" else PHONE
    phone = size == "phone"
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="en-GB", has_touch=phone,
        is_mobile=phone,
    )  # fmt: skip
    page = context.new_page()
    token = started(study)
    try:
        page.goto(f"{live_server.url}/p/{token}/item/0/")
        # The first sentence itself is the words to mark; the plain one is hidden.
        expect(page.locator("p.sentence.machine")).to_be_hidden()
        words = page.locator(".marks-words.inline")
        expect(words).to_be_visible()
        expect(page.locator("[data-marks-tap]")).to_be_visible()
        # The keys are told where a keyboard is likely, not on a touch screen.
        hint = expect(page.locator("[data-keyboard-hint]"))
        if phone:
            hint.to_be_hidden()
        else:
            hint.to_be_visible()
        press = (lambda locator: locator.tap()) if phone else (lambda locator: locator.click())
        press(word(page, 2))
        expect(page.locator("input[name='marks'][value='2']")).to_be_checked()
        # "None" unticks the word, and a word unticks "none".
        press(page.locator("label.marks-none"))
        expect(page.locator("input[name='marks'][value='2']")).not_to_be_checked()
        press(word(page, 0))
        press(word(page, 1))
        expect(page.locator("input[name='marks_none']")).not_to_be_checked()
        answer_scales(page, 3, 2)
        expect_saved(page)
        shot(page, f"practice-{size}")
        page.get_by_role("button", name="Check my answers").click()
        expect(page.locator("#marks-note")).to_contain_text(
            "The words out of place in the first sentence are:"
        )
        shot(page, f"practice-feedback-{size}")
        page.get_by_role("button", name="Start pair 1").click()

        plans = {1: [3, 9, 20], 2: [], 3: [5]}
        for position, marked in plans.items():
            expect(page.get_by_role("heading", level=1)).to_have_text(f"Pair {position} of 3")
            answer_scales(page, 4, 4)  # held for the words: a pair's answers go together
            if position == 1:
                # Moving on without the words: saved, and the question says it is missing.
                page.get_by_role("button", name="Next").click()
                expect(page.locator("fieldset[data-marks]")).to_have_class("scale marks missing")
                expect(page.locator("[data-save-state]")).to_have_text(
                    "Please answer every question about this pair before moving on."
                )
                shot(page, f"pair-1-missing-{size}")
                # Long sentences wrap inside the screen, with words at least 24 px high.
                assert overflowing(page) == []
                heights = page.locator(".marks-words.inline .mark span").evaluate_all(
                    "spans => spans.map(s => s.getBoundingClientRect().height)"
                )
                assert min(heights) >= 24, heights
                tops = page.locator(".marks-words.inline .mark span").evaluate_all(
                    "spans => spans.map(s => Math.round(s.getBoundingClientRect().top))"
                )
                assert len(set(tops)) >= (3 if phone else 2)  # the sentence wraps
            for each in marked:
                press(word(page, each))
            if not marked:
                press(page.locator("label.marks-none"))
            expect_saved(page)
            expect(page.locator("fieldset[data-marks]")).not_to_have_class("missing")
            shot(page, f"pair-{position}-{size}")
            next_name = "Next" if position < 3 else "Next: finish"
            page.get_by_role("button", name=next_name).click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Before you finish")
        assert marks_by_position(token) == {0: [0, 1], 1: [3, 9, 20], 2: [], 3: [5]}
        # The words themselves are stored as shown.
        first = Rating.objects.get(participant__token=token, position=1).marks
        assert [w for _, w, _ in first] == [LONG.split()[p] for p in (3, 9, 20)]
    finally:
        context.close()


def test_words_are_marked_with_the_keyboard_alone(browser, live_server, study):
    context = browser.new_context(
        viewport={"width": DESKTOP[0], "height": DESKTOP[1]}, locale="en-GB"
    )
    page = context.new_page()
    token = started(study)
    try:
        page.goto(f"{live_server.url}/p/{token}/item/1/")
        expect(page.locator(".marks-words.inline")).to_be_visible()
        # The answers by the shortcuts 1-5 and, in the sentence, arrows and Space.
        page.locator("main").focus()
        page.keyboard.press("4")
        page.keyboard.press("2")
        expect(page.locator("#holistic-4")).to_be_checked()
        expect(page.locator("#order-2")).to_be_checked()
        first = page.locator("input[name='marks'][value='0']")
        first.focus()  # the sentence is one tab stop: its first word
        assert first.evaluate("box => box.tabIndex") == 0
        for key in ("ArrowRight", "ArrowRight", "Space", "End", "Space", "Home", "Space"):
            page.keyboard.press(key)
        expect_saved(page)
        shot(page, "keyboard-desktop")
        # Enter moves on from anywhere but a control; from the word it is the form's own.
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", level=1)).to_have_text("Pair 2 of 3")
        last = len(LONG.split()) - 1
        assert marks_by_position(token)[1] == [0, 2, last]
        # Tab reaches the sentence once, and arrows walk it; "none" is a box of its own.
        page.locator("#holistic-1").focus()
        page.keyboard.press("Shift+Tab")  # back from the first scale to the words
        page.keyboard.press("Space")
        page.locator("main").focus()
        page.keyboard.press("3")
        page.keyboard.press("3")
        expect_saved(page)
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", level=1)).to_have_text("Pair 3 of 3")
        assert marks_by_position(token)[2] == [0]
        page.locator("input[name='marks_none']").focus()
        page.keyboard.press("Space")
        page.locator("main").focus()
        page.keyboard.press("5")
        page.keyboard.press("5")
        expect_saved(page)
        page.keyboard.press("Enter")
        expect(page.get_by_role("heading", level=1)).to_have_text("Before you finish")
        assert marks_by_position(token) == {1: [0, 2, last], 2: [0], 3: []}
    finally:
        context.close()


def test_words_are_ticked_without_javascript(browser, live_server, study):
    context = browser.new_context(
        viewport={"width": PHONE[0], "height": PHONE[1]}, locale="en-GB", java_script_enabled=False
    )
    page = context.new_page()
    token = started(study)
    try:
        page.goto(f"{live_server.url}/p/{token}/item/1/")
        expect(page.locator("p.sentence.machine")).to_be_visible()
        expect(page.get_by_label("Yesterday", exact=True)).to_be_visible()
        page.get_by_label("committee", exact=True).check()
        page.get_by_label("government", exact=True).check()
        answer_scales(page, 2, 3)
        shot(page, "nojs-pair-1-phone")
        assert overflowing(page) == []
        page.get_by_role("button", name="Next").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Pair 2 of 3")
        # "None" with a word too is refused, nothing saved.
        page.get_by_label("No word is out of place").check()
        page.locator("input[name='marks'][value='1']").check()
        answer_scales(page, 1, 1)
        page.get_by_role("button", name="Next").click()
        expect(page.get_by_text("please choose one or the other")).to_be_visible()
        shot(page, "nojs-both-refused-phone")
        assert marks_by_position(token).get(2) is None
        page.go_back()
        page.locator("input[name='marks'][value='1']").uncheck()
        page.get_by_role("button", name="Next").click()
        expect(page.get_by_role("heading", level=1)).to_have_text("Pair 3 of 3")
        page.get_by_role("button", name="Back").click()
        expect(page.get_by_label("No word is out of place")).to_be_checked()
        page.get_by_role("button", name="Back").click()
        expect(page.get_by_label("committee", exact=True)).to_be_checked()
        expect(page.get_by_label("government", exact=True)).to_be_checked()
        positions = [LONG.split().index(w) for w in ("committee", "government")]
        assert marks_by_position(token) == {1: positions, 2: [], 3: None}
    finally:
        context.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("language, sentence", [("ar", ARABIC), ("zh", CHINESE)])
def test_right_to_left_and_unspaced_sentences_read_as_written(
    browser, live_server, study, language, sentence, size
):
    Study.objects.filter(pk=study.pk).update(language=language)
    item = study.questionnaires.get().entries.get(position=3).item  # a machine translation
    item.triple.hypothesis = sentence
    item.triple.save()
    width, height = DESKTOP if size == "desktop" else PHONE
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale=language, has_touch=size == "phone"
    )
    page = context.new_page()
    token = started(study)
    try:
        page.goto(f"{live_server.url}/p/{token}/item/3/")
        words = page.locator(".marks-words.inline")
        expect(words).to_be_visible()
        spans = words.locator(".mark span")
        boxes = spans.evaluate_all(
            "spans => spans.map(s => { const r = s.getBoundingClientRect();"
            " return [r.left, r.right, r.top]; })"
        )
        if language == "ar":
            expect(words).to_have_attribute("dir", "rtl")
            assert spans.all_inner_texts() == sentence.split()
            # Read from the right: each word left of the one before it, on its line.
            same_line = [(a, b) for a, b in pairwise(boxes) if abs(a[2] - b[2]) < 2]
            assert same_line and all(b[1] <= a[0] + 1 for a, b in same_line)
            page.keyboard.press("Tab")
            first = page.locator("input[name='marks'][value='0']")
            first.focus()
            page.keyboard.press("ArrowLeft")  # the next word, to the left
            page.keyboard.press("Space")
            expect(page.locator("input[name='marks'][value='1']")).to_be_checked()
        else:
            assert spans.all_inner_texts() == list(sentence)
            # Characters of a line touch, as written.
            same_line = [(a, b) for a, b in pairwise(boxes) if abs(a[2] - b[2]) < 2]
            assert all(b[0] - a[1] < 1 for a, b in same_line)
            word(page, 2).click()
            word(page, 3).click()
        put_aside(page)  # the marks alone leave the pair open: sent when the tab is
        expect_saved(page)
        assert overflowing(page) == []
        shot(page, f"{language}-{size}")
        expected = [1] if language == "ar" else [2, 3]
        assert marks_by_position(token)[3] == expected
        units = [w for _, w, _ in Rating.objects.get(participant__token=token, position=3).marks]
        assert units == ([sentence.split()[1]] if language == "ar" else list(sentence[2:4]))
    finally:
        context.close()


def test_larger_text_keeps_the_words_on_a_phone_screen(browser, live_server, study):
    context = browser.new_context(
        viewport={"width": PHONE[0], "height": PHONE[1]}, locale="en-GB", has_touch=True
    )
    page = context.new_page()
    token = started(study)
    try:
        page.goto(f"{live_server.url}/p/{token}/item/1/")
        page.get_by_role("button", name="Larger text").click()
        expect(page.locator("body")).to_have_class("reading")
        expect(page.locator(".marks-words.inline")).to_be_visible()
        word(page, 1).tap()
        put_aside(page)
        expect_saved(page)
        assert overflowing(page) == []
        shot(page, "larger-text-phone")
    finally:
        context.close()
