"""Planning for word marks (wojdb.core.stats.power_marks): on a one-group design the recall is a
binomial share, so its interval's half-width has a closed form, shrinks as 1/sqrt(n) and covers
the true recall about 95% of the time; the thesis design is Table 6.3's."""

import math

import numpy as np
import pandas as pd
import pytest

from wojdb.core.design.composition import make_layout
from wojdb.core.permutations import MAX_DEGREE
from wojdb.core.stats import marks as M
from wojdb.core.stats.power_marks import (
    DESIGN_COLUMNS,
    LENGTHS,
    ThesisDesign,
    marks_power,
    simulate_study,
)

RECALL = 0.7
DEGREE = 5


def one_group(degree=DEGREE, units=20):
    """Every participant answers one permutation of their own, all order/`degree`: one group
    whose micro recall is a binomial count over participants × `degree` units."""

    def design(participants, rng):
        def draw(rng):
            rows = [
                (p, p, "order", degree, units, tuple(range(degree))) for p in range(participants)
            ]
            return pd.DataFrame(rows, columns=list(DESIGN_COLUMNS))

        return draw

    return design


def binomial_half_width(participants, recall=RECALL, degree=DEGREE):
    return 1.96 * math.sqrt(recall * (1 - recall) / (participants * degree))


def plan(participants, **options):
    options = {"recall": RECALL, "n_boot": 400, "seed": 1, "design": one_group()} | options
    return marks_power(participants, **options)


def test_the_half_width_is_the_binomial_one():
    # 40 participants × 5 units: 1.96 × sqrt(0.7 × 0.3 / 200) = 0.0635.
    row = plan((40,), n_sims=60).table.iloc[0]
    assert row["median_half_width"] == pytest.approx(binomial_half_width(40), rel=0.1)
    assert row["groups"] == 1 and row["estimable"] == 1


def test_the_half_width_shrinks_as_one_over_the_root_of_participants():
    table = plan((20, 80), n_sims=40).table.set_index("participants")
    ratio = table.loc[20, "median_half_width"] / table.loc[80, "median_half_width"]
    assert ratio == pytest.approx(math.sqrt(80 / 20), rel=0.15)


def test_the_intervals_cover_the_true_recall_about_95_percent_of_the_time():
    # 400 intervals: the share's standard error is 0.011; 200 resamples put the ends a little
    # inside, so that the percentile intervals cover slightly less than 95%.
    row = plan((40,), n_sims=400, n_boot=200).table.iloc[0]
    assert row["coverage"] == pytest.approx(0.95, abs=0.035)


def test_perfect_marks_give_a_point_interval():
    row = plan((12,), recall=1.0, false_rate=0.2, n_sims=3).table.iloc[0]
    assert row["median_half_width"] == 0 and row["coverage"] == 1


def test_fewer_pairs_than_the_minimum_are_not_estimable_whatever_the_half_width():
    few, enough = M.MIN_MARKED_PAIRS - 1, M.MIN_MARKED_PAIRS
    result = plan((few, enough), n_sims=4, half_width=0.5)
    table = result.table.set_index("participants")
    assert table.loc[few, "estimable"] == 0 and table.loc[few, "median_half_width"] == np.inf
    assert table.loc[few, "reached"] == 0 and table.loc[enough, "estimable"] == 1
    assert result.required == result.required_median == enough


def test_the_fewest_participants_reaching_the_target():
    # Binomial half-widths: 0.127 at 10 participants, 0.0635 at 40, 0.032 at 160.
    result = plan((10, 40, 160), n_sims=20, half_width=0.1)
    assert result.required == result.required_median == 40
    assert plan((10,), n_sims=5, half_width=0.1).required is None


def test_a_study_is_scored_per_type_and_degree():
    design = pd.DataFrame(
        [(p, 1, "order", 2, 10, (0, 1)) for p in range(12)]
        + [(p, 2, "swap", 4, 10, (2, 3, 4, 5)) for p in range(3)],
        columns=list(DESIGN_COLUMNS),
    )
    out = simulate_study(design, 1.0, 0.0, 50, np.random.default_rng(0)).set_index("perm_type")
    assert out.loc["order", "pairs"] == 12 and out.loc["order", "estimable"]
    assert out.loc["order", "recall"] == 1 and out.loc["order", "half_width"] == 0
    assert out.loc["swap", "pairs"] == 3 and not out.loc["swap", "estimable"]


def test_the_thesis_design_is_table_6_3_s_permutations():
    layout = make_layout()
    frame = ThesisDesign(6, np.random.default_rng(1))(np.random.default_rng(2))
    per_person = frame.groupby("participant").size()
    expected = layout.shared.permutations + layout.unique.permutations
    assert len(per_person) == 6 and set(per_person) == {expected}  # 25 of the 50 items
    everyone = frame.groupby("item")["participant"].nunique()
    assert (everyone == 6).sum() == layout.shared.permutations
    assert (frame["displaced"].map(len) == frame["degree"]).all()
    assert (frame["degree"] < frame["units"]).all() and frame["degree"].max() <= MAX_DEGREE
    assert frame["units"].between(*LENGTHS).all()
    assert (frame.loc[frame["perm_type"] == "swap", "degree"] % 2 == 0).all()
    # A shared permutation's displaced units are the same for everyone.
    assert (frame.groupby("item")["displaced"].nunique() == 1).all()


def test_the_thesis_design_s_groups_fill_as_participants_grow():
    table = marks_power((24, 96), n_sims=3, n_boot=100, seed=1).table.set_index("participants")
    assert table.loc[96, "estimable"] > table.loc[24, "estimable"]
    assert table.loc[96, "median_half_width"] < table.loc[24, "median_half_width"]
    assert table.loc[96, "median_half_width"] < 0.1
