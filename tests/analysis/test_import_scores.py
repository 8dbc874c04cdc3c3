"""import_scores: WMT segment files (plain and .gz) and CSV; bad files change nothing."""

import gzip
import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from analysis.models import Metric, MetricScore
from analysis.scores_import import import_scores
from survey.models import Item, Segment, Triple
from survey.sources.testsets import import_wmt
from wojdb.core.io import InputError

SLICE = Path(__file__).resolve().parents[2] / "fixtures/wmt21-slice/txt"


@pytest.fixture
def pool(db):
    import_wmt(SLICE, lps=["de-en"])


def wmt_rows(metric="BLEU", refset="newstest2021-refA", system="UEdin"):
    rows = []
    for seg, score in [(1, 31.5), (2, 12.25), (3, 77.0)]:
        cols = [metric, "de-en", "newstest2021", refset, system]
        rows.append("\t".join([*cols, str(seg), str(score)]))
    return "\n".join(rows) + "\n"


def score_of(name, variant, system, seg):
    item = Item.objects.get(
        triple__corpus__system=system, triple__segment__number=seg, permutation=None
    )
    return MetricScore.objects.get(metric__name=name, metric__variant=variant, item=item).score


def test_wmt_segment_file_attaches_scores_to_hypothesis_items(pool, tmp_path):
    path = tmp_path / "BLEU.seg.score.gz"
    path.write_bytes(gzip.compress(wmt_rows().encode()))
    report = import_scores([path])
    assert score_of("BLEU", "newstest2021-refA", "UEdin", 2) == 12.25
    assert report.created["scores"] == 3
    # The same metric against another reference sits beside it as another variant.
    other = tmp_path / "BLEU-B.seg.score"
    other.write_text(wmt_rows(refset="newstest2021-refB"))
    import_scores([other])
    assert Metric.objects.filter(name="BLEU").count() == 2
    assert MetricScore.objects.count() == 6
    import_scores([path, other])
    assert MetricScore.objects.count() == 6


def test_csv_by_segment_and_by_item_id(pool, tmp_path):
    by_segment = tmp_path / "a.csv"
    by_segment.write_text("lp,system,segment,metric,score\nde-en,Online-B,4,COMET,0.5\n")
    import_scores([by_segment])
    item = Item.objects.get(triple__corpus__system="Online-B", triple__segment__number=4)
    by_item = tmp_path / "b.csv"
    by_item.write_text(
        f"item_id,metric,variant,score\n{item.pk},DTED,fco,0.25\n999999,DTED,fco,1\n"
    )
    report = import_scores([by_item])
    assert score_of("COMET", "", "Online-B", 4) == 0.5
    assert score_of("DTED", "fco", "Online-B", 4) == 0.25
    assert report.unmatched == {"b.csv: item ids not in the database": 1}


def test_unknown_systems_are_reported_with_counts(pool, tmp_path):
    path = tmp_path / "x.csv"
    path.write_text(
        "lp,system,segment,metric,score\nde-en,Nobody,1,BLEU,1\nde-en,Nobody,2,BLEU,2\n"
        "de-en,UEdin,1,BLEU,3\n"
    )
    report = import_scores([path])
    assert report.unmatched == {"x.csv: de-en Nobody (no such triple)": 2}
    assert MetricScore.objects.count() == 1


def test_a_file_whose_rows_match_nothing_is_refused_and_nothing_is_written(pool, tmp_path):
    good = tmp_path / "good.seg.score"
    good.write_text(wmt_rows())
    nobody = tmp_path / "x.csv"
    nobody.write_text(
        "lp,system,segment,metric,score\nde-en,Nobody,1,BLEU,1\nde-en,Nobody,2,BLEU,2\n"
        "de-en,UEdin,999,BLEU,3\n"
    )
    items = Item.objects.count()
    with pytest.raises(InputError) as error:
        import_scores([good, nobody])
    assert (
        "x.csv: none of its 3 scores is of a hypothesis in the database "
        "(de-en Nobody (no such triple): 2; de-en UEdin (no such triple): 1)" in str(error.value)
    )
    assert not MetricScore.objects.exists() and Item.objects.count() == items
    with pytest.raises(CommandError, match="x.csv: none of its 3 scores"):
        call_command("import_scores", str(nobody))
    unscored = tmp_path / "BLEU-refA.seg.score"  # mt-metrics-eval: every segment None
    unscored.write_text("UEdin\tNone\n")
    (tmp_path / "de-en").mkdir()
    with pytest.raises(InputError, match="BLEU-refA.seg.score: holds no scores"):
        import_scores([unscored.rename(tmp_path / "de-en" / unscored.name)])


@pytest.mark.parametrize(
    "content, message",
    [
        ("BLEU\tde-en\tnewstest2021\tA\tUEdin\t1\n", "line 1: expected 7 or 8"),
        ("BLEU\tde-en\tnewstest2021\tA\tUEdin\tone\t3.0\n", "line 1, field seg"),
        ("BLEU\tde-en\tnewstest2021\tA\tUEdin\t1\tnan\n", "line 1, field score"),
        ("lp,system,metric,score\nde-en,UEdin,BLEU,1\n", "missing column(s) segment"),
        ("lp,system,segment,metric,score\nde-en,UEdin,1,BLEU,high\n", "line 2, field score"),
    ],
)
def test_malformed_files_are_refused_and_nothing_is_written(pool, tmp_path, content, message):
    good = tmp_path / "good.seg.score"
    good.write_text(wmt_rows())
    bad = tmp_path / "bad.seg.score"
    bad.write_text(content)
    items = Item.objects.count()
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        import_scores([good, bad])
    assert not MetricScore.objects.exists() and not Metric.objects.exists()
    assert Item.objects.count() == items


def test_command_exits_non_zero_with_the_location(pool, tmp_path):
    bad = tmp_path / "bad.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(CommandError, match="bad.gz: is not a readable gzip file"):
        call_command("import_scores", str(bad))
    assert Triple.objects.exists()


# --- issue 15: document-relative segments, repeats, system names, odd input ----------------

DATA = Path(__file__).resolve().parents[1] / "survey/data"
WMT20 = DATA / "wmt20-metrics"
SYSTEMS = ["dong-nmt", "Online-A", "Huawei_TSC"]


def newstest2020(root: Path, with_documents: bool) -> Path:
    """A 34-line en-zh test set with the real document ids of newstest2020's first 34 lines
    (its texts are not in the metrics-task repository; each line names its number)."""
    root.mkdir()
    (root / "newstest2020.en-zh.src.en").write_text("".join(f"source {n}\n" for n in range(34)))
    (root / "newstest2020.en-zh.ref.A.zh").write_text("".join(f"参考 {n}\n" for n in range(34)))
    for system in SYSTEMS:
        hyp = "".join(f"{system} {n}\n" for n in range(34))
        (root / f"newstest2020.en-zh.hyp.{system}.zh").write_text(hyp)
    if with_documents:
        (root / "newstest2020.en-zh.docids").write_text(
            (WMT20 / "newstest2020.en-zh.docids").read_text()
        )
    import_wmt(root)
    return root


def test_wmt20_segments_count_within_documents_and_map_to_their_lines(db, tmp_path):
    newstest2020(tmp_path / "txt", with_documents=True)
    report = import_scores([WMT20 / "BAQ_dyn.seg.score"])
    assert report.created["scores"] == 102 and not report.unmatched
    assert (
        "system names mapped: Huawei_TSC.618 → Huawei_TSC, Online-A.1579 → Online-A, "
        "dong-nmt.768 → dong-nmt" in report.lines()
    )
    rows = [r.split("\t") for r in (WMT20 / "BAQ_dyn.seg.score").read_text().splitlines()]
    # en.ndtv.com.13152 is the second document: it starts on line 14 (13 lines before it).
    row = next(
        r for r in rows if r[4] == "dong-nmt.768" and r[5] == "en.ndtv.com.13152" and r[6] == "2"
    )
    assert score_of("BAQ_dyn", "newstest2020", "dong-nmt", 15) == float(row[7])
    last = next(
        r for r in rows if r[4] == "Online-A.1579" and r[5] == "cnn.385674" and r[6] == "10"
    )
    assert score_of("BAQ_dyn", "newstest2020", "Online-A", 34) == float(last[7])


def test_wmt20_documents_are_read_off_the_files_own_doc_column_when_that_settles_them(db, tmp_path):
    newstest2020(tmp_path / "txt", with_documents=False)
    report = import_scores([WMT20 / "BAQ_dyn.seg.score"])
    assert any("read off the score files' doc column" in line for line in report.lines())
    docs = (WMT20 / "newstest2020.en-zh.docids").read_text().split()
    assert list(Segment.objects.order_by("number").values_list("document", flat=True)) == docs
    rows = [r.split("\t") for r in (WMT20 / "BAQ_dyn.seg.score").read_text().splitlines()]
    row = next(r for r in rows if r[4] == "dong-nmt.768" and r[5] == "cnn.385674" and r[6] == "4")
    assert score_of("BAQ_dyn", "newstest2020", "dong-nmt", 13 + 11 + 4) == float(row[7])


def test_wmt20_segments_are_refused_where_the_documents_are_unknown(db, tmp_path):
    newstest2020(tmp_path / "txt", with_documents=False)
    # Two of the three documents: the rows no longer run through the test set.
    part = tmp_path / "BAQ_dyn.seg.score"
    rows = (WMT20 / "BAQ_dyn.seg.score").read_text().splitlines()
    part.write_text("".join(r + "\n" for r in rows if "\tcnn.385674\t" not in r))
    with pytest.raises(InputError, match=r"BAQ_dyn.seg.score, line 1, field doc: .*unknown"):
        import_scores([part])
    assert not MetricScore.objects.exists() and not Item.objects.exists()
    assert not Segment.objects.exclude(document="").exists()


def test_system_level_files_are_refused_clearly(db):
    with pytest.raises(InputError, match="system-level scores; WOJ-DB stores metric scores per"):
        import_scores([WMT20 / "BAQ_dyn.sys.score"])


def test_a_hypothesis_scored_twice_is_refused_naming_the_lines_unless_aggregated(pool, tmp_path):
    first, again = tmp_path / "a.seg.score", tmp_path / "b.seg.score"
    first.write_text(wmt_rows())
    again.write_text(wmt_rows(system="UEdin.1234").replace("31.5", "41.5"))
    with pytest.raises(
        InputError,
        match=r"3 hypotheses are scored more than once .*"
        r"BLEU/newstest2021-refA: a.seg.score line 1, b.seg.score line 1",
    ):
        import_scores([first, again])
    assert not MetricScore.objects.exists() and not Item.objects.exists()
    report = import_scores([first, again], aggregate="mean")
    assert score_of("BLEU", "newstest2021-refA", "UEdin", 1) == 36.5
    assert "aggregated (mean): 3 hypotheses scored more than once, from 6 rows" in report.lines()
    assert "system names mapped: UEdin.1234 → UEdin" in report.lines()


def test_mt_metrics_eval_segment_file_scores_every_line_of_each_system(pool, tmp_path):
    folder = tmp_path / "metric-scores/de-en"
    folder.mkdir(parents=True)
    hyps = {s: (SLICE / f"newstest2021.de-en.hyp.{s}.en").read_text().splitlines()
            for s in ("UEdin", "Online-B")}  # fmt: skip
    path = folder / "COMET-22-refA.seg.score"
    path.write_text(
        "".join(f"{s}\t{len(h[n]) / 100}\n" for s, h in hyps.items() for n in range(len(h)))
    )
    report = import_scores([path])
    assert report.created["scores"] == sum(len(h) for h in hyps.values())
    assert score_of("COMET-22", "refA", "Online-B", 7) == len(hyps["Online-B"][6]) / 100
    path.write_text("UEdin\t0.5\nUEdin\t0.25\nOnline-B\t0.5\n")
    with pytest.raises(
        InputError, match=r"different numbers of segments \(Online-B: 1, UEdin: 2\)"
    ):
        import_scores([path])


@pytest.mark.parametrize(
    "content, message",
    [
        ("lp,system,segment,metric,score\ndeen,UEdin,1,BLEU,1\n", "line 2, field lp: 'deen'"),
        ("item_id,metric,score\n99999999999999999999999,BLEU,1\n", "line 2, field item_id"),
        ("lp,system,segment,metric,score\nde-en,UEdin,1,\"BL\u2028EU\",1\n",
         "line 2, field metric: contains U+2028 LINE SEPARATOR"),
        ("BLEU\txx-en\tnewstest2021\tA\tUEdin\t1\t3.0\n", "line 1, field lp"),
        ("item_id,metric,score\n\u00b2,BLEU,1\n", "line 2, field item_id: '²' is not a number"),
        ("BLEU\tde-en\tnewstest2021\tA\tUEdin\t1_0\t3.0\n", "line 1, field seg: '1_0' is not"),
        ("BLEU\tde-en\tnewstest2021\tA\tUEdin\t1\t1_0\n", "line 1, field score: '1_0' is not"),
    ],
)  # fmt: skip
def test_odd_fields_are_refused_by_line_and_field(pool, tmp_path, content, message):
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    with pytest.raises(InputError, match=re.escape(message)):
        import_scores([bad])
    assert not MetricScore.objects.exists()


def test_a_metric_name_with_a_comma_is_kept_whole(pool, tmp_path):
    csv_file = tmp_path / "a.csv"
    csv_file.write_text('lp,system,segment,metric,score\nde-en,UEdin,1,"chrF,beta=2",0.5\n')
    tab_file = tmp_path / "b.seg.score"
    tab_file.write_text(wmt_rows(metric="metric,score"))
    import_scores([csv_file, tab_file])
    assert score_of("chrF,beta=2", "", "UEdin", 1) == 0.5
    assert score_of("metric,score", "newstest2021-refA", "UEdin", 3) == 77.0
