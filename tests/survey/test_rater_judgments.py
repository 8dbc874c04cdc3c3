"""Appraise CSV and Google MQM judgments through import_judgments (slices of the real files)."""

import csv
import json
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from survey.models import ErrorAnnotation, ExternalJudgment, JudgmentImport
from survey.sources.documents import import_documents
from survey.sources.human_judgments import import_judgments
from survey.sources.testsets import import_wmt
from wojdb.core.formats import mqm, wmt
from wojdb.core.formats.judgments import APPRAISE, MQM, read_judgment_file
from wojdb.core.formats.segment_ids import ERROR_ANNOTATION
from wojdb.core.io import InputError

DATA = Path(__file__).resolve().parent / "data"
LIV = DATA / "wmt22-liv"
LIV_DA = LIV / "WMT22.Appraise.SegLvlLivSrc.20221031.filtered.csv"
MQM_DIR = DATA / "wmt-mqm-human-evaluation"


def state():
    return (
        ExternalJudgment.objects.count(),
        ErrorAnnotation.objects.count(),
        JudgmentImport.objects.count(),
    )


def refused(call, *fragments):
    before = state()
    with pytest.raises(InputError) as e:
        call()
    for fragment in fragments:
        assert fragment in str(e.value)
    assert state() == before
    return str(e.value)


# --- Appraise segment-level DA (WMT22 en-liv, liv-en) -------------------------------------------


@pytest.mark.django_db
def test_appraise_da_is_attached_by_line_checked_and_read_once():
    import_wmt(LIV / "txt")
    report = "\n".join(import_judgments([LIV_DA]).lines())
    assert read_judgment_file(LIV_DA)[0] == APPRAISE
    # Source-based DA of real systems: scores follow chrF with the reference.
    for lp, r in (("en-liv", "0.289"), ("liv-en", "0.383")):
        check = "z vs sentence chrF within systems"
        assert f"generaltest2022 {lp}, item ids by lines: {check} r = {r}" in report
    assert JudgmentImport.objects.filter(check_passed=True).count() == 2
    assert ExternalJudgment.objects.count() == 1028
    # The reference judged as a system is named as such, its judgments kept unlinked.
    assert "en-liv refA (reference A, a human translation judged as a system): 82" in report
    j = ExternalJudgment.objects.get(line=2)
    row = LIV_DA.read_text().split("\n")[1].split(",")
    system = row[1].split(".hyp.")[1].removesuffix(".liv.txt")  # ….hyp.TartuNLP.liv.txt
    assert (j.rater, j.system, j.segment_id, j.item_type) == (row[0], system, int(row[2]), "TGT")
    assert j.score == float(row[6]) and j.seconds == pytest.approx(float(row[8]) - float(row[7]))
    assert j.triple.segment.number == int(row[2]) and j.triple.corpus.system == system
    before = state()
    assert "already imported" in "\n".join(import_judgments([LIV_DA]).lines())
    assert state() == before


@pytest.mark.django_db
def test_appraise_item_ids_shifted_by_one_fail_the_check(tmp_path):
    import_wmt(LIV / "txt")
    shifted = tmp_path / LIV_DA.name
    rows = [r.split(",") for r in LIV_DA.read_text().splitlines()]
    shifted.write_text(
        "\n".join(",".join([*r[:2], str(int(r[2]) - 1), *r[3:]]) for r in rows if r[2] != "1")
    )
    refused(lambda: import_judgments([shifted], lp="en-liv"), "do not fit generaltest2022 en-liv")


@pytest.mark.django_db
def test_appraise_bad_scores_and_times_are_refused(tmp_path):
    import_wmt(LIV / "txt")
    rows = LIV_DA.read_text().splitlines()
    for column, value, fragments in (
        (6, "101", ["line 3", "field score", "outside 0-100"]),
        (8, "1665513500.0", ["line 3", "field timeEnd", "ends before it starts"]),
    ):
        bad = tmp_path / LIV_DA.name
        cols = rows[2].split(",")
        cols[column] = value
        bad.write_text("\n".join([*rows[:2], ",".join(cols), *rows[3:]]))
        refused(lambda p=bad: import_judgments([p]), *fragments)


@pytest.mark.django_db
def test_appraise_pairs_no_test_set_holds_are_skipped_and_reported():
    import_wmt(LIV / "txt", lps=["en-liv"])
    report = "\n".join(import_judgments([LIV_DA]).lines())
    assert "skipped liv-en (" in report and "no test set holds them" in report
    assert set(JudgmentImport.objects.values_list("target_lang", flat=True)) == {"liv"}


# --- Google MQM (WMT21 TED en-de) ---------------------------------------------------------------


def mqm_test_set(root: Path, with_documents=True) -> Path:
    """The test set the MQM slice annotates, rebuilt from the file's own texts: sources, the
    `ref` system's target as reference A, every other system's target as its output."""
    rows = [r.split("\t") for r in (MQM_DIR / "mqm_ted_ende.tsv").read_text().splitlines()[1:]]
    plain = {}
    for r in rows:
        plain[r[0], int(r[3])] = (r[1], mqm.SPAN.sub(r"\1", r[5]), mqm.SPAN.sub(r"\1", r[6]))
    segments = sorted({seg for _, seg in plain})
    systems = sorted({system for system, _ in plain})
    txt = root / "txt"
    txt.mkdir()

    def write(name, texts):
        (txt / f"tedtalks2021.en-de.{name}").write_text("".join(t + "\n" for t in texts))

    write("src.en", [plain["ref", s][1] for s in segments])
    write("ref.A.de", [plain["ref", s][2] for s in segments])
    for system in systems:
        if system != "ref":
            # named as the WMT21 release names it (Nemo → NVIDIA-NeMo)
            name = wmt.canonical_system(system)
            write(f"hyp.{name}.de", [plain[system, s][2] for s in segments])
    if with_documents:
        write("docids", [plain["ref", s][0] for s in segments])
    return txt


@pytest.mark.django_db
def test_mqm_errors_are_kept_per_rater_and_scored_with_the_named_weights(tmp_path):
    import_wmt(mqm_test_set(tmp_path))
    path = MQM_DIR / "mqm_ted_ende.tsv"
    assert read_judgment_file(path)[0] == MQM
    report = "\n".join(import_judgments([path]).lines())
    # Checked with the score's sign as stored (minus the error weights: higher is better).
    check = "z vs sentence chrF within systems r = 0.4"
    assert f"tedtalks2021 en-de, item ids by documents: {check}" in report
    assert JudgmentImport.objects.get().check_passed
    assert "Nemo → NVIDIA-NeMo" in report
    rows = [r.split("\t") for r in path.read_text().splitlines()[1:]]
    errors = [r for r in rows if r[8] != "No-error"]
    assert ErrorAnnotation.objects.count() == len(errors) == 38
    # One judgment per system, segment and rater; its MQM score is minus the summed weights,
    # and the mean over raters is the segment score the release publishes.
    assert ExternalJudgment.objects.count() == len({(r[0], r[3], r[4]) for r in rows})
    by_segment = defaultdict(list)
    for j in ExternalJudgment.objects.all():
        by_segment[j.system, j.segment_id].append(j.score)
    published = mqm.read_scores(MQM_DIR / "mqm_ted_ende.avg_seg_scores.tsv")
    for s in published:  # the score file calls the reference ref-A, the error file ref
        scores = by_segment[{"ref-A": "ref"}.get(s.system, s.system), s.segment]
        assert sum(scores) / len(scores) == pytest.approx(s.score, abs=1e-6)
    # Spans are offsets into the stored hypothesis.
    for e in ErrorAnnotation.objects.filter(side="target").select_related("judgment__triple"):
        assert e.judgment.triple.hypothesis[e.start : e.end] == e.span
    major = ErrorAnnotation.objects.filter(severity="Major").first()
    assert major.weight == 5.0 or "Non-translation" in major.category
    assert "en-de ref (no such system imported)" in report
    before = state()
    import_judgments([path])
    assert state() == before


@pytest.mark.django_db
def test_mqm_is_refused_where_documents_are_unknown(tmp_path):
    import_wmt(mqm_test_set(tmp_path, with_documents=False))
    path = MQM_DIR / "mqm_ted_ende.tsv"
    refused(lambda: import_judgments([path]), "numbered within documents", "no document ids")


@pytest.mark.django_db
def test_mqm_segment_not_in_its_document_is_refused(tmp_path):
    import_wmt(mqm_test_set(tmp_path))
    bad = tmp_path / "mqm_ted_ende.tsv"
    rows = (MQM_DIR / bad.name).read_text().split("\n")
    for i, row in enumerate(rows):  # every row of segment 1 says it is talk.1's ninth
        cols = row.split("\t")
        if i and len(cols) > 3 and cols[3] == "1":
            cols[2] = "9"
            rows[i] = "\t".join(cols)
    bad.write_text("\n".join(rows))
    refused(
        lambda: import_judgments([bad], accept_unverified_alignment=True),
        "line 2, field doc_id",
        "no segment 9 in document 'talk.1'",
    )


# --- Appraise ESA (WMT24 en-cs) -----------------------------------------------------------------

ESA = DATA / "wmt24-esa"


def esa_rows():
    return list(csv.reader((ESA / "esa_generalMT2024_wave2.csv").read_text().splitlines()))


@pytest.mark.django_db
def test_esa_items_must_name_the_document_of_their_line_and_spans_are_kept(tmp_path):
    import_wmt(ESA / "wmt24")
    path = ESA / "esa_generalMT2024_wave2.csv"
    report = "\n".join(import_judgments([path]).lines())
    assert "wmt24 en-cs: all 98 items name the document of their line" in report
    assert JudgmentImport.objects.get().check_passed
    # A name imported as it is is not normalised (Claude-3.5 is no submission number .5).
    assert ExternalJudgment.objects.filter(system="Claude-3.5", triple__isnull=False).count() == 38
    rows = esa_rows()
    assert ErrorAnnotation.objects.count() == sum(len(json.loads(r[9])) for r in rows)
    # Item n is line n + 1 (line 1 is the canary), in the document the item names.
    for r in rows[:20]:
        j = ExternalJudgment.objects.get(line=rows.index(r) + 1)
        if j.triple:
            assert (
                j.triple.segment.number == int(r[2]) + 1
                and j.triple.segment.document == r[7].partition("#")[0]
            )
    shifted = tmp_path / path.name
    with shifted.open("w", newline="") as f:
        csv.writer(f).writerows([*r[:2], str(int(r[2]) + 1), *r[3:]] for r in rows)
    JudgmentImport.objects.all().delete()
    refused(lambda: import_judgments([shifted]), "items name another document than their line's")


@pytest.mark.django_db
def test_esa_is_an_error_annotation_and_may_not_be_mixed_with_direct_assessments(tmp_path):
    import_wmt(ESA / "wmt24")
    import_judgments([ESA / "esa_generalMT2024_wave2.csv"])
    assert JudgmentImport.objects.get().kind == ERROR_ANNOTATION
    # One row as WMT22's segment-level DA writes it (9 fields: no document, no spans).
    rows = esa_rows()
    mixed = tmp_path / "esa.csv"
    with mixed.open("w", newline="") as f:
        csv.writer(f).writerows([*rows, [*rows[0][:7], *rows[0][10:]]])
    JudgmentImport.objects.all().delete()
    refused(lambda: import_judgments([mixed]), "mixes error annotations (ESA) with direct")


# --- Appraise document-level DA+SQM (WMT22 calibration HITs, en-hr) -----------------------------

CALIBRATION = DATA / "wmt22-calibration"


@pytest.mark.django_db
def test_document_relative_items_are_mapped_through_the_documents(tmp_path):
    path = CALIBRATION / "WMT22.Appraise.calibrationHITs.20221103.csv"
    txt = Path(shutil.copytree(CALIBRATION / "txt", tmp_path / "txt"))
    (txt / "generaltest2022.en-hr.docids").unlink()
    import_wmt(txt)
    refused(lambda: import_judgments([path]), "numbered within documents", "no document ids")
    import_documents([CALIBRATION / "txt/generaltest2022.en-hr.docids"])
    report = "\n".join(import_judgments([path]).lines())
    # Each document's segments are numbered from 0 here (telegraph.405401: 11 segments, 0-10).
    check = "z vs sentence chrF within systems r = 0.3"
    assert f"generaltest2022 en-hr, item ids by documents: {check}" in report
    assert JudgmentImport.objects.get().check_passed
    rows = [r.split(",") for r in path.read_text().splitlines()]
    first = next(r for r in rows if r[8] == "False" and r[2] == "0")
    j = ExternalJudgment.objects.get(
        rater=first[0], system=first[1], document=first[7], segment_id=0
    )
    assert j.triple.segment.document == first[7].partition("#")[0]
    assert j.triple.segment.number == 1 + [
        d for d in (CALIBRATION / "txt/generaltest2022.en-hr.docids").read_text().split()
    ].index(first[7].partition("#")[0])
    # Whole-document scores are kept, unlinked.
    assert ExternalJudgment.objects.filter(document_score=True, triple__isnull=True).count() == sum(
        r[8] == "True" for r in rows
    )


@pytest.mark.django_db
def test_an_esa_span_beyond_the_translation_rated_is_refused(tmp_path):
    import_wmt(ESA / "wmt24")
    rows = esa_rows()
    outputs = ESA / "wmt24/system-outputs/en-cs"
    i, row = next(
        (i, r) for i, r in enumerate(rows) if r[3] == "TGT" and (outputs / f"{r[1]}.txt").exists()
    )
    length = len((outputs / f"{row[1]}.txt").read_text().split("\n")[int(row[2])])
    bad = tmp_path / "esa_generalMT2024_wave2.csv"
    middle = length // 2
    for start, end, accepted in ((0, length, True), (middle, length + 400, False)):
        row[9] = json.dumps([{"start_i": start, "end_i": end, "severity": "minor"}])
        rows[i] = row
        with bad.open("w", newline="") as f:
            csv.writer(f).writerows(rows)
        if accepted:
            import_judgments([bad])
            JudgmentImport.objects.all().delete()
        else:
            refused(
                lambda: import_judgments([bad]),
                f"line {i + 1}, field spans: span {middle}-{length + 400} goes beyond the {length} "
                "characters of the translation rated",
            )


def test_the_readers_length_limits_are_the_columns_they_fill():
    from survey.models import Corpus, Segment
    from wojdb.core.io import MAX_LENGTH

    columns = {
        "test set": [Segment.testset, Corpus.testset], "reference": [Segment.ref_name],
        "system": [Corpus.system, ExternalJudgment.system], "WorkerId": [ExternalJudgment.rater],
        "HITId": [ExternalJudgment.hit_id], "document": [Segment.document],
        "username": [ExternalJudgment.rater], "rater": [ExternalJudgment.rater],
        "itemType": [ExternalJudgment.item_type], "docId": [ExternalJudgment.document],
        "doc": [ExternalJudgment.document], "severity": [ErrorAnnotation.severity],
        "error_type": [ErrorAnnotation.category], "category": [ErrorAnnotation.category],
    }  # fmt: skip
    assert columns.keys() == MAX_LENGTH.keys()
    for name, fields in columns.items():
        assert {f.field.max_length for f in fields} == {MAX_LENGTH[name]}, name
