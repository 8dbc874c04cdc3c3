"""The report's plain-text tables and model summaries: cells never run together, and a model
that is not estimable prints its reasons and no numbers."""

import re

import pandas as pd

from wojdb.core.report import summaries
from wojdb.core.report.text import GAP, fixed, text_table
from wojdb.core.stats.estimability import NotEstimable


def cells(line: str) -> list[str]:
    """A line's cells: what two or more spaces separate."""
    return re.split(rf" {{{GAP},}}", line.strip())


def test_cells_of_any_width_stay_apart():
    rows = [["", "estimate", "std. error"], ["group[T.swap]", "36.663883", "8303894.0132"]]
    lines = text_table(rows)
    assert cells(lines[1]) == ["group[T.swap]", "36.663883", "8303894.0132"]
    assert cells(lines[0]) == ["estimate", "std. error"]
    # Right-aligned: each number ends where its heading ends.
    assert lines[0].index("std. error") + len("std. error") == len(lines[1])


def test_a_coefficient_table_with_extreme_values_keeps_its_columns():
    table = pd.DataFrame(
        {
            "term": ["group[T.swap]", "Intercept"],
            "estimate": [36.663883, -0.00001],
            "se": [8303894.0132, 0.25],
            "ci_low": [-16275626.1, -0.49],
            "ci_high": [16275699.4, 0.49],
            "statistic": [0.0000044, -0.0004],
            "statistic_name": "z",
        }
    )
    heading, swap, intercept = summaries.coefficient_lines(table)
    assert cells(swap) == [
        "group[T.swap]",
        "36.6639",
        "8303894.0132",
        "-16275626.1000",
        "16275699.4000",
        "0.00",
    ]
    assert cells(intercept) == ["Intercept", "0.0000", "0.2500", "-0.4900", "0.4900", "0.00"]
    assert cells(heading) == ["estimate", "std. error", "2.5%", "97.5%", "z value"]


def test_a_model_that_is_not_estimable_prints_reasons_and_no_numbers():
    result = NotEstimable(
        ("all 40 answers of group 'swap' are 5, the highest answer given: its coefficient is "
         "infinite (complete separation)",),
        1800,
        {"participant": 36, "item": 1100},
    )  # fmt: skip
    text = summaries.summary(result, "order ~ group + (1 | participant)", summaries.LAPLACE)
    lines = text.splitlines()
    assert lines[0] == (
        "order ~ group + (1 | participant)    (cumulative logit, Laplace, 1800 observations)"
    )
    assert lines[1] == "NOT ESTIMABLE, so no estimates are shown:"
    assert "complete separation" in lines[2]
    assert lines[-1] == "  number of groups: participant 36, item 1100"
    assert "std. error" not in text and not re.search(r"\d\.\d", text)  # no estimates


def test_fixed_drops_the_sign_of_a_rounded_zero():
    assert [fixed(v, 3) for v in (-0.0004, -0.0006, 2.0)] == ["0.000", "-0.001", "2.000"]
