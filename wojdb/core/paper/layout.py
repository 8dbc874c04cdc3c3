"""Where everything is on a printed questionnaire page, and the `layout.json` that records it.

Coordinates are PDF points (1/72 inch) measured from the page's top-left corner, y downwards,
so a reader can use them on an image without flipping. Every page carries four solid square
corner markers (for registration) and one QR code at the bottom centre naming the page.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

MM = 72 / 25.4
PAPER_SIZES = {"a4": (595.2756, 841.8898), "letter": (612.0, 792.0)}

# Solid squares keep registration simple and robust: a blob is found at any rotation, and its
# centroid is precise to a fraction of a pixel even on noisy scans.
MARKER_SIZE = 6 * MM
MARKER_INSET = 10 * MM  # from each page edge to the marker's outer edge
QR_SIZE = 20 * MM
QR_BOTTOM = 11 * MM  # from the bottom edge to the QR's lower edge; the readable id goes below
BOX_SIZE = 5 * MM
CONTENT_TOP = 22 * MM
CONTENT_BOTTOM = QR_BOTTOM + QR_SIZE + 4 * MM
CONTENT_SIDE = 22 * MM

CODE_PREFIX = "WOJDB"
COPY_ID = re.compile(r"[A-Z0-9]{4,16}")
SLUG = re.compile(r"[-a-zA-Z0-9_]+")


class LayoutError(ValueError):
    """A layout.json or page code that does not describe a questionnaire."""


def marker_centres(paper: tuple[float, float]) -> list[tuple[float, float]]:
    """Centres of the corner markers: top-left, top-right, bottom-right, bottom-left."""
    w, h = paper
    near = MARKER_INSET + MARKER_SIZE / 2
    return [(near, near), (w - near, near), (w - near, h - near), (near, h - near)]


def qr_box(paper: tuple[float, float]) -> tuple[float, float, float, float]:
    """x, y (top-left corner), width and height of the page's QR code."""
    w, h = paper
    return ((w - QR_SIZE) / 2, h - QR_BOTTOM - QR_SIZE, QR_SIZE, QR_SIZE)


@dataclass(frozen=True)
class PageCode:
    """What a page's QR code says: study, questionnaire number, copy id and 1-based page."""

    study: str
    questionnaire: int
    copy: str
    page: int

    def text(self) -> str:
        return f"{CODE_PREFIX}:{self.study}:{self.questionnaire}:{self.copy}:{self.page}"

    @classmethod
    def parse(cls, text: str) -> PageCode:
        parts = text.split(":")
        if (
            len(parts) != 5
            or parts[0] != CODE_PREFIX
            or not SLUG.fullmatch(parts[1])
            or not parts[2].isdigit()
            or not COPY_ID.fullmatch(parts[3])
            or not parts[4].isdigit()
        ):
            raise LayoutError(f"not a WOJ-DB page code: {text[:80]!r}")
        return cls(parts[1], int(parts[2]), parts[3], int(parts[4]))


@dataclass(frozen=True)
class Box:
    """A check box; `value` is what checking it answers for `field`."""

    page: int
    x: float
    y: float
    w: float
    h: float
    field: str
    value: str


@dataclass(frozen=True)
class TextField:
    """An area to write in, kept as an image crop to be typed in."""

    page: int
    x: float
    y: float
    w: float
    h: float
    field: str


@dataclass
class Layout:
    study: str
    questionnaire: int
    paper: tuple[float, float]
    pages: int
    copies: list[dict] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)
    text_fields: list[TextField] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {
            "study": self.study,
            "questionnaire": self.questionnaire,
            "paper": [round(self.paper[0], 4), round(self.paper[1], 4)],
            "pages": self.pages,
            "copies": list(self.copies),
            "boxes": [_rounded(asdict(b)) for b in self.boxes],
            "text_fields": [_rounded(asdict(t)) for t in self.text_fields],
        }

    def write(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: dict, source: str = "layout") -> Layout:
        """Validate and load; LayoutError names the source and the field that is wrong."""
        try:
            paper = tuple(float(v) for v in data["paper"])
            if len(paper) != 2 or min(paper) <= 0:
                raise ValueError("paper must be [width, height] in points")
            layout = cls(
                study=str(data["study"]),
                questionnaire=int(data["questionnaire"]),
                paper=paper,
                pages=int(data["pages"]),
                copies=[{"id": str(c["id"]), "file": str(c["file"])} for c in data["copies"]],
            )
            for n, b in enumerate(data["boxes"]):
                layout.boxes.append(_checked(Box, b, f"boxes[{n}]", layout))
            for n, t in enumerate(data["text_fields"]):
                layout.text_fields.append(_checked(TextField, t, f"text_fields[{n}]", layout))
        except LayoutError as e:
            raise LayoutError(f"{source}: {e}") from None
        except (KeyError, TypeError, ValueError) as e:
            raise LayoutError(f"{source}: missing or malformed field {e}") from None
        return layout

    @classmethod
    def read(cls, path: Path) -> Layout:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise LayoutError(f"{path}: {e}") from None
        return cls.from_dict(data, str(path))

    def boxes_on(self, page: int) -> list[Box]:
        return [b for b in self.boxes if b.page == page]

    def text_fields_on(self, page: int) -> list[TextField]:
        return [t for t in self.text_fields if t.page == page]

    def questions(self) -> dict[str, list[Box]]:
        """Boxes grouped by field, in layout order."""
        grouped: dict[str, list[Box]] = {}
        for b in self.boxes:
            grouped.setdefault(b.field, []).append(b)
        return grouped


def _rounded(d: dict) -> dict:
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in d.items()}


def _checked(kind, raw: dict, where: str, layout: Layout):
    names = [f for f in kind.__dataclass_fields__]
    missing = [n for n in names if n not in raw]
    if missing:
        raise LayoutError(f"{where}: missing field {missing[0]!r}")
    values = {n: raw[n] for n in names}
    for n in ("x", "y", "w", "h"):
        values[n] = float(values[n])
    values["page"] = int(values["page"])
    if not 1 <= values["page"] <= layout.pages:
        raise LayoutError(f"{where}: page {values['page']} is not in 1-{layout.pages}")
    if values["w"] <= 0 or values["h"] <= 0:
        raise LayoutError(f"{where}: width and height must be positive")
    if (
        values["x"] < 0
        or values["y"] < 0
        or values["x"] + values["w"] > layout.paper[0]
        or (values["y"] + values["h"] > layout.paper[1])
    ):
        raise LayoutError(f"{where}: lies outside the page")
    return kind(**values)
