"""Agreement against Krippendorff's published example; per-participant checks flag, never drop."""

import numpy as np
import pandas as pd
import pytest

from wojdb.core.stats.quality import Thresholds, agreement, participant_checks

# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", Annenberg School for
# Communication, section C: 4 observers x 12 units, values 1-5 with gaps. Published results:
# nominal alpha = 0.743, ordinal 0.815, interval 0.849.
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, 3],
    [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, None],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
]


def example_ratings():
    rows = [
        {"participant": p, "item": i, "holistic": v, "order": v, "shared": True, "practice": False}
        for p, values in enumerate(KRIPPENDORFF_2011)
        for i, v in enumerate(values)
    ]
    return pd.DataFrame(rows).astype({"holistic": float, "order": float})


@pytest.mark.parametrize(("level", "published"), [("ordinal", 0.815), ("nominal", 0.743)])
def test_alpha_reproduces_krippendorffs_worked_example(level, published):
    table = agreement(example_ratings(), level=level)
    assert list(table["judgment"]) == ["holistic", "order"]
    assert table["alpha"].round(3).tolist() == [published, published]
    assert table["items"].iloc[0] == 11  # unit 12 has one value only: not pairable
    assert table["participants"].iloc[0] == 4


def test_only_shared_items_count_unless_asked():
    ratings = example_ratings()
    ratings.loc[ratings["item"] >= 6, "shared"] = False
    assert agreement(ratings)["items"].iloc[0] == 6
    assert agreement(ratings, shared_only=False)["items"].iloc[0] == 11


def participant(pid, order_by_degree, choice_order, seconds, same_answer=None):
    """Eight order/swap permutations of degrees 1..8, two choice permutations, two hypotheses;
    with ``same_answer`` every answer is that value."""
    rows = [
        ("permutation", "order" if degree % 2 else "swap", degree, order_by_degree(degree), 4)
        for degree in range(1, 9)
    ]
    rows += [("permutation", "choice", degree, choice_order, 3) for degree in (2, 6)]
    rows += [("hypothesis", None, np.nan, 4, 2), ("hypothesis", None, np.nan, 2, 5)]
    frame = pd.DataFrame(rows, columns=["kind", "perm_type", "degree", "order", "holistic"])
    if same_answer is not None:
        frame[["order", "holistic"]] = same_answer
    return frame.assign(
        participant=pid,
        item=range(len(frame)),
        position=range(1, len(frame) + 1),
        seconds=seconds,
        practice=False,
        order01=(frame["order"] - 1) / 4,
    )


def test_checks_flag_each_failure_and_keep_everyone():
    def falling(degree):
        return max(1, 5 - degree // 2)

    ratings = pd.concat(
        [
            participant("good", falling, 5, 25.0),
            participant("reversed", lambda d: min(5, 1 + d // 2), 5, 25.0),
            participant("misses choice", falling, 2, 25.0),
            participant("hasty", falling, 5, 2.0),
            participant("straight", falling, 3, 25.0, same_answer=3),
        ]
    )
    checks = participant_checks(ratings).set_index("participant")
    assert list(checks.index) == sorted(["good", "reversed", "misses choice", "hasty", "straight"])
    assert checks.loc["good", "flags"] == ""
    assert checks.loc["good", "degree_rho"] < -0.9
    assert checks.loc["reversed", "flags"] == "degree"
    assert checks.loc["misses choice", "flags"] == "choice"
    assert checks.loc["misses choice", "choice_order_mean"] == 0.25
    assert checks.loc["hasty", "flags"] == "time"
    assert checks.loc["straight", "flag_straightlining"]
    assert checks.loc["straight", "longest_run"] == 12
    assert checks.loc["straight", "modal_share"] == 1.0


def test_thresholds_are_the_studys_choice():
    def falling(degree):
        return max(1, 5 - degree // 2)

    ratings = participant("p", falling, 5, 6.0)
    assert participant_checks(ratings)["flags"].iloc[0] == ""
    strict = Thresholds(min_median_seconds=10)
    assert participant_checks(ratings, strict)["flags"].iloc[0] == "time"
