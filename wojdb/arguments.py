"""Argument types for every command's numeric options and output files and folders.

A number is read by the program's one rule (wojdb.core.numbers: ASCII digits; "1_0", "٣",
" 3", "+3", "nan" and "inf" are refused), then its range is checked by the parser, so a bad
value stops the command before it touches anything, with a message naming the option; the
range reads as the type's name, which `--help` shows through `%(type)s` in each option's help.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

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


def output_folder(text: str) -> Path:
    """An argparse type: a folder to write into, existing or created by the command. A file in
    its place, or a nearest existing folder that cannot be written to, is refused before
    anything is computed (an analysis runs minutes before it writes)."""
    path = Path(text)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        shown = "exists" if existing == path else f"cannot be created: {existing} exists"
        raise argparse.ArgumentTypeError(f"{text}: {shown} and is not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: cannot write in {existing}")
    return path


def output_file(text: str) -> Path:
    """An argparse type: a file to write, in a folder that exists and can be written to; a
    folder in its place is refused before anything is computed."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: is a folder; name the file to write")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text}: {folder} is not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: cannot write in {folder}")
    return path
