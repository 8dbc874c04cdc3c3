"""The scan reader on rendered pages: registration, codes, the box classifier, bad input."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from wojdb.core.paper import pen, printing, scanning, thresholds
from wojdb.core.paper.layout import MM, Layout, LayoutError, PageCode

DPI = 150


def _doc() -> printing.Questionnaire:
    scale = printing.Scale
    return printing.Questionnaire(
        study="demo",
        number=2,
        title="Word order",
        researcher="",
        paper="a4",
        scales=(
            scale("holistic", "Grasp?", "Hard", "Easy"),
            scale("word_order", "Order?", "Lots", "None"),
        ),
        about=[printing.Choice("age", "How old are you?", text_width=30 * MM)],
        consent_statements=["I agree to take part."],
        consent_closing="Thank you.",
        practice=None,
        practice_notes=("", ""),
        practice_lead="",
        pairs=[
            printing.Pair(n, "German", f"Machine sentence {n} .", f"Human sentence {n} .")
            for n in range(1, 9)
        ],
    )


@pytest.fixture(scope="module")
def printed(tmp_path_factory) -> tuple[Layout, list[np.ndarray]]:
    path = tmp_path_factory.mktemp("paper") / "copy.pdf"
    layout, _ = printing.typeset(_doc(), "TESTCOPY", path)
    return layout, [grey for _, grey in scanning.load_pages(path, DPI)]


def _moved(page: np.ndarray, degrees: float, scale: float, upside_down=False) -> np.ndarray:
    h, w = page.shape
    pad = 60
    matrix = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, scale)
    matrix[:, 2] += (pad + 7, pad - 5)
    out = cv2.warpAffine(page, matrix, (w + 2 * pad, h + 2 * pad), borderValue=255)
    return cv2.rotate(out, cv2.ROTATE_180) if upside_down else out


@pytest.mark.parametrize(
    "degrees, scale, upside_down",
    [(0, 1, False), (5, 1.03, False), (-5, 0.97, False), (2, 1.0, True), (-4.5, 1.02, True)],
)
def test_registration_finds_each_box_on_rotated_and_scaled_pages(
    printed, degrees, scale, upside_down
):
    layout, pages = printed
    page = pages[1].copy()  # the pairs
    boxes = layout.boxes_on(2)
    chosen = {b.field: b for b in boxes if b.value == "4"}
    rng = random.Random(1)
    for box in chosen.values():
        pen.check(page, box, DPI / 72, rng, pencil=False, cross=True)
    reading = scanning.read_page(_moved(page, degrees, scale, upside_down), lambda code: layout)
    assert reading.code == PageCode("demo", 2, "TESTCOPY", 2)
    states = {(b.field, b.value): b.state for b in reading.boxes}
    for box in boxes:
        expected = (
            thresholds.CHECKED if box.field in chosen and box.value == "4" else thresholds.EMPTY
        )
        assert states[(box.field, box.value)] == expected, (box, reading.boxes)


def test_code_text_round_trips_and_rejects_strangers():
    code = PageCode("my-study", 12, "ABCD2345", 3)
    assert PageCode.parse(code.text()) == code
    for bad in (
        "http://example.org", "WOJDB:x:1:ab:1", "WOJDB:x:one:ABCD2345:1",
        # numbers Python's int() takes but no page code holds
        "WOJDB:demo:\u00b2:COPY:1", "WOJDB:demo:2:COPY:\u00b9", "WOJDB:demo:1_2:COPY:1",
        "WOJDB:demo:\u0662:COPY:1", "WOJDB:demo:99999999999:COPY:1", "WOJDB:x:1:ABCD2345",
    ):  # fmt: skip
        with pytest.raises(LayoutError):
            PageCode.parse(bad)


def test_code_is_read_on_a_rotated_noisy_page(printed):
    _, pages = printed
    scanned = pen.scan(pages[0], random.Random(3), pen.ScannerModel(rotation=5, upside_down=1))
    code, corners = scanning.read_code(scanned)
    assert code == PageCode("demo", 2, "TESTCOPY", 1)
    assert corners.shape == (4, 2)


def test_classifier_uses_the_stated_thresholds():
    t = scanning.Thresholds(empty_max=0.03, checked_min=0.05, checked_max=0.75, filled_min=0.88)
    assert [t.classify(c) for c in (0.0, 0.029, 0.04, 0.05, 0.5, 0.75, 0.8, 0.88, 1.0)] == [
        "empty",
        "empty",
        "uncertain",
        "checked",
        "checked",
        "checked",
        "uncertain",
        "filled",
        "filled",
    ]
    assert t.classify(0.0, faint=0.2) == "uncertain"  # empty to the ink level, yet marked
    assert t.classify(0.0, faint=0.01) == "empty"
    stricter = scanning.Thresholds(checked_max=0.5, filled_min=0.9)
    assert stricter.classify(0.6) == "uncertain"
    with pytest.raises(ValueError):
        scanning.Thresholds(checked_min=0.5, checked_max=0.4)


def test_decisions_take_one_checked_box_and_flag_any_doubt():
    def read(field, *states):
        return [scanning.BoxReading(field, str(n), 0, s) for n, s in enumerate(states, start=1)]

    boxes = (
        read("a", "empty", "checked", "empty")
        + read("b", "empty", "empty", "empty")
        + read("c", "checked", "empty", "checked")
        + read("d", "empty", "uncertain", "empty")
        + read("e", "filled", "empty", "checked")
    )
    decisions = scanning.decide(boxes)
    assert decisions["a"] == scanning.Decision("2", "answered")
    assert decisions["b"] == scanning.Decision(None, "blank")
    assert decisions["c"].status == "flagged" and "several" in decisions["c"].reason
    assert decisions["d"].status == "flagged" and "unclear" in decisions["d"].reason
    assert decisions["e"] == scanning.Decision("3", "answered")  # a cancelled box, then another


def test_light_and_thick_marks_and_fills_are_told_apart(printed):
    layout, pages = printed
    page = pages[1].copy()
    fields = [(n, b) for n, b in layout.questions().items() if b[0].page == 2]
    rng = random.Random(4)
    pen.check(page, fields[0][1][0], DPI / 72, rng, pencil=True, cross=False)
    pen.fill(page, fields[1][1][1], DPI / 72, rng)
    pen.check(page, fields[1][1][2], DPI / 72, rng, pencil=False, cross=True)
    pen.check(page, fields[2][1][3], DPI / 72, rng, pencil=True, cross=True, faint=True)
    reading = scanning.read_page(page, lambda code: layout)
    decisions = scanning.decide(reading.boxes)
    assert decisions[fields[0][0]] == scanning.Decision("1", "answered")
    assert decisions[fields[1][0]] == scanning.Decision("3", "answered")
    assert decisions[fields[2][0]] == scanning.Decision(None, "flagged", "unclear mark on 4")


def test_text_fields_are_kept_as_crops(printed):
    layout, pages = printed
    page = pages[0].copy()
    (field,) = layout.text_fields
    px = DPI / 72
    cv2.putText(
        page,
        "42",
        (round((field.x + 3 * MM) * px), round((field.y + field.h - 2 * MM) * px)),
        cv2.FONT_HERSHEY_SIMPLEX,
        1.0,
        20,
        2,
    )
    (text,) = scanning.read_page(page, lambda code: layout).texts
    assert text.field == "about.age" and text.written
    crop = cv2.imdecode(np.frombuffer(text.png, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert crop.shape[1] == pytest.approx((field.w + 4 * MM) * scanning.SCALE, abs=2)
    (blank,) = scanning.read_page(pages[0], lambda code: layout).texts
    assert not blank.written


def test_file_that_is_not_an_image_or_pdf_is_named(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("hello")
    with pytest.raises(scanning.ScanError, match="notes.txt: not a PDF or an image"):
        scanning.load_pages(bad)
    with pytest.raises(scanning.ScanError, match="missing.png: does not exist"):
        scanning.load_pages(tmp_path / "missing.png")


def test_page_without_code_is_refused():
    blank = np.full((1754, 1240), 250, np.uint8)
    with pytest.raises(scanning.ScanError, match="no WOJ-DB page code"):
        scanning.read_page(blank, lambda code: None)


def test_images_load_in_any_format(printed, tmp_path):
    _, pages = printed
    colour = cv2.cvtColor(pages[0], cv2.COLOR_GRAY2BGR)
    cv2.imwrite(str(tmp_path / "p.jpg"), colour)
    cv2.imwrite(str(tmp_path / "p.png"), pages[0])
    cv2.imwritemulti(str(tmp_path / "p.tif"), [pages[0], pages[1]])
    bilevel = np.where(pages[0] > 128, 255, 0).astype(np.uint8)
    cv2.imwrite(str(tmp_path / "b.tif"), bilevel)
    for name, count in (("p.jpg", 1), ("p.png", 1), ("p.tif", 2), ("b.tif", 1)):
        loaded = scanning.load_pages(Path(tmp_path / name))
        assert len(loaded) == count and loaded[0][1].ndim == 2
        assert scanning.read_code(loaded[0][1])[0].page == 1


def test_black_and_white_scans_are_read_unless_a_local_threshold_hollowed_them(tmp_path):
    """A fixed threshold keeps fills solid; a local one at 600 dpi hollows the corner markers
    and the filled boxes alike, so such a page is refused rather than misread."""
    path = tmp_path / "copy.pdf"
    layout, _ = printing.typeset(_doc(), "TESTCOPY", path)
    grey = scanning.load_pages(path, 600)[1][1]
    rng = random.Random(5)
    questions = [b for b in layout.boxes_on(2) if b.value == "2"]
    for box in questions:
        pen.check(grey, box, 600 / 72, rng, pencil=False, cross=False)
    cancelled = [b for b in layout.boxes_on(2) if b.value == "4"]
    for box in cancelled:
        pen.fill(grey, box, 600 / 72, rng)
    moved = _moved(grey, 2, 1.0)
    fixed = np.where(moved > 128, 255, 0).astype(np.uint8)
    decisions = scanning.decide(scanning.read_page(fixed, lambda code: layout).boxes)
    assert {name: d.value for name, d in decisions.items()} == {b.field: "2" for b in questions}
    local = cv2.adaptiveThreshold(moved, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 51, 10)
    with pytest.raises(scanning.ScanError, match="corner markers are hollow"):
        scanning.read_page(local, lambda code: layout)
