"""The input layer: every input file is opened, listed and read here, and every number in one is
parsed here (by the rule of wojdb.core.numbers), so an unreadable path, bad bytes or a malformed
value is one `InputError` naming file, line and field.
"""

from __future__ import annotations

import gzip
import os
import re
import stat
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from wojdb.core import budgets
from wojdb.core.language.codes import language
from wojdb.core.language.rules import UNSPACED
from wojdb.core.numbers import read_number

WORD = re.compile(r"\w+|[^\w\s]")
MAX_INT = 2**31 - 1
MAX_ID = 2**63 - 1  # database keys are 64-bit (BigAutoField)
# Longest names the database stores (survey.models), by the field names of the files; a test
# holds them to the models' columns.
MAX_LENGTH = {
    "test set": 64, "reference": 16, "system": 128, "WorkerId": 64, "HITId": 64, "document": 128,
    "username": 64, "itemType": 8, "docId": 128, "severity": 32, "error_type": 128,
    "rater": 64, "doc": 128, "category": 128,
}  # fmt: skip


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


def check_language(code: str, path, field: str = "language pair", line: int | None = None) -> str:
    """The standard form of an ISO 639 code (wojdb.core.language.codes.language), or an
    InputError."""
    standard = language(code)
    if standard is None:
        raise InputError(path, f"unknown language {code!r} (not an ISO 639 code)", line, field)
    return standard


def text_length(text: str, lang: str) -> int:
    """A sentence's length in `length_unit(lang)`: in a language written without spaces
    (wojdb.core.language.rules), its characters."""
    if lang in UNSPACED:
        return sum(1 for ch in text if not ch.isspace())
    return len(WORD.findall(text))


def length_unit(lang: str) -> str:
    """What `text_length` counts: characters in a language written without spaces, else
    words."""
    return "characters" if lang in UNSPACED else "words"


def length_units(source_langs, target_lang: str) -> dict[str, str]:
    """The unit of each length of Figure 6.2 (`length_unit`): the target language's for
    references and hypotheses; for sources, their languages' (both named where they mix)."""
    source_langs = set(source_langs)
    unspaced = sorted({lang for lang in source_langs if length_unit(lang) == "characters"})
    if not unspaced:
        source = "words"
    elif source_langs <= set(unspaced):
        source = "characters"
    else:
        source = f"words; characters for {', '.join(unspaced)}"
    target = length_unit(target_lang)
    return {"source": source, "reference": target, "hypothesis": target}


NOT_REGULAR = "not a regular file (a device, named pipe or socket): refused"
OPEN_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def open_input(path: Path, max_bytes: int | None = None, budget: str = "") -> BinaryIO:
    """An input file opened for reading in binary. Every command opens its input files here, so
    a path that does not exist, a folder where a file is expected, a file the process may not
    read, anything but a regular file (a device such as /dev/zero, a named pipe, a socket,
    which could be read forever or block) and a file over its byte budget are each one clear
    InputError naming the path. The budget is `max_bytes`, named by the variable `budget` that
    raises it; by default the input budget of wojdb.core.budgets (WOJDB_MAX_INPUT_BYTES)."""
    max_bytes, budget = _budget(max_bytes, budget)
    try:
        # Non-blocking, so that opening a named pipe returns at once, to be refused below (it
        # changes nothing for a regular file).
        fd = os.open(path, os.O_RDONLY | OPEN_FLAGS)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(path, "does not exist") from None
    except IsADirectoryError:
        raise InputError(path, "is a folder, not a file") from None
    except PermissionError:
        raise InputError(path, "cannot be read: permission denied") from None
    except OSError as e:
        raise InputError(path, f"cannot be read: {e.strerror or e}") from None
    info = os.fstat(fd)
    problem = None
    if stat.S_ISDIR(info.st_mode):
        problem = "is a folder, not a file"
    elif not stat.S_ISREG(info.st_mode):
        problem = f"is {NOT_REGULAR}"
    elif info.st_size > max_bytes:
        problem = f"is {info.st_size:,} bytes, {_over(max_bytes, budget)}"
    if problem:
        os.close(fd)
        raise InputError(path, problem)
    return os.fdopen(fd, "rb")  # the caller closes it


def _budget(max_bytes: int | None, budget: str) -> tuple[int, str]:
    if max_bytes is None:
        limits = budgets.current()
        return limits.input_bytes, limits.variable("input_bytes")
    return max_bytes, budget


def _over(max_bytes: int, budget: str) -> str:
    return f"over the budget of {max_bytes:,} bytes" + (f" ({budget} raises it)" if budget else "")


def read_input(path: Path, max_bytes: int | None = None, budget: str = "") -> bytes:
    """The bytes of an input file, within its byte budget (see `open_input`)."""
    max_bytes, budget = _budget(max_bytes, budget)
    with open_input(path, max_bytes, budget) as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as e:
            raise InputError(path, f"cannot be read: {e.strerror or e}") from None
    if len(data) > max_bytes:  # it grew while being read
        raise InputError(path, f"grew while being read, {_over(max_bytes, budget)}")
    return data


def input_files(root: Path) -> list[Path]:
    """Every file below a folder, sorted. A subfolder that cannot be listed, and anything but a
    regular file (a named pipe, a device, a socket, a broken link), is an InputError naming it:
    pathlib's rglob and a check of is_file() would pass over it without a word."""

    def refuse(error: OSError):
        raise InputError(error.filename, f"cannot be listed: {error.strerror or error}")

    files = []
    for folder, _, names in os.walk(root, onerror=refuse):
        for name in names:
            path = Path(folder, name)
            if not path.is_file():
                raise InputError(path, f"is {NOT_REGULAR}")
            files.append(path)
    return sorted(files)


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


def parse_number(
    value, path, line: int | None = None, field: str | None = None, kind=float,
    minimum: float | None = None, maximum: float | None = None,
):  # fmt: skip
    """`value` as an int or a finite float, read by the one number rule
    (wojdb.core.numbers), or an InputError naming file, line and field. Integers default to
    the range of the database's non-negative 32-bit columns."""
    if kind is int and minimum is None and maximum is None:
        minimum, maximum = 0, MAX_INT
    try:
        return read_number(value, kind, minimum, maximum)
    except ValueError as e:
        raise InputError(path, str(e), line=line, field=field) from None


#: A progress callback: called with the number of units just done.
Progress = Callable[[int], None]


def no_progress(_: int) -> None:
    pass


@dataclass
class ImportReport:
    """What an import did, in lines a researcher can read."""

    created: Counter = field(default_factory=Counter)
    unmatched: Counter = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)
    mapped: dict[str, str] = field(default_factory=dict)  # system name as given → canonical

    def lines(self) -> list[str]:
        out = [f"{what}: {n:,}" for what, n in self.created.items()]
        if self.mapped:
            out.append(
                "system names mapped: "
                + ", ".join(f"{a} → {b}" for a, b in sorted(self.mapped.items()))
            )
        if self.unmatched:
            total = sum(self.unmatched.values())
            out.append(f"unmatched rows: {total:,} (kept out of the pool's scores)")
            out += [f"  {what}: {n:,}" for what, n in sorted(self.unmatched.items())]
        return out + self.notes
