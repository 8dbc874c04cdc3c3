"""Word marks against their truths: precision, recall and F1 on constructed cases, agreement on
Krippendorff's published binary example, the truths in units, and the simulated marks."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.figure_bars import category_names, unlabelled_texts
from wojdb.core.stats import marks as M

sets = st.sets(st.integers(0, 29), max_size=12)


@given(truth=sets.filter(bool), extra=sets)
def test_marking_the_truth_and_more_has_full_recall_and_precision_by_the_extra(truth, extra):
    extra = extra - truth
    precision, recall, f1 = M.scores(*M.counts(truth | extra, truth))
    assert recall == 1
    assert precision == pytest.approx(len(truth) / (len(truth) + len(extra)))
    assert f1 == pytest.approx(2 * len(truth) / (2 * len(truth) + len(extra)))


@given(truth=sets.filter(bool), data=st.data())
def test_marking_part_of_the_truth_has_full_precision_and_recall_by_the_part(truth, data):
    part = data.draw(st.sets(st.sampled_from(sorted(truth)), min_size=1))
    precision, recall, _ = M.scores(*M.counts(part, truth))
    assert precision == 1
    assert recall == pytest.approx(len(part) / len(truth))


@given(marked=sets, truth=sets)
def test_undefined_figures_are_missing_and_defined_ones_in_range(marked, truth):
    precision, recall, f1 = M.scores(*M.counts(marked, truth))
    assert np.isnan(precision) == (not marked)
    assert np.isnan(recall) == (not truth)
    assert np.isnan(f1) == (not marked or not truth)
    for value in (precision, recall, f1):
        assert np.isnan(value) or 0 <= value <= 1
    if marked and truth and not marked & truth:
        assert precision == recall == f1 == 0


def rows(*answers):
    """Answers (participant, marked, truth) scored against the truth column 'displaced'."""
    return pd.DataFrame(answers, columns=["participant", M.MARKED, M.DISPLACED])


def test_micro_pools_units_and_macro_averages_ratings(monkeypatch):
    monkeypatch.setattr(M, "MIN_MARKED_PAIRS", 2)
    # Rating 1: marks {0} of truth {0, 1}: P 1, R 1/2. Rating 2: marks {2, 3, 4} of truth {2}:
    # P 1/3, R 1. Pooled: tp 2, fp 2, fn 1: P 1/2, R 2/3.
    table = rows((1, (0,), (0, 1)), (2, (2, 3, 4), (2,)))
    out = M.agreement_with_truth(table, M.DISPLACED, n_boot=50, rng=np.random.default_rng(0))
    assert out["micro_precision"] == pytest.approx(1 / 2)
    assert out["micro_recall"] == pytest.approx(2 / 3)
    assert out["micro_f1"] == pytest.approx(4 / 7)
    assert out["macro_precision"] == pytest.approx((1 + 1 / 3) / 2)
    assert out["macro_recall"] == pytest.approx(3 / 4)
    assert out["macro_f1"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert out["micro_precision_low"] <= out["micro_precision"] <= out["micro_precision_high"]
    assert (out["pairs"], out["participants"], out["note"]) == (2, 2, "")


def test_too_few_marked_pairs_are_not_estimable():
    out = M.agreement_with_truth(
        rows((1, (0,), (0,))), M.DISPLACED, n_boot=10, rng=np.random.default_rng(0)
    )
    assert np.isnan(out["micro_f1"]) and np.isnan(out["macro_recall_high"])
    assert out["note"] == f"not estimable: fewer than {M.MIN_MARKED_PAIRS} marked pairs"


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section A: binary data,
# two observers, ten units, no missing values; published alpha = 0.095.
OBSERVER_A = (0, 1, 0, 0, 0, 0, 0, 0, 1, 0)
OBSERVER_B = (1, 1, 1, 0, 0, 1, 0, 0, 0, 0)


def test_unit_alpha_reproduces_krippendorffs_binary_example():
    # One item of ten units; each observer marks the units coded 1.
    answered = pd.DataFrame(
        {
            "participant": [1, 2],
            "item": [7, 7],
            M.MARKED: [
                tuple(u for u, v in enumerate(observer) if v)
                for observer in (OBSERVER_A, OBSERVER_B)
            ],
        }
    )
    truths = pd.DataFrame({"item": [7], "kind": ["permutation"], M.UNITS: [10]})
    out = M.unit_alpha(answered, truths)
    assert round(out["alpha"], 3) == 0.095
    assert (out["items"], out["units"], out["participants"]) == (1, 10, 2)


def test_truths_are_in_the_units_shown():
    items = pd.DataFrame(
        [
            # "b a c": reference word 1 first; 'order' moved word 0.
            {"item": 1, "kind": "permutation", "perm_type": "order", "degree": 1.0,
             "system": "s", "text": "b a c", "target_lang": "en", "tokens": ["b", "a", "c"],
             "mapping": [1, 0, 2], "moved": [0]},
            # Japanese is marked by character: the moved word of two characters is two units.
            {"item": 2, "kind": "permutation", "perm_type": "order", "degree": 1.0,
             "system": "s", "text": "猫が 座った", "target_lang": "ja",
             "tokens": ["猫が", "座った"], "mapping": [1, 0], "moved": [1]},
            {"item": 3, "kind": "hypothesis", "perm_type": None, "degree": np.nan,
             "system": "s", "text": "x y", "target_lang": "en", "tokens": None,
             "mapping": None, "moved": None},
            {"item": 4, "kind": "hypothesis", "perm_type": None, "degree": np.nan,
             "system": "s", "text": "x y", "target_lang": "en", "tokens": None,
             "mapping": None, "moved": None},
        ]
    )  # fmt: skip
    truths = M.item_truths(items, {3: [0, 1]}).set_index("item")
    assert truths.loc[1, M.DISPLACED] == (1,)
    assert truths.loc[1, M.MINIMAL_MOVES] == (0,)
    assert truths.loc[2, M.UNITS] == 5
    assert truths.loc[2, M.DISPLACED] == (0, 1)
    assert truths.loc[3, M.CROSSING] == (0, 1)
    assert truths.loc[4, M.CROSSING] is None


@given(st.integers(0, 2**32 - 1))
def test_drawn_marks_never_mark_outside_the_sentence(seed):
    rng = np.random.default_rng(seed)
    assert M.draw_marks(8, (1, 2), 1.0, 0.0, rng) == (1, 2)
    assert M.draw_marks(8, None, 0.5, 0.0, rng) == ()
    assert all(0 <= u < 8 for u in M.draw_marks(8, (3,), 0.5, 0.5, rng))


def test_drawn_marks_follow_the_stated_rates():
    rng = np.random.default_rng(1)
    draws = [M.draw_marks(20, range(5), 0.7, 0.03, rng) for _ in range(2000)]
    hit = np.mean([sum(u < 5 for u in d) / 5 for d in draws])
    false = np.mean([sum(u >= 5 for u in d) / 15 for d in draws])
    assert hit == pytest.approx(0.7, abs=0.02)
    assert false == pytest.approx(0.03, abs=0.005)


def test_marked_counts_follow_the_answers():
    answered = pd.DataFrame(
        {"participant": [1, 1, 2, 2], "item": [1, 2, 1, 2], M.MARKED: [(), (0,), (0, 1), (0, 1, 2)]}
    )
    ratings = answered[["participant", "item"]].assign(
        kind="permutation", holistic=[5.0, 4.0, 3.0, 1.0], order=[5.0, 4.0, 2.0, 1.0]
    )
    table = M.ratings_table(answered, ratings).set_index(["kind", "judgment"])
    assert table.loc[("all", "order"), "rho"] == pytest.approx(-1.0)
    assert table.loc[("all", "order"), "pairs"] == 4
    assert np.isnan(table.loc[("hypothesis", "order"), "rho"])


def test_heat_strips_show_permutations_and_hypotheses_alike():
    # Hypotheses 1-3 have the most answers; permutations 4-6 fewer: two of each are shown, the
    # most answered of each kind; with no permutation marked, hypotheses fill every strip.
    counts = {1: 9, 2: 8, 3: 7, 4: 3, 5: 5, 6: 2}
    kinds = {i: "hypothesis" if i <= 3 else "permutation" for i in counts}
    answered = pd.DataFrame(
        [(i, (0,)) for i, n in counts.items() for _ in range(n)], columns=["item", M.MARKED]
    )
    truths = pd.DataFrame(
        [
            {"item": i, "kind": kinds[i], M.UNITS: 2, M.SHOWN: ("a", "b"),
             M.DISPLACED: (1,), M.CROSSING: (0,)}
            for i in counts
        ]
    )  # fmt: skip
    assert [pair["item"] for pair in M.strip_pairs(answered, truths)] == [5, 4, 1, 2]
    hypotheses = answered[answered["item"] <= 3]
    assert [pair["item"] for pair in M.strip_pairs(hypotheses, truths)] == [1, 2, 3]
    shares = M.strip_pairs(answered, truths)[0]["shares"]
    assert shares.tolist() == [1.0, 0.0]


def test_heat_strips_write_each_share_marked_and_outline_the_truth():
    from wojdb.core.report.figures import mark_strips

    pair = {"item": 7, "answers": 4, "kind": "permutation", "shown": ("a", "b", "c"),
            "shares": np.array([0.0, 0.25, 1.0]), "truth": (1, 2)}  # fmt: skip
    ax = mark_strips([pair]).axes[0]
    assert unlabelled_texts(ax) == ["25%", "100%"]  # no one marked "a"
    assert category_names(ax, "x") == ["a", "b", "c"]
    cells, outlines = ax.collections
    assert len(cells.get_paths()) == 3 and not len(outlines.get_facecolor())  # not filled
    centres = [path.vertices[:4, 0].mean() for path in outlines.get_paths()]
    assert centres == pytest.approx([1, 2])
