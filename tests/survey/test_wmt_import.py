"""Importing WMT texts, DA scores and judgments, and rankings; every bad input is refused whole."""

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from survey.design.sentence_pool import PoolError, sample_pool
from survey.models import (
    Corpus,
    ExternalJudgment,
    ExternalSegmentScore,
    JudgmentImport,
    Segment,
    Study,
    Triple,
)
from survey.sources.documents import import_documents
from survey.sources.human_judgments import import_judgments
from survey.sources.ranks import import_ranks
from survey.sources.testsets import import_wmt
from wojdb.bundled import wmt21_toen
from wojdb.core.design.pool import PoolRule
from wojdb.core.formats import segment_ids, wmt
from wojdb.core.io import WORD, InputError

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
    assert t.hypothesis_length == len(WORD.findall(t.hypothesis))


def import_slice(lps=None):
    import_wmt(SLICE / "txt", lps=lps)
    docids = sorted((SLICE / "documents").glob("*.docids"))
    import_documents([p for p in docids if not lps or p.name.split(".")[1] in lps])


@pytest.mark.django_db
def test_da_scores_and_judgments_join_through_document_order_and_system_names():
    import_slice()
    report = import_judgments(sorted((SLICE / "humaneval").glob("*.csv")))
    judgment_rows = sum(line_count(p) - 1 for p in (SLICE / "humaneval").glob("*-good-stnd.csv"))
    assert ExternalJudgment.objects.count() == judgment_rows
    # SID 1 is the first sentence of the alphabetically first document, not line 1.
    docids = (SLICE / "documents/newstest2021.de-en.docids").read_text().split()
    line = segment_ids.sid_lines(docids)[0]
    assert line != 1 and docids[line - 1] == min(docids)
    # Nemo.7 in the judgments is NVIDIA-NeMo in the text files.
    nemo = Triple.objects.get(
        corpus__system="NVIDIA-NeMo", corpus__source_lang="de", segment__number=line
    )
    row = next(
        r.split()
        for r in (SLICE / "humaneval/ad-seg-scores-de-en.csv").read_text().split("\n")[1:]
        if r.startswith("Nemo.7 1 ")
    )
    assert (
        nemo.da_raw == float(row[2]) and nemo.da_z == float(row[3]) and nemo.da_count == int(row[4])
    )
    lines = "\n".join(report.lines())
    assert "Nemo.7 → NVIDIA-NeMo" in lines and "HUMAN.0 → refB" in lines
    # HUMAN (reference B) is not a system: reported as the reference, stored unlinked.
    assert "de-en HUMAN.0 (reference B, a human translation judged as a system)" in lines
    human = ExternalJudgment.objects.filter(system="HUMAN.0")
    assert human.exists() and not human.filter(triple__isnull=False).exists()
    de_human = human.filter(source_lang="de").count()
    assert f"ad-deen-good-stnd.csv: {de_human:,} judgments of systems not imported" in lines
    linked = ExternalJudgment.objects.exclude(system="HUMAN.0")
    assert not linked.filter(triple__isnull=True).exists()
    assert lines.count("— passed") == 8
    before = db_counts()
    import_judgments(sorted((SLICE / "humaneval").glob("*.csv")))
    assert db_counts() == before


@pytest.mark.django_db
@pytest.mark.slow
def test_full_wmt21_data_imports_every_pair_with_its_alignment_checked():
    data = wmt21_toen()
    report = import_wmt(data / "txt")
    # Four blank zh-en hypotheses (Online-W 515 and 1488, ZengHuiMT 434 and 1649) are stored,
    # counted, and never drawn into the pool.
    assert Triple.objects.count() == 121_842
    assert {
        "zh-en Online-W blank hypotheses: 2 (stored, never drawn into the pool)",
        "zh-en ZengHuiMT blank hypotheses: 2 (stored, never drawn into the pool)",
    } <= set(report.lines())
    assert Corpus.objects.count() == 100
    assert Triple.objects.values("corpus__source_lang").distinct().count() == 7
    judgments = sorted((data / "humaneval").glob("*.csv"))
    # Without document ids, de-en's SIDs taken as line numbers fail the check.
    de_en = data / "humaneval/ad-seg-scores-de-en.csv"
    with pytest.raises(InputError, match="do not fit newstest2021 de-en"):
        import_judgments([de_en], sid_mapping="lines")
    import_documents(sorted((data / "documents").glob("*.docids")))
    report = import_judgments(judgments)
    assert ExternalJudgment.objects.count() == 115_059
    checked = {
        (r.source_lang, r.file_format): r for r in JudgmentImport.objects.filter(level="segment")
    }
    assert {lp for lp, _ in checked} == {"de", "is", "ja", "ru"}
    assert all(r.check_passed and not r.accepted_unverified for r in checked.values())
    de = checked["de", wmt.SEGMENT_SCORES]
    assert de.check_r == pytest.approx(0.234, abs=0.001) and de.check_n == 18_409
    assert de.check_identical_mean_z - de.check_mean_z > 0.9
    # cs-en, ha-en and zh-en have no document ids: their segment scores are kept unlinked.
    unlinked = ExternalSegmentScore.objects.filter(triple=None)
    assert {"cs", "ha", "zh"} <= set(unlinked.values_list("source_lang", flat=True))
    assert not Triple.objects.filter(
        corpus__source_lang__in=["cs", "ha", "zh"], da_raw__isnull=False
    ).exists()
    assert ExternalSegmentScore.objects.count() == sum(
        1
        for p in judgments
        if p.name.startswith("ad-seg-scores")
        for r in p.read_text().split("\n")[1:]
        if r.strip()
    )
    seg_rows = sum(
        1
        for p in judgments
        if p.name.startswith("ad-seg-scores") and p.name[14:16] in {"de", "is", "ja", "ru"}
        for r in p.read_text().split("\n")[1:]
        if r.strip() and not r.startswith("HUMAN.")
    )
    assert Triple.objects.filter(da_raw__isnull=False).count() == seg_rows
    assert "unmatched rows" in "\n".join(report.lines())


# --- bad input: a clear message naming file, line and field; nothing written -----------------


def refused(call, *fragments):
    before = db_counts()
    with pytest.raises(InputError) as e:
        call()
    for fragment in fragments:
        assert fragment in str(e.value)
    assert db_counts() == before
    return str(e.value)


@pytest.mark.django_db
def test_line_counts_that_differ_are_refused(slice_copy):
    hyp = slice_copy / "txt/newstest2021.ru-en.hyp.Online-B.en"
    hyp.write_text("\n".join(hyp.read_text().splitlines()[:57]) + "\n")
    refused(lambda: import_wmt(slice_copy / "txt"), hyp.name, "57 lines", "105")


@pytest.mark.django_db
def test_undecodable_bytes_are_refused_with_their_line(slice_copy):
    ref = slice_copy / "txt/newstest2021.ja-en.ref.A.en"
    lines = ref.read_bytes().split(b"\n")
    lines[4] = b"caf\xe9 au lait"
    ref.write_bytes(b"\n".join(lines))
    refused(lambda: import_wmt(slice_copy / "txt"), ref.name, "line 5", "UTF-8")


@pytest.mark.django_db
def test_unknown_language_pair_is_skipped_and_reported_the_others_imported(slice_copy):
    for p in (slice_copy / "txt").glob("newstest2021.is-en.*"):
        p.rename(p.with_name(p.name.replace("is-en", "xx-en").replace(".src.is", ".src.xx")))
    report = "\n".join(import_wmt(slice_copy / "txt").lines())
    assert "skipped xx-en: not a pair of ISO 639 language codes" in report
    assert not Corpus.objects.filter(source_lang__in=["xx", "is"]).exists()
    assert Corpus.objects.filter(source_lang="de").exists()


@pytest.mark.django_db
def test_missing_reference_is_refused(slice_copy):
    (slice_copy / "txt/newstest2021.de-en.ref.A.en").unlink()
    refused(lambda: import_wmt(slice_copy / "txt"), "de-en", "no reference file")


@pytest.mark.django_db
def test_da_file_with_a_wrong_column_count_is_refused(slice_copy):
    import_slice()
    path = slice_copy / "humaneval/ad-seg-scores-is-en.csv"
    rows = path.read_text().split("\n")
    rows[7] = rows[7] + " 12"
    path.write_text("\n".join(rows))
    refused(lambda: import_judgments([path]), path.name, "line 8", "expected 5 columns")
    assert not Triple.objects.filter(da_raw__isnull=False).exists()


@pytest.mark.django_db
def test_da_file_with_a_non_number_is_refused_naming_the_field(slice_copy):
    path = slice_copy / "humaneval/ad-seg-scores-de-en.csv"
    rows = path.read_text().split("\n")
    cols = rows[3].split()
    cols[3] = "high"
    rows[3] = " ".join(cols)
    path.write_text("\n".join(rows))
    good = slice_copy / "humaneval/ad-seg-scores-is-en.csv"
    refused(lambda: import_judgments([good, path]), "line 4", "field Z.SCR", "'high'")


@pytest.mark.django_db
def test_judgment_with_unknown_type_is_refused(slice_copy):
    path = slice_copy / "humaneval/ad-deen-good-stnd.csv"
    rows = path.read_text().split("\n")
    cols = rows[10].split("\t")
    cols[8] = "GOLD"
    rows[10] = "\t".join(cols)
    path.write_text("\n".join(rows))
    refused(lambda: import_judgments([path]), path.name, "line 11", "field type", "'GOLD'")


def test_rankings_with_a_rank_out_of_range_are_refused(tmp_path):
    bad = tmp_path / "ranks.csv"
    rows = (DATA / "rankings.csv").read_text().split("\n")
    rows[1] = rows[1].replace(",1,2,2,4,5", ",1,2,2,4,9")
    bad.write_text("\n".join(rows))
    with pytest.raises(InputError, match="line 2, field system5rank: rank 9 outside 1-5"):
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


def a_study(slug: str = "study") -> Study:
    return Study.objects.create(name=slug, slug=slug)


def pooled(study: Study) -> set[int]:
    return set(study.pool_entries.values_list("triple_id", flat=True))


@pytest.mark.django_db
def test_sample_pool_draws_the_same_number_from_every_corpus_reproducibly():
    import_wmt(SLICE / "txt")
    study = a_study()
    sample_pool(study, PoolRule(20, seed=7))
    first = pooled(study)
    per_corpus = {
        c.pk: c.triples.filter(pool_entries__study=study).count() for c in Corpus.objects.all()
    }
    assert set(per_corpus.values()) == {20}
    sample_pool(study, PoolRule(20, seed=8))
    assert pooled(study) != first
    sample_pool(study, PoolRule(20, seed=7))
    assert pooled(study) == first
    # Another study draws its own pool beside it.
    other = a_study("other")
    sample_pool(other, PoolRule(10, seed=7, language_pairs=("de-en",)))
    assert pooled(study) == first and len(pooled(other)) == 4 * 10


@pytest.mark.django_db
def test_commands_report_errors_and_exit_non_zero(slice_copy):
    (slice_copy / "txt/newstest2021.de-en.hyp.UEdin.en").write_bytes(b"\xff\xfe broken\n")
    with pytest.raises(CommandError, match="(?s)UEdin.*line 1.*Nothing was written"):
        call_command("import_wmt", str(slice_copy / "txt"), verbosity=0)
    study = a_study()
    with pytest.raises(CommandError, match="per_corpus = 450, but 16 corpora have fewer"):
        call_command("import_wmt", str(SLICE / "txt"), verbosity=0)
        call_command("sample_pool", "--per-corpus", "450")
    assert not pooled(study)


# --- every layout, checked text (issue 15) ----------------------------------------------------

WMT24 = DATA / "wmt24-news-systems/txt-ts"
WMT22 = DATA / "wmt22-news-systems"


@pytest.mark.django_db
def test_mt_metrics_eval_import_stores_documents_and_leaves_the_canary_out():
    report = "\n".join(import_wmt(WMT24).lines())
    assert "layout: mt-metrics-eval" in report
    assert "wmt24 en-cs: reference A, 3 systems, document ids kept" in report
    assert "en-cs: 1 canary line(s) left out" in report
    assert Segment.objects.count() == 39 and Triple.objects.count() == 3 * 39
    seg = Segment.objects.get(testset="wmt24", number=2)
    assert (seg.document, seg.domain) == ("test-en-news_beverly_press.3585", "news")
    assert seg.source == (WMT24 / "sources/en-cs.txt").read_text().split("\n")[1]
    before = db_counts()
    import_wmt(WMT24)
    assert db_counts() == before


@pytest.mark.django_db
def test_xml_import_stores_documents_and_domains():
    import_wmt(WMT22 / "xml", systems=["Online-A", "SRPOL"])
    assert Corpus.objects.count() == 2
    docs = Segment.objects.order_by("number").values_list("document", "domain")
    assert list(dict.fromkeys(docs)) == [
        ("review_toys-and-games_21_5", "ecommerce"),
        ("review_beauty_87_1", "ecommerce"),
        ("bbc.381765", "news"),
    ]


@pytest.mark.django_db
def test_document_ids_fill_in_segments_imported_without_them(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    import_wmt(root, lps=["cs-en"])
    assert not Segment.objects.exclude(document="").exists()
    (root / "generaltest2022.cs-en.docids").write_text("".join(f"d{n // 10}\n" for n in range(30)))
    report = import_wmt(root, lps=["cs-en"])
    assert report.created["segments given their document id"] == 30
    assert Segment.objects.get(number=11).document == "d1"


@pytest.mark.django_db
def test_blank_hypotheses_are_stored_but_never_pooled_overlong_ones_kept_out(tmp_path):
    root = Path(shutil.copytree(WMT24, tmp_path / "wmt24"))
    hyp = root / "system-outputs/en-cs/Gemini-1.5-Pro.txt"
    rows = hyp.read_text().split("\n")
    rows[4] = "   "
    rows[5] = "x " * 6_000
    hyp.write_text("\n".join(rows))
    report = import_wmt(root).lines()
    assert "en-cs Gemini-1.5-Pro blank hypotheses: 1 (stored, never drawn into the pool)" in report
    assert "en-cs Gemini-1.5-Pro hypotheses over 10,000 characters, kept out: 1" in report
    gemini = Triple.objects.filter(corpus__system="Gemini-1.5-Pro")
    assert gemini.count() == 39 - 1 and not gemini.filter(segment__number=6).exists()
    study = a_study()
    # Gemini's 37 non-blank triples, all drawn; the blank one never
    sample_pool(study, PoolRule(37, seed=1, single_sentence=False))
    assert gemini.filter(pool_entries__study=study).count() == 37
    assert not gemini.filter(segment__number=5, pool_entries__study=study).exists()


@pytest.mark.django_db
def test_a_blank_source_line_keeps_its_triples_out_of_the_pool(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    src = root / "sources/generaltest2022.cs-en.src.cs"
    rows = src.read_text().split("\n")
    rows[2] = ""
    src.write_text("\n".join(rows))
    report = import_wmt(root, lps=["cs-en"]).lines()
    assert "cs-en blank source lines: 1 (stored, never drawn into the pool)" in report
    assert Triple.objects.count() == 2 * 30
    study = a_study()
    with pytest.raises(PoolError, match=r"fewer triples that qualify: .*: 29 of 30 \(1 blank\)"):
        sample_pool(study, PoolRule(30, seed=1, single_sentence=False))
    sample_pool(study, PoolRule(29, seed=1, single_sentence=False))
    assert not Triple.objects.filter(segment__number=3, pool_entries__study=study).exists()


@pytest.mark.django_db
def test_a_line_separator_inside_a_segment_is_refused_by_name(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    ref = root / "references/generaltest2022.cs-en.ref.B.en"
    rows = ref.read_text().split("\n")
    rows[6] = rows[6][:5] + "\u2028" + rows[6][5:]
    ref.write_text("\n".join(rows))
    refused(
        lambda: import_wmt(root, lps=["cs-en"]),
        ref.name, "line 7", "field reference", "U+2028 LINE SEPARATOR", "character 6",
    )  # fmt: skip


@pytest.mark.django_db
def test_changed_text_on_reimport_is_refused_not_dropped(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    import_wmt(root, lps=["cs-en"])
    hyp = root / "system-outputs/generaltest2022.cs-en.hyp.Online-A.en"
    rows = hyp.read_text().split("\n")
    rows[3] = "A different translation."
    hyp.write_text("\n".join(rows))
    refused(lambda: import_wmt(root, lps=["cs-en"]), hyp.name, "line 4", "differs from the stored")
    src = root / "sources/generaltest2022.cs-en.src.cs"
    src.write_text(src.read_text().replace(src.read_text().split("\n")[0], "Jiná věta.", 1))
    refused(lambda: import_wmt(root, lps=["cs-en"]), src.name, "line 1", "field source")


@pytest.mark.django_db
def test_empty_files_are_refused_not_imported_as_empty_corpora(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    for p in root.rglob("generaltest2022.cs-en.*"):
        p.write_text("")
    refused(lambda: import_wmt(root, lps=["cs-en"]), "generaltest2022.cs-en.src.cs", "is empty")


@pytest.mark.django_db
def test_command_says_the_layout_the_reference_and_the_unread_files(tmp_path):
    root = Path(shutil.copytree(WMT22 / "txt", tmp_path / "txt"))
    (root / "README.md").write_text("notes\n")
    out = StringIO()
    call_command("import_wmt", str(root), "--ref", "A", "C", "--lp", "cs-en", stdout=out)
    text = out.getvalue()
    assert "layout: WMT plain text" in text
    assert "generaltest2022 cs-en: reference C, 2 systems" in text
    assert "1 files match no WMT plain text name" in text and "README.md" in text
    assert set(Segment.objects.values_list("ref_name", flat=True)) == {"C"}
    with pytest.raises(CommandError, match="there are: B, C"):
        call_command("import_wmt", str(root), "--ref", "D", stdout=StringIO())


@pytest.mark.django_db
def test_the_same_test_set_in_two_folders_is_refused(tmp_path):
    shutil.copytree(WMT24, tmp_path / "wmt24/txt")
    shutil.copytree(WMT24, tmp_path / "wmt24/txt-ts")
    refused(lambda: import_wmt(tmp_path / "wmt24"), "wmt24 en-cs is here twice", "txt-ts")


@pytest.mark.django_db
def test_a_folder_whose_only_pair_is_no_language_pair_imports_nothing_and_is_refused(slice_copy):
    txt = slice_copy / "txt"
    for p in txt.iterdir():
        if ".is-en." not in p.name:
            p.unlink()
    for p in txt.glob("newstest2021.is-en.*"):
        p.rename(p.with_name(p.name.replace("is-en", "xx-en").replace(".src.is", ".src.xx")))
    refused(
        lambda: import_wmt(txt),
        "no test set with system outputs matches the selection",
        "skipped xx-en: not a pair of ISO 639 language codes",
    )
    with pytest.raises(CommandError, match="skipped xx-en: not a pair of ISO 639"):
        call_command("import_wmt", str(txt))
