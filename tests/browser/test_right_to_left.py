"""A study in a right-to-left language (Arabic) in Debian's chromium, at 1280 × 800 and
390 × 844: the page declares `dir="rtl"`, and the scale, its end labels, the sentences' marks and
Next are laid out from the right, with nothing overflowing the screen. Its texts come from its
study file; the pages' own strings have no Arabic catalogue and fall back to English.

Screenshots: test-artifacts/screenshots/rtl-{information,item}-{desktop,phone}.png.
"""

from __future__ import annotations

import pytest
import tomli_w
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from survey.design.plan import study_config
from survey.models import Segment, Triple
from survey.participants import participation
from tests.factories import make_study

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}

ARABIC = {
    "language": "ar",
    "information_sheet": "## عنوان المشروع\nأحكام بشرية على ترتيب الكلمات في الترجمة الآلية\n\n"
    "## عمّ تدور الدراسة؟\nندعوك إلى المشاركة في مشروع بحثي حول أثر ترتيب الكلمات في انطباع "
    "القرّاء عن جودة الترجمة الآلية. سترى {pairs} من أزواج الجمل.\n",
    "consent_intro": "## ما الذي يحدث لبياناتك\n{data_use}\n",
    "consent_closing": "المشاركة في هذا البحث طوعية تمامًا.\n",
    "debriefing": "## شكرًا لك\nساعدتنا إجاباتك على تقييم أدوات التقييم الآلي.\n",
    "instructions": "## ما الذي ستراه\nتعرض كل صفحة زوجًا من الجمل العربية، وتجيب عن سؤالين "
    "عن كل زوج على مقياس من ١ إلى ٥.\n",
    "holistic_question": "ما مدى صعوبة فهم معنى الجملة الثانية لو عُرضت عليك الجملة الأولى وحدها؟",
    "holistic_low": "صعب جدًا",
    "holistic_high": "سهل جدًا",
    "order_question": "إلى أي حد يحجب ترتيب الكلمات وحده معنى الجملة الأولى؟",
    "order_low": "إلى حد كبير جدًا",
    "order_high": "لا يحجبه إطلاقًا",
    "consent_texts": [
        {
            "version": 2,
            "statements": ["قرأت ورقة المعلومات وفهمتها.", "أوافق على المشاركة في الدراسة."],
        }
    ],
}
HYPOTHESIS = "الولد ذهب إلى المدرسة اليوم صباح ."
REFERENCE = "ذهب الولد إلى المدرسة صباح اليوم ."


@pytest.fixture
def arabic_study(tmp_path):
    """A study whose texts are set by its study file, with Arabic sentences."""
    study = make_study(questionnaires=1, items=2, launched_at=None)  # its file still applies
    declared = study_config(study)  # the study as its file, then in Arabic
    declared |= {"name": "دراسة ترتيب الكلمات", **ARABIC}
    declared["consent_texts"] = study_config(study)["consent_texts"] + ARABIC["consent_texts"]
    path = tmp_path / "study.toml"
    path.write_text(tomli_w.dumps(declared))
    call_command("create_study", str(path))
    Segment.objects.update(reference=REFERENCE)
    Triple.objects.update(hypothesis=HYPOTHESIS)
    study.refresh_from_db()
    return study


def box(locator) -> dict:
    found = locator.bounding_box()
    assert found is not None, locator
    return found


def overflowing(page) -> list[str]:
    """Visible elements reaching beyond the screen's left or right edge, and any sideways
    scrolling (visually hidden helpers are off screen on purpose)."""
    return page.evaluate(
        """() => {
          const width = document.documentElement.clientWidth;
          const out = [];
          if (document.documentElement.scrollWidth > width) out.push("the page scrolls sideways");
          for (const el of document.querySelectorAll("main *, header *, footer *")) {
            if (el.closest(".vh, .default-submit, [hidden], template")) continue;
            const r = el.getBoundingClientRect();
            if (r.width === 0 || r.height === 0) continue;
            if (r.left < -0.5 || r.right > width + 0.5)
              out.push(`${el.tagName.toLowerCase()}.${el.className}: ${r.left}-${r.right}`);
          }
          return out;
        }"""
    )


@pytest.mark.parametrize("size", SIZES)
def test_a_right_to_left_study_is_laid_out_from_the_right(
    browser, live_server, arabic_study, screenshot, size
):
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, locale="ar")
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/s/{arabic_study.slug}/")
        expect(page.locator("html")).to_have_attribute("dir", "rtl")
        expect(page.locator("html")).to_have_attribute("lang", "ar")
        expect(page.get_by_role("heading", name="عمّ تدور الدراسة؟")).to_be_visible()
        assert overflowing(page) == []
        screenshot(page, f"rtl-information-{size}")

        participant = participation.enter(arabic_study, {})
        consent = participation.current_consent(arabic_study)
        assert consent.statements == ARABIC["consent_texts"][0]["statements"]
        participation.give_consent(participant, consent, now=timezone.now())
        participant.about_done = True
        participant.save(update_fields=["about_done"])
        page.goto(f"{live_server.url}/p/{participant.token}/item/1/")
        expect(page.locator("p.sentence.machine")).to_have_text(HYPOTHESIS)
        expect(page.locator("p.sentence.machine")).to_have_attribute("lang", "ar")

        for scale in ("holistic", "order"):
            fieldset = page.locator(f"fieldset[data-scale='{scale}']")
            # 1 at the right, 5 at the left; the low end's label over 1.
            xs = [box(fieldset.locator(f"label[for='{scale}-{n}']"))["x"] for n in range(1, 6)]
            assert xs == sorted(xs, reverse=True), (scale, xs)
            low, high = (box(span) for span in fieldset.locator(".ends span").all())
            assert low["x"] > high["x"]
            # The question starts at the right of its card.
            legend, card = box(fieldset.locator("legend")), box(fieldset)
            assert card["x"] + card["width"] - (legend["x"] + legend["width"]) < 20

        # Next at the end of the line, which is the left; Back at the right.
        next_button = box(page.locator(".nav button.primary"))
        back_button = box(page.locator(".nav button.secondary"))
        assert next_button["x"] + next_button["width"] <= back_button["x"]
        # The machine translation's mark is on its right edge.
        border = page.locator("p.sentence.machine").evaluate(
            "el => [getComputedStyle(el).borderRightWidth, getComputedStyle(el).borderLeftWidth]"
        )
        assert border == ["5px", "1px"]
        if size == "phone":  # the header's button shares the heading's row without covering it
            heading, toggle = box(page.locator("h1")), box(page.locator(".reading-toggle button"))
            assert toggle["x"] + toggle["width"] <= heading["x"] + 1 or (
                toggle["y"] + toggle["height"] <= heading["y"]
            )
        assert overflowing(page) == []
        screenshot(page, f"rtl-item-{size}")

        page.locator("label[for='holistic-2']").click()
        page.locator("label[for='order-4']").click()
        expect(page.locator("[data-save-state]")).to_have_text("Saved.")
    finally:
        context.close()
