"""Inputs whose shape, not their size, cost time or memory, each read at once or refused by name
(wojdb.core.study_file, wojdb.core.design.pool, wojdb.core.io): a line of `[` and 5,000 spaces
in a study file's text, lists nested 2,000 deep, 50,000 exclusions, and a gzip file that
unpacks beyond the input budget. Time is measured by bench/budget_bench.py; these assert what
is read and what is refused."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from wojdb.core.budgets import first_few
from wojdb.core.design.pool import (
    Candidate,
    CorpusName,
    Exclusion,
    PoolRule,
    left_out,
    unmatched_exclusions,
)
from wojdb.core.io import InputError, read_lines
from wojdb.core.study_file import MAX_DEPTH, StudyFileError, key_lines, layout, read

ROOT = Path(__file__).resolve().parents[2]

#: The attack's shape: a study file of 5 KB whose text holds a line of `[` and 5,000 spaces.
BRACKET_LINE = (
    'name = "A study"\ninformation_sheet = """\n## About\n[' + " " * 5_000 + '\n"""\n'
    "[pool]\nper_corpus = 3\n"
)


def test_a_line_of_a_bracket_and_spaces_in_a_text_is_passed_over_in_one_pass():
    """The pattern finding table headers took 147 s on this line (of a 5 KB file), and was
    run on every line, strings included. Run in a child process, so that a pattern that
    backtracks fails the test by its deadline instead of holding the suite."""
    code = (
        "import sys; from wojdb.core.study_file import key_lines; "
        "print(sorted(key_lines(sys.stdin.read()).items()))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=BRACKET_LINE, capture_output=True, text=True,
        cwd=ROOT, timeout=30,
    )  # fmt: skip
    assert done.stdout.strip() == str(
        [("information_sheet", 2), ("name", 1), ("pool", 6), ("pool.per_corpus", 7)]
    )


def test_lines_inside_a_multi_line_string_or_list_are_no_keys():
    text = 'a = """\n[b]\nc = 1\n"""\nd = [\n  "e = 2",\n]\n[f]\n g = \'\'\'\nh = 3\'\'\'\n'
    assert key_lines(text) == {"a": 1, "d": 5, "f": 8, "f.g": 9}


@pytest.mark.parametrize(
    "value",
    ["[" * 2_000 + "]" * 2_000, "{a = " * 2_000 + "}" * 2_000, "[{a = " * 1_000 + "}]" * 1_000],
)
def test_lists_or_tables_nested_2000_deep_are_refused_naming_key_and_line(value, tmp_path):
    """Python's TOML parser ended in a RecursionError."""
    path = tmp_path / "study.toml"
    path.write_text(f'name = "A study"\n[pool]\nexclude = {value}\n')
    with pytest.raises(StudyFileError) as error:
        read(path, {}, [])
    assert str(error.value) == (
        f"{path}, line 3, key pool.exclude: lists or tables nest 2,000 deep; a study file nests "
        f"them at most {MAX_DEPTH} deep"
    )


def test_brackets_inside_strings_and_comments_do_not_nest():
    text = "a = \"[[[[[[[[[[[[\" # {{{{{{{{{{{{\nb = '''\n[[[[[[[[[[[[\n'''\nc = [[1], [2]]\n"
    assert layout(text).depth == 2


def candidate(segment: int, system: str = "A") -> Candidate:
    corpus = CorpusName("wmt", "de-en", system)
    return Candidate((system, segment), corpus, segment, "d1", "en", "A cat.", "A cat.", 2, 2, 2)


def test_fifty_thousand_exclusions_are_matched_by_lookup():
    """Each was tried against every triple: 145 s for 50,000 against a WMT slice."""
    exclude = tuple(Exclusion(segment=n) for n in range(1, 50_001)) + (
        Exclusion(system="B"), Exclusion(testset="wmt", segment=3, system="A"),
    )  # fmt: skip
    rule = PoolRule(exclude=exclude)
    candidates = [candidate(n, system) for n in (1, 60_000) for system in "AB"]
    assert [left_out(c, rule) is not None for c in candidates] == [True, True, False, True]
    unmatched = unmatched_exclusions(rule, candidates)
    assert len(unmatched) == 50_000 - 1 + 1  # all segments but 1, and the one naming segment 3
    assert unmatched[0] == Exclusion(segment=2) and unmatched[-1].system == "A"


def test_a_message_lists_the_first_few_and_counts_the_rest():
    assert first_few([f"{{segment = {n}}}" for n in range(1, 50_001)]) == (
        "{segment = 1}, {segment = 2}, {segment = 3}, {segment = 4}, {segment = 5}, … and "
        "49,995 more"
    )
    assert first_few(["a", "b"]) == "a, b"


def test_a_gzip_file_unpacking_beyond_the_input_budget_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "hyp.en.gz"
    path.write_bytes(gzip.compress(b"A sentence.\n" * 1_000))  # 12,000 bytes in 60
    monkeypatch.setenv("WOJDB_MAX_INPUT_BYTES", "10000")
    with pytest.raises(InputError) as error:
        read_lines(path)
    assert str(error.value) == (
        f"{path}: unpacks over the budget of 10,000 bytes (WOJDB_MAX_INPUT_BYTES raises it)"
    )
    monkeypatch.setenv("WOJDB_MAX_INPUT_BYTES", "12000")
    assert read_lines(path) == ["A sentence."] * 1_000
