"""WMT human judgments attached to the right sentences, or refused (real WMT21 data)."""

import random
import shutil
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest
from django.core.management import CommandError, call_command
from sacrebleu.metrics import CHRF

from analysis import frames
from survey.models import (
    ExternalJudgment,
    ExternalSegmentScore,
    JudgmentImport,
    Segment,
    SystemScore,
    Triple,
)
from survey.sources.documents import import_documents
from survey.sources.human_judgments import import_judgments
from survey.sources.ranks import import_ranks
from survey.sources.testsets import import_wmt
from wojdb.bundled import wmt21_toen
from wojdb.core.formats import segment_ids, wmt
from wojdb.core.formats.judgments import read_judgment_file
from wojdb.core.io import InputError, check_language

REPO = Path(__file__).resolve().parents[2]
SLICE = REPO / "fixtures/wmt21-slice"
DATA = Path(__file__).resolve().parent / "data"
CS_EN = DATA / "wmt21-cs-en"


def state():
    return (
        Segment.objects.filter(document="").count(),
        ExternalJudgment.objects.count(),
        ExternalSegmentScore.objects.count(),
        JudgmentImport.objects.count(),
        SystemScore.objects.count(),
        Triple.objects.filter(da_raw__isnull=False).count(),
        Triple.objects.filter(rank_score__isnull=False).count(),
    )


def refused(call, *fragments):
    before = state()
    with pytest.raises(InputError) as e:
        call()
    for fragment in fragments:
        assert fragment in str(e.value)
    assert state() == before
    return str(e.value)


@pytest.fixture
def slice_copy(tmp_path):
    return Path(shutil.copytree(SLICE, tmp_path / "slice"))


def import_slice(lps=None, documents=True):
    import_wmt(SLICE / "txt", lps=lps)
    if documents:
        docids = sorted((SLICE / "documents").glob("*.docids"))
        import_documents([p for p in docids if not lps or p.name.split(".")[1] in lps])


def edit(path: Path, line: int, column: int, value: str, sep: str) -> None:
    rows = path.read_text().split("\n")
    cols = rows[line - 1].split(sep)
    cols[column] = value
    rows[line - 1] = sep.join(cols)
    path.write_text("\n".join(rows))


# --- the mapping and the check (pure) -----------------------------------------------------------


def test_sid_counts_sentences_after_sorting_documents_by_id():
    docs = ["b", "b", "tsuite-x", "a", "c", "a"]
    # a's lines (4, 6) in order, then b's (1, 2), then c's (5); the test suite has no SID.
    assert segment_ids.sid_lines(docs) == [4, 6, 1, 2, 5]


def test_the_check_tells_the_document_mapping_from_line_numbers_on_real_scores():
    """de-en of the demo slice, by hand: SID → line by document order vs SID = line."""
    docs = (SLICE / "documents/newstest2021.de-en.docids").read_text().split()
    ref = (SLICE / "txt/newstest2021.de-en.ref.A.en").read_text().split("\n")
    hyp = (SLICE / "txt/newstest2021.de-en.hyp.UEdin.en").read_text().split("\n")
    rows = [r for r in wmt.read_segment_scores(SLICE / "humaneval/ad-seg-scores-de-en.csv")]
    rows = [r for r in rows if r.system == "UEdin.9"]
    lines = segment_ids.sid_lines(docs)

    def check(line_of):
        return segment_ids.check_alignment(
            [
                (r.z, r.system, hyp[line_of(r.segment_id) - 1], ref[line_of(r.segment_id) - 1])
                for r in rows
            ]
        )

    right, wrong = check(lambda sid: lines[sid - 1]), check(lambda sid: sid)
    assert right.passed and right.r > 0.25
    assert not wrong.passed and wrong.r < 0.05
    assert "r with chrF below 0.15 (direct assessment)" in wrong.problems


def test_the_check_uses_identical_hypotheses_when_there_are_enough():
    # Scores that follow chrF, but 40 hypotheses identical to their reference at the mean z:
    # r passes, the identical hypotheses fail the check.
    rng = random.Random(1)
    ref = "the cat sat on the mat and looked at the dog"
    scored = []
    for _ in range(200):
        hyp = " ".join(w for w in ref.split() if rng.random() < 0.7)
        z = CHRF().sentence_score(hyp, [ref]).score / 50 + rng.gauss(0, 0.3)
        scored.append((z, "A", hyp, ref))
    mean = sum(z for z, *_ in scored) / len(scored)
    scored += [(mean, "A", "a b c d", "a b c d")] * 40
    check = segment_ids.check_alignment(scored)
    assert check.identical_n >= 40 and check.r > check.min_r
    assert check.problems == [
        f"identical hypotheses score less than {segment_ids.MIN_IDENTICAL_GAP} above the mean"
    ]
    assert not segment_ids.check_alignment(scored[:40]).passed  # too few to check at all


# --- import_judgments ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_line_numbers_are_refused_then_accepted_only_when_asked_and_recorded():
    import_slice(["de-en"], documents=False)
    path = SLICE / "humaneval/ad-seg-scores-de-en.csv"
    error = refused(
        lambda: import_judgments([path], sid_mapping="lines"),
        path.name,
        "do not fit newstest2021 de-en's sentences by lines",
        "--accept-unverified-alignment",
    )
    assert "r = -0.0" in error  # the figures are in the message
    report = import_judgments([path], sid_mapping="lines", accept_unverified_alignment=True)
    record = JudgmentImport.objects.get()
    assert record.accepted_unverified and record.check_passed is False
    assert record.mapping == "lines" and record.check_r < 0
    assert any("imported although the check failed" in line for line in report.lines())


@pytest.mark.django_db
def test_with_document_ids_the_check_passes_and_is_recorded():
    import_slice(["de-en"])
    report = import_judgments([SLICE / "humaneval/ad-seg-scores-de-en.csv"])
    record = JudgmentImport.objects.get()
    assert record.check_passed and not record.accepted_unverified and record.mapping == "documents"
    assert (
        record.check_r > 0.2 and record.check_n == Triple.objects.filter(da_z__isnull=False).count()
    )
    printed = f"SID by documents: z vs sentence chrF within systems r = {record.check_r:.3f}"
    assert any(printed in line for line in report.lines())


@pytest.mark.django_db
def test_scores_reach_the_triples_of_every_imported_reference(slice_copy):
    ref_b = slice_copy / "txt/newstest2021.de-en.ref.B.en"
    shutil.copy(slice_copy / "txt/newstest2021.de-en.ref.A.en", ref_b)
    import_slice(["de-en"])
    import_wmt(slice_copy / "txt", lps=["de-en"], refs=["B"])
    import_documents([SLICE / "documents/newstest2021.de-en.docids"])  # ref B's new segments
    import_judgments([SLICE / "humaneval/ad-seg-scores-de-en.csv"])
    scored = Triple.objects.filter(da_z__isnull=False)
    assert (
        scored.filter(segment__ref_name="A").count()
        == scored.filter(segment__ref_name="B").count()
        > 0
    )


@pytest.mark.django_db
def test_without_document_ids_scores_are_kept_unlinked_and_give_wmts_system_scores(tmp_path):
    import_wmt(CS_EN / "txt")
    path = CS_EN / "ad-seg-scores-cs-en.csv"
    report = import_judgments([path])
    assert not Triple.objects.filter(da_raw__isnull=False).exists()
    record = JudgmentImport.objects.get()
    assert record.level == "system" and record.mapping == "none" and record.check_passed is None
    rows = [r.split() for r in path.read_text().splitlines()[1:]]
    stored = ExternalSegmentScore.objects.filter(triple=None)
    assert stored.count() == len(rows) == ExternalSegmentScore.objects.count()
    assert {(s.system, s.segment_id, s.raw, s.z, s.judgments) for s in stored} == {
        (r[0], int(r[1]), float(r[2]), float(r[3]), int(r[4])) for r in rows
    }
    assert any("has no document ids" in line for line in report.lines())
    # Their means are the release's ad-sys-scores-cs-en.csv, systems named as imported.
    out = tmp_path / "systems.csv"
    call_command("system_scores", "--out", str(out), verbosity=0)
    scores = {r["system"]: r for _, r in pd.read_csv(out).iterrows()}
    assert set(scores) == {"Facebook-AI", "Online-B", "refB"}  # Facebook-AI.7, Online-B.0, HUMAN.0
    fb, ob = scores["Facebook-AI"], scores["Online-B"]
    assert (fb.raw, fb.z, fb.n, fb.judgments) == pytest.approx(
        (77.7622788010112, 0.111334676751657, 923, 1275), rel=1e-5
    )
    assert (ob.raw, ob.z, ob.n, ob.judgments) == pytest.approx(
        (73.9729885057471, -0.0046241621597379, 870, 1188), rel=1e-5
    )


@pytest.mark.django_db
def test_a_file_is_known_by_its_content_and_test_set_not_its_name(tmp_path):
    import_slice(["de-en"])
    rows = (SLICE / "humaneval/ad-deen-good-stnd.csv").read_text().split("\n")
    first, second = tmp_path / "a/ad-deen-good-stnd.csv", tmp_path / "b/ad-deen-good-stnd.csv"
    for path, part in ((first, rows[1:200]), (second, rows[200:])):
        path.parent.mkdir()
        path.write_text("\n".join([rows[0], *part]))
    import_judgments([first])
    report = import_judgments([second])  # same name, other content: imported
    assert ExternalJudgment.objects.count() == sum(1 for r in rows[1:] if r)
    assert report.created["judgments"] > 0
    before = state()
    assert any("already imported" in line for line in import_judgments([second]).lines())
    assert state() == before


@pytest.mark.django_db
def test_a_pair_takes_one_segment_score_file(tmp_path):
    # System scores are means over a pair's segment scores: two files would count twice.
    import_slice(["de-en"])
    rows = (SLICE / "humaneval/ad-seg-scores-de-en.csv").read_text().split("\n")
    first, second = tmp_path / "a/ad-seg-scores-de-en.csv", tmp_path / "b/ad-seg-scores-de-en.csv"
    for path, part in ((first, rows[1:300]), (second, rows[300:])):
        path.parent.mkdir()
        path.write_text("\n".join([rows[0], *part]))
    refused(lambda: import_judgments([first, second]), "2 different segment-score files")
    import_judgments([first], accept_unverified_alignment=True)
    refused(
        lambda: import_judgments([second], accept_unverified_alignment=True),
        "newstest2021 de-en already has segment scores, from ad-seg-scores-de-en.csv",
    )


@pytest.mark.django_db
def test_a_file_of_another_language_pair_or_test_set_matches_nothing_and_is_refused(tmp_path):
    import_slice(["de-en", "ja-en"])
    scores = SLICE / "humaneval/ad-seg-scores-de-en.csv"
    # de-en's scores taken for ja-en: the shared systems match, the check refuses them.
    renamed = Path(shutil.copy(scores, tmp_path / "ad-seg-scores-ja-en.csv"))
    refused(lambda: import_judgments([renamed]), "do not fit newstest2021 ja-en's sentences")
    # Only systems ja-en does not have: nothing matches.
    rows = scores.read_text().split("\n")
    renamed.write_text("\n".join(r for r in rows if not r.startswith(("Facebook", "Online"))))
    refused(
        lambda: import_judgments([renamed]),
        "none of its systems (HUMAN.0, Nemo.7, UEdin.9) is imported for newstest2021 ja-en",
    )
    refused(
        lambda: import_judgments([scores], testset="newstest2020"),
        "unknown test set 'newstest2020'",
    )
    refused(
        lambda: import_judgments([SLICE / "humaneval/ad-seg-scores-ru-en.csv"]),
        "no test set holds ru-en",
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "file, line, column, value, fragments",
    [
        ("ad-seg-scores-de-en.csv", 5, 2, "101", ["line 5", "field RAW.SCR", "outside 0-100"]),
        ("ad-seg-scores-de-en.csv", 5, 2, "-3", ["line 5", "field RAW.SCR", "outside 0-100"]),
        ("ad-seg-scores-de-en.csv", 5, 1, "1_0", ["line 5", "field SID", "'1_0' is not a number"]),
        ("ad-seg-scores-de-en.csv", 5, 4, "0", ["line 5", "field N", "no judgments"]),
        ("ad-deen-good-stnd.csv", 7, 11, "-12.0", ["line 7", "field time", "negative time"]),
        ("ad-deen-good-stnd.csv", 7, 9, "1_0", ["line 7", "field sid", "'1_0' is not a number"]),
        ("ad-deen-good-stnd.csv", 7, 10, "0.5_1", ["line 7", "field score", "is not a number"]),
    ],
)
def test_bad_values_are_refused_naming_file_line_and_field(
    slice_copy, file, line, column, value, fragments
):
    import_slice(["de-en"])
    path = slice_copy / "humaneval" / file
    edit(path, line, column, value, "\t" if "stnd" in file else " ")
    refused(lambda: import_judgments([path]), file, *fragments)


@pytest.mark.django_db
def test_duplicate_rows_are_refused(slice_copy):
    import_slice(["de-en"])
    for name in ("ad-seg-scores-de-en.csv", "ad-deen-good-stnd.csv"):
        path = slice_copy / "humaneval" / name
        rows = path.read_text().split("\n")
        rows.insert(9, rows[4])
        path.write_text("\n".join(rows))
        refused(lambda p=path: import_judgments([p]), name, "line 10", "line 5")
    scores = slice_copy / "humaneval/ad-seg-scores-de-en.csv"
    rows = (SLICE / "humaneval/ad-seg-scores-de-en.csv").read_text().split("\n")
    for i, row in enumerate(rows):  # UEdin.9 and UEdin.10 would both be UEdin
        rows[i] = row.replace("UEdin.9 ", "UEdin.10 ", 1) if i % 2 else row
    scores.write_text("\n".join(rows))
    refused(lambda: import_judgments([scores]), "UEdin.10 and UEdin.9 are both UEdin")


@pytest.mark.django_db
def test_segment_ids_beyond_the_test_set_are_refused(slice_copy):
    import_slice(["de-en"])
    path = slice_copy / "humaneval/ad-seg-scores-de-en.csv"
    edit(path, 3, 1, "108", " ")
    refused(lambda: import_judgments([path]), "line 3", "field SID", "beyond the 107 sentences")


def test_files_are_recognised_by_content(tmp_path):
    renamed = tmp_path / "scores.txt"
    shutil.copy(SLICE / "humaneval/ad-seg-scores-de-en.csv", renamed)
    with pytest.raises(InputError, match="does not name its language pair"):
        read_judgment_file(renamed)
    fmt, rows = read_judgment_file(renamed, "de-en")
    assert fmt == wmt.SEGMENT_SCORES and rows[0].source_lang == "de"
    fmt, rows = read_judgment_file(SLICE / "humaneval/ad-deen-good-stnd.csv")
    assert fmt == wmt.JUDGMENTS and rows[0].item_type in {"SYSTEM", "REPEAT", "BAD_REF", "REF"}
    with pytest.raises(InputError, match="not a judgment file of a known format"):
        read_judgment_file(SLICE / "txt/newstest2021.de-en.ref.A.en")


def test_one_normalisation_of_system_names():
    assert wmt.canonical_system("Online-A.1570") == "Online-A"
    assert wmt.canonical_system("Nemo.7") == "NVIDIA-NeMo"
    assert wmt.canonical_system("newstest2016.uedin-nmt.4361.cs-en") == "uedin-nmt"
    assert wmt.canonical_system("Allegro.eu") == "Allegro.eu"
    for name, letter in (
        ("HUMAN.0", "B"), ("HUMAN-B", "B"), ("HUMAN-C", "C"), ("refC", "C"),
        ("Human-B.0", "B"), ("Human-P.0", "P"), ("Human-refA", "A"),  # newstest2020 MQM, WMT23
    ):  # fmt: skip
        assert wmt.human_reference(name) == letter
    assert wmt.human_reference("Online-B") is None


# --- document ids -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_document_ids_must_cover_every_line_once_per_document(tmp_path):
    import_slice(["de-en"], documents=False)
    docids = (SLICE / "documents/newstest2021.de-en.docids").read_text().splitlines()
    short = tmp_path / "short/newstest2021.de-en.docids"
    short.parent.mkdir()
    short.write_text("\n".join(docids[1:]))
    refused(lambda: import_documents([short]), "has 106 lines but newstest2021 de-en has 107")
    split = tmp_path / "newstest2021.de-en.docids"
    split.write_text("\n".join([docids[-1], *docids[1:]]))
    refused(lambda: import_documents([split]), "resumes after other documents (first at line 1)")
    refused(
        lambda: import_documents([SLICE / "documents/newstest2021.de-en.docids"], testset="x"),
        "unknown test set 'x'",
    )
    import_documents([SLICE / "documents/newstest2021.de-en.docids"])
    assert Segment.objects.get(number=1).document == docids[0]
    assert (
        import_documents([SLICE / "documents/newstest2021.de-en.docids"]).created[
            "segments given a document id"
        ]
        == 0
    )


# --- rankings (eq. 6.1) -------------------------------------------------------------------------

RANK_HEADER = (
    "srclang,trglang,srcIndex,documentId,segmentId,judgeId,"
    + ",".join(f"system{i}Number,system{i}Id" for i in range(1, 6))
    + ","
    + ",".join(f"system{i}rank" for i in range(1, 6))
)


def rank_file(tmp_path, systems, ranks):
    path = tmp_path / "ranks.csv"
    ids = ",".join(f"{i},{s}" for i, s in enumerate(systems, start=1))
    path.write_text(f"{RANK_HEADER}\ncze,eng,1,-1,1,judge1,{ids},{','.join(map(str, ranks))}\n")
    return path


@pytest.fixture
def five_systems(tmp_path):
    txt = tmp_path / "txt"
    txt.mkdir()
    (txt / "newstest2021.cs-en.src.cs").write_text("jedna\n")
    (txt / "newstest2021.cs-en.ref.A.en").write_text("one\n")
    for system, text in {"A": "same", "B": "same", "C": "same", "D": "d", "E": "e"}.items():
        (txt / f"newstest2021.cs-en.hyp.{system}.en").write_text(text + "\n")
    import_wmt(txt)


def rank_score(system):
    return Triple.objects.get(corpus__system=system).rank_score


@pytest.mark.django_db
def test_identical_outputs_ranked_apart_are_one_output_and_ranks_renumbered(tmp_path, five_systems):
    # A, B, C are identical and ranked 1-3: one output of rank 2; D, E ranked 4 and 5.
    # S = {ABC, D, E}: renumbered ranks 1, 2, 3 → scores 1, 2/3, 1/3.
    import_ranks(rank_file(tmp_path, "ABCDE", [1, 2, 3, 4, 5]))
    assert [rank_score(s) for s in "ABCDE"] == pytest.approx([1, 1, 1, 2 / 3, 1 / 3])


@pytest.mark.django_db
def test_unmatched_systems_stay_in_s_and_are_reported(tmp_path, five_systems):
    # X (not imported) ranked first: |S| = 4 outputs (ABC merged), D second of them, E last.
    report = import_ranks(rank_file(tmp_path, ["X", "A", "D", "E", "B"], [1, 2, 3, 4, 2]))
    assert [rank_score(s) for s in "ABDE"] == pytest.approx([0.75, 0.75, 0.5, 0.25])
    assert all(0 <= rank_score(s) <= 1 for s in "ABDE")
    assert "cs-en X (no such system imported): 1" in "\n".join(report.lines())


@pytest.mark.django_db
def test_ranked_systems_are_named_as_imported_and_the_mapping_reported(tmp_path):
    # A corpus imported under its submission name keeps it (WMT22's `JDExploreAcademy.6`), as
    # the judgment imports keep it; a ranking's `Online-B.1` names the corpus `Online-B`.
    txt = tmp_path / "txt"
    txt.mkdir()
    (txt / "newstest2021.cs-en.src.cs").write_text("jedna\n")
    (txt / "newstest2021.cs-en.ref.A.en").write_text("one\n")
    for system, text in {"JDExploreAcademy.6": "jd", "Online-B": "online"}.items():
        (txt / f"newstest2021.cs-en.hyp.{system}.en").write_text(text + "\n")
    import_wmt(txt)
    path = tmp_path / "ranks.csv"
    path.write_text(
        f"{RANK_HEADER}\ncze,eng,1,-1,1,judge1,1,JDExploreAcademy.6,2,Online-B.1,"
        "-1,-1,-1,-1,-1,-1,1,2,-1,-1,-1\n"
    )
    report = "\n".join(import_ranks(path).lines())
    assert [rank_score(s) for s in ("JDExploreAcademy.6", "Online-B")] == [1, 0.5]
    assert "system names mapped: Online-B.1 → Online-B" in report
    assert "unmatched" not in report


@pytest.mark.django_db
def test_rankings_matching_nothing_are_refused(tmp_path, five_systems):
    refused(
        lambda: import_ranks(rank_file(tmp_path, "VWXYZ", [1, 2, 3, 4, 5])),
        "none of the ranked systems",
    )
    refused(
        lambda: import_ranks(rank_file(tmp_path, "ABCDE", [1, 2, 3, 4, 5]), testset="newstest2020"),
        "unknown test set",
    )


# --- commands -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_commands_print_the_check_and_refuse_with_a_clear_error(capsys):
    import_slice(["de-en"], documents=False)
    scores = str(SLICE / "humaneval/ad-seg-scores-de-en.csv")
    with pytest.raises(CommandError, match="(?s)do not fit.*Nothing was written"):
        call_command("import_da", scores, "--sid-mapping", "lines")
    call_command("import_documents", str(SLICE / "documents/newstest2021.de-en.docids"))
    call_command("import_judgments", scores)
    printed = capsys.readouterr()
    assert "SID by documents: z vs sentence chrF within systems r = " in printed.out
    assert "— passed" in printed.out
    # The progress bar, on the error stream: each step named.
    assert "checking ad-seg-scores-de-en.csv" in printed.err and "writing" in printed.err


# --- the full WMT21 de-en release (bundled) -----------------------------------------------------


@pytest.mark.django_db
def test_full_wmt21_de_en_passes_by_document_order_and_is_refused_by_line_number():
    data = wmt21_toen()
    import_wmt(data / "txt", lps=["de-en"])
    scores = data / "humaneval/ad-seg-scores-de-en.csv"
    error = refused(lambda: import_judgments([scores], sid_mapping="lines"), "r = 0.012")
    assert "191 hypotheses identical to the reference: mean z -0.10 (all: +0.03)" in error
    import_documents([data / "documents/newstest2021.de-en.docids"])
    import_judgments([scores])
    record = JudgmentImport.objects.get()
    assert record.check_passed and record.check_n == 18_409
    assert record.check_r == pytest.approx(0.234, abs=0.001)  # within systems
    assert record.check_identical_n == 194
    assert record.check_identical_mean_z == pytest.approx(0.99, abs=0.01)
    # A perfect translation now scores well above average, as it must.
    assert record.check_mean_z == pytest.approx(0.03, abs=0.01)


@pytest.mark.django_db
def test_wmt22_scores_follow_the_same_rule_and_human_b_is_reference_b():
    data = DATA / "wmt22-de-en"
    import_wmt(data)
    scores = data / "ad-seg-scores-de-en.csv"
    refused(lambda: import_judgments([scores], sid_mapping="lines"), "do not fit generaltest2022")
    import_documents([data / "generaltest2022.de-en.docids"])
    report = "\n".join(import_judgments([scores]).lines())
    assert JudgmentImport.objects.get().check_passed
    assert "de-en HUMAN-B (reference B, a human translation judged as a system): 100" in report


def test_any_iso_639_pair_is_read_in_its_standard_form(tmp_path):
    # Livonian (WMT22 en-liv) was outside the old closed table of languages.
    scores = tmp_path / "ad-seg-scores-en-liv.csv"
    scores.write_text("SYS SID RAW.SCR Z.SCR N\nTartuNLP.1 3 71.0 0.2 1\n")
    assert wmt.read_segment_scores(scores)[0].target_lang == "liv"
    assert check_language("cze", "f") == "cs" and check_language("deu", "f") == "de"
    with pytest.raises(InputError, match="f, line 4, field srclang: unknown language 'xx'"):
        check_language("xx", "f", "srclang", 4)


WMT16 = DATA / "wmt16"


@pytest.fixture
def newstest2016_de_en(tmp_path):
    """A de-en test set for the WMT16 slice's rankings: one line per srcIndex up to 1024; a
    system's output is the same text as every system the collapsed file joins to it."""
    rows = [r.split(",") for r in WMT16.joinpath("wmt16.collapsed.deu-eng.csv").read_text().split()]
    texts = defaultdict(dict)
    for r in rows[1:]:
        for slot in (r[5], r[7]):
            names = [wmt.canonical_system(s) for s in slot.split("+")]
            for name in names:
                texts[int(r[2])][name] = f"output {'+'.join(names)}"
    systems = sorted({s for by in texts.values() for s in by})
    txt = tmp_path / "txt"
    txt.mkdir()
    lines = range(1, 1025)
    (txt / "newstest2016.de-en.src.de").write_text("".join(f"Satz {n}\n" for n in lines))
    (txt / "newstest2016.de-en.ref.A.en").write_text("".join(f"sentence {n}\n" for n in lines))
    for s in systems:
        out = "".join(texts[n].get(s, f"{s} {n}") + "\n" for n in lines)
        (txt / f"newstest2016.de-en.hyp.{s}.en").write_text(out)
    import_wmt(txt)


@pytest.mark.django_db
def test_pairwise_rankings_score_as_their_collapsed_rankings(newstest2016_de_en):
    report = "\n".join(import_ranks(WMT16 / "wmt16.deu-eng.csv").lines())
    assert "pairwise rankings (WMT15-16), grouped by rankingID" in report
    assert "rankings: 4" in report
    scores = dict(Triple.objects.filter(rank_count__gt=0).values_list("pk", "rank_score"))
    # Ranking 181 (line 1020): online-A, -B, -G and uedin-nmt are one output ranked 1;
    # S = 5 outputs; uedin-syntax 2nd, jhu-pbmt and uedin-pbmt 3rd, jhu-syntax last.
    at_1020 = dict(
        Triple.objects.filter(segment__number=1020, rank_count=1).values_list(
            "corpus__system", "rank_score"
        )
    )
    assert at_1020 == pytest.approx(
        {"online-A": 1, "online-B": 1, "online-G": 1, "uedin-nmt": 1, "uedin-syntax": 0.8,
         "jhu-pbmt": 0.6, "uedin-pbmt": 0.6, "jhu-syntax": 0.2}
    )  # fmt: skip
    Triple.objects.update(rank_score=None, rank_count=0)
    import_ranks(WMT16 / "wmt16.collapsed.deu-eng.csv")
    assert dict(Triple.objects.filter(rank_count__gt=0).values_list("pk", "rank_score")) == scores


# --- document-style segment ids (WMT20 out of English, WMT21 Wikipedia) --------------------------


@pytest.fixture
def newstest2020_en_de(tmp_path):
    """newstest2020 en-de's first four documents (40 lines) with their real document ids; the
    texts are not in the public repositories, so each line says which segment it is."""
    txt = tmp_path / "txt"
    txt.mkdir()
    docs = (DATA / "wmt20-metrics/newstest2020.en-de.docids").read_text().split()
    shutil.copy(DATA / "wmt20-metrics/newstest2020.en-de.docids", txt)
    numbered = [f"{doc} {docs[:i].count(doc)}" for i, doc in enumerate(docs)]
    for name in ("src.en", "ref.A.de", "hyp.PROMT_NMT.de", "hyp.OPPO.de"):
        (txt / f"newstest2020.en-de.{name}").write_text("".join(t + "\n" for t in numbered))
    import_wmt(txt)
    return numbered


@pytest.mark.django_db
def test_document_style_sids_are_mapped_through_the_documents(tmp_path, newstest2020_en_de):
    scores = DATA / "wmt20-metrics/ad-seg-scores-en-de.csv"
    rows = [r.split() for r in scores.read_text().splitlines()[1:]]
    # Each of the 130 documents of the full file is numbered from 0 to its length - 1.
    assert {r[1] for r in rows} >= {"independent.281139_0", "independent.281139_12"}
    refused(lambda: import_judgments([scores]), "only 34 scored sentences")
    refused(lambda: import_judgments([scores], sid_mapping="lines"), "cannot apply")
    import_judgments([scores], accept_unverified_alignment=True)
    assert JudgmentImport.objects.get().mapping == "documents"
    for system, sid, raw, z, _ in rows:
        triple = Triple.objects.get(
            corpus__system=wmt.canonical_system(system), hypothesis=sid.replace("_", " ")
        )
        assert (triple.da_raw, triple.da_z) == (float(raw), float(z))
    beyond = tmp_path / "ad-seg-scores-en-de.csv"
    beyond.write_text(
        scores.read_text().replace("independent.281139_12 ", "independent.281139_13 ")
    )
    refused(lambda: import_judgments([beyond]), "field SID", "has no segment 13 (counted from 0)")


@pytest.mark.django_db
def test_wikipedia_sids_naming_no_known_document_are_kept_unlinked():
    data = DATA / "wmt21-wikipedia"
    import_wmt(data / "txt")
    report = "\n".join(import_judgments([data / "ad-seg-scores-bn-hi.csv"]).lines())
    assert "has none of the documents its segment ids name" in report
    # WMT's own system scores (ad-sys-scores-bn-hi.csv of the release).
    table = frames.external_system_table("da")  # UEdin.4 and GTCOM.0 there, named as imported
    assert dict(zip(table["system"], table["z"], strict=True)) == pytest.approx(
        {"UEdin": 0.0540289353012561, "GTCOM": 0.202193985925346}
    )
    assert not Triple.objects.filter(da_raw__isnull=False).exists()
