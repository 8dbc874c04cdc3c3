"""WMT21's and WMT23's published system-level results imported as system scores: WMT21's
clusters file on the French demo's de-fr slice, expected values copied from the release's
wmt21clusters.filtered.20210930.txt; WMT23's results file (fixtures/wmt23-results/) into a
placeholder cs-uk test set, expected values copied from its [ces-->ukr] block."""

import io
from pathlib import Path

import pytest
from django.core.management import call_command

from survey.models import JudgmentImport, SystemScore
from survey.sources.documents import import_documents
from survey.sources.human_judgments import import_judgments
from survey.sources.testsets import import_wmt
from wojdb.core.formats.judgments import CLUSTERS
from wojdb.core.io import InputError

pytestmark = pytest.mark.django_db
SLICE = Path(__file__).resolve().parents[2] / "fixtures/wmt21-defr-slice"
CLUSTERS_FILE = SLICE / "humaneval/wmt21clusters.filtered.20210930.deu-fra.txt"
# (system, z, raw, annotations, cluster) of the four systems in the slice.
DEMO_SYSTEMS = {
    ("Online-B", 0.15951255205589446, 87.87845036107525, 1913, 1),
    ("Online-W", 0.006039041295178949, 84.83616511659946, 2158, 2),
    ("LISN", -0.14863753629751789, 81.30547141204949, 2096, 3),
    ("talp_upc", -0.18961375098172123, 80.98374647746262, 2376, 3),
}


@pytest.fixture
def de_fr():
    import_wmt(SLICE / "txt")
    import_documents(sorted((SLICE / "documents").glob("*.docids")))


def stored():
    return set(SystemScore.objects.values_list("system", "z", "raw", "judgments", "cluster"))


def test_the_published_ranking_is_stored_as_system_scores(de_fr):
    report = import_judgments([CLUSTERS_FILE], testset="newstest2021")
    (record,) = JudgmentImport.objects.all()
    assert (record.file_format, record.level, record.mapping) == (CLUSTERS, "system", "none")
    assert (record.testset, record.source_lang, record.target_lang) == ("newstest2021", "de", "fr")
    assert stored() >= DEMO_SYSTEMS
    # As the DA system-level path does, every system of the pair is kept (WMT's clusters are
    # of all ten); the six not imported are reported.
    assert SystemScore.objects.count() == 10
    assert set(SystemScore.objects.values_list("n", flat=True)) == {None}
    assert report.created["system-level scores"] == 10
    assert sum(report.unmatched.values()) == 6
    assert "de-fr translator-A (no such system imported)" in report.unmatched
    again = import_judgments([CLUSTERS_FILE])
    assert SystemScore.objects.count() == 10
    assert any("already imported" in note for note in again.notes)


def test_a_pair_no_test_set_holds_is_skipped_with_a_note(de_fr, tmp_path):
    text = CLUSTERS_FILE.read_text(encoding="utf-8")
    block = text[text.index("[deu-->fra]") :]
    both = tmp_path / "clusters.txt"
    both.write_text(text + block.replace("[deu-->fra]", "[fra-->deu]"), encoding="utf-8")
    report = import_judgments([both])
    assert SystemScore.objects.filter(source_lang="de").count() == 10
    assert not SystemScore.objects.filter(source_lang="fr").exists()
    assert any("skipped fr-de (10 rows): no test set holds them" in n for n in report.notes)


def test_bad_input_writes_nothing(de_fr, tmp_path):
    text = CLUSTERS_FILE.read_text(encoding="utf-8")
    bad = tmp_path / "clusters.txt"
    # the last system's table row disagreeing with its result line
    bad.write_text(text.replace("talp_upc -0.18961", "talp_upc -0.18962"), encoding="utf-8")
    with pytest.raises(InputError, match=r"line 49, field Z Score"):
        import_judgments([CLUSTERS_FILE, bad])
    assert not JudgmentImport.objects.exists() and not SystemScore.objects.exists()


def test_system_scores_da_writes_the_published_ranking(de_fr, tmp_path):
    import_judgments([CLUSTERS_FILE])
    out = tmp_path / "systems.csv"
    call_command("system_scores", "--out", str(out), "--source", "da", stdout=io.StringIO())
    rows = [line.split(",") for line in out.read_text().splitlines()]
    assert rows[0] == [
        "system", "lp", "z", "raw", "n", "judgments", "rank", "cluster",
        "ranks", "reference", "protocol",
    ]  # fmt: skip
    # Not computed here: the table says it is WMT's own, as imported.
    assert {r[10] for r in rows[1:]} == {"WMT's published results"}
    # The release's order and clusters: Online-B first, talp_upc last.
    assert [(r[0], r[1], r[6], r[7]) for r in rows[1:]] == [
        ("Online-B", "de-fr", "1", "1"), ("translator-A", "de-fr", "2", "1"),
        ("Manifold", "de-fr", "3", "2"), ("Online-W", "de-fr", "4", "2"),
        ("Online-A", "de-fr", "5", "2"), ("Online-G", "de-fr", "6", "3"),
        ("P3AI", "de-fr", "7", "3"), ("LISN", "de-fr", "8", "3"),
        ("Online-Y", "de-fr", "9", "3"), ("talp_upc", "de-fr", "10", "3"),
    ]  # fmt: skip
    assert rows[1][2:6] == ["0.159513", "87.8785", "", "1913"]


WMT23_FILE = SLICE.parent / "wmt23-results" / "WMT23.results.txt"
# cs-uk as WMT23 published it: ranked by raw (z does not give this order), four clusters.
WMT23_CS_UK = [
    ("ONLINE-B", 83.66551040634289, 1), ("GPT4-5shot", 83.61413941195902, 1),
    ("refA", 83.24413610835809, 1), ("ONLINE-W", 82.7657746944169, 2),
    ("CUNI-GA", 82.38115295672284, 2), ("CUNI-Transformer", 81.8207796498183, 2),
    ("GTCOM_DLUT", 81.30822596630327, 2), ("ONLINE-A", 80.55797819623386, 2),
    ("ONLINE-G", 79.52114304592003, 3), ("ONLINE-Y", 78.68665345226297, 3),
    ("MUNI-NLP", 78.66468450611166, 3), ("Lan-BridgeMT", 77.42781631978856, 3),
    ("NLLB_MBR_BLEU", 76.92748595969604, 3), ("NLLB_Greedy", 76.69193921374297, 4),
]  # fmt: skip


def test_wmt23_results_give_wmt23s_published_ranking(tmp_path):
    # The release's texts are not needed for system-level results: a placeholder cs-uk test set
    # with two of its systems.
    txt = tmp_path / "txt"
    txt.mkdir()
    for name in ("src.cs", "ref.refA.uk", "hyp.ONLINE-B.uk", "hyp.NLLB_Greedy.uk"):
        (txt / f"generaltest2023.cs-uk.{name}").write_text("a sentence\n", encoding="utf-8")
    import_wmt(txt)
    report = import_judgments([WMT23_FILE])
    assert report.created["system-level scores"] == 14
    assert any("skipped de-en, en-cs, en-de, en-ja, en-zh, ja-en, zh-en (110 rows)" in note
               for note in report.notes)  # fmt: skip
    out = tmp_path / "systems.csv"
    printed = io.StringIO()
    call_command("system_scores", "--out", str(out), stdout=printed)
    assert printed.getvalue().startswith("WMT's published results, as imported: cs-uk\n")
    rows = [line.split(",") for line in out.read_text().splitlines()[1:]]
    assert [(r[0], float(r[3]), int(r[7])) for r in rows] == [
        (system, float(f"{raw:.6g}"), cluster) for system, raw, cluster in WMT23_CS_UK
    ]
    assert [r[6] for r in rows] == [str(n) for n in range(1, 15)]
    assert [r[0] for r in rows if r[9] == "True"] == ["refA"]
