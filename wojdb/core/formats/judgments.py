"""Which reader a human-judgment file needs, decided by its content.

Each format is (name, recognise, read): `recognise(path) -> bool` looks at the file's content,
`read(path, lp)` returns its rows — `wmt.SegmentScore`, `wmt.Judgment`, `RaterJudgment` or
`wmt_clusters.SystemResult` records, which `survey.sources.human_judgments.import_judgments` knows
how to store. A new format is one more line here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from wojdb.core.formats import appraise, mqm, wmt, wmt_clusters
from wojdb.core.formats.segment_ids import DIRECT_ASSESSMENT, ERROR_ANNOTATION
from wojdb.core.io import InputError

APPRAISE, MQM, CLUSTERS = "Appraise CSV", "Google MQM", wmt_clusters.NAME


@dataclass(frozen=True)
class Annotation:
    """One error a rater marked: an MQM error or an ESA span."""

    category: str
    severity: str
    side: str  # "target", "source" or ""
    start: int | None
    end: int | None
    span: str = ""
    weight: float | None = None  # MQM only
    span_dropped: bool = False  # MQM marks that do not pair up: the error kept, not its span


@dataclass(frozen=True)
class RaterJudgment:
    """One rater's judgment of one output, located by line or by (document, n-th segment).

    Appraise rows and MQM segments (a rater's errors in one output of one segment) alike.
    """

    source_lang: str
    target_lang: str
    system: str
    rater: str
    item_id: int  # as published
    item_type: str
    score: float
    seconds: float | None
    document: str
    document_score: bool
    test_set_line: int | None  # 1-based, where the id is a line; None where it is by document
    doc_segment: int | None  # 1-based within `document`, where the id is document-relative
    errors: tuple[Annotation, ...]
    line: int
    doc_tag: str = ""  # Appraise's `#bad`, `#dup`, `#3-13` after the document id
    kind: str = DIRECT_ASSESSMENT  # or ERROR_ANNOTATION: MQM, and Appraise's ESA
    time_end: float | None = None  # when the rater finished (seconds since 1970), where given
    repeated_at: tuple[int, ...] = ()  # lines repeating this row exactly, read once

    @property
    def published_document(self) -> str:
        return f"{self.document}#{self.doc_tag}" if self.doc_tag else self.document


def read_appraise(path: Path, lp: str | None = None) -> list[RaterJudgment]:
    """Appraise rows; document-relative item ids (11 fields) count from 1 (WMT23's
    CSV-format.md) unless one segment's id is 0: WMT22's calibration HITs number each
    document's segments 0 to its length - 1."""
    judgments = appraise.read(path)
    base = (
        0 if any(j.fields == 11 and not j.is_doc_score and j.item_id == 0 for j in judgments) else 1
    )
    rows = []
    for j in judgments:
        if lp and f"{j.source_lang}-{j.target_lang}" != lp:
            continue  # an Appraise export holds many pairs; --lp picks one
        by_line = j.fields in (9, 12)
        rows.append(
            RaterJudgment(
                j.source_lang, j.target_lang, j.system, j.rater, j.item_id, j.item_type, j.score,
                j.seconds, j.document, j.is_doc_score,
                j.test_set_line({}) if by_line and not j.is_doc_score else None,
                j.item_id + 1 - base if not by_line and not j.is_doc_score else None,
                tuple(Annotation(s.category, s.severity, "target" if s.start is not None else "",
                                 s.start, s.end) for s in j.spans),
                j.line, j.doc_tag, ERROR_ANNOTATION if j.fields == 12 else DIRECT_ASSESSMENT,
                j.time_end, j.repeated_at,
            )
        )  # fmt: skip
    return rows


def read_mqm(path: Path, lp: str | None = None) -> list[RaterJudgment]:
    """One judgment per (system, segment, rater): the rater's errors, scored as minus the sum of
    their weights (a `No-error` row weighs 0 and is not kept as an error)."""
    groups: dict[tuple, list[mqm.MqmError]] = {}
    for e in mqm.read(path, lp):
        groups.setdefault((e.system, e.segment, e.rater), []).append(e)
    rows = []
    for (system, segment, rater), errors in groups.items():
        first = errors[0]
        for e in errors[1:]:
            if (e.document, e.doc_segment) != (first.document, first.doc_segment):
                raise InputError(
                    path, f"segment {segment} is {e.document} #{e.doc_segment} here but "
                    f"{first.document} #{first.doc_segment} at line {first.line}", line=e.line,
                    field="doc_id",
                )  # fmt: skip
        kept = [e for e in errors if e.severity.lower() != "no-error"]
        weights = [mqm.weight(e.severity, e.category) for e in kept]
        rows.append(
            RaterJudgment(
                first.source_lang, first.target_lang, system, rater, segment, "MQM",
                -sum(weights), None, first.document, False, None, first.doc_segment,
                tuple(Annotation(e.category, e.severity, e.side, e.start, e.end, e.span, w,
                                 e.span_dropped)
                      for e, w in zip(kept, weights, strict=True)),
                first.line, kind=ERROR_ANNOTATION,
            )
        )  # fmt: skip
    return rows


JUDGMENT_FORMATS: list[tuple[str, Callable[[Path], bool], Callable[..., list]]] = [
    (wmt.SEGMENT_SCORES, wmt.is_segment_scores, wmt.read_segment_scores),
    (wmt.JUDGMENTS, wmt.is_judgments, wmt.read_judgments),
    (APPRAISE, appraise.sniff, read_appraise),
    (MQM, mqm.sniff, read_mqm),
    (CLUSTERS, wmt_clusters.sniff, wmt_clusters.read),
]


def read_judgment_file(path: Path, lp: str | None = None) -> tuple[str, list]:
    """(format name, rows) of a judgment file in any known format."""
    for name, recognise, read in JUDGMENT_FORMATS:
        if recognise(path):
            return name, read(path, lp)
    names = ", ".join(name for name, _, _ in JUDGMENT_FORMATS)
    raise InputError(path, f"is not a judgment file of a known format ({names})", line=1)
