"""WMT21's published system-level results (the clusters file) imported as system scores, on the
French demo's de-fr slice; expected values copied from the release's
wmt21clusters.filtered.20210930.txt."""

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
    assert rows[0] == ["system", "lp", "z", "raw", "n", "judgments", "rank", "cluster"]
    # The release's order and clusters: Online-B first, talp_upc last.
    assert [(r[0], r[1], r[6], r[7]) for r in rows[1:]] == [
        ("Online-B", "de-fr", "1", "1"), ("translator-A", "de-fr", "2", "1"),
        ("Manifold", "de-fr", "3", "2"), ("Online-W", "de-fr", "4", "2"),
        ("Online-A", "de-fr", "5", "2"), ("Online-G", "de-fr", "6", "3"),
        ("P3AI", "de-fr", "7", "3"), ("LISN", "de-fr", "8", "3"),
        ("Online-Y", "de-fr", "9", "3"), ("talp_upc", "de-fr", "10", "3"),
    ]  # fmt: skip
    assert rows[1][2:6] == ["0.159513", "87.8785", "", "1913"]
