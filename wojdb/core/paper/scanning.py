"""Reading scanned questionnaire pages: load, identify, register, classify boxes.

A page is identified by its QR code, read by zxing-cpp at any rotation. The code's corners give
a rough page-to-image mapping, which finds the four corner markers; their centroids give the
exact projective mapping (so rotation, scale, shift, upside-down and mild keystone all go the
same way), and the page is warped onto a canonical raster where every box of the layout is
measured. Boxes are classified by how much of their inside is inked, with stated thresholds;
an answer that is not one clear checked box is flagged for review, never guessed.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pypdfium2
import zxingcpp
from PIL import Image

from wojdb.core import budgets
from wojdb.core.budgets import Budgets
from wojdb.core.io import InputError, open_input
from wojdb.core.paper.layout import (
    MARKER_SIZE,
    MM,
    Box,
    Layout,
    LayoutError,
    PageCode,
    TextField,
    marker_centres,
    qr_box,
)
from wojdb.core.paper.thresholds import CHECKED, UNCERTAIN, Thresholds

# The page budget, checked on every frame before it is decoded, replaces Pillow's
# decompression-bomb check, which warns of a first frame over 89 Mpx and refuses one over
# 179 Mpx in its own words, without the page's size or the budget.
Image.MAX_IMAGE_PIXELS = None

CANONICAL_DPI = 150  # boxes are measured on a raster of this resolution: 5 mm is 30 px
SCALE = CANONICAL_DPI / 72  # pixels per point
CODE_DPI = 150  # pages are read for their code at about this resolution, for speed
MARKER_SEARCH = 15 * MM  # how far from its predicted place a marker may be found
MIN_MARKER_INK = 0.97  # inked share of a solid corner marker's area
MAX_RESIDUAL = 3 * MM  # how far the code's corners may lie from where the markers put them


class ScanError(Exception):
    """A file or page that cannot be read; the message names it."""


@dataclass(frozen=True)
class BoxReading:
    field: str
    value: str
    coverage: float
    state: str


@dataclass(frozen=True)
class TextReading:
    field: str
    written: bool
    png: bytes


@dataclass
class PageReading:
    code: PageCode
    image: np.ndarray | None  # the registered page on the canonical raster, grey
    boxes: list[BoxReading]
    texts: list[TextReading]


@dataclass(frozen=True)
class Decision:
    """An answer: `value` for one clear checked box, None for blank or flagged."""

    value: str | None
    status: str  # "answered", "blank" or "flagged"
    reason: str = ""


# Loading ----------------------------------------------------------------------------------------


def load_pages(path: Path, dpi: int = 200) -> list[tuple[str, np.ndarray]]:
    """Every page of a PDF or image file as a grey image, labelled "FILE page N"."""
    return list(iter_pages(path, dpi))


def iter_pages(
    path: Path, dpi: int = 200, limits: Budgets | None = None
) -> Iterator[tuple[str, np.ndarray]]:
    """The pages of a file one by one, within the budgets (wojdb.core.budgets): each page's
    size is read from the file's header before it is decoded; a PDF page is rasterised at `dpi`
    or at the highest resolution the pixel budget allows, one page at a time; a TIFF is decoded
    frame by frame."""
    path = Path(path)
    limits = limits or budgets.current()
    try:
        with open_input(path, limits.scan_bytes, limits.variable("scan_bytes")) as handle:
            head = handle.read(8)
    except (InputError, OSError) as e:
        raise ScanError(str(e) if isinstance(e, InputError) else f"{path}: {e}") from None
    if head.startswith(b"%PDF"):
        yield from _pdf_pages(path, dpi, limits)
    else:
        yield from _image_pages(path, limits)


def _too_large(label: str, width: int, height: int, limits: Budgets) -> ScanError:
    return ScanError(
        f"{label}: {width:,} × {height:,} pixels, over the budget of {limits.page_pixels:,} "
        f"pixels a page ({limits.variable('page_pixels')} raises it)"
    )


#: What Pillow raises on a header it cannot parse.
HEADER_ERRORS = (OSError, ValueError, SyntaxError, EOFError, IndexError, TypeError, struct.error)


def _image_pages(path: Path, limits: Budgets) -> Iterator[tuple[str, np.ndarray]]:
    unreadable = ScanError(f"{path}: not a PDF or an image file that can be read (PNG, TIFF, JPEG)")
    try:
        header = Image.open(path)  # reads the header only
        frames = getattr(header, "n_frames", 1) if header.format == "TIFF" else 1
    except HEADER_ERRORS:
        raise unreadable from None
    with header:
        for n in range(frames):
            label = f"{path.name} page {n + 1}"
            try:
                header.seek(n)
            except HEADER_ERRORS:
                raise ScanError(f"{label}: cannot be read") from None
            width, height = header.size
            if width * height > limits.page_pixels:
                raise _too_large(label, width, height, limits)
            if frames > 1:  # this frame alone, decoded straight to 8-bit grey
                ok, decoded = cv2.imreadmulti(str(path), n, 1, flags=cv2.IMREAD_GRAYSCALE)
                image = decoded[0] if ok and decoded else None
            else:
                data = np.fromfile(str(path), dtype=np.uint8)
                image = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE) if data.size else None
                del data
            if image is None:
                raise unreadable if n == 0 else ScanError(f"{label}: cannot be decoded")
            yield label, _grey(image)
            del image


def _pdf_pages(path: Path, dpi: int, limits: Budgets) -> Iterator[tuple[str, np.ndarray]]:
    try:
        pdf = pypdfium2.PdfDocument(str(path))
    except pypdfium2.PdfiumError as e:
        raise ScanError(f"{path}: not a readable PDF ({e})") from None
    try:
        for n in range(len(pdf)):
            page = pdf[n]
            width, height = page.get_size()  # points
            if not width * height > 0:
                raise ScanError(f"{path.name} page {n + 1}: the page has no size")
            scale = min(dpi / 72, math.sqrt(limits.page_pixels / (width * height)))
            # The array shares the bitmap's buffer, which Python allocated: it outlives both.
            grey = _grey(page.render(scale=scale, grayscale=True).to_numpy())
            page.close()
            yield f"{path.name} page {n + 1}", grey
            del grey
    finally:
        pdf.close()


def _grey(image: np.ndarray) -> np.ndarray:
    """A decoded grey page (OpenCV decodes straight to 8-bit grey, a colour or 16-bit page
    never held whole), with bilevel scans stored as 0/1 stretched to 0/255."""
    if image.max(initial=0) == 1:
        image = image * np.uint8(255)
    return np.ascontiguousarray(image)


# Identification and registration ----------------------------------------------------------------


def read_code(grey: np.ndarray) -> tuple[PageCode, np.ndarray]:
    """The page's code and its four corners in image pixels (top-left first, clockwise)."""
    # The paper is not known yet; A4's and letter's long sides differ by 6%, close enough.
    factor = min(1.0, CODE_DPI / 72 * 842 / max(grey.shape))
    if factor > 0.9:
        factor, small = 1.0, grey
    else:
        small = cv2.resize(grey, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    found = zxingcpp.read_barcodes(small, formats=zxingcpp.BarcodeFormat.QRCode)
    if not found and small is not grey:
        found = zxingcpp.read_barcodes(grey, formats=zxingcpp.BarcodeFormat.QRCode)
        factor = 1.0
    codes = []
    for result in found:
        try:
            codes.append((PageCode.parse(result.text), result.position))
        except LayoutError:
            continue
    if not codes:
        raise ScanError("no WOJ-DB page code could be read")
    code, pos = codes[0]
    corners = np.array(
        [[p.x, p.y] for p in (pos.top_left, pos.top_right, pos.bottom_right, pos.bottom_left)],
        dtype=np.float64,
    )
    return code, corners / factor


def register(grey: np.ndarray, paper: tuple[float, float], code_corners: np.ndarray):
    """The canonical-raster image of the page, from its four corner markers."""
    qx, qy, qs, _ = qr_box(paper)
    qr_page = np.array([[qx, qy], [qx + qs, qy], [qx + qs, qy + qs], [qx, qy + qs]]) * SCALE
    # Only a similarity (rotation, scale, shift) from the code: its corners are read to a pixel
    # or two, and a full perspective fit would swing wildly across the page.
    rough, _ = cv2.estimateAffinePartial2D(
        qr_page.astype(np.float32), code_corners.astype(np.float32), method=cv2.LMEDS
    )
    px_per_pt = float(np.linalg.norm(code_corners[1] - code_corners[0]) / qs)
    white = _paper_white(grey)
    found = []
    for cx, cy in marker_centres(paper):
        predicted = rough @ np.array([cx * SCALE, cy * SCALE, 1.0])
        found.append(_find_marker(grey, predicted, px_per_pt, white))
    if any(f is None for f in found):
        missing = [
            n
            for n, f in zip(
                ("top-left", "top-right", "bottom-right", "bottom-left"), found, strict=True
            )
            if f is None
        ]
        raise ScanError(f"corner marker(s) not found: {', '.join(missing)}")
    if min(solid for _, solid in found) < MIN_MARKER_INK:
        # A black-and-white scan made with a local (adaptive) threshold: it hollows every solid
        # area, so a filled (cancelled) box would read as checked or empty.
        raise ScanError(
            "the corner markers are hollow: this black-and-white scan used a local threshold "
            "that hollows filled boxes too; scan in grey or colour, or with a fixed threshold"
        )
    page_pts = np.array(marker_centres(paper), dtype=np.float32) * SCALE
    centres = np.array([centre for centre, _ in found], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(page_pts, centres)
    # The code's corners, mapped by the markers, must land where the code was read.
    check = cv2.perspectiveTransform(qr_page.reshape(-1, 1, 2).astype(np.float32), matrix)
    residual = float(np.abs(check.reshape(-1, 2) - code_corners).max()) / px_per_pt
    if residual > MAX_RESIDUAL:
        raise ScanError(
            f"the corner markers and the code disagree by {residual / MM:.1f} mm: "
            "the page may be folded, cut or not a WOJ-DB page"
        )
    size = (round(paper[0] * SCALE), round(paper[1] * SCALE))
    return cv2.warpPerspective(
        grey, matrix, size, flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP, borderValue=int(white)
    )


def _paper_white(grey: np.ndarray) -> float:
    sample = grey[:: max(1, grey.shape[0] // 200), :: max(1, grey.shape[1] // 200)]
    return max(float(np.percentile(sample, 90)), 32.0)


def _find_marker(grey, predicted, px_per_pt: float, white: float):
    """The centroid of the marker-sized dark square nearest to `predicted` and the inked share
    of its inside, or None."""
    r = int(MARKER_SEARCH * px_per_pt)
    x0, y0 = max(0, int(predicted[0]) - r), max(0, int(predicted[1]) - r)
    x1, y1 = min(grey.shape[1], int(predicted[0]) + r), min(grey.shape[0], int(predicted[1]) + r)
    if x1 <= x0 or y1 <= y0:
        return None
    window = grey[y0:y1, x0:x1]
    dark = (window < 0.5 * white).astype(np.uint8)
    # Outer contours, so a marker that an adaptive-threshold scanner left hollow still counts
    # with its full area.
    contours, _ = cv2.findContours(dark, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    expected = (MARKER_SIZE * px_per_pt) ** 2
    best, best_distance = None, None
    for contour in contours:
        area = cv2.contourArea(contour)
        if not 0.6 * expected <= area <= 1.5 * expected:
            continue
        (_, _), (w, h), _ = cv2.minAreaRect(contour)
        if area < 0.8 * w * h or not 0.75 <= w / max(h, 1e-6) <= 1.33:
            continue  # not a square
        m = cv2.moments(contour)
        centre = np.array([m["m10"] / m["m00"] + x0, m["m01"] / m["m00"] + y0])
        distance = float(np.hypot(*(centre - predicted)))
        if best_distance is None or distance < best_distance:
            bx, by, bw, bh = cv2.boundingRect(contour)
            inside = np.zeros((bh, bw), np.uint8)
            cv2.drawContours(inside, [contour - (bx, by)], -1, 1, cv2.FILLED)
            solid = float((inside & dark[by : by + bh, bx : bx + bw]).sum()) / max(1, inside.sum())
            best, best_distance = (centre, solid), distance
    return best


# Boxes and answers --------------------------------------------------------------------------------


def ink_mask(page: np.ndarray, level: float) -> np.ndarray:
    """1 where the page is darker than `level` times its paper white."""
    return (page < level * _paper_white(page)).astype(np.uint8)


def _coverage(integral: np.ndarray, x, y, w, h, margin) -> float:
    left, top = round((x + margin) * SCALE), round((y + margin) * SCALE)
    right, bottom = round((x + w - margin) * SCALE), round((y + h - margin) * SCALE)
    if right <= left or bottom <= top:
        return 0.0
    inked = (
        integral[bottom, right]
        - integral[top, right]
        - integral[bottom, left]
        + integral[top, left]
    )
    return float(inked) / ((right - left) * (bottom - top))


def measure_boxes(page, boxes: list[Box], thresholds: Thresholds) -> list[BoxReading]:
    ink = cv2.integral(ink_mask(page, thresholds.ink))
    faint = cv2.integral(ink_mask(page, thresholds.faint))
    readings = []
    for b in boxes:
        coverage = _coverage(ink, b.x, b.y, b.w, b.h, thresholds.margin)
        light = _coverage(faint, b.x, b.y, b.w, b.h, thresholds.margin)
        state = thresholds.classify(coverage, light)
        readings.append(BoxReading(b.field, b.value, coverage, state))
    return readings


def crop_text(page, fields: list[TextField], thresholds: Thresholds) -> list[TextReading]:
    integral = cv2.integral(ink_mask(page, thresholds.faint))
    readings = []
    for t in fields:
        inked = _coverage(integral, t.x, t.y, t.w, t.h, 1.5 * MM) >= thresholds.text_min
        pad = 2 * MM
        top, bottom = max(0, round((t.y - pad) * SCALE)), round((t.y + t.h + pad) * SCALE)
        left, right = max(0, round((t.x - pad) * SCALE)), round((t.x + t.w + pad) * SCALE)
        ok, png = cv2.imencode(".png", page[top:bottom, left:right])
        readings.append(TextReading(t.field, inked, png.tobytes()))
    return readings


def read_page(grey: np.ndarray, layout_for, thresholds: Thresholds = Thresholds()) -> PageReading:
    """Identify, register and measure one page; `layout_for(code)` gives its Layout or raises."""
    code, corners = read_code(grey)
    layout: Layout = layout_for(code)
    if not 1 <= code.page <= layout.pages:
        raise ScanError(f"page {code.page} of copy {code.copy}: the copy has {layout.pages} pages")
    page = register(grey, layout.paper, corners)
    return PageReading(
        code,
        page,
        measure_boxes(page, layout.boxes_on(code.page), thresholds),
        crop_text(page, layout.text_fields_on(code.page), thresholds),
    )


def decide(boxes: list[BoxReading]) -> dict[str, Decision]:
    """One decision per field: exactly one checked box answers; any doubt is flagged."""
    by_field: dict[str, list[BoxReading]] = {}
    for b in boxes:
        by_field.setdefault(b.field, []).append(b)
    decisions = {}
    for name, readings in by_field.items():
        checked = [b.value for b in readings if b.state == CHECKED]
        uncertain = [b.value for b in readings if b.state == UNCERTAIN]
        if uncertain:
            decisions[name] = Decision(None, "flagged", f"unclear mark on {', '.join(uncertain)}")
        elif len(checked) > 1:
            decisions[name] = Decision(
                None, "flagged", f"several boxes checked: {', '.join(checked)}"
            )
        elif checked:
            decisions[name] = Decision(checked[0], "answered")
        else:
            decisions[name] = Decision(None, "blank")
    return decisions
