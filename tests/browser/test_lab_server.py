"""A lab's server as two researchers use it, in Chromium at 1280×800 and 390×844: each sees only
their own study; a viewer sees the counts but no download; the owner adds an analyst from the
study page, who then finds the study, its report link and its release."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from survey import access
from survey.models import StudyMember
from tests.factories import make_study
from wojdb.core.vocabulary import ANALYST, OWNER, VIEWER

pytestmark = pytest.mark.django_db(transaction=True)

SIZES = [(1280, 800), (390, 844)]
NO_SIDEWAYS_SCROLL = (
    "document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth"
)


def researcher(name: str):
    return get_user_model().objects.create_user(name, password="a-long-password", is_staff=True)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_two_researchers_each_see_their_own_study_and_share_one_by_role(
    live_server, browser, log_in_as, screenshot, size
):
    ada, ben, cleo = researcher("ada"), researcher("ben"), researcher("cleo")
    zh, de = make_study(launched_at=None), make_study()
    zh.name, de.name = "WMT22 zh-en order study", "WMT22 de-en pilot"
    zh.save(update_fields=["name"])
    de.save(update_fields=["name"])
    access.set_role(zh, ada, OWNER)
    access.set_role(de, ben, OWNER)
    access.set_role(zh, cleo, VIEWER)
    width, height = size
    pages = {}
    for user in (ada, ben, cleo):
        context = browser.new_context(viewport={"width": width, "height": height})
        pages[user.username] = context.new_page()
        log_in_as(pages[user.username], live_server, user)

    # Each researcher's studies, and nothing of the other's.
    for name, own, other in (("ada", zh, de), ("ben", de, zh)):
        page = pages[name]
        page.goto(f"{live_server.url}/researcher/")
        expect(page.get_by_role("link", name=own.name)).to_be_visible()
        expect(page.get_by_role("link", name=other.name)).to_have_count(0)
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        screenshot(page, f"lab-{name}-studies-{width}")
        response = page.goto(f"{live_server.url}/researcher/studies/{other.slug}/")
        assert response.status == 404

    # A viewer: counts and figures, no downloads, no actions, no record.
    viewer = pages["cleo"]
    viewer.goto(f"{live_server.url}/researcher/studies/{zh.slug}/")
    expect(viewer.get_by_role("heading", name="People")).to_be_visible()
    expect(viewer.get_by_role("link", name="Download the WOJ-DB release")).to_have_count(0)
    expect(viewer.get_by_role("button", name="Launch")).to_have_count(0)
    expect(viewer.get_by_role("heading", name="Record")).to_have_count(0)
    assert viewer.evaluate(NO_SIDEWAYS_SCROLL)
    screenshot(viewer, f"lab-viewer-study-{width}")
    assert viewer.goto(f"{live_server.url}/researcher/data/{zh.slug}/release.zip").status == 403

    # The owner adds Ben as an analyst of her study from its page.
    owner = pages["ada"]
    owner.goto(f"{live_server.url}/researcher/studies/{zh.slug}/")
    team = owner.locator("[data-add-member]")
    team.get_by_label("User name").fill("ben")
    team.get_by_label("Role").select_option(ANALYST)
    team.get_by_role("button", name="Save").click()
    expect(owner.get_by_text(f"ben is now analyst of {zh.slug}.")).to_be_visible()
    expect(owner.locator('[data-member="ben"]')).to_contain_text("analyst")
    record = owner.locator("[data-record]")
    expect(record).to_contain_text("member added")
    assert owner.evaluate(NO_SIDEWAYS_SCROLL)
    screenshot(owner, f"lab-owner-team-{width}")
    assert StudyMember.objects.get(study=zh, user=ben).role == ANALYST

    # Ben now finds Ada's study beside his own, with its report, and cannot launch it.
    analyst = pages["ben"]
    analyst.goto(f"{live_server.url}/researcher/")
    analyst.get_by_role("link", name=zh.name).click()
    expect(analyst.locator("[data-report-link]")).to_be_visible()
    expect(analyst.get_by_role("button", name="Launch")).to_have_count(0)
    screenshot(analyst, f"lab-analyst-study-{width}")
    for page in pages.values():
        page.context.close()
