"""How a scanned box is told empty, checked or filled: the thresholds, their defaults and check.

Apart from the scanning itself, so that `import_scans` offers them as options without loading
OpenCV, numpy and the PDF and code readers.
"""

from __future__ import annotations

from dataclasses import dataclass

from wojdb.core.paper.layout import MM

EMPTY, CHECKED, FILLED, UNCERTAIN = "empty", "checked", "filled", "uncertain"


@dataclass(frozen=True)
class Thresholds:
    """How a box is classified, as shares of its inside (the box less `margin` on each side).

    A pixel is ink when darker than `ink` times the page's paper white. A box is empty below
    `empty_max`, checked from `checked_min` to `checked_max`, filled (a cancelled answer) from
    `filled_min`; a box in a gap between these ranges is uncertain and its answer flagged. A
    box that is empty by that measure but has `checked_min` of faint marks (darker than
    `faint` times paper white: light pencil, a pale pen) is uncertain too, not empty.
    """

    ink: float = 0.6
    faint: float = 0.85
    empty_max: float = 0.03
    checked_min: float = 0.05
    checked_max: float = 0.75
    filled_min: float = 0.88
    margin: float = 0.9 * MM  # points: clear of the printed line and small misregistration
    text_min: float = 0.004  # a write-in area with less ink than this share counts as blank

    def __post_init__(self):
        steps = (0, self.empty_max, self.checked_min, self.checked_max, self.filled_min, 1)
        if not 0 < self.ink <= self.faint < 1 or any(
            a > b for a, b in zip(steps, steps[1:], strict=False)
        ):
            raise ValueError(
                "thresholds must satisfy 0 <= empty_max <= checked_min <= checked_max <= "
                "filled_min <= 1 and 0 < ink <= faint < 1"
            )

    def classify(self, coverage: float, faint: float = 0.0) -> str:
        """The state of a box with `coverage` of ink and `faint` of faint-or-darker marks."""
        if coverage < self.empty_max:
            return UNCERTAIN if faint >= self.checked_min else EMPTY
        if self.checked_min <= coverage <= self.checked_max:
            return CHECKED
        if coverage >= self.filled_min:
            return FILLED
        return UNCERTAIN
