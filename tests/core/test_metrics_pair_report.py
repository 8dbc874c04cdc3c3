"""The score command's reports, called directly."""

import pytest

from wojdb.core.metrics.pair_report import permutation_report, text


def test_a_permutation_report_lists_every_permutation_metric_and_prints():
    report = permutation_report("2,1,3")
    assert report["permutation"] == [2, 1, 3]
    names = {row["name"] for row in report["scores"]}
    assert "kendall" in names
    assert all(row["version"] for row in report["scores"])
    assert text(report).splitlines()[0] == "permutation: 2,1,3"


def test_a_permutation_that_is_not_numbers_is_refused():
    with pytest.raises(ValueError, match="comma-separated integers, not '2,x'"):
        permutation_report("2,x")
