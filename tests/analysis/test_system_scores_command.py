"""system_scores on imported WMT judgments: the command writes what the pure function computes."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from survey.models import Corpus
from survey.sources.documents import import_documents
from survey.sources.human_judgments import import_judgments
from survey.sources.testsets import import_wmt
from tests.wmt22 import PAIRS, published
from wojdb import bundled
from wojdb.core.formats.wmt import canonical_system, read_judgments
from wojdb.core.stats import protocols, system

SLICE = Path(__file__).resolve().parents[2] / "fixtures/wmt21-slice"


@pytest.fixture
def imported(db):
    import_wmt(SLICE / "txt")
    import_documents(sorted((SLICE / "documents").glob("*.docids")))
    import_judgments(sorted((SLICE / "humaneval").glob("*.csv")))


def test_da_scores_are_wmts_means_of_the_imported_segment_scores(imported, tmp_path):
    out = tmp_path / "systems.csv"
    call_command("system_scores", "--out", str(out), "--lp", "de-en", "ru-en", verbosity=0)
    written = pd.read_csv(out)
    assert list(written.columns) == protocols.COLUMNS
    assert set(written["protocol"]) == {protocols.describe("wmt22")}
    assert set(written["lp"]) == {"de-en", "ru-en"}
    de_en = written[written["lp"] == "de-en"].set_index("system")
    assert list(de_en.index[de_en["reference"]]) == ["refB"]  # a reference, marked
    # WMT's procedure (ad-sys-scores-LP.csv): means over the segment-score rows, every system's,
    # the second human reference (HUMAN.0, no sentences imported) included. Systems are named
    # as imported (UEdin.9 is UEdin), the human translation refB, as the study's items would.
    segments = pd.read_csv(SLICE / "humaneval" / "ad-seg-scores-de-en.csv", sep=" ")
    grouped = segments.groupby(segments["SYS"].map(canonical_system))
    assert set(de_en.index) == set(grouped.groups) and "refB" in de_en.index
    assert set(de_en.index) - {"refB"} <= set(Corpus.objects.values_list("system", flat=True))
    np.testing.assert_allclose(de_en["z"], grouped["Z.SCR"].mean()[de_en.index], rtol=1e-5)
    np.testing.assert_allclose(de_en["raw"], grouped["RAW.SCR"].mean()[de_en.index], rtol=1e-5)
    assert list(de_en["n"]) == list(grouped.size()[de_en.index])
    assert list(de_en["judgments"]) == list(grouped["N"].sum()[de_en.index])
    assert list(de_en["z"]) == sorted(de_en["z"], reverse=True)
    # The per-rater judgments give the same z: WMT's Z.SCR is the mean of a segment's
    # SYSTEM and REPEAT judgments.
    rows = read_judgments(SLICE / "humaneval" / "ad-deen-good-stnd.csv")
    expected = system.system_scores(system.wmt_judgments(rows))
    expected = expected.assign(system=expected["system"].map(canonical_system)).set_index("system")
    np.testing.assert_allclose(de_en["z"], expected["z"][de_en.index], rtol=1e-5)


def test_testset_keeps_the_judgments_imported_for_it(imported, tmp_path):
    out, everything = tmp_path / "systems.csv", tmp_path / "all.csv"
    call_command("system_scores", "--out", str(out), "--testset", "newstest2021", verbosity=0)
    call_command("system_scores", "--out", str(everything), verbosity=0)
    # The second human reference has no sentences here, but was judged in newstest2021.
    assert "refB" in set(pd.read_csv(out)["system"])
    pd.testing.assert_frame_equal(pd.read_csv(out), pd.read_csv(everything))
    with pytest.raises(CommandError, match="test set 'newstest1999'"):
        call_command("system_scores", "--out", str(out), "--testset", "newstest1999")


def test_study_judgments_standardise_each_participant():
    ratings = pd.DataFrame(
        {
            "participant": [1, 1, 2, 2, 2],
            "item": [10, 11, 10, 11, 12],
            "kind": ["hypothesis"] * 4 + ["permutation"],
            "holistic": [5, 3, 2, 1, 4],
            "practice": False,
        }
    )
    items = pd.DataFrame(
        {
            "item": [10, 11, 12],
            "system": ["A", "B", "A"],
            "segment": [1, 1, 1],
            "source_lang": "de",
            "target_lang": "en",
        }
    )
    judgments = system.study_judgments(ratings, items)
    assert list(judgments["raw"]) == [100, 50, 25, 0]
    assert list(judgments["lp"]) == ["de-en"] * 4
    table = system.system_scores(judgments).set_index("system")
    assert table.loc["A", "z"] > table.loc["B", "z"] and table.loc["A", "raw"] == 62.5


def test_a_pair_without_document_ids_gets_the_published_ranking_with_raw(db, tmp_path):
    # cs-en has no document ids in the release: its DA segment ids cannot be mapped to
    # sentences, so only the judgments and the system-level raw scores are kept. Neither is
    # needed for the ranking, which must be WMT's published one, raw included.
    data = bundled.wmt21_toen()
    folder = tmp_path / "txt"
    folder.mkdir()
    for path in (data / "txt").rglob("newstest2021.cs-en.*"):
        if ".ref.B." not in path.name:
            (folder / path.name).write_bytes(path.read_bytes())
    import_wmt(folder)
    humaneval = data / "humaneval"
    import_judgments([humaneval / "ad-seg-scores-cs-en.csv", humaneval / "ad-csen-good-stnd.csv"])
    out = tmp_path / "cs-en.csv"
    call_command("system_scores", "--out", str(out), "--lp", "cs-en", verbosity=0)
    written = pd.read_csv(out)
    published = pd.read_csv(
        Path(__file__).parent / "data" / "wmt21" / "ad-sys-ranking-cs-en-z.csv",
        sep=" ",
        header=None,
        usecols=range(5),
        names=["raw", "z", "n", "N", "system"],
    )
    assert list(written["system"]) == list(published["system"].map(canonical_system))
    np.testing.assert_array_equal(written["z"].round(3), published["z"])
    np.testing.assert_array_equal(written["raw"].round(1), published["raw"])


def test_a_system_named_like_a_formula_is_written_as_text(db, tmp_path):
    """A system id from an input file (`=HYPERLINK(…)`) must not run when the CSV is opened in
    a spreadsheet: written with a leading apostrophe, the scores as numbers."""
    import shutil

    formula = '=HYPERLINK("http://example.org/x")'
    judgments = tmp_path / "humaneval"
    shutil.copytree(SLICE / "humaneval", judgments)
    for path in judgments.glob("ad-*de*en*.csv"):
        path.write_text(path.read_text().replace("HUMAN.0", formula))
    import_wmt(SLICE / "txt", lps=["de-en"])
    import_documents(sorted((SLICE / "documents").glob("*de-en*.docids")))
    import_judgments(sorted(judgments.glob("ad-*de*en*.csv")))
    out = tmp_path / "systems.csv"
    call_command("system_scores", "--out", str(out), "--lp", "de-en", verbosity=0)
    cell = "\"'" + formula.replace('"', '""') + '"'  # a quoted CSV cell: "'=HYPERLINK(""…"")"
    assert cell in out.read_text()
    written = pd.read_csv(out)
    assert formula not in set(written["system"]) and f"'{formula}" in set(written["system"])
    assert written["z"].dtype == float and (written["z"] < 0).any()  # negative z stays a number


@pytest.mark.django_db
def test_wmt22_into_english_tables_come_out_of_system_scores(tmp_path):
    """The bundled segment scores of all six pairs imported as published, into test sets with
    one system each and no document ids (the release has none for cs-en and zh-en; a mapping
    is not needed for system scores): the whole de-en table and the bundled systems' rows of
    the others are the release's."""
    data = bundled.wmt22_toen_tables()
    files = [data / f"ad-seg-scores-{lp}.csv" for lp in PAIRS]
    txt = tmp_path / "txt"
    txt.mkdir()
    for lp, path in zip(PAIRS, files, strict=True):
        src, tgt = lp.split("-")
        system_name = canonical_system(path.read_text().splitlines()[1].split()[0])
        for name in (f"src.{src}", f"ref.A.{tgt}", f"hyp.{system_name}.{tgt}"):
            (txt / f"generaltest2022.{lp}.{name}").write_text("a sentence\n")
    import_wmt(txt)
    report = import_judgments(files)
    assert report.created["segment scores"] == sum(
        len(p.read_text().splitlines()) - 1 for p in files
    )
    out = tmp_path / "systems.csv"
    call_command("system_scores", "--out", str(out), verbosity=0)
    written = pd.read_csv(out)
    for lp in PAIRS:
        ours = written[written["lp"] == lp].set_index("system")
        theirs = published(lp)
        theirs = theirs.assign(system=theirs["system"].map(canonical_system)).set_index("system")
        rows = theirs.loc[ours.index]
        assert list(ours.index) == sorted(ours.index, key=list(theirs.index).index)
        for column, digits in (("z", 3), ("raw", 1), ("n", 0), ("judgments", 0)):
            np.testing.assert_array_equal(ours[column].round(digits), rows[column])
        if lp == "de-en":
            assert list(ours.index) == list(theirs.index)
            assert list(ours["cluster"]) == list(theirs["cluster"])
