"""Readers for WMT's published DA scores and judgments and rankings (test sets: survey.formats).

Pure functions over files: each returns plain records or raises `InputError` naming the file,
line and field, so importers can validate everything before writing anything.
"""

from __future__ import annotations

import csv
import gzip
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from survey.languages import LANGUAGE_NAMES

# ISO 639-2 codes used by older WMT ranking files.
THREE_LETTER = {
    "ces": "cs", "cze": "cs", "deu": "de", "ger": "de", "eng": "en", "fra": "fr", "fre": "fr",
    "fin": "fi", "hin": "hi", "ron": "ro", "rum": "ro", "rus": "ru", "tur": "tr", "lav": "lv",
    "est": "et", "zho": "zh", "chi": "zh", "jpn": "ja", "kaz": "kk", "lit": "lt", "guj": "gu",
}  # fmt: skip

# Judgment files name systems by submission ("UF.15") and sometimes differently from the
# text files. These are the known differences in WMT21; anything else is reported unmatched.
SYSTEM_ALIASES = {"Nemo": "NVIDIA-NeMo"}
HUMAN_SYSTEMS = {"HUMAN"}  # WMT21: the second human reference (ref B), judged as a system

SEG_SCORES_FILE = re.compile(r"^ad-seg-scores-(?P<src>[a-z]{2,3})-(?P<tgt>[a-z]{2,3})\.csv$")
# Languages written without spaces: lengths are counted in characters.
UNSPACED = {"zh", "ja", "th", "km", "my"}
WORD = re.compile(r"\w+|[^\w\s]")
MAX_INT = 2**31 - 1
# Longest names the database stores (survey.models): test set, reference, system, rater, HIT.
MAX_LENGTH = {"test set": 64, "reference": 16, "system": 128, "WorkerId": 64, "HITId": 64}


class InputError(ValueError):
    """A problem in an input file, located by file, line and field."""

    def __init__(self, path, problem: str, line: int | None = None, field: str | None = None):
        self.path, self.problem = path, problem
        where = (
            str(path) + (f", line {line}" if line else "") + (f", field {field}" if field else "")
        )
        super().__init__(f"{where}: {problem}")


def check_length(value: str, path, field: str, line: int | None = None) -> str:
    if len(value) > MAX_LENGTH[field]:
        raise InputError(
            path, f"longer than {MAX_LENGTH[field]} characters", line=line, field=field
        )
    return value


def check_language(code: str, path, field: str = "language pair") -> str:
    if code not in LANGUAGE_NAMES:
        raise InputError(path, f"unknown language {code!r}", field=field)
    return code


def text_length(text: str, lang: str) -> int:
    if lang in UNSPACED:
        return sum(1 for ch in text if not ch.isspace())
    return len(WORD.findall(text))


def open_input(path: Path) -> BinaryIO:
    """An input file opened for reading in binary. Every command opens its input files here, so
    a path that does not exist, a folder where a file is expected and a file the process may
    not read are each one clear InputError naming the path."""
    try:
        return open(path, "rb")  # the caller closes it
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(path, "does not exist") from None
    except IsADirectoryError:
        raise InputError(path, "is a folder, not a file") from None
    except PermissionError:
        raise InputError(path, "cannot be read: permission denied") from None
    except OSError as e:
        raise InputError(path, f"cannot be read: {e.strerror or e}") from None


def read_input(path: Path) -> bytes:
    """The bytes of an input file (see `open_input`)."""
    with open_input(path) as handle:
        try:
            return handle.read()
        except OSError as e:
            raise InputError(path, f"cannot be read: {e.strerror or e}") from None


def input_files(root: Path) -> list[Path]:
    """Every file below a folder, sorted; a subfolder that cannot be listed is an InputError
    (pathlib's rglob would skip it without a word)."""

    def refuse(error: OSError):
        raise InputError(error.filename, f"cannot be listed: {error.strerror or error}")

    return sorted(
        Path(folder, name)
        for folder, _, names in os.walk(root, onerror=refuse)
        for name in names
        if Path(folder, name).is_file()
    )


def read_lines(path: Path) -> list[str]:
    """A file's lines as text (gzip-compressed when named .gz); bad bytes are reported by line."""
    data = read_input(path)
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as e:
            raise InputError(path, f"is not a readable gzip file ({e})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(path, f"bytes are not valid UTF-8 ({e.reason})", line=line) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\x00" in text:
        # PostgreSQL cannot store NUL in text; no WMT file has one, so it means a corrupt file.
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError(path, "contains a NUL character", line=line)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.rstrip("\r") for line in lines]


def canonical_system(name: str) -> str:
    """`UF.15` → `UF`; `Nemo.7` → `NVIDIA-NeMo` (the submission number is dropped)."""
    base = re.sub(r"\.\d+$", "", name)
    return SYSTEM_ALIASES.get(base, base)


def _number(value: str, path, line: int, field: str, kind=float):
    try:
        number = kind(value)
    except ValueError:
        raise InputError(path, f"{value!r} is not a number", line=line, field=field) from None
    if kind is float and not math.isfinite(number):
        raise InputError(path, f"{value!r} is not a finite number", line=line, field=field)
    # Counts and ids are stored in non-negative 32-bit database columns.
    if kind is int and not 0 <= number <= MAX_INT:
        raise InputError(path, f"{value!r} is out of range", line=line, field=field)
    return number


@dataclass(frozen=True)
class SegmentScore:
    source_lang: str
    target_lang: str
    system: str
    segment_id: int
    raw: float
    z: float
    n: int


def read_segment_scores(path: Path) -> list[SegmentScore]:
    """`ad-seg-scores-LP.csv`: space-separated `SYS SID RAW.SCR Z.SCR N`."""
    m = SEG_SCORES_FILE.match(path.name)
    if not m:
        raise InputError(path, "file name is not ad-seg-scores-XX-YY.csv", field="file name")
    src, tgt = check_language(m["src"], path), check_language(m["tgt"], path)
    lines = read_lines(path)
    header = lines[0].split() if lines else []
    if header != ["SYS", "SID", "RAW.SCR", "Z.SCR", "N"]:
        raise InputError(path, "header is not 'SYS SID RAW.SCR Z.SCR N'", line=1)
    rows = []
    for no, line in enumerate(lines[1:], start=2):
        cols = line.split()
        if not cols:
            continue
        if len(cols) != 5:
            raise InputError(path, f"expected 5 columns, found {len(cols)}", line=no)
        sid = _number(cols[1], path, no, "SID", int)
        if sid < 1:
            raise InputError(path, f"segment id {sid} is not 1-based", line=no, field="SID")
        rows.append(
            SegmentScore(
                src, tgt, cols[0], sid,
                _number(cols[2], path, no, "RAW.SCR"),
                _number(cols[3], path, no, "Z.SCR"),
                _number(cols[4], path, no, "N", int),
            )
        )  # fmt: skip
    return rows


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


def read_judgments(path: Path) -> list[Judgment]:
    """`ad-XXen-good-stnd.csv`: a space-separated header, then tab-separated judgments."""
    lines = read_lines(path)
    if not lines or lines[0].split() != JUDGMENT_HEADER:
        raise InputError(path, "header is not '" + " ".join(JUDGMENT_HEADER) + "'", line=1)
    rows = []
    for no, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) != len(JUDGMENT_HEADER):
            raise InputError(path, f"expected 12 tab-separated columns, found {len(cols)}", no)
        f = dict(zip(JUDGMENT_HEADER, cols, strict=True))
        src = check_language(f["Input.src"], path, "Input.src")
        tgt = check_language(f["Input.trg"], path, "Input.trg")
        if f["type"] not in {"SYSTEM", "REPEAT", "BAD_REF", "REF"}:
            raise InputError(path, f"unknown judgment type {f['type']!r}", line=no, field="type")
        sid = _number(f["sid"], path, no, "sid", int)
        for name, limit in (("sys_id", "system"), ("WorkerId", "WorkerId"), ("HITId", "HITId")):
            check_length(f[name], path, limit, line=no)
        rows.append(
            Judgment(
                src, tgt, f["sys_id"], sid, f["HITId"], f["WorkerId"], f["type"],
                _number(f["score"], path, no, "score"),
                _number(f["time"], path, no, "time") if f["time"] not in ("", "NA") else None,
                no,
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


def _lang(code: str, path, line: int, field: str) -> str:
    code = THREE_LETTER.get(code.lower(), code.lower())
    if code not in LANGUAGE_NAMES:
        raise InputError(path, f"unknown language {code!r}", line=line, field=field)
    return code


def read_rankings(path: Path) -> list[Ranking]:
    """WMT relative-ranking CSV: srclang,trglang,srcIndex,documentId,segmentId,judgeId,
    system1Number,system1Id,…,system5Number,system5Id,system1rank,…,system5rank."""
    text = "\n".join(read_lines(path))
    reader = csv.DictReader(text.splitlines())
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
        src = _lang(row["srclang"], path, no, "srclang")
        tgt = _lang(row["trglang"], path, no, "trglang")
        slots = []
        for i in range(1, 6):
            system = row[f"system{i}Id"].strip()
            if not system or system == "-1":
                continue
            rank = _number(row[f"system{i}rank"], path, no, f"system{i}rank", int)
            if not 1 <= rank <= 5:
                raise InputError(path, f"rank {rank} outside 1-5", line=no, field=f"system{i}rank")
            # Newer files list systems with identical outputs together, joined by '+'.
            slots.append((tuple(s for s in system.split("+") if s), rank))
        if slots:
            sid = _number(row["srcIndex"], path, no, "srcIndex", int)
            rankings.append(Ranking(src, tgt, sid, row["judgeId"], tuple(slots), no))
    return rankings


def rank_scores(slot_ranks: list[int]) -> list[float]:
    """Eq. 6.1: score_s = 1 − (rank_s − 1)/|S| for each distinct output s in one ranking."""
    size = len(slot_ranks)
    return [1 - (rank - 1) / size for rank in slot_ranks]
