"""Importing WMT texts, DA scores and judgments, and rankings; every bad input is refused whole."""

import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from survey import wmt
from survey.importers import import_da, import_ranks, import_wmt, sample_pool
from survey.models import Corpus, ExternalJudgment, Segment, Triple
from wojdb.bundled import wmt21_toen

REPO = Path(__file__).resolve().parents[2]
SLICE = REPO / "fixtures/wmt21-slice"
DATA = Path(__file__).resolve().parent / "data"


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").split("\n")) - 1


def db_counts():
    return (
        Segment.objects.count(),
        Corpus.objects.count(),
        Triple.objects.count(),
        ExternalJudgment.objects.count(),
    )


@pytest.fixture
def slice_copy(tmp_path):
    return Path(shutil.copytree(SLICE, tmp_path / "slice"))


@pytest.mark.django_db
def test_slice_import_matches_the_files_and_is_idempotent():
    import_wmt(SLICE / "txt")
    hyp_files = sorted((SLICE / "txt").glob("*.hyp.*"))
    assert Triple.objects.count() == sum(line_count(p) for p in hyp_files)
    assert Corpus.objects.count() == len(hyp_files)
    assert Segment.objects.count() == sum(line_count(p) for p in (SLICE / "txt").glob("*.ref.A.en"))
    first = db_counts()
    import_wmt(SLICE / "txt")
    assert db_counts() == first


@pytest.mark.django_db
def test_texts_are_stored_line_by_line():
    import_wmt(SLICE / "txt", lps=["de-en"])
    t = Triple.objects.get(corpus__system="UEdin", segment__number=3)
    hyps = (SLICE / "txt/newstest2021.de-en.hyp.UEdin.en").read_text(encoding="utf-8")
    refs = (SLICE / "txt/newstest2021.de-en.ref.A.en").read_text(encoding="utf-8")
    assert t.hypothesis == hyps.split("\n")[2]
    assert t.segment.reference == refs.split("\n")[2]
    assert t.segment.source_lang == "de" and t.corpus.year == 2021
    assert t.hypothesis_length == len(wmt.WORD.findall(t.hypothesis))


@pytest.mark.django_db
def test_da_scores_and_judgments_join_with_explicit_system_mapping():
    import_wmt(SLICE / "txt")
    report = import_da(sorted((SLICE / "humaneval").glob("*.csv")))
    judgment_rows = sum(line_count(p) - 1 for p in (SLICE / "humaneval").glob("*-good-stnd.csv"))
    assert ExternalJudgment.objects.count() == judgment_rows
    # Nemo.7 in the judgments is NVIDIA-NeMo in the text files.
    nemo = Triple.objects.get(
        corpus__system="NVIDIA-NeMo", corpus__source_lang="de", segment__number=1
    )
    row = next(
        r.split()
        for r in (SLICE / "humaneval/ad-seg-scores-de-en.csv").read_text().split("\n")[1:]
        if r.startswith("Nemo.7 1 ")
    )
    assert (
        nemo.da_raw == float(row[2]) and nemo.da_z == float(row[3]) and nemo.da_count == int(row[4])
    )
    # HUMAN (reference B) is not a system: reported, stored unlinked.
    assert any("HUMAN.0" in line and "second human reference" in line for line in report.lines())
    human = ExternalJudgment.objects.filter(system="HUMAN.0")
    assert human.exists() and not human.filter(triple__isnull=False).exists()
    linked = ExternalJudgment.objects.exclude(system="HUMAN.0")
    assert not linked.filter(triple__isnull=True).exists()
    before = db_counts()
    import_da(sorted((SLICE / "humaneval").glob("*.csv")))
    assert db_counts() == before


@pytest.mark.django_db
@pytest.mark.slow
def test_full_wmt21_slice_counts_equal_the_files():
    data = wmt21_toen()
    import_wmt(data / "txt")
    assert Triple.objects.count() == 121_842
    assert Corpus.objects.count() == 100
    assert Triple.objects.values("corpus__source_lang").distinct().count() == 7
    judgments = sorted((data / "humaneval").glob("*.csv"))
    report = import_da(judgments)
    assert ExternalJudgment.objects.count() == 115_059
    seg_rows = sum(line_count(p) - 1 for p in judgments if p.name.startswith("ad-seg-scores"))
    human_seg_rows = sum(
        1
        for p in judgments
        if p.name.startswith("ad-seg-scores")
        for r in p.read_text().split("\n")[1:]
        if r.startswith("HUMAN.")
    )
    assert Triple.objects.filter(da_raw__isnull=False).count() == seg_rows - human_seg_rows
    assert "unmatched rows" in "\n".join(report.lines())


# --- bad input: a clear message naming file, line and field; nothing written -----------------


def refused(call, *fragments):
    before = db_counts()
    with pytest.raises(wmt.InputError) as e:
        call()
    for fragment in fragments:
        assert fragment in str(e.value)
    assert db_counts() == before
    return str(e.value)


@pytest.mark.django_db
def test_line_counts_that_differ_are_refused(slice_copy):
    hyp = slice_copy / "txt/newstest2021.ru-en.hyp.Online-B.en"
    hyp.write_text("\n".join(hyp.read_text().splitlines()[:57]) + "\n")
    refused(lambda: import_wmt(slice_copy / "txt"), hyp.name, "57 lines", "60")


@pytest.mark.django_db
def test_undecodable_bytes_are_refused_with_their_line(slice_copy):
    ref = slice_copy / "txt/newstest2021.zh-en.ref.A.en"
    lines = ref.read_bytes().split(b"\n")
    lines[4] = b"caf\xe9 au lait"
    ref.write_bytes(b"\n".join(lines))
    refused(lambda: import_wmt(slice_copy / "txt"), ref.name, "line 5", "UTF-8")


@pytest.mark.django_db
def test_unknown_language_pair_is_refused(slice_copy):
    for p in (slice_copy / "txt").glob("newstest2021.cs-en.*"):
        p.rename(p.with_name(p.name.replace("cs-en", "xx-en").replace(".src.cs", ".src.xx")))
    refused(lambda: import_wmt(slice_copy / "txt"), "unknown language 'xx'")


@pytest.mark.django_db
def test_missing_reference_is_refused(slice_copy):
    (slice_copy / "txt/newstest2021.de-en.ref.A.en").unlink()
    refused(lambda: import_wmt(slice_copy / "txt"), "de-en", "no reference file")


@pytest.mark.django_db
def test_da_file_with_a_wrong_column_count_is_refused(slice_copy):
    import_wmt(SLICE / "txt")
    path = slice_copy / "humaneval/ad-seg-scores-cs-en.csv"
    rows = path.read_text().split("\n")
    rows[7] = rows[7] + " 12"
    path.write_text("\n".join(rows))
    refused(lambda: import_da([path]), path.name, "line 8", "expected 5 columns")
    assert not Triple.objects.filter(da_raw__isnull=False).exists()


@pytest.mark.django_db
def test_da_file_with_a_non_number_is_refused_naming_the_field(slice_copy):
    path = slice_copy / "humaneval/ad-seg-scores-de-en.csv"
    rows = path.read_text().split("\n")
    cols = rows[3].split()
    cols[3] = "high"
    rows[3] = " ".join(cols)
    path.write_text("\n".join(rows))
    good = slice_copy / "humaneval/ad-seg-scores-cs-en.csv"
    refused(lambda: import_da([good, path]), "line 4", "field Z.SCR", "'high'")


@pytest.mark.django_db
def test_judgment_with_unknown_type_is_refused(slice_copy):
    path = slice_copy / "humaneval/ad-deen-good-stnd.csv"
    rows = path.read_text().split("\n")
    cols = rows[10].split("\t")
    cols[8] = "GOLD"
    rows[10] = "\t".join(cols)
    path.write_text("\n".join(rows))
    refused(lambda: import_da([path]), path.name, "line 11", "field type", "'GOLD'")


def test_rankings_with_a_rank_out_of_range_are_refused(tmp_path):
    bad = tmp_path / "ranks.csv"
    rows = (DATA / "rankings.csv").read_text().split("\n")
    rows[1] = rows[1].replace(",1,2,2,4,5", ",1,2,2,4,9")
    bad.write_text("\n".join(rows))
    with pytest.raises(wmt.InputError, match="line 2, field system5rank: rank 9 outside 1-5"):
        wmt.read_rankings(bad)


# --- eq. 6.1 ---------------------------------------------------------------------------------


def test_eq_6_1_turns_ranks_into_scores():
    # score_s = 1 − (rank_s − 1)/|S| with |S| = 5 outputs
    assert wmt.rank_scores([1, 2, 2, 4, 5]) == pytest.approx([1, 0.8, 0.8, 0.4, 0.2])


@pytest.mark.django_db
def test_rankings_merge_identical_hypotheses(tmp_path):
    txt = tmp_path / "txt"
    txt.mkdir()
    (txt / "newstest2021.cs-en.src.cs").write_text("jedna\ndva\n")
    (txt / "newstest2021.cs-en.ref.A.en").write_text("one\ntwo\n")
    outputs = {
        "A": "a1\na2\n",
        "B": "b1\nb2\n",
        "C": "c1\nc2\n",
        "D": "d1\nsame\n",
        "E": "e1\nsame\n",
    }
    for system, text in outputs.items():
        (txt / f"newstest2021.cs-en.hyp.{system}.en").write_text(text)
    import_wmt(txt)
    import_ranks(DATA / "rankings.csv")

    def score(system, n):
        return Triple.objects.get(corpus__system=system, segment__number=n).rank_score

    # Segment 1: five distinct outputs ranked 1,2,2,4,5.
    assert [score(s, 1) for s in "ABCDE"] == pytest.approx([1, 0.8, 0.8, 0.4, 0.2])
    # Segment 2: D and E are identical, so |S| = 4 and both get rank 4's score.
    assert [score(s, 2) for s in "ABCDE"] == pytest.approx([1, 0.75, 0.5, 0.25, 0.25])


# --- the pool ----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_sample_pool_draws_the_same_number_from_every_corpus_reproducibly():
    import_wmt(SLICE / "txt")
    sample_pool(20, seed=7)
    first = set(Triple.objects.filter(in_pool=True).values_list("pk", flat=True))
    per_corpus = {c.pk: c.triples.filter(in_pool=True).count() for c in Corpus.objects.all()}
    assert set(per_corpus.values()) == {20}
    sample_pool(20, seed=8)
    assert set(Triple.objects.filter(in_pool=True).values_list("pk", flat=True)) != first
    sample_pool(20, seed=7)
    assert set(Triple.objects.filter(in_pool=True).values_list("pk", flat=True)) == first


@pytest.mark.django_db
def test_commands_report_errors_and_exit_non_zero(slice_copy):
    (slice_copy / "txt/newstest2021.de-en.hyp.UEdin.en").write_bytes(b"\xff\xfe broken\n")
    with pytest.raises(CommandError, match="(?s)UEdin.*line 1.*Nothing was written"):
        call_command("import_wmt", str(slice_copy / "txt"), verbosity=0)
    with pytest.raises(CommandError, match="fewer than 450 triples"):
        call_command("import_wmt", str(SLICE / "txt"), verbosity=0)
        call_command("sample_pool", "--per-corpus", "450")
    assert Triple.objects.filter(in_pool=True).count() == 0
