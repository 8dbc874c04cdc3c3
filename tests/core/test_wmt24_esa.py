"""WMT24's ESA waves as released, and WMT24's human ranking as the organisers computed it.

The expected figures are the organisers' own, from their code run on the same files
(tests/core/data/README.md says how); nothing expected here is computed by WOJ-DB.
"""

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wojdb import bundled
from wojdb.core.formats.judgments import APPRAISE, read_judgment_file
from wojdb.core.stats import protocols, system

DATA = Path(__file__).parent / "data"
ORGANISERS = pd.read_csv(DATA / "wmt24_esa_organisers.csv")
PVALUES = pd.read_csv(DATA / "wmt24_esa_organisers_pvalues.csv")


def wave(n: int) -> Path:
    return bundled.wmt24_esa() / "humeval" / f"esa_generalMT2024_wave{n}.csv"


@pytest.fixture(scope="module")
def ratings() -> pd.DataFrame:
    """Both waves as a ratings frame, each item's domain that of its document in the release's
    `documents/LP.docs`."""
    domains = {}
    for docs in sorted((bundled.wmt24_esa() / "txt" / "documents").glob("*.docs")):
        for domain, document in csv.reader(docs.open(encoding="utf-8"), delimiter="\t"):
            domains[docs.stem, document] = domain
    rows = []
    for n in (2, 3):
        path = wave(n)  # once: finding the bundled folder checks its archive's digest
        file_format, records = read_judgment_file(path)
        assert file_format == APPRAISE
        for r in records:
            lp = f"{r.source_lang}-{r.target_lang}"
            domain = domains.get((lp, r.document), "")
            rows.append((r.system, lp, r.published_document, r.item_id, r.rater, r.score,
                         r.item_type, r.time_end, path.name, domain))  # fmt: skip
    columns = [system.SYSTEM, system.LP, system.DOCUMENT, system.SEGMENT, system.RATER,
               system.SCORE, system.TYPE, protocols.TIME_END, protocols.WAVE,
               protocols.DOMAIN]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)


def test_the_waves_read_as_released_each_exact_repeat_once():
    for n, rows, repeats, first in ((2, 20_434, 95, (1072, (1097,))), (3, 11_299, 87, None)):
        _, records = read_judgment_file(wave(n))
        assert len(records) + sum(len(r.repeated_at) for r in records) == rows
        assert sum(len(r.repeated_at) for r in records) == repeats
        if first:
            repeated = next(r for r in records if r.repeated_at)
            assert (repeated.line, repeated.repeated_at) == first
    lines = wave(2).read_text(encoding="utf-8").splitlines()
    assert lines[1071] == lines[1096]  # the release's own rows: line 1097 repeats line 1072


def test_wmt24_table_is_the_organisers(ratings):
    table = protocols.wmt24_table(ratings)
    assert set(table.rows[system.LP]) == {"en-cs", "en-hi", "en-ja", "en-zh"}
    merged = table.rows.merge(ORGANISERS, on=[system.LP, system.SYSTEM], validate="one_to_one")
    assert len(merged) == len(table.rows) == len(ORGANISERS) == 53
    np.testing.assert_allclose(merged["z"], merged["overall"], rtol=1e-12)
    assert list(merged["ranks"]) == list(merged["rank_y"])
    assert list(merged["cluster_x"]) == list(merged["cluster_y"])
    for lp, part in table.rows.groupby(system.LP):  # ordered as the organisers order them
        assert list(part[system.SYSTEM]) == list(ORGANISERS[ORGANISERS["lp"] == lp]["system"])
    assert table.rows["protocol"].unique().tolist() == [protocols.describe("wmt24")]
    assert set(table.rows[table.rows["reference"]][system.SYSTEM]) == {"refA"}
    # en-cs Aya23: 297 segments, the tutorial and the #incomplete and #dup documents left out
    aya = table.rows[(table.rows[system.LP] == "en-cs") & (table.rows[system.SYSTEM] == "Aya23")]
    assert aya[["n", "judgments"]].values.tolist() == [[297, 297]]
    assert table.notes[0] == "27 repeated rating(s) left out, the latest of each kept"


def test_wmt24_pvalues_are_the_organisers(ratings):
    counted, _ = protocols.wmt24_counted(ratings)
    for lp, expected in PVALUES.groupby("lp"):
        pvalues = protocols.wmt24_pvalues(counted[counted[system.LP] == lp])
        assert len(pvalues) == 2 * len(expected)
        for a, b, p in expected[["system_a", "system_b", "p"]].itertuples(index=False):
            assert pvalues[a, b] == pytest.approx(p, rel=1e-9, abs=1e-15)
            assert pvalues[b, a] == pvalues[a, b]


def test_the_per_item_mean_and_rank_sum_give_another_table(ratings):
    """What system_scores computed before protocols were named (`--micro` keeps it): the
    domains' weights and the test change the order of every pair."""
    counted = ratings[ratings[system.TYPE] == "TGT"]
    counted = counted[~counted[system.SYSTEM].str.contains("tutorial")]
    old = system.system_scores(counted)
    for lp, part in old.groupby(system.LP):
        official = list(ORGANISERS[ORGANISERS["lp"] == lp]["system"])
        assert list(part[system.SYSTEM]) != official


def test_stouffer_combines_the_domains_p_values():
    assert protocols._stouffer([0.5, 0.5]) == pytest.approx(0.5)
    # z = Φ⁻¹(0.95) = 1.644854 twice: Z = 2 × 1.644854 / √2 = 2.326174, 1 − Φ(Z) = 0.0100046
    assert protocols._stouffer([0.05, 0.05]) == pytest.approx(0.0100046, rel=1e-5)


def test_clusters_and_rank_ranges_follow_the_organisers_rules():
    """A beats B and C; B and C do not differ; D is not told from C: clusters A | B C D."""
    order = ["A", "B", "C", "D"]
    p = {("A", "B"): 0.01, ("A", "C"): 0.001, ("A", "D"): 0.001, ("B", "C"): 0.3,
         ("B", "D"): 0.02, ("C", "D"): 0.06}  # fmt: skip
    p |= {(b, a): v for (a, b), v in p.items()}
    assert protocols.wmt24_clusters(order, p) == [1, 2, 2, 2]
    scores = pd.Series([90.0, 80.0, 79.0, 70.0], index=order)
    # A: better than all three, 1-1; B: worse than A, better than D, 2-3; C: 2-4; D: 3-4
    assert protocols.wmt24_ranks(scores, p) == ["1-1", "2-3", "2-4", "3-4"]


def test_human_references_are_marked_as_references():
    names = ["refA", "ref-C", "HUMAN-B", "Human-refA", "HUMAN", "HUMAN.0", "ONLINE-B", "reformer"]
    assert protocols.is_reference(pd.Series(names)).tolist() == [True] * 6 + [False, False]


def test_the_protocol_is_the_one_asked_for_else_that_of_the_test_sets_year():
    assert protocols.choose("wmt22", {2024}) == ("wmt22", "as asked")
    assert protocols.choose(None, {2024}) == ("wmt24", "the judgments' test set year 2024")
    assert protocols.choose(None, {2021, 2022})[0] == "wmt22"
    assert "not implemented" in protocols.choose(None, {2023})[1]
    assert protocols.choose(None, {2022, 2024}) == (
        "wmt22",
        "test sets of several years (2022, 2024): give --protocol",
    )
    assert protocols.choose(None, set()) == ("wmt22", "no test-set year known")
