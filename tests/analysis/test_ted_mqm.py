"""Google's TED MQM files (google/wmt-mqm-human-evaluation, bundled whole in
fixtures/ted-mqm.tar.xz) imported as published, into the test sets they annotate (rebuilt from
their own texts, tests/ted.py): the alignment check passes at the error-annotation threshold,
the one unbalanced `<v>` of each file drops only that error's span, and the system MQM scores
are the means of the published avg_seg_scores; the same file against its test set shifted by a
line is refused; export_judgments gives the judgments per rater and per segment."""

import csv
from collections import defaultdict
from statistics import fmean

import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from analysis import frames
from analysis.scores_import import import_scores
from survey.models import ErrorAnnotation, ExternalJudgment, JudgmentImport
from survey.sources.human_judgments import import_judgments
from survey.sources.testsets import import_wmt
from tests.ted import TESTSET, error_file, score_file, ted_texts, write_test_set
from wojdb.core.formats import mqm
from wojdb.core.formats.segment_ids import ERROR_ANNOTATION
from wojdb.core.io import InputError

# The score files name the references ref-A and ref-B, the error files ref and refB.
#: Systems as every table names them (as imported) → as the published score files name them.
SCORE_FILE_NAME = {"ref": "ref-A", "refB": "ref-B", "NVIDIA-NeMo": "Nemo"}


def published_system_scores(lp: str) -> dict[str, float]:
    """The mean of each system's published segment scores (mt-metrics-eval's system MQM)."""
    by_system = defaultdict(list)
    for s in mqm.read_scores(score_file(lp)):  # unscored segments (None) left out
        by_system[s.system].append(s.score)
    return {system: fmean(scores) for system, scores in by_system.items()}


def error_rows(lp: str) -> list[list[str]]:
    return [r.split("\t") for r in error_file(lp).read_text(encoding="utf-8").splitlines()[1:]]


@pytest.mark.django_db
@pytest.mark.parametrize("lp", ["en-de", "zh-en"])
def test_ted_mqm_files_import_as_published(lp, tmp_path):
    import_wmt(write_test_set(ted_texts(lp), tmp_path / "txt"))
    report = "\n".join(import_judgments([error_file(lp)]).lines())
    record = JudgmentImport.objects.get()
    assert record.check_passed and not record.accepted_unverified
    assert record.kind == ERROR_ANNOTATION and record.mapping == "documents"
    assert f"{TESTSET} {lp}, item ids by documents: z vs sentence chrF within systems" in report
    # Every error row is kept; the one whose <v> is never closed keeps its weight, not a span.
    rows = error_rows(lp)
    errors = [r for r in rows if r[8] != "No-error"]
    assert ErrorAnnotation.objects.count() == len(errors)
    unbalanced = [r for r in errors if r[6].count("<v>") != r[6].count("</v>")]
    assert len(unbalanced) == 1
    assert f"{error_file(lp).name}: 1 error span(s) dropped" in report
    dropped = ErrorAnnotation.objects.get(
        judgment__system=unbalanced[0][0], judgment__segment_id=int(unbalanced[0][3]),
        judgment__rater=unbalanced[0][4], category=unbalanced[0][7], side="",
    )  # fmt: skip
    assert (dropped.start, dropped.end, dropped.span) == (None, None, "")
    assert dropped.weight == mqm.weight(unbalanced[0][8], unbalanced[0][7]) > 0
    assert ExternalJudgment.objects.count() == len({(r[0], r[3], r[4]) for r in rows})
    # System MQM as mt-metrics-eval computes it: the mean over segments of the segment's mean
    # over raters, equal to the mean of the published avg_seg_scores.
    table = frames.external_system_table("mqm", TESTSET).set_index("system")
    expected = published_system_scores(lp)
    assert {SCORE_FILE_NAME.get(s, s) for s in table.index} == set(expected)
    for system, z in table["z"].items():
        assert z == pytest.approx(expected[SCORE_FILE_NAME.get(system, system)], abs=1e-12)
    assert list(table["z"]) == sorted(table["z"], reverse=True)
    assert set(table["n"]) == {len(ted_texts(lp).annotated)}


@pytest.mark.django_db
def test_a_ted_mqm_file_against_its_test_set_shifted_by_a_line_is_refused(tmp_path):
    import_wmt(write_test_set(ted_texts("zh-en"), tmp_path / "txt", shift=1))
    with pytest.raises(InputError, match="do not fit tedtalks2021 zh-en's sentences by documents"):
        import_judgments([error_file("zh-en")])
    assert not JudgmentImport.objects.exists() and not ExternalJudgment.objects.exists()


@pytest.fixture
def en_de(db, tmp_path):
    import_wmt(write_test_set(ted_texts("en-de"), tmp_path / "txt"))
    import_judgments([error_file("en-de")])


def test_system_scores_of_a_source_with_nothing_imported_is_an_error(en_de, tmp_path):
    out = tmp_path / "systems.csv"
    for source in ("da", "esa"):
        with pytest.raises(CommandError, match=f"No {source} judgments. Nothing was written"):
            call_command("system_scores", "--out", str(out), "--source", source)
    assert not out.exists()
    call_command("system_scores", "--out", str(out), "--source", "mqm", verbosity=0)
    written = pd.read_csv(out)
    assert len(written) == 14 and set(written["lp"]) == {"en-de"}


def test_avg_seg_scores_named_without_a_year_import_into_the_named_test_set(en_de, tmp_path):
    # mqm_ted_ende.avg_seg_scores.tsv names no test set of the database ("ted").
    report = import_scores([score_file("en-de")])
    # The reference judged as a system has no sentences: its scores are kept apart, and rank.
    assert not any("ref-A" in label for label in report.unmatched)
    published = mqm.read_scores(score_file("en-de"))
    assert report.created["human reference scores"] == sum(s.system == "ref-A" for s in published)
    scores = frames.mqm_scores_frame(TESTSET)
    assert len(scores) == len(published) and "refA" in set(scores["system"])
    with pytest.raises(InputError, match="unknown test set 'ted'"):
        import_scores([score_file("en-de")], testset="ted")


def test_export_judgments_per_rater_and_per_segment(en_de, tmp_path):
    out = tmp_path / "judgments.csv"
    call_command("export_judgments", "--out", str(out), verbosity=0)
    with out.open(newline="", encoding="utf-8") as f:
        raters = list(csv.DictReader(f))
    rows = error_rows("en-de")
    assert len(raters) == len({(r[0], r[3], r[4]) for r in rows})
    first = next(j for j in raters if j["system"] == rows[0][0] and j["segment_id"] == rows[0][3])
    assert (first["rater"], first["document"], first["testset"], first["lp"]) == (
        rows[0][4], rows[0][1], TESTSET, "en-de",
    )  # fmt: skip
    segments = tmp_path / "segments.csv"
    call_command("export_judgments", "--out", str(segments), "--per", "segment", verbosity=0)
    table = pd.read_csv(segments)
    published = {(s.system, s.segment): s.score for s in mqm.read_scores(score_file("en-de"))}
    assert len(table) == len(published)
    for row in table.itertuples():
        key = (SCORE_FILE_NAME.get(row.system, row.system), row.segment_id)
        assert row.score == pytest.approx(published[key], abs=1e-6)
