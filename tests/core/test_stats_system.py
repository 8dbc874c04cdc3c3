"""System-level scores and clusters against WMT21's published de-en ranking and significance
table (tests/analysis/data/wmt21), computed from the bundled per-rater judgments."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wojdb import bundled
from wojdb.core.formats.wmt import read_judgments
from wojdb.core.stats import system

DATA = Path(__file__).parents[1] / "analysis" / "data" / "wmt21"


@pytest.fixture(scope="module")
def de_en():
    rows = read_judgments(bundled.wmt21_toen() / "humaneval" / "ad-deen-good-stnd.csv")
    return system.wmt_judgments(rows)


def published_ranking(lp: str = "de-en") -> pd.DataFrame:
    return pd.read_csv(
        DATA / f"ad-sys-ranking-{lp}-z.csv",
        sep=" ",
        header=None,
        usecols=range(5),
        names=["raw", "z", "n", "N", "system"],
    )


def published_stars() -> pd.DataFrame:
    lines = (DATA / "ad-DA-diff-wilcoxon-rs-deen.csv").read_text().splitlines()
    names = lines[0].split()
    cells = [line.split()[1:] for line in lines[1:]]
    stars = [[cell.count("*") for cell in row] for row in cells]
    return pd.DataFrame(stars, index=names, columns=names)


@pytest.mark.parametrize("lp", ["cs-en", "de-en", "ha-en", "is-en", "ja-en", "ru-en"])
def test_published_wmt21_into_english_rankings_are_reproduced(lp):
    # zh-en's per-rater judgments are not in the release; every other pair's are.
    source = lp.split("-")[0]
    path = bundled.wmt21_toen() / "humaneval" / f"ad-{source}en-good-stnd.csv"
    table = system.system_scores(system.wmt_judgments(read_judgments(path)))
    published = published_ranking(lp)
    assert list(table["system"]) == list(published["system"])
    np.testing.assert_array_equal(table["z"].round(3), published["z"])
    np.testing.assert_array_equal(table["n"], published["n"])
    assert set(table["lp"]) == {lp}
    assert table["raw"].isna().all()  # the standardised file has no raw scores


def test_raw_scores_from_the_segment_means_give_the_published_raw_ranking(de_en):
    # The judgment file holds z only; WMT's raw system score is the mean over segments of the
    # segment's mean raw score (ad-seg-scores-de-en.csv), as the import keeps it on the triple.
    segments = pd.read_csv(
        bundled.wmt21_toen() / "humaneval" / "ad-seg-scores-de-en.csv",
        sep=" ",
        usecols=["SYS", "SID", "RAW.SCR"],
    ).rename(columns={"SYS": "system", "SID": "segment", "RAW.SCR": "raw"})
    judgments = de_en.merge(segments, on=["system", "segment"], how="left")
    table = system.system_scores(judgments).set_index("system")
    published = published_ranking().set_index("system")
    np.testing.assert_array_equal(table["raw"].round(1).reindex(published.index), published["raw"])


def test_wilcoxon_significance_matches_wmt_for_every_pair(de_en):
    stars = published_stars()
    order = list(stars.index)
    p = system.wilcoxon_pvalues(system.segment_means(de_en), order)
    levels = (p < 0.05).astype(int) + (p < 0.01).astype(int) + (p < 0.001).astype(int)
    for a in order:
        for b in order:
            if a != b:
                assert levels.loc[a, b] == stars.loc[a, b], (a, b, p.loc[a, b])


def test_clusters_split_where_everything_above_beats_everything_below(de_en):
    table = system.system_scores(de_en)
    stars = published_stars()
    for k in range(1, len(table)):
        above, below = list(table["system"][:k]), list(table["system"][k:])
        split = table["cluster"].iloc[k] != table["cluster"].iloc[k - 1]
        assert split == bool((stars.loc[above, below] > 0).all().all())
    assert table["cluster"].iloc[0] == 1 and table["cluster"].is_monotonic_increasing


def test_cluster_rule_on_a_small_table():
    names = ["a", "b", "c", "d"]
    p = pd.DataFrame(0.5, index=names, columns=names)
    p.loc["a", ["b", "c", "d"]] = 0.01  # a beats all
    p.loc["b", ["d"]] = 0.01  # b beats d only: no line between b and c
    p.loc["c", ["d"]] = 0.01
    assert system.clusters(p) == [1, 2, 2, 3]


def test_segment_means_count_system_and_repeat_judgments_and_average_raw():
    judgments = pd.DataFrame(
        {
            "system": ["A", "A", "A", "A", "B", "B"],
            "segment": [1, 1, 2, 2, 1, 2],
            "rater": ["r1", "r2", "r1", "r1", "r1", "r2"],
            "score": [1.0, 0.0, -1.0, 5.0, 0.2, 0.4],
            "raw": [80.0, 60.0, 40.0, 0.0, 50.0, 70.0],
            "type": ["SYSTEM", "REPEAT", "SYSTEM", "BAD_REF", "SYSTEM", "SYSTEM"],
        }
    )
    table = system.system_scores(judgments).set_index("system")
    # A: segment 1 mean 0.5, segment 2 mean -1 (the BAD_REF row is a quality control).
    assert table.loc["A", "z"] == pytest.approx(-0.25)
    assert table.loc["A", "raw"] == pytest.approx((70 + 40) / 2)
    assert table.loc["A", "judgments"] == 3 and table.loc["A", "n"] == 2
    assert list(table.index) == ["B", "A"] and list(table["rank"]) == [1, 2]


def test_standardise_is_per_rater():
    judgments = pd.DataFrame({"rater": ["x", "x", "y", "y"], "raw": [10.0, 30.0, 50.0, 70.0]})
    z = system.standardise(judgments)
    np.testing.assert_allclose(z, [-1 / np.sqrt(2), 1 / np.sqrt(2)] * 2)


def test_standardise_takes_the_sample_deviation_and_leaves_a_rater_without_spread_out():
    # x: mean 20, sample SD 10 (population SD 8.16); y judged once, w alike twice: no z.
    judgments = pd.DataFrame(
        {"rater": ["x", "x", "x", "y", "w", "w"], "raw": [10.0, 20.0, 30.0, 50.0, 0.1, 0.1]}
    )
    z = system.standardise(judgments)
    np.testing.assert_allclose(z[:3], [-1.0, 0.0, 1.0])
    assert z[3:].isna().all()


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match="segment"):
        system.system_scores(pd.DataFrame({"system": ["a"], "score": [1.0]}))


def test_each_pair_comes_from_the_first_source_that_has_it():
    def table(lp, systems, z):
        return pd.DataFrame(
            {"system": systems, "lp": lp, "z": z, "raw": np.nan, "n": np.nan, "judgments": 1,
             "rank": range(1, len(systems) + 1), "cluster": 1}
        )  # fmt: skip

    segments = table("de-en", ["A", "B"], [0.2, -0.1])
    judgments = pd.concat([table("de-en", ["A"], [0.3]), table("cs-en", ["D"], [0.1])])
    published = pd.concat([table("de-en", ["A", "B"], [0.9, 0.8]), table("de-fr", ["C"], [0.5])])
    both = system.first_by_pair(segments, judgments, published)
    assert list(zip(both["lp"], both["system"], both["z"], strict=True)) == [
        ("cs-en", "D", 0.1), ("de-en", "A", 0.2), ("de-en", "B", -0.1), ("de-fr", "C", 0.5),
    ]  # fmt: skip
    alone = system.first_by_pair(pd.DataFrame(columns=system.COLUMNS), published)
    assert list(alone["system"]) == ["A", "B", "C"]
    assert system.first_by_pair(pd.DataFrame(columns=system.COLUMNS)).empty
