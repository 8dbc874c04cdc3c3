"""A simulated pen and scanner, to test and measure the scan reader on known answers.

The marks follow a stated model: ticks and crosses of varying size, angle, stroke width and
ink (a share of them in light pencil), corrections (the wrong box filled, then the right one
checked), stray marks beside boxes, and blank answers. The scanner rotates, scales, shifts,
adds noise and can compress to JPEG. Everything is drawn on page rasters with OpenCV.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import cv2
import numpy as np

from wojdb.core.paper.layout import MM, Box, Layout


@dataclass(frozen=True)
class PenModel:
    blank: float = 0.04  # share of questions left unanswered
    correction: float = 0.05  # share answered after cancelling another box by filling it
    stray: float = 0.05  # share with a stray stroke beside a box
    pencil: float = 0.10  # share marked in pencil instead of pen
    faint: float = 0.01  # share marked so faintly (a pale pencil) that a reader must look
    cross: float = 0.4  # share of marks that are crosses rather than ticks


@dataclass(frozen=True)
class ScannerModel:
    rotation: float = 3.0  # degrees, uniform in ±rotation
    scale: float = 0.03  # uniform in 1 ± scale
    shift: float = 3 * MM  # points, uniform in ±shift each way
    noise: float = 6.0  # grey levels, standard deviation
    jpeg: int | None = 75  # JPEG quality, None for lossless
    upside_down: float = 0.1  # share of pages scanned upside down


def _pt(x: float, y: float, px: float) -> tuple[int, int]:
    return round(x * px), round(y * px)


def _stroke(page, points, width_px: int, ink: int):
    cv2.polylines(page, [np.array(points, np.int32)], False, ink, width_px, cv2.LINE_AA)


def check(page, box: Box, px: float, rng: random.Random, pencil: bool, cross: bool, faint=False):
    """A tick or cross over the box, 55-100% of its size, slightly off centre."""
    size = box.w * rng.uniform(0.55, 1.0)
    cx = box.x + box.w / 2 + rng.uniform(-0.12, 0.12) * box.w
    cy = box.y + box.h / 2 + rng.uniform(-0.12, 0.12) * box.h
    width = max(1, round(rng.uniform(0.3, 0.6 if pencil else 0.75) * MM * px))
    ink = (
        rng.randint(150, 190) if faint else rng.randint(95, 125) if pencil else rng.randint(10, 70)
    )
    h = size / 2
    if cross:
        _stroke(page, [_pt(cx - h, cy - h, px), _pt(cx + h, cy + h, px)], width, ink)
        _stroke(page, [_pt(cx - h, cy + h, px), _pt(cx + h, cy - h, px)], width, ink)
    else:
        tip = (cx - h * 0.2, cy + h)
        _stroke(
            page,
            [_pt(cx - h, cy + h * 0.1, px), _pt(*tip, px), _pt(cx + h * 1.1, cy - h * 1.1, px)],
            width,
            ink,
        )


def fill(page, box: Box, px: float, rng: random.Random):
    """A box inked over completely, a little beyond its edges, as a cancelled answer."""
    grow = rng.uniform(0.0, 0.6) * MM
    corners = [
        (box.x - grow + rng.uniform(-0.3, 0.3) * MM, box.y - grow),
        (box.x + box.w + grow, box.y - grow + rng.uniform(-0.3, 0.3) * MM),
        (box.x + box.w + grow, box.y + box.h + grow),
        (box.x - grow, box.y + box.h + grow + rng.uniform(-0.3, 0.3) * MM),
    ]
    cv2.fillPoly(
        page, [np.array([_pt(x, y, px) for x, y in corners], np.int32)], rng.randint(10, 60)
    )


def stray(page, box: Box, px: float, rng: random.Random):
    """A short stroke beside the box, at least 1.5 mm clear of it."""
    side = rng.choice((-1, 1))
    x = box.x + box.w / 2 + side * (box.w / 2 + rng.uniform(1.5, 3) * MM)
    y = box.y + rng.uniform(0, box.h)
    _stroke(page, [_pt(x, y, px), _pt(x + rng.uniform(-1, 1) * MM, y + 2 * MM, px)], 2, 40)


def mark(
    pages: list[np.ndarray],
    layout: Layout,
    dpi: int,
    rng: random.Random,
    model=PenModel(),
    faint_marks: set[str] | None = None,
) -> dict[str, str | None]:
    """Answer every box question at random on the page rasters; returns the true answers and
    adds the fields marked faintly to `faint_marks`, if given."""
    px = dpi / 72
    truth = {}
    for name, boxes in layout.questions().items():
        page = pages[boxes[0].page - 1]
        if rng.random() < model.stray:
            stray(page, rng.choice(boxes), px, rng)
        if rng.random() < model.blank:
            truth[name] = None
            continue
        chosen = rng.choice(boxes)
        others = [b for b in boxes if b is not chosen]
        if others and rng.random() < model.correction:
            wrong = rng.choice(others)
            check(page, wrong, px, rng, pencil=False, cross=rng.random() < model.cross)
            fill(page, wrong, px, rng)
        faint = rng.random() < model.faint
        if faint and faint_marks is not None:
            faint_marks.add(name)
        pencil = faint or rng.random() < model.pencil
        check(page, chosen, px, rng, pencil, rng.random() < model.cross, faint)
        truth[name] = chosen.value
    return truth


def scan(page: np.ndarray, rng: random.Random, model=ScannerModel()) -> np.ndarray:
    """The page as a scanner returns it: moved, noisy, maybe JPEG-compressed (decoded again)."""
    h, w = page.shape
    px = w / (210 * MM)
    # The scanner's glass is a little larger than the sheet, so its corners stay in the image.
    pad = round(4 * MM * px)
    matrix = cv2.getRotationMatrix2D(
        (w / 2, h / 2),
        rng.uniform(-model.rotation, model.rotation),
        rng.uniform(1 - model.scale, 1 + model.scale),
    )
    matrix[:, 2] += [
        pad + rng.uniform(-1, 1) * model.shift * px,
        pad + rng.uniform(-1, 1) * model.shift * px,
    ]
    size = (w + 2 * pad, h + 2 * pad)
    out = cv2.warpAffine(page, matrix, size, flags=cv2.INTER_LINEAR, borderValue=235)
    if rng.random() < model.upside_down:
        out = cv2.rotate(out, cv2.ROTATE_180)
    noise = np.random.default_rng(rng.getrandbits(32)).normal(0, model.noise, out.shape)
    out = np.clip(out.astype(np.float32) * 0.94 + noise, 0, 255).astype(np.uint8)
    if model.jpeg:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, model.jpeg])
        out = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
    return out
