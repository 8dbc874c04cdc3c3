"""Google's MQM annotations of WMT20-24 (google/wmt-mqm-human-evaluation).

Error files (`mqm_*.tsv`): a header `system doc doc_id seg_id rater source target category
severity [comment]`, then one row per error and rater (a segment a rater found no error in has
one row with category and severity `No-error`). `doc_id` is the 1-based segment within the
document `doc`, `seg_id` the 1-based segment of the test set. The error's span is marked in
`source` or `target` with `<v>…</v>`. Files are read as mt-metrics-eval's converter reads them:
tab-separated, no quoting.

Segment scores (`*.avg_seg_scores.tsv`): a header `system mqm_avg_score seg_id`, then one
whitespace-separated row per system and segment.

The MQM segment score is computed as mt-metrics-eval's `converters/score_mqm.py` does: each
error weighs `MQM_WEIGHTS` (the most specific severity[/category[/subcategory]] match, case
ignored, 0 where none matches), a rater's score is the sum over their errors, and the segment
score is minus the mean over raters.
"""

from __future__ import annotations

import csv
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from wojdb.core.formats.common import check_text
from wojdb.core.io import MAX_INT, InputError, check_language, read_lines

# mt-metrics-eval score_mqm.py's default weights (Freitag et al., 2021): Major 5, Minor 1,
# Neutral 0, a Major Non-translation 25, a Minor Fluency/Punctuation error 0.1.
MQM_WEIGHTS = {
    "major": 5.0,
    "minor": 1.0,
    "neutral": 0.0,
    "major/non-translation!": 25.0,
    "minor/fluency/punctuation": 0.1,
}
HEADER = ["system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity"]
SCORE_HEADER = ["system", "mqm_avg_score", "seg_id"]
SPAN = re.compile(r"<v>(.*?)</v>", re.DOTALL)
# The release names the pair in the file name only: mqm_generalMT2022_ende.tsv.
LP_IN_NAME = re.compile(r"_(?P<src>[a-z]{2})(?P<tgt>[a-z]{2})(?:\.avg_seg_scores)?\.tsv$")


@dataclass(frozen=True)
class MqmError:
    """One rater's error in one segment (category and severity `No-error` for none)."""

    system: str
    document: str
    doc_segment: int  # 1-based within the document
    segment: int  # 1-based within the test set
    rater: str
    category: str
    severity: str
    side: str  # "target", "source" or "" (where no span is marked)
    start: int | None  # character offsets of the span in that side's text, tags removed
    end: int | None
    span: str
    line: int
    source_lang: str
    target_lang: str
    span_dropped: bool = False  # its <v> marks do not pair up, so where it lies is unknown


@dataclass(frozen=True)
class MqmSegmentScore:
    system: str
    segment: int
    score: float
    line: int


def weight(severity: str, category: str) -> float:
    """The weight of one error: the most specific match in `MQM_WEIGHTS`."""
    parts = [severity.lower(), *category.lower().split("/")]
    while parts:
        if (key := "/".join(parts)) in MQM_WEIGHTS:
            return MQM_WEIGHTS[key]
        parts.pop()
    return 0.0


def segment_scores(errors: list[MqmError]) -> dict[tuple[str, int], float]:
    """(system, test-set segment) → MQM score: minus the mean over raters of their summed
    error weights (0 for a rater who marked no error)."""
    sums: dict[tuple[str, int], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for e in errors:
        sums[(e.system, e.segment)][e.rater] += weight(e.severity, e.category)
    return {key: -sum(by.values()) / len(by) for key, by in sums.items()}


def _header(path: Path) -> list[str]:
    lines = read_lines(path)
    return lines[0].split("\t") if lines else []


def sniff(path: Path) -> bool:
    try:
        return _header(path)[: len(HEADER)] == HEADER
    except (InputError, OSError):
        return False


def _int(value: str, path, line: int, field: str) -> int:
    if not value.isdigit() or not 1 <= int(value) <= MAX_INT:
        raise InputError(path, f"{value!r} is not a 1-based number", line=line, field=field)
    return int(value)


def balanced(text: str) -> bool:
    return text.count("<v>") == text.count("</v>")


def _span(text: str) -> tuple[int, int, str] | None:
    m = SPAN.search(text)
    if not m:
        return None
    plain_before = text[: m.start()].replace("<v>", "").replace("</v>", "")
    start = len(plain_before)
    return start, start + len(m[1]), m[1]


def language_pair(path: Path, lp: str | None = None) -> tuple[str, str]:
    """The pair given (`en-de`), else the one the file name ends with (`…_ende.tsv`)."""
    if lp:
        src, _, tgt = lp.partition("-")
    elif m := LP_IN_NAME.search(path.name):
        src, tgt = m["src"], m["tgt"]
    else:
        raise InputError(path, "the file name does not end with its language pair "
                         "(mqm_…_ende.tsv); give it (e.g. --lp en-de)")  # fmt: skip
    return check_language(src, path), check_language(tgt, path)


def read(path: Path, lp: str | None = None) -> list[MqmError]:
    """Every error row; the language pair from `lp` or the file name (`language_pair`)."""
    src, tgt = language_pair(path, lp)
    lines = read_lines(path)
    if not lines or lines[0].split("\t")[: len(HEADER)] != HEADER:
        raise InputError(path, "header is not '" + " ".join(HEADER) + " [comment]'", line=1)
    width = len(lines[0].split("\t"))
    errors = []
    for no, row in enumerate(csv.reader(lines[1:], delimiter="\t", quoting=csv.QUOTE_NONE),
                             start=2):  # fmt: skip
        if not row:
            continue
        if len(row) != width:
            raise InputError(path, f"expected {width} tab-separated fields, found {len(row)}",
                             line=no)  # fmt: skip
        f = dict(zip(lines[0].split("\t"), row, strict=True))
        for field in ("system", "doc", "rater", "category", "severity"):
            check_text(f[field], path, no, field)
        side, span = "", None
        dropped = not (balanced(f["target"]) and balanced(f["source"]))
        for name in () if dropped else ("target", "source"):
            if (span := _span(f[name])) is not None:
                side = name
                break
        start, end, text = span or (None, None, "")
        errors.append(
            MqmError(
                f["system"], f["doc"], _int(f["doc_id"], path, no, "doc_id"),
                _int(f["seg_id"], path, no, "seg_id"), f["rater"], f["category"], f["severity"],
                side, start, end, text, no, src, tgt, dropped,
            )
        )  # fmt: skip
    return errors


def read_scores(path: Path, lines: list[str] | None = None) -> list[MqmSegmentScore]:
    """An `avg_seg_scores` file (its `lines`, where the caller has read them already)."""
    lines = read_lines(path) if lines is None else lines
    if not lines or lines[0].split() != SCORE_HEADER:
        raise InputError(path, "header is not '" + " ".join(SCORE_HEADER) + "'", line=1)
    scores = []
    for no, line in enumerate(lines[1:], start=2):
        cols = line.split()
        if not cols:
            continue
        if len(cols) != 3:
            raise InputError(path, f"expected 3 fields, found {len(cols)}", line=no)
        if cols[1] == "None":  # a segment no rater scored, as some files write it
            continue
        try:
            score = float(cols[1])
        except ValueError:
            raise InputError(path, f"{cols[1]!r} is not a number", line=no,
                             field="mqm_avg_score") from None  # fmt: skip
        if score != score:  # "nan": a segment no rater scored
            continue
        scores.append(MqmSegmentScore(cols[0], _int(cols[2], path, no, "seg_id"), score, no))
    return scores
