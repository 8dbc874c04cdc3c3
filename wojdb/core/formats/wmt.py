"""Readers for WMT's published DA scores and judgments, document ids and rankings (test sets:
wojdb.core.formats).

Pure functions over files: each returns plain records or raises `InputError` naming the file,
line and field, so importers can validate everything before writing anything.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from wojdb.core.io import (
    InputError,
    check_language,
    check_length,
    open_input,
    parse_number,
    read_lines,
)

# Judgment and score files name systems by submission ("UF.15") and sometimes differently
# from the text files. These are the known differences; anything else is reported unmatched.
SYSTEM_ALIASES = {"Nemo": "NVIDIA-NeMo"}
# Human translations judged as systems are named after their reference: WMT21 calls its second
# reference HUMAN, WMT20 and WMT22 HUMAN-B and HUMAN-C, Google's newstest2020 MQM Human-B (and
# Human-P, its paraphrased reference), WMT23 Human-refA, the metrics task refB, ref-C.
HUMAN_REFERENCE = re.compile(
    r"^(?:(?:HUMAN|Human)(?:-(?P<human>[A-Z]))?|(?:Human-)?ref-?(?P<ref>[A-Z]))$"
)
# Ranking and metrics files may wrap the name: newstest2016.uedin-nmt.4361.cs-en.
WRAPPED_SYSTEM = re.compile(r"^(?:[a-z]+\d{4}\.)?(?P<name>.+?)(?:\.[a-z]{2,3}-[a-z]{2,3})?$")
SUBMISSION_NUMBER = re.compile(r"\.\d+$")

DOCIDS_FILE = re.compile(
    r"^(?P<testset>[a-z]+(?P<year>\d{4}))\.(?P<src>[a-z]{2,3})-(?P<tgt>[a-z]{2,3})\.docids$"
)


@dataclass(frozen=True)
class Documents:
    """The document id of each line of one test set's text files."""

    testset: str
    source_lang: str
    target_lang: str
    ids: list[str]


def read_documents(path: Path, testset: str | None = None) -> Documents:
    """`newstestYYYY.LP.docids`: one document id per line; each document one block of lines."""
    m = DOCIDS_FILE.match(path.name)
    if not m:
        raise InputError(path, "file name is not TESTSET.XX-YY.docids", field="file name")
    ids = read_lines(path)
    first: dict[str, int] = {}
    for no, doc in enumerate(ids, start=1):
        if not doc.strip() or doc != doc.strip():
            raise InputError(path, "empty or space-padded document id", line=no)
        check_length(doc, path, "document", line=no)
        if doc in first and ids[no - 2] != doc:
            raise InputError(
                path, f"document {doc!r} resumes after other documents (first at line "
                f"{first[doc]}): a document must be one block of lines", line=no,
            )  # fmt: skip
        first.setdefault(doc, no)
    if not ids:
        raise InputError(path, "is empty")
    return Documents(
        testset or m["testset"],
        check_language(m["src"], path),
        check_language(m["tgt"], path),
        ids,
    )


def canonical_system(name: str) -> str:
    """The one spelling of a system name every importer matches on.

    `UF.15` → `UF` (the submission number is dropped), `Nemo.7` → `NVIDIA-NeMo` (SYSTEM_ALIASES),
    `newstest2016.uedin-nmt.4361.cs-en` → `uedin-nmt`, and human references judged as systems
    → `refB`/`refC` (`HUMAN.0` in WMT21 is its second reference, B).
    """
    base = SUBMISSION_NUMBER.sub("", WRAPPED_SYSTEM.match(name.strip())["name"])
    human = HUMAN_REFERENCE.match(base)
    if human:
        return "ref" + (human["human"] or human["ref"] or "B")
    return SYSTEM_ALIASES.get(base, base)


def imported_system(name: str, imported: Collection[str]) -> str:
    """The system a judgment file's system name refers to, as every table names it: the name
    itself where a system of that name was imported (WMT24's `Claude-3.5`), else
    `canonical_system` (`JDExploreAcademy.6` → `JDExploreAcademy`). This is the mapping the
    importers report."""
    return name if name in imported else canonical_system(name)


def human_reference(system: str) -> str | None:
    """The reference letter of a human translation judged as a system, else None."""
    m = re.fullmatch(r"ref([A-Z])", canonical_system(system))
    return m[1] if m else None


# Source-based DA of WMT20 out of English and WMT21's Wikipedia pairs names segments by document:
# `huffingtonpost.com.19334_10` is the document's segment 10, counted from 0. A plain number
# is never one (`1_0` is refused as a malformed number).
DOCUMENT_SID = re.compile(r"^(?P<document>.*[^\d_].*)_(?P<n>\d+)$")


def _sid(value: str, path, line: int, field: str) -> tuple[int, str]:
    """(segment id, document): (SID, "") for a numbered SID, (n, DOC) for `DOC_n`."""
    if m := DOCUMENT_SID.match(value):
        check_length(m["document"], path, "document", line=line)
        return parse_number(m["n"], path, line, field, int), m["document"]
    sid = parse_number(value, path, line, field, int)
    if sid < 1:
        raise InputError(path, f"segment id {sid} is not 1-based", line=line, field=field)
    return sid, ""


@dataclass(frozen=True)
class SegmentScore:
    source_lang: str
    target_lang: str
    system: str
    segment_id: int  # the SID; for a document-style SID, n (0-based within `document`)
    raw: float
    z: float
    n: int
    line: int
    document: str = ""  # set for a document-style SID (`DOC_n`)


SEGMENT_SCORES, JUDGMENTS = "WMT DA segment scores", "WMT DA judgments"
SEG_SCORES_HEADER = ["SYS", "SID", "RAW.SCR", "Z.SCR", "N"]
JUDGMENT_HEADER = [
    "HITId",
    "WorkerId",
    "Input.src",
    "Input.trg",
    "Input.item",
    "hit",
    "sys_id",
    "rid",
    "type",
    "sid",
    "score",
    "time",
]
# Segment-score rows do not name their language pair; the file name does: ad-seg-scores-de-en.csv.
LP_IN_NAME = re.compile(r"(?:^|[^a-z])(?P<src>[a-z]{2,3})-(?P<tgt>[a-z]{2,3})(?:\.[a-z]+)*$")


def _first_line(path: Path) -> list[str]:
    with open_input(path) as f:
        head = f.readline(4096)
    return head.decode("utf-8", "replace").lstrip("\ufeff").split()


def is_segment_scores(path: Path) -> bool:
    """WMT DA segment scores, recognised by their header `SYS SID RAW.SCR Z.SCR N`."""
    return _first_line(path) == SEG_SCORES_HEADER


def is_judgments(path: Path) -> bool:
    """WMT DA per-rater judgments, recognised by their header `HITId WorkerId … score time`."""
    return _first_line(path) == JUDGMENT_HEADER


def lp_from_name(path: Path, lp: str | None = None) -> tuple[str, str]:
    """The language pair given, else the one that ends the file name (`…-de-en.csv`)."""
    if lp:
        src, _, tgt = lp.partition("-")
    else:
        m = LP_IN_NAME.search(path.name)
        if not m:
            raise InputError(
                path, "the file does not name its language pair; give it (e.g. --lp de-en)"
            )
        src, tgt = m["src"], m["tgt"]
    return check_language(src, path), check_language(tgt, path)


def read_segment_scores(path: Path, lp: str | None = None) -> list[SegmentScore]:
    """`ad-seg-scores-LP.csv`: space-separated `SYS SID RAW.SCR Z.SCR N`.

    RAW.SCR is a mean of 0-100 ratings and N counts them; a (system, SID) pair appears once.
    """
    src, tgt = lp_from_name(path, lp)
    lines = read_lines(path)
    header = lines[0].split() if lines else []
    if header != SEG_SCORES_HEADER:
        raise InputError(path, "header is not 'SYS SID RAW.SCR Z.SCR N'", line=1)
    rows, seen = [], {}
    for no, line in enumerate(lines[1:], start=2):
        cols = line.split()
        if not cols:
            continue
        if len(cols) != 5:
            raise InputError(path, f"expected 5 columns, found {len(cols)}", line=no)
        check_length(cols[0], path, "system", line=no)
        sid, document = _sid(cols[1], path, no, "SID")
        if (cols[0], cols[1]) in seen:
            raise InputError(
                path, f"{cols[0]} {cols[1]} repeats line {seen[cols[0], cols[1]]}", line=no,
                field="SID",
            )  # fmt: skip
        seen[cols[0], cols[1]] = no
        raw = parse_number(cols[2], path, no, "RAW.SCR")
        if not 0 <= raw <= 100:
            raise InputError(path, f"{raw:g} is outside 0-100", line=no, field="RAW.SCR")
        n = parse_number(cols[4], path, no, "N", int)
        if n < 1:
            raise InputError(path, "a mean of no judgments", line=no, field="N")
        z = parse_number(cols[3], path, no, "Z.SCR")
        rows.append(SegmentScore(src, tgt, cols[0], sid, raw, z, n, no, document))
    return rows


@dataclass(frozen=True)
class Judgment:
    source_lang: str
    target_lang: str
    system: str
    segment_id: int
    hit_id: str
    rater: str
    item_type: str
    score: float
    seconds: float | None
    line: int
    document: str = ""  # set for a document-style SID (see SegmentScore)


def read_judgments(path: Path, lp: str | None = None) -> list[Judgment]:
    """`ad-XXen-good-stnd.csv`: a space-separated header, then tab-separated judgments.

    One rater judges one (system, sid) once per HIT and type; `time` (the HIT's seconds) is
    not negative. `lp`, when given, must be the rows' pair.
    """
    lines = read_lines(path)
    if not lines or lines[0].split() != JUDGMENT_HEADER:
        raise InputError(path, "header is not '" + " ".join(JUDGMENT_HEADER) + "'", line=1)
    rows, seen = [], {}
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) != len(JUDGMENT_HEADER):
            raise InputError(path, f"expected 12 tab-separated columns, found {len(cols)}", no)
        f = dict(zip(JUDGMENT_HEADER, cols, strict=True))
        f["sys_id"] = f["sys_id"].strip('"')  # WMT21's Wikipedia files quote it
        src = check_language(f["Input.src"], path, "Input.src", no)
        tgt = check_language(f["Input.trg"], path, "Input.trg", no)
        if lp and f"{src}-{tgt}" != lp:
            raise InputError(path, f"{src}-{tgt} is not {lp}", line=no, field="Input.src")
        if f["type"] not in {"SYSTEM", "REPEAT", "BAD_REF", "REF"}:
            raise InputError(path, f"unknown judgment type {f['type']!r}", line=no, field="type")
        sid, document = _sid(f["sid"], path, no, "sid")
        for name, limit in (("sys_id", "system"), ("WorkerId", "WorkerId"), ("HITId", "HITId")):
            check_length(f[name], path, limit, line=no)
        key = (f["HITId"], f["WorkerId"], f["sys_id"], f["type"], f["sid"])
        if key in seen:
            raise InputError(
                path, f"the same judgment as line {seen[key]} (HIT, rater, system, type, sid)",
                line=no, field="sid",
            )  # fmt: skip
        seen[key] = no
        seconds = None
        if f["time"] not in ("", "NA"):
            seconds = parse_number(f["time"], path, no, "time")
            if seconds < 0:
                raise InputError(path, f"negative time {seconds:g}", line=no, field="time")
        rows.append(
            Judgment(
                src, tgt, f["sys_id"], sid, f["HITId"], f["WorkerId"], f["type"],
                parse_number(f["score"], path, no, "score"), seconds, no, document,
            )
        )  # fmt: skip
    return rows


@dataclass(frozen=True)
class Ranking:
    """One judge's relative ranking of up to five systems' outputs for one segment."""

    source_lang: str
    target_lang: str
    segment_id: int
    judge: str
    ranks: tuple[tuple[tuple[str, ...], int], ...]  # (systems sharing the slot, rank)
    line: int


def read_rankings(path: Path) -> list[Ranking]:
    """WMT relative-ranking CSV: srclang,trglang,srcIndex,documentId,segmentId,judgeId,
    system1Number,system1Id,…,system5Number,system5Id,system1rank,…,system5rank."""
    reader = csv.DictReader(read_lines(path))  # split at "\n" only: a field may hold U+2028
    try:
        fieldnames, rows = reader.fieldnames, list(reader)
    except csv.Error as e:  # e.g. a field over the csv module's size limit
        raise InputError(path, f"is not valid CSV ({e})", line=reader.line_num) from None
    needed = ["srclang", "trglang", "srcIndex", "segmentId", "judgeId"]
    needed += [f"system{i}Id" for i in range(1, 6)] + [f"system{i}rank" for i in range(1, 6)]
    missing = [c for c in needed if c not in (fieldnames or [])]
    if missing:
        raise InputError(path, "missing column(s) " + ", ".join(missing), line=1)
    rankings = []
    for no, row in enumerate(rows, start=2):
        if None in row or any(v is None for v in row.values()):
            raise InputError(path, "wrong number of columns", line=no)
        src = check_language(row["srclang"], path, "srclang", no)
        tgt = check_language(row["trglang"], path, "trglang", no)
        slots = []
        for i in range(1, 6):
            system = row[f"system{i}Id"].strip()
            if not system or system == "-1":
                continue
            rank = parse_number(row[f"system{i}rank"], path, no, f"system{i}rank", int)
            if not 1 <= rank <= 5:
                raise InputError(path, f"rank {rank} outside 1-5", line=no, field=f"system{i}rank")
            # Newer files list systems with identical outputs together, joined by '+'.
            slots.append((tuple(s for s in system.split("+") if s), rank))
        if slots:
            sid = parse_number(row["srcIndex"], path, no, "srcIndex", int)
            rankings.append(Ranking(src, tgt, sid, row["judgeId"], tuple(slots), no))
    return rankings


def rank_scores(ranks: list[float]) -> list[float]:
    """Eq. 6.1, score_s = 1 − (rank_s − 1)/|S|, for the distinct outputs of one ranking.

    `ranks` holds one rank per distinct output s ∈ S (identical outputs are one s, given the
    mean of their ranks). rank_s is renumbered as 1 + the number of outputs ranked strictly
    better, so ties share a rank and every score lies in [1/|S|, 1].
    """
    size = len(ranks)
    return [1 - sum(other < rank for other in ranks) / size for rank in ranks]
