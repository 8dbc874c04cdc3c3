"""Argument types for every command's numeric options and output files and folders.

A number is read by the program's one rule (wojdb.core.numbers: ASCII digits; "1_0", "٣",
" 3", "+3", "nan" and "inf" are refused), then its range is checked by the parser, so a bad
value stops the command before it touches anything, with a message naming the option; the
range reads as the type's name, which `--help` shows through `%(type)s` in each option's help.

Every command that writes a file or folder it is given (`--out`) writes it through `Output`: an
existing one is refused unless `--force`, a symbolic link never written through (refused,
even with `--force`), and the output written beside its place under a temporary name and
renamed into place once whole, so that a failed or interrupted run leaves what was there.
"""

from __future__ import annotations

import argparse
import errno
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import CommandError

from wojdb.core.numbers import read_number

SEED_MAX = 2**63 - 1  # seeds are stored in 64-bit columns and fed to numpy, which needs >= 0


class Number:
    """An argparse type: an int or float within [low, high], each end optionally open."""

    def __init__(self, kind, low=None, high=None, *, low_open=False, high_open=False):
        self.kind, self.low, self.high = kind, low, high
        self.low_open, self.high_open = low_open, high_open
        noun = "whole number" if kind is int else "number"
        if low is not None and high is not None:
            if kind is int:
                self.__name__ = f"{noun} from {low} to {high}"
            else:
                left, right = "(" if low_open else "[", ")" if high_open else "]"
                self.__name__ = f"{noun} in {left}{low:g}, {high:g}{right}"
        elif low is not None:
            self.__name__ = f"{noun} {'>' if low_open else '>='} {low}"
        elif high is not None:
            self.__name__ = f"{noun} {'<' if high_open else '<='} {high}"
        else:
            self.__name__ = noun

    def __call__(self, text: str):
        try:
            value = read_number(text, self.kind)  # the rule of every number read
        except ValueError as problem:
            raise argparse.ArgumentTypeError(f"{problem}: expected a {self}") from None
        if not self.contains(value):
            raise argparse.ArgumentTypeError(f"{text} is outside the allowed range: {self}")
        return value

    def contains(self, value) -> bool:
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

    def __str__(self) -> str:
        return self.__name__


def int_range(low: int | None = None, high: int | None = None) -> Number:
    return Number(int, low, high)


def float_range(low=None, high=None, *, low_open=False, high_open=False) -> Number:
    return Number(float, low, high, low_open=low_open, high_open=high_open)


class IntList:
    """An argparse type: comma-separated integers, each within a range; sorted, distinct."""

    def __init__(self, item: Number):
        self.item = item
        self.__name__ = f"comma-separated, each a {item}"

    def __call__(self, text: str) -> list[int]:
        values = sorted({self.item(part.strip()) for part in text.split(",") if part.strip()})
        if not values:
            raise argparse.ArgumentTypeError(f"{text!r} names no number")
        return values


POSITIVE = int_range(1)
COUNT = int_range(0)
SEED = int_range(0, SEED_MAX)
YEAR = int_range(1000, 9999)
PORT = int_range(1, 65535)
SPREAD = float_range(0)  # a standard deviation
#: Worker processes: each is a process of its own, started before any work is done; a count
#: of billions hung the command while it started them.
JOBS = int_range(1, 256)


def output_path(text: str) -> Path:
    """An argparse type: a path to write a file or folder at, whose nearest existing folder can
    be written to (the folders between are created). A file on the way is refused before
    anything is computed (an analysis runs minutes before it writes)."""
    path = Path(text)
    existing = path
    while not (existing.exists() or existing.is_symlink()) and existing != existing.parent:
        existing = existing.parent
    if existing != path and not existing.is_dir():
        raise argparse.ArgumentTypeError(
            f"{text}: cannot be created: {existing} exists and is not a folder"
        )
    folder = existing if existing != path else path.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: cannot write in {folder}")
    return path


def output_folder(text: str) -> Output:
    """An argparse type: a folder to write (see `Output`; `output_path`); a file in its place
    is refused before anything is computed."""
    path = output_path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: exists and is not a folder")
    return Output(path, folder=True)


def output_file(text: str) -> Output:
    """An argparse type: a file to write (see `Output`), in a folder that exists and can be
    written to; a folder in its place is refused before anything is computed."""
    path = Path(text)
    if path.is_dir() and not path.is_symlink():
        raise argparse.ArgumentTypeError(f"{text}: is a folder; name the file to write")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: cannot write in {folder}")
    return Output(path, folder=False)


def add_output(
    parser,
    kind,
    help: str,
    *,
    option: str = "--out",
    required: bool = True,
    holds: str = "",
    **options,
) -> None:
    """The option `option` (`--out`) of type `kind` (output_file, output_folder or
    output_path), and `--force`; a folder `holds` the file every output of the command has."""

    def typed(text: str):
        value = kind(text)
        if isinstance(value, Output):
            value.option, value.holds = option, holds
        return value

    typed.__name__ = kind.__name__
    parser.add_argument(option, type=typed, required=required, help=help, **options)
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"replace an existing {option} (a symbolic link is refused even so)",
    )


#: What link() fails with on a file system without hard links (FAT, some network shares).
NO_HARD_LINKS = {
    errno.EPERM,
    errno.ENOTSUP,
    errno.EOPNOTSUPP,
    errno.EMLINK,
    errno.ENOSYS,
    errno.EXDEV,
}


class Output:
    """A file or folder a command writes, named by `--out`.

    `claim` refuses, before anything is computed, an output that exists (unless `force`; an
    empty folder is taken as it is) and one that is a symbolic link (always: writing through it
    would change the file it points to). `writing` gives a temporary path beside the output —
    the same folder, so the rename is atomic — and renames it into place when the block ends
    without an error; on an error it is removed and the output is as it was. Each refusal is a
    CommandError of one line with exit status 2.
    """

    def __init__(self, path: Path, *, folder: bool, option: str = "--out", holds: str = ""):
        self.path, self.folder, self.option = Path(path), folder, option
        #: The file an earlier output folder of the command holds: a folder without it is not
        #: one, and --force never replaces it (`--out ~/Desktop --force` must not empty it).
        self.holds = holds

    def __str__(self) -> str:
        return str(self.path)

    def problem(self, force: bool) -> str | None:
        """Why the output cannot be written, or None."""
        path = self.path
        if path.is_symlink():
            return (
                f"{path} is a symbolic link (to {os.readlink(path)}); output is never written "
                "through a link, even with --force: name the file or folder itself"
            )
        if not path.exists():
            return None
        if self.folder != path.is_dir():
            return f"{path} exists and is {'not ' * self.folder}a folder"
        if self.folder and not any(path.iterdir()):
            return None  # an empty folder: nothing in it is replaced
        if not force:
            return f"{path} exists; --force replaces it"
        if self.folder and not (self.holds and (path / self.holds).is_file()):
            return (
                f"{path} is a folder this command did not write (it holds no "
                f"{self.holds or 'earlier output'}), which --force does not replace: name a new "
                "or empty folder"
            )
        return None

    def claim(self, force: bool) -> None:
        if problem := self.problem(force):
            raise self.refused(problem)

    def refused(self, problem: str) -> CommandError:
        """One line, and exit status 2, as for any other bad argument."""
        return CommandError(f"{self.option}: {problem}. Nothing was written.", returncode=2)

    @contextmanager
    def writing(self, force: bool) -> Iterator[Path]:
        """A temporary file or folder to write the output into, renamed into place at the end."""
        self.claim(force)
        path = self.path
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Permissions as the umask allows, as for an output made in place.
            if self.folder:
                os.mkdir(temporary)
            else:
                os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except OSError as e:
            raise self.refused(f"cannot write in {path.parent}: {e.strerror or e}") from None
        try:
            yield temporary
            self.claim(force)  # a link or file may have appeared while the output was written
            (self._replace if force else self._put)(temporary)
        finally:
            if temporary.is_dir() and not temporary.is_symlink():
                shutil.rmtree(temporary, ignore_errors=True)
            else:
                temporary.unlink(missing_ok=True)

    def _put(self, temporary: Path) -> None:
        """Rename into place, never over anything but an empty folder."""
        path = self.path
        try:
            if self.folder:
                os.rename(temporary, path)  # fails over a file or a folder that is not empty
            else:
                os.link(temporary, path)  # fails where a file has appeared meanwhile
        except OSError as e:
            if e.errno in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
                raise self.refused(f"{path} exists; --force replaces it") from None
            if self.folder or e.errno not in NO_HARD_LINKS:
                raise self.refused(f"cannot write {path}: {e.strerror or e}") from None
            os.replace(temporary, path)  # a file system without hard links: checked just before

    def _replace(self, temporary: Path) -> None:
        path = self.path
        if not (self.folder and path.is_dir() and any(path.iterdir())):
            os.replace(temporary, path)  # a file, or an empty folder, replaced at once
            return
        # A folder that is not empty cannot be renamed over: the old one is moved aside first,
        # and put back if the new one cannot take its place.
        aside = path.with_name(f".{path.name}.{secrets.token_hex(4)}.old")
        os.rename(path, aside)
        try:
            os.rename(temporary, path)
        except BaseException:
            os.rename(aside, path)
            raise
        shutil.rmtree(aside, ignore_errors=True)
