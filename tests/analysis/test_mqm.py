"""MQM segment scores (WMT21 zh-en, google/wmt-mqm-human-evaluation; slice in
tests/analysis/data/mqm) as a score source and a system-level human score, on the real zh-en
test set from the bundled WMT21 data. zh-en has no document ids there, so its DA segment ids
cannot be mapped to sentences: MQM is the only segment-level human score here."""

from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.management import call_command
from scipy import stats

from analysis.analysing import study_systems
from analysis.models import Metric, MetricScore
from analysis.scores_import import import_scores
from survey.models import Item, Triple
from survey.sources.testsets import import_wmt
from wojdb import bundled

MQM = Path(__file__).parent / "data" / "mqm" / "mqm_newstest2021_zhen.avg_seg_scores.tsv"
SYSTEMS = ("Facebook-AI", "NiuTrans", "Online-W")
SEGMENTS = 250


def published(systems=SYSTEMS) -> pd.DataFrame:
    frame = pd.read_csv(
        MQM, sep=r"\s+", skiprows=1, names=["system", "score", "segment"], na_values="None"
    )
    return frame[frame["system"].isin(systems)].dropna()


@pytest.fixture
def zh_en(db, tmp_path):
    """The first 250 lines of newstest2021 zh-en: source, reference A and three systems."""
    data = bundled.wmt21_toen() / "txt"
    folder = tmp_path / "txt"
    folder.mkdir()
    names = [
        "sources/newstest2021.zh-en.src.zh",
        "references/newstest2021.zh-en.ref.A.en",
        *(f"system-outputs/newstest2021.zh-en.hyp.{s}.en" for s in SYSTEMS),
    ]
    for name in names:
        lines = (data / name).read_text(encoding="utf-8").split("\n")[:SEGMENTS]
        (folder / Path(name).name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    import_wmt(folder)
    return folder


def test_mqm_file_imports_as_a_higher_is_better_score_source(zh_en):
    report = import_scores([MQM])
    metric = Metric.objects.get(name="MQM")
    assert metric.higher_is_better
    expected = published()
    assert MetricScore.objects.filter(metric=metric).count() == len(expected) == 3 * 96
    # The human reference judged as a system has no sentences: its scores are kept apart.
    assert not any("ref-A" in label for label in report.unmatched)
    assert report.created["human reference scores"] == len(published(["ref-A"])) == 96
    stored = pd.DataFrame(
        MetricScore.objects.filter(metric=metric).values_list(
            "item__triple__corpus__system", "item__triple__segment__number", "score"
        ),
        columns=["system", "segment", "score"],
    )
    merged = expected.merge(stored, on=["system", "segment"], suffixes=("", "_stored"))
    assert len(merged) == len(expected) and (merged["score"] == merged["score_stored"]).all()


def test_system_scores_from_mqm(zh_en, tmp_path):
    import_scores([MQM])
    out = tmp_path / "mqm.csv"
    call_command("system_scores", "--source", "mqm", "--out", str(out), verbosity=0)
    table = pd.read_csv(out).set_index("system")
    # Google's table: every system's mean segment score, reference A's (ref-A) among them.
    means = published([*SYSTEMS, "ref-A"]).groupby("system")["score"].mean()
    means = means.rename({"ref-A": "refA"})
    assert set(table.index) == {*SYSTEMS, "refA"} and set(table["lp"]) == {"zh-en"}
    pd.testing.assert_series_equal(table["z"].reindex(means.index), means, check_names=False)
    assert (table["n"] == 96).all()
    assert list(table["rank"]) == [1, 2, 3, 4] and table["z"].is_monotonic_decreasing
    assert list(table.index[table["reference"]]) == ["refA"]
    # Imported again: the references' scores are not kept twice.
    report = import_scores([MQM])
    assert any("references' scores already kept" in note for note in report.notes)


def test_corpus_analysis_takes_mqm_as_a_human_score(zh_en, tmp_path):
    import_scores([MQM])
    # A second source, the hypothesis length in words, is compared with MQM as a human score.
    triples = Triple.objects.select_related("segment", "corpus")
    lengths = pd.DataFrame(
        [("zh-en", t.corpus.system, t.segment.number, "length", len(t.hypothesis.split()))
         for t in triples],
        columns=["lp", "system", "segment", "metric", "score"],
    )  # fmt: skip
    lengths.to_csv(tmp_path / "length.csv", index=False)
    import_scores([tmp_path / "length.csv"])
    out = tmp_path / "report"
    call_command("analyse", "--corpus", "--out", str(out), "--no-figures", stdout=StringIO())
    seg = pd.read_csv(out / "tables" / "segment_correlations.csv")
    assert "MQM" not in set(seg["metric"])  # not compared with itself, and there is no DA
    row = seg[seg["metric"] == "length"].set_index("human").loc["mqm"]
    stored = pd.DataFrame(
        MetricScore.objects.values_list("item_id", "metric__name", "score"),
        columns=["item", "metric", "score"],
    )
    pairs = stored.pivot(index="item", columns="metric", values="score").dropna()
    assert row["n"] == len(pairs) == 3 * 96
    assert row["pearson"] == pytest.approx(stats.pearsonr(pairs["MQM"], pairs["length"])[0])


def test_the_reports_system_table_adds_mqm_for_the_studys_language_pairs(zh_en):
    import_scores([MQM])
    items = list(Item.objects.filter(permutation=None).values_list("pk", flat=True)[:60])
    rng = np.random.default_rng(0)
    ratings = pd.DataFrame(
        {
            "participant": np.repeat([1, 2], len(items)),
            "item": items * 2,
            "kind": "hypothesis",
            "holistic": rng.integers(1, 6, 2 * len(items)),
            "practice": False,
        }
    )
    table = study_systems(ratings)
    assert set(table["source"]) == {"study", "mqm"}  # no per-rater DA for zh-en in the release
    mqm = table[table["source"] == "mqm"].set_index("system")
    means = published().groupby("system")["score"].mean()
    np.testing.assert_allclose(mqm["z"].reindex(means.index), means)
