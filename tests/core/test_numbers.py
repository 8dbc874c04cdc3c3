"""Every number the program reads is read by one rule (wojdb.core.numbers): in a file, a
command's argument and an environment variable, the same texts are refused with the same
problem named, where Python's int() and float() would have taken most of them."""

import argparse
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wojdb.arguments import float_range, int_range
from wojdb.core.io import InputError, parse_number
from wojdb.core.numbers import INT64_MAX, INT64_MIN, read_number
from wojdb.environment import Environment, SettingsError

HUGE = "9" * 20
#: Texts that are no whole number, and the problem each is refused with. int() reads the first
#: six (as 10, 3, 3, 3, 3 and 10), float() the two after them as well.
NOT_WHOLE = [
    ("1_0", "'1_0' is not a number"),
    ("\u0663", "'\u0663' is not a number"),  # ٣, Arabic-Indic three
    (" 3", "' 3' is not a number"),
    ("3\n", "'3\\n' is not a number"),
    ("+3", "'+3' is not a number"),
    ("0_10", "'0_10' is not a number"),
    ("3.0", "'3.0' is not a whole number"),
    ("1e3", "'1e3' is not a whole number"),
    ("nan", "'nan' is not a number"),
    ("inf", "'inf' is not a number"),
    ("", "'' is not a number"),
    (HUGE, f"'{HUGE}' is out of range"),
    ("9" * 5000, "'99999999999999999999…' is out of range"),  # int() refuses 4,300 digits
]
#: Texts that are no number at all.
NOT_DECIMAL = [
    ("1_0.5", "'1_0.5' is not a number"),
    ("\u0663.5", "'\u0663.5' is not a number"),
    (" 0.5", "' 0.5' is not a number"),
    ("+0.5", "'+0.5' is not a number"),
    ("nan", "'nan' is not a number"),
    ("-inf", "'-inf' is not a number"),
    ("Infinity", "'Infinity' is not a number"),
    ("1e999", "'1e999' is not a finite number"),
    ("0x1p3", "'0x1p3' is not a number"),
]


@pytest.mark.parametrize(
    "text, number",
    [("3", 3), ("-3", -3), ("007", 7), (str(INT64_MAX), INT64_MAX), (str(INT64_MIN), INT64_MIN)],
)
def test_whole_numbers_are_ascii_digits_with_a_minus_sign(text, number):
    assert read_number(text, int) == number


@pytest.mark.parametrize(
    "text, number", [("0.5", 0.5), (".5", 0.5), ("-2", -2.0), ("1e-05", 1e-05), ("2.5E+3", 2500.0)]
)
def test_decimals_may_have_a_fraction_and_an_exponent(text, number):
    assert read_number(text) == number


@pytest.mark.parametrize("text, problem", NOT_WHOLE)
def test_a_whole_number_is_refused_alike_in_a_file_an_argument_and_the_environment(text, problem):
    with pytest.raises(ValueError) as rule:
        read_number(text, int)
    assert str(rule.value).startswith(problem)
    with pytest.raises(InputError) as file:
        parse_number(text, "counts.tsv", 4, "N", int)
    assert str(file.value).startswith(f"counts.tsv, line 4, field N: {problem}")
    with pytest.raises(argparse.ArgumentTypeError) as argument:
        int_range(1)(text)
    assert str(argument.value).startswith(problem)
    assert str(argument.value).endswith("expected a whole number >= 1")
    with pytest.raises(SettingsError) as variable:
        Environment({"WOJDB_PROXIES": text}).integer("WOJDB_PROXIES", 0)
    assert str(variable.value).startswith(f"environment variable WOJDB_PROXIES={text!r}: {problem}")


@pytest.mark.parametrize("text, problem", NOT_DECIMAL)
def test_a_number_is_refused_alike_in_a_file_and_an_argument(text, problem):
    with pytest.raises(InputError) as file:
        parse_number(text, "scores.tsv", 2, "score")
    assert str(file.value) == f"scores.tsv, line 2, field score: {problem}"
    with pytest.raises(argparse.ArgumentTypeError) as argument:
        float_range(0)(text)
    assert str(argument.value) == f"{problem}: expected a number >= 0"


def test_each_reader_keeps_its_own_range():
    with pytest.raises(InputError, match=r"'2147483648' is out of range \(0 to 2,147,483,647\)"):
        parse_number("2147483648", "f.tsv", 2, "N", int)
    with pytest.raises(argparse.ArgumentTypeError, match="0 is outside the allowed range"):
        int_range(1)("0")
    budget = {"WOJDB_MAX_PAGE_PIXELS": "150000001"}
    with pytest.raises(SettingsError, match=r"out of range \(1 to 150,000,000\)"):
        Environment(budget).integer("WOJDB_MAX_PAGE_PIXELS", 1, minimum=1, maximum=150_000_000)
    assert Environment({"WOJDB_PROXIES": "2"}).integer("WOJDB_PROXIES", 0) == 2


@given(st.integers(INT64_MIN, INT64_MAX))
def test_every_64_bit_whole_number_reads_back(number):
    assert read_number(str(number), int) == number


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_reads_back_from_its_shortest_text(number):
    assert read_number(repr(number)) == number


@given(st.text(max_size=12))
def test_what_the_rule_takes_int_and_float_read_the_same(text):
    for kind in (int, float):
        try:
            number = read_number(text, kind)
        except ValueError:
            continue
        assert number == kind(text) and (kind is int or math.isfinite(number))
