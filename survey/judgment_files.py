"""Which reader a human-judgment file needs, decided by its content.

Each format is (name, recognise, read): `recognise(path) -> bool` looks at the file's content,
`read(path, lp)` returns its rows — `wmt.SegmentScore` or `wmt.Judgment` records, which
`survey.importers.import_judgments` knows how to store. A new format is one more line here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from survey import wmt

JUDGMENT_FORMATS: list[tuple[str, Callable[[Path], bool], Callable[..., list]]] = [
    (wmt.SEGMENT_SCORES, wmt.is_segment_scores, wmt.read_segment_scores),
    (wmt.JUDGMENTS, wmt.is_judgments, wmt.read_judgments),
]


def read_judgment_file(path: Path, lp: str | None = None) -> tuple[str, list]:
    """(format name, rows) of a judgment file in any known format."""
    for name, recognise, read in JUDGMENT_FORMATS:
        if recognise(path):
            return name, read(path, lp)
    names = ", ".join(name for name, _, _ in JUDGMENT_FORMATS)
    raise wmt.InputError(path, f"is not a judgment file of a known format ({names})", line=1)
