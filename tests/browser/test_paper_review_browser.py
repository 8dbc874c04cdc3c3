"""The paper review page in Debian's chromium, driven by the keyboard alone.

A printed copy is filled in (age and nationality written by hand, simulated), scanned and
imported; the researcher opens the review page and types both answers with Enter between them.
Screenshots go to test-artifacts/screenshots/paper-review-*.png.
"""

from __future__ import annotations

import random

import cv2
import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from survey.models import PaperAnswer
from survey.paper import print_runs, scan_import
from tests.factories import make_study
from wojdb.core.paper import pen, scanning
from wojdb.core.paper.layout import MM

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]
DPI = 150


def imported_copy(tmp_path):
    """One copy imported with nothing checked and two write-ins filled: age and nationality."""
    study = make_study(questionnaires=1, items=6)
    printed = print_runs.print_questionnaires(study, None, 1, "a4", tmp_path / "print")
    folder, layout = printed.layouts[0]
    pages = [grey for _, grey in scanning.load_pages(folder / layout.copies[0]["file"], DPI)]
    px = DPI / 72
    for field in layout.text_fields:
        words = {"about.age": "41", "about.nationality": "Scottish"}.get(field.field)
        if words:
            at = (round((field.x + 3 * MM) * px), round((field.y + field.h - 2 * MM) * px))
            cv2.putText(pages[field.page - 1], words, at, cv2.FONT_HERSHEY_SIMPLEX, 0.9, 30, 2)
    rng = random.Random(1)
    files = []
    for n, page in enumerate(pages):
        files.append(tmp_path / f"{n}.png")
        cv2.imwrite(str(files[-1]), pen.scan(page, rng))
    scan_import.import_scans(files)
    return study


def test_researcher_types_write_ins_with_the_keyboard(
    live_server, page, log_in_as, screenshot, tmp_path
):
    study = imported_copy(tmp_path)
    pending = list(PaperAnswer.objects.filter(status="pending").order_by("page", "id"))
    assert [a.field for a in pending] == ["about.nationality", "about.age"] or [
        a.field for a in pending
    ] == ["about.age", "about.nationality"]
    staff = get_user_model().objects.create_user("researcher", is_staff=True)
    log_in_as(page, live_server, staff)
    page.goto(f"{live_server.url}/researcher/paper/")
    expect(page.get_by_text("2 answers to review")).to_be_visible()
    screenshot(page, "paper-review-list")
    page.keyboard.press("Enter")  # the focused "Review the next one"
    typed = {"about.age": "41", "about.nationality": "Scottish"}
    for answer in pending:
        expect(page.get_by_role("heading", level=1)).to_contain_text(answer.field)
        expect(page.get_by_role("img")).to_be_visible()
        if answer.field == "about.age":
            page.keyboard.type("forty-one")
            page.keyboard.press("Enter")
            expect(page.get_by_role("alert")).to_contain_text("whole number")
            screenshot(page, "paper-review-error")
            page.keyboard.press("Control+A")
        page.keyboard.type(typed[answer.field])
        page.keyboard.press("Enter")
    expect(page.get_by_text("0 answers to review")).to_be_visible()
    person = study.participants.get()
    assert (person.mode, person.age, person.nationality) == ("paper", 41, "Scottish")
