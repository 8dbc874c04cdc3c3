"""A study file's keys and their types: one validator for every key, which refuses a wrong type,
a number out of range, an unknown key or a repeated one, naming the key and its line.

A study file (TOML) holds the study's settings by name — their types come from the study's
model, passed in by the caller as `Key`s — and these tables (see docs/running-a-study.md, "The
study file"):

- `[sources]`: `testsets` (test-set folders with their layout's options), `documents` (document
  id files), `judgments` (human-judgment files) and `parses` (CoNLL-U of an outside parser),
  paths relative to the file;
- `[pool]`: which corpora, how many triples of each, seed, length limits, one-sentence segments,
  exclusions (wojdb.core.design.pool.PoolRule);
- `[permutations]`: the types generated and their seed (the highest degree is the study's
  `max_degree`);
- `[questionnaires]`: how many, and the seed of their composition;
- `practice_item`: the practice pair, by a rule, by its texts or by its key;
- `shared_items`: the items every questionnaire shares, by key (else the build chooses them);
- `consent_texts`: versions of the consent statements.

Numbers are bounded so that nothing a later step computes with them overflows: counts fit the
database's columns, seeds 0 to 2⁶³−1, minutes of idleness at most a year.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from wojdb.core import budgets
from wojdb.core.design import MAX_QUESTIONNAIRES
from wojdb.core.design.pool import DEFAULT_PER_CORPUS, Exclusion, PoolRule
from wojdb.core.io import MAX_INT, InputError, read_input
from wojdb.core.texts import normalise_line_ends
from wojdb.core.vocabulary import MAIN_TYPES, PERMUTATION_TYPES

SEED_MAX = 2**63 - 1
#: Control characters a text may not hold: all but tab and line ends.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: Keys of the file beside the study's settings.
SOURCES, POOL, PERMUTATIONS, QUESTIONNAIRES = "sources", "pool", "permutations", "questionnaires"
PRACTICE_ITEM, SHARED_ITEMS, CONSENT_TEXTS = "practice_item", "shared_items", "consent_texts"
HYPOTHESIS_KEY = ("testset", "source_lang", "target_lang", "ref_name", "segment", "system")
PERMUTATION_KEY = ("perm_type", "degree")
#: How the practice pair is chosen by rule: the pool's shortest reference (within the lengths)
#: with a permutation of the type and degree.
SHORTEST = "shortest"
PRACTICE_RULE = {"rule": SHORTEST, "perm_type": "swap", "degree": 2, "min_length": 10,
                 "max_length": 20}  # fmt: skip


class StudyFileError(ValueError):
    """A study file that cannot be applied, naming the file, the line and the key; nothing was
    written."""

    def __init__(self, path, problem: str, key: str | None = None, line: int | None = None):
        self.path, self.problem, self.key, self.line = path, problem, key, line
        where = str(path) + (f", line {line}" if line else "") + (f", key {key}" if key else "")
        super().__init__(f"{where}: {problem}")


# --- where a key is written --------------------------------------------------------------------

#: How deep lists and tables may nest in a study file; its own keys nest 3 deep at most (a list
#: of tables holding lists). Python's TOML parser recurses once a level: 2,000 levels ended in
#: a RecursionError.
MAX_DEPTH = 10
# Each pattern below is linear in the line it reads: no two quantifiers next to each other can
# take the same characters (one that could took 147 s on `[` followed by 5,000 spaces).
_HEADER = re.compile(r"[ \t]*(\[\[?)([^\[\]\n]*)\]\]?[ \t]*(?:#.*)?$")
_PART = r"""(?:[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')"""
_ASSIGN = re.compile(rf"[ \t]*({_PART}(?:[ \t]*\.[ \t]*{_PART})*)[ \t]*=")
#: What can end each state of the scan below: code (outside strings and comments), a basic
#: string, a literal one, a multi-line basic one, a multi-line literal one, a comment.
_NEXT = {
    "code": re.compile(r"""\"\"\"|'''|["'#\[\]{}\n]"""),
    '"': re.compile(r'\\.|["\n]', re.S),
    "'": re.compile(r"['\n]"),
    '"""': re.compile(r'\\.|"""|\n', re.S),
    "'''": re.compile(r"'''|\n"),
    "#": re.compile(r"\n"),
}


@dataclass
class Layout:
    """What one pass over a study file's text finds: the lines that start outside any string,
    list or inline table (where a key or a table's header can be), and how deep lists and
    inline tables nest (the deepest, and the line where it is reached)."""

    open_lines: list[int]
    depth: int
    deepest_line: int


def layout(text: str) -> Layout:
    """One pass, in time linear in the text whatever it holds."""
    state, depth, deepest, deepest_line, line, pos = "code", 0, 0, 1, 1, 0
    open_lines = [1]
    while (found := _NEXT[state].search(text, pos)) is not None:
        token, pos = found[0], found.end()
        if token == "\n":
            line += 1
            if state in ('"', "'", "#"):
                state = "code"  # a single-line string or comment ends with its line
            if state == "code" and depth == 0:
                open_lines.append(line)
        elif token[0] == "\\":
            line += token.count("\n")  # an escape, or a line-ending backslash
        elif state == "code":
            if token in ("[", "{"):
                depth += 1
                if depth > deepest:
                    deepest, deepest_line = depth, line
            elif token in ("]", "}"):
                depth = max(0, depth - 1)
            else:
                state = token
        elif token == state:
            state = "code"
    return Layout(open_lines, deepest, deepest_line)


def _dotted(text: str) -> list[str]:
    return [part.strip().strip("\"'") for part in re.findall(r"""[^."']+|"[^"]*"|'[^']*'""", text)
            if part.strip()]  # fmt: skip


def key_lines(text: str, where: Layout | None = None) -> dict[str, int]:
    """The line of every key assignment and table header, by its dotted path (array tables
    numbered from 1: `consent_texts[2].version`); lines inside a string, a list or an inline
    table are passed over. Lines only help a message."""
    where = where or layout(text)
    rows = text.split("\n")
    lines: dict[str, int] = {}
    table: list[str] = []
    counts: dict[str, int] = {}
    for number in where.open_lines:
        line = rows[number - 1].removesuffix("\r")
        if header := _HEADER.match(line):
            path = ".".join(_dotted(header.group(2)))
            if header.group(1) == "[[":
                counts[path] = counts.get(path, 0) + 1
                path = f"{path}[{counts[path]}]"
            table = [path]
            lines.setdefault(path, number)
        elif assign := _ASSIGN.match(line):
            lines.setdefault(".".join([*table, *_dotted(assign.group(1))]), number)
    return lines


# --- key types ---------------------------------------------------------------------------------


@dataclass
class Where:
    """Where a value sits: its file, its key's dotted path and a lookup of lines."""

    path: Path | str
    key: str
    lines: Mapping[str, int] = field(default_factory=dict)

    def line(self) -> int | None:
        key = self.key
        while key:
            if key in self.lines:
                return self.lines[key]
            key = re.sub(r"(\.[^.\[]+|\[\d+\])$", "", key) if re.search(r"[.\[]", key) else ""
        return None

    def child(self, name: str | int) -> Where:
        key = f"{self.key}[{name}]" if isinstance(name, int) else (
            f"{self.key}.{name}" if self.key else name)  # fmt: skip
        return Where(self.path, key, self.lines)

    def at(self, *names: str | int) -> Where:
        where = self
        for name in names:
            where = where.child(name)
        return where

    def error(self, problem: str) -> StudyFileError:
        return StudyFileError(self.path, problem, self.key or None, self.line())


def _kind(value) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, datetime | date | time):
        return "a date or time"
    return type(value).__name__


class Key:
    """A key's type: `check` returns the value normalised, or raises StudyFileError."""

    expected = "a value"

    def check(self, value, where: Where):
        raise NotImplementedError

    def wrong(self, value, where: Where) -> StudyFileError:
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "…"
        return where.error(f"must be {self.expected}, not {_kind(value)} ({shown})")


class Text(Key):
    def __init__(self, max_length: int | None = None, *, blank: bool = True, choices=None):
        self.max_length, self.blank, self.choices = max_length, blank, choices
        self.expected = "a text" if choices is None else "one of " + ", ".join(map(repr, choices))

    def check(self, value, where):
        if not isinstance(value, str):
            raise self.wrong(value, where)
        if self.choices is not None and value not in self.choices:
            raise self.wrong(value, where)
        if not self.blank and not value.strip():
            raise where.error("must not be empty")
        if self.max_length is not None and len(value) > self.max_length:
            raise where.error(f"is longer than {self.max_length:,} characters ({len(value):,})")
        if control := CONTROL.search(value):
            # No database stores NUL in a text; the others are invisible on a page and, in a
            # terminal, can rewrite what a command prints (ESC).
            code = f"\\u{ord(control[0]):04x}"
            raise where.error(
                f"holds a control character ({code}) at character {control.start() + 1}"
            )
        # One kind of line end, whatever the editor wrote, as the study stores its texts.
        return normalise_line_ends(value)


class Integer(Key):
    def __init__(self, low: int = 0, high: int = MAX_INT):
        self.low, self.high = low, high
        self.expected = f"a whole number from {low:,} to {high:,}"

    def check(self, value, where):
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.wrong(value, where)
        if not self.low <= value <= self.high:
            raise where.error(f"{value:,} is out of range: {self.expected}")
        return value


class Number(Key):
    def __init__(self, low: float, high: float):
        self.low, self.high = low, high
        self.expected = f"a number from {low:g} to {high:g}"

    def check(self, value, where):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.wrong(value, where)
        if not math.isfinite(value) or not self.low <= value <= self.high:
            raise where.error(f"{value!r} is out of range: {self.expected}")
        return float(value)


class Boolean(Key):
    expected = "true or false"

    def check(self, value, where):
        if not isinstance(value, bool):
            raise self.wrong(value, where)
        return value


class Scalar(Key):
    """One value, not a list or a table; what it must be beyond that, the caller checks."""

    expected = "a single value"

    def check(self, value, where):
        if isinstance(value, list | dict):
            raise self.wrong(value, where)
        return value


class ListOf(Key):
    def __init__(self, item: Key, *, min_items: int = 0, max_items: int = 100_000, unique=False):
        self.item, self.min_items, self.max_items, self.unique = item, min_items, max_items, unique
        self.expected = "a list"

    def check(self, value, where):
        if not isinstance(value, list):
            raise self.wrong(value, where)
        if not self.min_items <= len(value) <= self.max_items:
            raise where.error(
                f"lists {len(value):,} entries; it needs {self.min_items:,} to {self.max_items:,}"
            )
        items = [self.item.check(v, where.child(n)) for n, v in enumerate(value, start=1)]
        if self.unique:
            seen = set()
            for n, item in enumerate(items, start=1):
                if repr(item) in seen:
                    raise where.child(n).error(f"{item!r} is listed twice")
                seen.add(repr(item))
        return items


class TableOf(Key):
    """A table of any keys (of `key`'s type) to values of one type."""

    def __init__(self, key: Text, value: Key):
        self.key, self.value = key, value
        self.expected = "a table"

    def check(self, value, where):
        if not isinstance(value, dict):
            raise self.wrong(value, where)
        out = {}
        for k, v in value.items():
            self.key.check(k, where.child(k))
            out[k] = self.value.check(v, where.child(k))
        return out


class Table(Key):
    """A table of named keys, each with its type; unknown keys are refused by name."""

    def __init__(self, keys: Mapping[str, Key], *, required: Sequence[str] = (), check=None):
        self.keys, self.required, self.extra = dict(keys), tuple(required), check
        self.expected = "a table"

    def check(self, value, where):
        if not isinstance(value, dict):
            raise self.wrong(value, where)
        if unknown := [k for k in value if k not in self.keys]:
            raise where.child(unknown[0]).error(
                f"unknown key {unknown[0]!r}; " + self._hint(unknown[0])
            )
        if missing := [k for k in self.required if k not in value]:
            raise where.error(f"needs the key {missing[0]!r}")
        out = {k: self.keys[k].check(v, where.child(k)) for k, v in value.items()}
        return self.extra(out, where) if self.extra else out

    def _hint(self, key: str) -> str:
        if len(self.keys) <= 12:
            return "this table holds " + ", ".join(self.keys)
        close = difflib.get_close_matches(key, self.keys, n=3)
        return (f"did you mean {' or '.join(map(repr, close))}? " if close else "") + (
            'docs/running-a-study.md, "The study file", lists the keys'
        )


class Either(Key):
    """A value of the first type that takes it (e.g. a path, or a table with a path)."""

    def __init__(self, *kinds: Key, normalise: Callable[[Any], Any] = lambda v: v):
        self.kinds, self.normalise = kinds, normalise
        self.expected = " or ".join(k.expected for k in kinds)

    def check(self, value, where):
        for kind in self.kinds:
            if isinstance(value, dict) == isinstance(kind, Table | TableOf):
                return self.normalise(kind.check(value, where))
        raise self.wrong(value, where)


# --- the tables beside the study's settings ----------------------------------------------------

NAME = Text(200, blank=False)
LANGUAGE_PAIR = Text(17, blank=False)
SEED = Integer(0, SEED_MAX)
LENGTH = Integer(1, 100_000)  # words, or characters of a language written without spaces
LINE = Integer(1, MAX_INT)
DEGREE = Integer(1, 1_000)


def _path_table(**options: Key) -> Either:
    table = Table({"path": Text(4096, blank=False), **options}, required=["path"])
    return Either(Text(4096, blank=False), table,
                  normalise=lambda v: {"path": v} if isinstance(v, str) else v)  # fmt: skip


def sources_key(layouts: Sequence[str]) -> Table:
    return Table({
        "testsets": ListOf(_path_table(
            layout=Text(choices=tuple(layouts)), year=Integer(1000, 9999),
            language_pairs=ListOf(LANGUAGE_PAIR, unique=True),
            references=ListOf(Text(16, blank=False), unique=True),
            systems=ListOf(Text(128, blank=False), unique=True), testset=Text(64, blank=False),
        )),
        "documents": ListOf(_path_table(testset=Text(64, blank=False))),
        "judgments": ListOf(_path_table(
            testset=Text(64, blank=False), language_pair=LANGUAGE_PAIR,
            sid_mapping=Text(choices=("documents", "lines")),
            accept_unverified_alignment=Boolean(),
        )),
        # An outside parser's CoNLL-U for a target language without a spaCy pipeline: the
        # references (or one system's hypotheses) of a test set, a sentence per line.
        "parses": ListOf(Table({
            "path": Text(4096, blank=False), "testset": Text(64, blank=False),
            "language_pair": LANGUAGE_PAIR, "system": Text(128, blank=False),
            "parser": Text(200, blank=False),
        }, required=["path", "testset", "language_pair"])),
    })  # fmt: skip


def _lengths(table: dict, where: Where) -> dict:
    low, high = table.get("min_length", 1), table.get("max_length")
    if high is not None and high < low:
        raise where.child("max_length").error(f"{high} is below min_length ({low})")
    return table


def _names_something(table: dict, where: Where) -> dict:
    if not table:
        raise where.error("names nothing to exclude (testset, language_pair, system, document, "
                          "segment)")  # fmt: skip
    return table


EXCLUSION = Table(
    {"testset": Text(64, blank=False), "language_pair": LANGUAGE_PAIR,
     "system": Text(128, blank=False), "document": Text(128, blank=False), "segment": LINE},
    check=_names_something,
)  # fmt: skip
POOL_KEY = Table({
    "testsets": ListOf(Text(64, blank=False), unique=True),
    "language_pairs": ListOf(LANGUAGE_PAIR, unique=True),
    "systems": ListOf(Text(128, blank=False), unique=True),
    "per_corpus": Integer(1, 1_000_000), "seed": SEED, "min_length": LENGTH, "max_length": LENGTH,
    "single_sentence": Boolean(), "sentence_end": Boolean(),
    "exclude": ListOf(EXCLUSION, unique=True),
}, check=_lengths)  # fmt: skip
PERMUTATIONS_KEY = Table(
    {"types": ListOf(Text(choices=PERMUTATION_TYPES), min_items=1, unique=True), "seed": SEED}
)
QUESTIONNAIRES_KEY = Table(
    {"count": Integer(1, MAX_QUESTIONNAIRES), "seed": SEED}, required=["count"]
)
ITEM_KEYS = {
    "testset": Text(64, blank=False), "source_lang": Text(8, blank=False),
    "target_lang": Text(8, blank=False), "ref_name": Text(16, blank=False), "segment": LINE,
    "system": Text(128, blank=False), "perm_type": Text(choices=PERMUTATION_TYPES),
    "degree": DEGREE,
}  # fmt: skip


def _item(table: dict, where: Where) -> dict:
    if ("perm_type" in table) != ("degree" in table):
        raise where.error("a permutation is named by both perm_type and degree")
    return table


ITEM = Table(ITEM_KEYS, required=HYPOTHESIS_KEY, check=_item)


def _practice(table: dict, where: Where) -> dict:
    """One of three forms: a rule, the texts of the pair, or an item's key."""
    forms = {
        "rule": {"rule", "perm_type", "degree", "min_length", "max_length"},
        "texts": {"reference", "text", "system"},
        "key": set(ITEM_KEYS),
    }
    given = set(table)
    fitting = [name for name, keys in forms.items() if given <= keys]
    if "rule" in given:
        return _lengths(PRACTICE_RULE | table, where) if "rule" in fitting else _mixed(where)
    if "reference" in given:
        if "texts" not in fitting:
            return _mixed(where)
        return table
    if "key" in fitting and set(HYPOTHESIS_KEY) <= given:
        return _item(table, where)
    if "key" in fitting:
        missing = [k for k in HYPOTHESIS_KEY if k not in given]
        raise where.error(f"an item's key needs {', '.join(missing)} as well")
    return _mixed(where)


def _mixed(where: Where):
    raise where.error(
        'names the practice pair in one of three ways: rule = "shortest" (with perm_type, '
        "degree, min_length, max_length); reference and text (with system); or an item's key "
        f"({', '.join(HYPOTHESIS_KEY + PERMUTATION_KEY)})"
    )


PRACTICE_KEY = Table(
    {"rule": Text(choices=(SHORTEST,)), "min_length": LENGTH, "max_length": LENGTH,
     "reference": Text(10_000, blank=False), "text": Text(10_000, blank=False), **ITEM_KEYS},
    check=_practice,
)  # fmt: skip


def _consent(text: dict, where: Where) -> dict:
    numbers = range(1, len(text["statements"]) + 1)
    for n, number in enumerate(text.get("optional", []), start=1):
        if number not in numbers:
            raise (
                where.child("optional")
                .child(n)
                .error(f"lists statement numbers from 1 to {len(numbers)}, not {number}")
            )
    sharing = text.get("sharing")
    if sharing is not None and sharing not in numbers:
        raise where.child("sharing").error(
            f"is a statement number from 1 to {len(numbers)}, not {sharing}"
        )
    return {"version": text["version"], "statements": text["statements"],
            "optional": text.get("optional", []), "sharing": sharing}  # fmt: skip


CONSENT = Table({
    "version": Integer(1, MAX_INT),
    "statements": ListOf(Text(2000, blank=False), min_items=1, max_items=100),
    "optional": ListOf(Integer(1, 100), unique=True), "sharing": Integer(1, 100),
}, required=["version", "statements"], check=_consent)  # fmt: skip


def _versions(texts: list[dict], where: Where) -> list[dict]:
    seen: dict[int, int] = {}
    for n, text in enumerate(texts, start=1):
        version = text["version"]
        if version in seen:
            problem = f"version {version} is given twice (consent_texts {seen[version]} and {n})"
            raise where.at(n, "version").error(f"{problem}; each version is one text")
        seen[version] = n
    return texts


# --- the whole file ----------------------------------------------------------------------------


@dataclass
class Declared:
    """A study file's content, every value checked and normalised; paths absolute."""

    path: Path
    lines: dict[str, int]
    fields: dict[str, Any]
    consent_texts: list[dict] = field(default_factory=list)
    practice_item: dict | None = None
    shared_items: list[dict] = field(default_factory=list)
    sources: dict = field(default_factory=dict)
    pool: dict | None = None
    permutations: dict | None = None
    questionnaires: dict | None = None

    def where(self, key: str) -> Where:
        return Where(self.path, key, self.lines)

    def pool_rule(self) -> PoolRule:
        return pool_rule(self.pool or {})

    def error(self, key: str, problem: str) -> StudyFileError:
        return self.where(key).error(problem)


def full_pool(table: dict) -> dict:
    """The [pool] table with every default written out (what study_config writes)."""
    rule = PoolRule()
    out = {
        "testsets": [], "language_pairs": [], "systems": [], "per_corpus": DEFAULT_PER_CORPUS,
        "seed": rule.seed, "min_length": rule.min_length, "single_sentence": rule.single_sentence,
        "sentence_end": rule.sentence_end, "exclude": [],
    } | table  # fmt: skip
    return {k: out[k] for k in POOL_KEY.keys if k in out}


def full_permutations(table: dict) -> dict:
    return {"types": list(MAIN_TYPES), "seed": 1} | table


def full_questionnaires(table: dict) -> dict:
    return {"seed": 1} | table


def pool_rule(table: dict) -> PoolRule:
    table = full_pool(table)
    return PoolRule(
        per_corpus=table["per_corpus"],
        seed=table["seed"],
        testsets=tuple(table["testsets"]),
        language_pairs=tuple(table["language_pairs"]),
        systems=tuple(table["systems"]),
        min_length=table["min_length"],
        max_length=table.get("max_length"),
        single_sentence=table["single_sentence"],
        sentence_end=table["sentence_end"],
        exclude=tuple(Exclusion(**x) for x in table["exclude"]),
    )


def rule_table(rule: PoolRule) -> dict:
    """A PoolRule as its [pool] table (TOML has no null: no max_length is no key)."""
    table = {
        "testsets": list(rule.testsets), "language_pairs": list(rule.language_pairs),
        "systems": list(rule.systems), "per_corpus": rule.per_corpus, "seed": rule.seed,
        "min_length": rule.min_length, "max_length": rule.max_length,
        "single_sentence": rule.single_sentence, "sentence_end": rule.sentence_end,
        "exclude": [{k: v for k, v in vars(x).items() if v is not None} for x in rule.exclude],
    }  # fmt: skip
    return full_pool({k: v for k, v in table.items() if v is not None})


def file_key(study_fields: Mapping[str, Key], layouts: Sequence[str]) -> Table:
    """The type of a whole study file: the study's settings and the tables beside them."""
    keys = dict(study_fields)
    keys |= {
        SOURCES: sources_key(layouts),
        POOL: POOL_KEY,
        PERMUTATIONS: PERMUTATIONS_KEY,
        QUESTIONNAIRES: QUESTIONNAIRES_KEY,
        PRACTICE_ITEM: PRACTICE_KEY,
        SHARED_ITEMS: ListOf(ITEM, unique=True),
        CONSENT_TEXTS: _ConsentTexts(),
    }
    return Table(keys)


class _ConsentTexts(ListOf):
    def __init__(self):
        super().__init__(CONSENT, max_items=1000)

    def check(self, value, where):
        return _versions(super().check(value, where), where)


def read(path: Path, study_fields: Mapping[str, Key], layouts: Sequence[str]) -> Declared:
    """Read and check a study file; source paths are resolved from the file's folder and must
    exist. Raises StudyFileError naming the file, line and key."""
    limits = budgets.current()
    try:
        text = read_input(
            path, limits.study_file_bytes, limits.variable("study_file_bytes")
        ).decode("utf-8")
    except InputError as e:
        raise StudyFileError(path, e.problem) from None
    except UnicodeDecodeError as e:
        raise StudyFileError(path, f"not a UTF-8 text file: {e}") from None
    found = layout(text)
    if found.depth > MAX_DEPTH:
        raise StudyFileError(
            path,
            f"lists or tables nest {found.depth:,} deep; a study file nests them at most "
            f"{MAX_DEPTH} deep",
            _key_at(key_lines(text, found), found.deepest_line),
            found.deepest_line,
        )
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise StudyFileError(path, f"not a TOML file: {e}") from None
    except RecursionError:  # deeper than the scan saw: a bracket it took for a string's
        raise StudyFileError(path, "lists or tables nest too deep") from None
    lines = key_lines(text, found)
    where = Where(path, "", lines)
    checked = file_key(study_fields, layouts).check(data, where)
    sections = (SOURCES, POOL, PERMUTATIONS, QUESTIONNAIRES, PRACTICE_ITEM, SHARED_ITEMS,
                CONSENT_TEXTS)  # fmt: skip
    declared = Declared(
        Path(path), lines, {k: v for k, v in checked.items() if k not in sections},
        consent_texts=checked.get(CONSENT_TEXTS, []),
        practice_item=checked.get(PRACTICE_ITEM),
        shared_items=checked.get(SHARED_ITEMS, []),
        sources=_resolve(checked.get(SOURCES, {}), Path(path).resolve().parent, where),
        pool=None if POOL not in checked else rule_table(pool_rule(checked[POOL])),
        permutations=None if PERMUTATIONS not in checked else full_permutations(
            checked[PERMUTATIONS]),
        questionnaires=None if QUESTIONNAIRES not in checked else full_questionnaires(
            checked[QUESTIONNAIRES]),
    )  # fmt: skip
    for name in (PERMUTATIONS, QUESTIONNAIRES):
        if name in checked and declared.pool is None:
            raise where.child(name).error(
                f"[{name}] is built on the study's pool: declare the [pool] as well"
            )
    return declared


def _key_at(lines: Mapping[str, int], line: int) -> str | None:
    """The key written last at or before a line: the one whose value the line is in."""
    before = [(number, key) for key, number in lines.items() if number <= line]
    return max(before)[1] if before else None


def _resolve(sources: dict, folder: Path, where: Where) -> dict:
    """Source paths made absolute from the study file's folder, each checked to exist."""
    out = {}
    for kind, entries in sources.items():
        out[kind] = []
        for n, entry in enumerate(entries, start=1):
            path = (folder / entry["path"]).resolve()
            at = where.child(SOURCES).child(kind).child(n)
            if not path.exists():
                raise at.error(f"{path} does not exist")
            if (kind == "testsets") != path.is_dir():
                raise at.error(f"{path} is {'a file' if path.is_file() else 'not a file'}; "
                               + ("a test set is a folder" if kind == "testsets"
                                  else "give the file itself"))  # fmt: skip
            out[kind].append(entry | {"path": str(path)})
    return out


def relative_sources(sources: dict, folder: Path | None) -> dict:
    """Source paths as a study file written into `folder` names them: relative to it, or
    absolute without a folder; a source with no options is written as its path alone."""
    out = {}
    for kind, entries in sources.items():
        out[kind] = []
        for entry in entries:
            path = entry["path"] if folder is None else os.path.relpath(entry["path"], folder)
            out[kind].append(path if len(entry) == 1 else entry | {"path": path})
    return out
