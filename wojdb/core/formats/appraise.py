"""Appraise CSV exports of WMT22-24 human evaluation: per-rater judgments.

Rows have no header (the releases keep it in a separate `header.*.csv`; a header row is
skipped if present). Three shapes, by field count:

- 9 fields, WMT22 segment-level DA (`SegLvl*.csv`): username, system, itemId, itemType,
  srcLang, trgLang, score, timeStart, timeEnd;
- 11 fields, WMT22 document-level DA+SQM (`DocLvl`, calibration HITs) and WMT23: ... score,
  docId, isDocScore, timeStart, timeEnd; itemId is the segment within the document, 1-based
  by WMT23's `CSV-format.md` but from 0 in WMT22's calibration HITs (wojdb.core.formats.judgments
  tells them apart);
- 12 fields, WMT24 ESA (`esa_generalMT2024_wave*.csv`): ... docId, isDocScore, spans,
  timeStart, timeEnd, where spans is JSON `[{"start_i", "end_i", "severity", "error_type"}]`
  (character offsets into the hypothesis; "missing" for an error with no position, such as
  an omission); itemId is the 0-based line of the WMT24 text files, whose line 0 is the canary
  (humeval/tools.py of the release).

A docId may end in `#TAG` (`#bad` quality-control items, `#dup`, `#incomplete`, `#3-13`):
`document` is the part before `#` and `doc_tag` the rest, both kept. Language codes are the
3-letter ones Appraise uses, stored in their standard form (`ces` → `cs`).
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

from wojdb.core.formats.common import check_text, language
from wojdb.core.io import MAX_INT, InputError, check_length, parse_number, read_lines

HEADER_START = ["username", "system", "itemid"]
SHAPES = {9: "segment-level DA", 11: "document-level DA+SQM", 12: "ESA"}


@dataclass(frozen=True)
class ErrorSpan:
    start: int | None  # character offsets in the hypothesis; None where the rater gave none
    end: int | None
    severity: str
    category: str


@dataclass(frozen=True)
class AppraiseJudgment:
    rater: str
    system: str
    item_id: int
    item_type: str  # TGT (a real judgment), BAD (a degraded control), REF, …
    source_lang: str
    target_lang: str
    score: float
    document: str
    doc_tag: str
    is_doc_score: bool
    spans: tuple[ErrorSpan, ...]
    time_start: float | None
    time_end: float | None
    line: int
    fields: int  # 9, 11 or 12: which export this row comes from
    repeated_at: tuple[int, ...] = ()  # lines that repeat this row exactly, read once

    def test_set_line(self, document_lines: dict[tuple[str, int], int]) -> int | None:
        """The 1-based line of the test set this judgment is about, or None if unknown.

        `document_lines` maps (document id, 1-based segment in it) to the line
        (`wojdb.core.formats.common.document_lines`)."""
        if self.fields == 9:
            return self.item_id  # WMT22 segment-level: items 1..N of an N-line test set
        if self.fields == 12:
            return self.item_id + 1  # WMT24 ESA: 0-based, counting the canary line
        return document_lines.get((self.document, self.item_id))

    @property
    def seconds(self) -> float | None:
        if self.time_start is None or self.time_end is None:
            return None
        return self.time_end - self.time_start


def _rows(path: Path) -> list[tuple[int, list[str]]]:
    lines = read_lines(path)
    reader = csv.reader(lines)
    try:
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as e:
        raise InputError(path, f"is not valid CSV ({e})", line=reader.line_num) from None
    if rows and [c.lower() for c in rows[0][1][:3]] == HEADER_START:
        rows = rows[1:]
    return rows


def sniff(path: Path) -> bool:
    """An Appraise export: its first row has 9, 11 or 12 fields, a 3-letter language pair in
    fields 5-6 and a whole-number item id."""
    try:
        rows = _rows(path)[:1]
    except (InputError, OSError):
        return False
    if not rows:
        return False
    row = rows[0][1]
    return (
        len(row) in SHAPES
        and row[2].isdigit()
        and len(row[4]) == len(row[5]) == 3
        and language(row[4]) is not None
    )


def _system(name: str) -> str:
    """WMT22 segment-level rows name the system by its file: `….hyp.NiuTrans.liv.txt`, and
    the reference judged as a system `….ref.A.liv.txt` (→ `refA`)."""
    if m := re.fullmatch(r"[^.]+\.[a-z]{2,3}-[a-z]{2,3}\.(hyp|ref)\.(.+)\.[a-z]{2,3}\.txt", name):
        return m[2] if m[1] == "hyp" else "ref" + m[2]
    return name


def _time(value: str, path, line: int, field: str) -> float | None:
    """Appraise writes seconds since 1970; other exports may leave times out."""
    return None if value in ("", "None", "NA") else parse_number(value, path, line, field)


def _offset(value, path, line: int) -> int:
    """A span's character offset: a JSON whole number (not `true`, which Python counts as 1)
    that a database column holds."""
    if type(value) is not int or not 0 <= value <= MAX_INT:
        raise InputError(path, f"span offset {json.dumps(value)} is not a whole number from 0 "
                         f"to {MAX_INT:,}", line=line, field="spans")  # fmt: skip
    return value


def _spans(value: str, path, line: int) -> tuple[ErrorSpan, ...]:
    try:
        items = json.loads(value)
    except json.JSONDecodeError as e:
        raise InputError(path, f"spans are not JSON ({e.msg})", line=line, field="spans") from None
    if not isinstance(items, list) or not all(isinstance(s, dict) for s in items):
        raise InputError(path, "spans are not a JSON list of objects", line=line, field="spans")
    spans = []
    for s in items:
        ends = [s.get("start_i"), s.get("end_i")]
        if ends == ["missing", "missing"]:
            ends = [None, None]
        else:
            ends = [_offset(e, path, line) for e in ends]
            if ends[0] > ends[1]:
                raise InputError(path, f"span offsets {ends} are not 0 ≤ start ≤ end",
                                 line=line, field="spans")  # fmt: skip
        labels = [s.get("severity") or "", s.get("error_type") or ""]
        for label, field in zip(labels, ("severity", "error_type"), strict=True):
            if not isinstance(label, str):
                raise InputError(path, f"span {field} {json.dumps(label)} is not text",
                                 line=line, field="spans")  # fmt: skip
            check_length(label, path, field, line)
        spans.append(ErrorSpan(*ends, *labels))
    return tuple(spans)


def read(path: Path) -> list[AppraiseJudgment]:
    """The rows of an Appraise export; a row repeated exactly (WMT24's waves 2 and 3 hold 95 and
    87) is read once, as the organisers read it, the lines of its repeats kept on it."""
    judgments, seen, repeats = [], {}, defaultdict(list)
    for line, row in _rows(path):
        if len(row) not in SHAPES:
            raise InputError(path, f"expected 9, 11 or 12 fields, found {len(row)}", line=line)
        named = [("username", row[0]), ("system", row[1]), ("itemType", row[3])]
        for field, text in named + ([("docId", row[7])] if len(row) >= 11 else []):
            check_text(text, path, line, field)
            check_length(text, path, field, line)
        langs = [language(code) for code in row[4:6]]
        if None in langs:
            bad = row[4] if langs[0] is None else row[5]
            raise InputError(path, f"{bad!r} is not an ISO 639 code", line=line,
                             field="srcLang" if langs[0] is None else "trgLang")  # fmt: skip
        document = doc_tag = ""
        is_doc_score, spans = False, ()
        if len(row) >= 11:
            document, _, doc_tag = row[7].partition("#")
            if row[8] not in ("True", "False"):
                raise InputError(path, f"{row[8]!r} is not True or False", line=line,
                                 field="isDocScore")  # fmt: skip
            is_doc_score = row[8] == "True"
        if len(row) == 12:
            spans = _spans(row[9], path, line)
        judgment = AppraiseJudgment(
            rater=row[0], system=_system(row[1]), fields=len(row),
            item_id=parse_number(row[2], path, line, "itemId", int), item_type=row[3],
            source_lang=langs[0], target_lang=langs[1],
            score=parse_number(row[6], path, line, "score"), document=document, doc_tag=doc_tag,
            is_doc_score=is_doc_score, spans=spans,
            time_start=_time(row[-2], path, line, "timeStart"),
            time_end=_time(row[-1], path, line, "timeEnd"), line=line,
        )  # fmt: skip
        if (first := _repeat_of(judgment, row, seen, len(judgments), path)) is not None:
            repeats[first].append(line)
        else:
            judgments.append(judgment)
    return [
        replace(j, repeated_at=tuple(repeats[i])) if i in repeats else j
        for i, j in enumerate(judgments)
    ]


def _repeat_of(
    judgment: AppraiseJudgment, row: list[str], seen: dict, index: int, path
) -> int | None:
    """One rater judges an item once in one stretch of time: of two rows with the same rater,
    system, item and times, the second is the first again, read once as WMT's organisers read
    it (the first's index among the rows kept is returned; `index` is this row's), or a
    conflict (another score or other spans), refused: which one stands cannot be told. Rows
    without times cannot be told apart."""
    if judgment.time_start is None or judgment.time_end is None:
        return None
    key = (*row[:6], *row[7:9], judgment.time_start, judgment.time_end)
    first_index, first, first_row = seen.setdefault(key, (index, judgment, row))
    if first is judgment:
        return None
    if first_row == row:
        return first_index
    problem = (
        f"has the rater, system, item and times of line {first.line} but another judgment ("
        + (f"score {first.score:g} there, {judgment.score:g} here"
           if first.score != judgment.score else "other spans")
        + "): which one stands cannot be told"
    )  # fmt: skip
    raise InputError(path, problem, line=judgment.line, field="score")
