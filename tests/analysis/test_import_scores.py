"""import_scores: WMT segment files (plain and .gz) and CSV; bad files change nothing."""

import gzip
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from analysis.models import Metric, MetricScore
from analysis.scores_import import import_scores
from survey.importers import import_wmt
from survey.models import Item, Triple
from survey.wmt import InputError

SLICE = Path(__file__).resolve().parents[2] / "fixtures/wmt21-slice/txt"


@pytest.fixture
def pool(db):
    import_wmt(SLICE, lps=["de-en"])


def wmt_rows(metric="BLEU", refset="newstest2021-refA", doc=True):
    rows = []
    for seg, score in [(1, 31.5), (2, 12.25), (3, 77.0)]:
        cols = [metric, "de-en", "newstest2021", refset, "UEdin"]
        cols += ["doc1"] if doc else []
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
    other.write_text(wmt_rows(refset="newstest2021-refB", doc=False))
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
    )
    report = import_scores([path])
    assert report.unmatched == {"x.csv: de-en Nobody (no such triple)": 2}
    assert not MetricScore.objects.exists()


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
