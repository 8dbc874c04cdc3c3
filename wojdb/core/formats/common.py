"""What every test-set layout reader shares: the record it returns and the checks on its input."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from wojdb.core.io import InputError
from wojdb.core.language.codes import language

# Longest segment or hypothesis kept, in characters. The longest line of the WMT22-24 releases'
# txt/ files is 5,947 characters (a WMT24 system output; the longest source, WMT23, 3,025); a
# longer one is a broken file or a runaway output, and parsing it would stall permutation
# generation, so it is kept out.
MAX_TEXT_CHARS = 10_000
# Characters that end a line for str.splitlines() and for many editors but not for WMT's files:
# inside a segment they would split it in two wherever the text is shown or exported.
LINE_BREAKS = {
    "\x0b": "U+000B LINE TABULATION",
    "\x0c": "U+000C FORM FEED",
    "\x1c": "U+001C FILE SEPARATOR",
    "\x1d": "U+001D GROUP SEPARATOR",
    "\x1e": "U+001E RECORD SEPARATOR",
    "\x85": "U+0085 NEXT LINE",
    "\u2028": "U+2028 LINE SEPARATOR",
    "\u2029": "U+2029 PARAGRAPH SEPARATOR",
    "\r": "U+000D CARRIAGE RETURN",
}
LINE_BREAK = re.compile("[" + "".join(LINE_BREAKS) + "]")


@dataclass
class TestSetText:
    """One language pair of one test set with one reference: what every layout reader returns.

    `documents` and `domains` hold one entry per line ("" where the layout names none);
    `files` says where each text came from ("source", "reference", then each system), for
    messages that name the file.
    """

    layout: str
    testset: str
    year: int
    source_lang: str
    target_lang: str
    ref_name: str
    sources: list[str]
    references: list[str]
    hypotheses: dict[str, list[str]]
    documents: list[str]
    domains: list[str]
    files: dict[str, str] = field(default_factory=dict)
    skipped_lines: set[int] = field(default_factory=set)  # 1-based lines the importer keeps out

    @property
    def lp(self) -> str:
        return f"{self.source_lang}-{self.target_lang}"


@dataclass
class Found:
    """A layout's test sets under one folder, and what was left out and why."""

    layout: str
    test_sets: list[TestSetText]
    skipped: list[str] = field(default_factory=list)
    unmatched_files: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Selection:
    """What the user asked for: None means everything."""

    year: int | None = None
    lps: frozenset[str] | None = None
    refs: tuple[str, ...] = ()
    systems: frozenset[str] | None = None
    testset: str | None = None

    @classmethod
    def of(cls, *, year=None, lps=None, refs=None, systems=None, testset=None) -> Selection:
        if isinstance(refs, str):
            refs = [refs]
        return cls(
            year,
            frozenset(lps) if lps else None,
            tuple(refs or ()),
            frozenset(systems) if systems else None,
            testset,
        )

    def wants_lp(self, lp: str) -> bool:
        return self.lps is None or lp in self.lps

    def wants_system(self, system: str) -> bool:
        return self.systems is None or system in self.systems


def pair(src: str, tgt: str) -> tuple[str, str] | None:
    s, t = language(src), language(tgt)
    return (s, t) if s and t else None


def ref_name(name: str) -> str:
    """A reference's name without the `ref` prefix of mt-metrics-eval (`refA` → `A`; a
    reference named just `ref`, as in older data, keeps its name)."""
    return re.sub(r"^ref(?=.)", "", name, flags=re.IGNORECASE)


def ref_key(name: str) -> str:
    """`refA`, `A` and `a` name the same reference."""
    return ref_name(name).casefold()


def choose_reference(available: Iterable[str], wanted: Sequence[str], where) -> str:
    """The first of `wanted` that exists (any of `refA`/`A`), or the first present."""
    available = list(available)
    if not available:
        raise InputError(where, "no reference file for these hypotheses")
    if not wanted:
        return available[0]
    by_key = {ref_key(a): a for a in available}
    for name in wanted:
        if ref_key(name) in by_key:
            return by_key[ref_key(name)]
    raise InputError(
        where,
        f"none of the references asked for ({', '.join(wanted)}) exists; "
        f"there are: {', '.join(available)}",
        field="--ref",
    )


def check_text(text: str, where, line: int, what: str) -> None:
    """Refuse a segment holding a character that other tools read as a line break."""
    if m := LINE_BREAK.search(text):
        raise InputError(
            where,
            f"contains {LINE_BREAKS[m.group()]} at character {m.start() + 1}, which splits the "
            "segment in two in most tools; replace it with a space or a newline-free text",
            line=line,
            field=what,
        )


def check_aligned(lines: Sequence, expected: int, where, what: str) -> None:
    if len(lines) != expected:
        raise InputError(where, f"has {len(lines)} lines but the source has {expected}", field=what)


def testset_of(folder: Path, selection: Selection) -> tuple[str, int]:
    """Test-set name and year from --testset/--year or the nearest folder named for its year:
    `wmt24`, `wmt24-news-systems` → (`wmt24`, 2024); `newstest2019` → (`newstest2019`, 2019)."""
    for name in [selection.testset or ""] + [p.name for p in (folder, *folder.parents)]:
        if m := re.search(r"(?<![a-z\d])wmt(\d\d)(?!\d)", name, flags=re.IGNORECASE | re.ASCII):
            return selection.testset or f"wmt{m[1]}", 2000 + int(m[1])
        if m := re.search(r"(?<!\d)((?:19|20)\d\d)(?!\d)", name, flags=re.ASCII):
            return selection.testset or name, int(m[1])
    if selection.testset and selection.year:
        return selection.testset, selection.year
    raise InputError(
        folder,
        "cannot tell the test set's name and year from the folder names; give --testset "
        "NAME --year YYYY",
        field="--testset",
    )


def document_lines(documents: Sequence[str]) -> dict[tuple[str, int], int]:
    """(document id, 1-based segment within it) → 1-based line, for document-relative ids."""
    lines, counts = {}, {}
    for line, doc in enumerate(documents, start=1):
        if doc:
            counts[doc] = counts.get(doc, 0) + 1
            lines[(doc, counts[doc])] = line
    return lines
