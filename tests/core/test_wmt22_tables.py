"""WMT22's into-English DA system tables (humaneval/DA/newstest2022-toen of
wmt-conference/wmt22-news-systems, bundled in fixtures/wmt22-toen-tables.tar.xz) from the
segment scores, as WMT computes them: every figure of the published rows of the bundled
systems, the whole de-en table, the Wilcoxon p-values and the clusters."""

import numpy as np
import pandas as pd
import pytest

from tests.wmt22 import NOT_SIGNIFICANT, PAIRS, published, pvalues, segments
from wojdb import bundled
from wojdb.core.stats import system


@pytest.mark.parametrize("lp", PAIRS)
def test_the_published_rows_of_the_bundled_systems(lp):
    table = system.system_table(segments(lp)).set_index("system")
    rows = published(lp).set_index("system").loc[table.index]
    assert len(table) >= 2
    np.testing.assert_array_equal(table["z"].round(3), rows["z"])
    np.testing.assert_array_equal(table["raw"].round(1), rows["raw"])
    np.testing.assert_array_equal(table["n"], rows["n"])
    np.testing.assert_array_equal(table["judgments"], rows["judgments"])
    # Their order is the published one.
    order = list(published(lp)["system"])
    assert list(table.index) == sorted(table.index, key=order.index)


def test_the_whole_de_en_table():
    table = system.system_table(segments("de-en"))
    expected = published("de-en")
    assert list(table["system"]) == list(expected["system"])
    np.testing.assert_array_equal(table["z"].round(3), expected["z"])
    np.testing.assert_array_equal(table["raw"].round(1), expected["raw"])
    np.testing.assert_array_equal(table["n"], expected["n"])
    np.testing.assert_array_equal(table["judgments"], expected["judgments"])
    assert list(table["cluster"]) == list(expected["cluster"])
    # WMT counts the human reference, and segments the per-rater file lacks (65 of de-en's).
    assert "HUMAN-B" in set(table["system"])
    judged = pd.read_csv(bundled.WMT22_TOEN_DA, sep="\t")
    judged = judged[judged["lp"] == "de-en"].groupby(["system", "sid"]).ngroups
    assert table["n"].sum() == len(segments("de-en")) == judged + 65


@pytest.mark.parametrize("lp", PAIRS)
def test_wilcoxon_pvalues_of_the_bundled_systems_are_the_published_ones(lp):
    frame = segments(lp)
    order = list(frame["system"].unique())
    ours = system.wilcoxon_pvalues(frame, order)
    theirs = pvalues(lp).loc[order, order]
    for a in order:
        for b in order:
            if a != b:
                if theirs.loc[a, b] == NOT_SIGNIFICANT:
                    assert ours.loc[a, b] >= 0.05
                else:
                    assert ours.loc[a, b] == pytest.approx(theirs.loc[a, b], rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("lp", PAIRS)
def test_clusters_of_the_published_pvalues_are_the_published_clusters(lp):
    expected = published(lp)
    p = pvalues(lp).loc[expected["system"], expected["system"]]
    assert system.clusters(p) == list(expected["cluster"])
