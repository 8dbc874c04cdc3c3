"""WMT20's human evaluations as released (fixtures/wmt20-human.tar.xz, fixtures/README.md),
imported with the ordinary commands and ranked by `system_scores`: the DA segment scores the
news task's organisers supplied (de-en, segment ids numbered; en-de, source-based, segment ids
by document) give the release's own system scores (`ad-sys-scores-LP.csv`), and Google's
newstest2020 MQM segment scores give the MQM table of the repository's README."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.management import call_command

from analysis import frames
from analysis.models import MetricScore
from analysis.scores_import import import_scores
from survey.sources.human_judgments import import_judgments
from survey.sources.testsets import import_wmt
from tests.ted import ted_texts, write_test_set
from wojdb import bundled
from wojdb.core.formats.wmt import canonical_system

DA_PAIRS = ["de-en", "en-de"]
TESTSET = "newstest2020"


def placeholder_test_set(folder: Path, lp: str, systems, lines: int) -> None:
    """A test set of `lp` whose outputs are the `systems`, `lines` placeholder lines each: the
    texts are not in these releases, and system scores do not need them."""
    src, tgt = lp.split("-")
    folder.mkdir(exist_ok=True)
    text = "".join(f"{lp} line {n}\n" for n in range(1, lines + 1))
    for name in (f"src.{src}", f"ref.A.{tgt}", *(f"hyp.{s}.{tgt}" for s in systems)):
        (folder / f"{TESTSET}.{lp}.{name}").write_text(text, encoding="utf-8")


def published_da(lp: str) -> pd.DataFrame:
    """The release's system table, `RAW.SCR Z.SCR N SYS N.ALL`, by canonical system name."""
    table = pd.read_csv(bundled.wmt20_human() / "da" / f"ad-sys-scores-{lp}.csv", sep=r"\s+")
    return table.assign(system=table["SYS"].map(canonical_system)).set_index("system")


@pytest.mark.django_db
def test_wmt20_da_segment_scores_give_the_releases_system_scores(tmp_path):
    files = [bundled.wmt20_human() / "da" / f"ad-seg-scores-{lp}.csv" for lp in DA_PAIRS]
    for lp, path in zip(DA_PAIRS, files, strict=True):
        systems = {canonical_system(line.split()[0]) for line in path.read_text().splitlines()[1:]}
        placeholder_test_set(tmp_path / "txt", lp, sorted(s for s in systems if s != "refB"), 1)
    import_wmt(tmp_path / "txt")
    report = import_judgments(files)
    rows = sum(len(p.read_text().splitlines()) - 1 for p in files)
    assert report.created["segment scores"] == rows == 703 + 737 + 737 + 521 + 659  # N of each
    out = tmp_path / "systems.csv"
    call_command("system_scores", "--out", str(out), verbosity=0)
    written = pd.read_csv(out)
    assert set(written["protocol"].str.split(":").str[0]) == {"wmt22"}
    for lp in DA_PAIRS:
        ours = written[written["lp"] == lp].set_index("system")
        theirs = published_da(lp).loc[ours.index]
        assert list(ours.index) == list(theirs.sort_values("Z.SCR", ascending=False).index)
        # The CSV prints six significant digits; the table behind it is the release's to 1e-12.
        np.testing.assert_allclose(ours["z"], theirs["Z.SCR"], rtol=5e-6)
        np.testing.assert_allclose(ours["raw"], theirs["RAW.SCR"], rtol=5e-6)
        full = frames.external_system_table("da", TESTSET, [lp]).set_index("system")
        np.testing.assert_allclose(full["z"], theirs["Z.SCR"].loc[full.index], rtol=0, atol=1e-12)
        np.testing.assert_allclose(full["raw"], theirs["RAW.SCR"].loc[full.index], atol=1e-11)
        assert list(ours["n"]) == list(theirs["N"])
        assert list(ours["judgments"]) == list(theirs["N.ALL"])
        # WMT20 judged its second reference (de-en HUMAN.0) and en-de's reference B as systems.
        assert list(ours.index[ours["reference"]]) == ["refB"]
    # The figures themselves, as the release prints them.
    de_en = written[written["lp"] == "de-en"].set_index("system")
    assert de_en.loc["yolo", "z"] == pytest.approx(-1.61780343365286, rel=5e-6)
    assert de_en.loc["yolo", ["n", "judgments"]].tolist() == [737, 1039]


def readme_mqm(lp: str) -> dict[str, float]:
    """The MQM column of the README's newstest2020 table of `lp` (`| Human-B | 0.75(1) | …`)."""
    text = (bundled.wmt20_human() / "mqm" / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## newstest2020 ##")[1].split("\n## ")[0]
    heading = {"en-de": "### English to German ###", "zh-en": "### Chinese to English ###"}[lp]
    table = section.split(heading)[1].split("###")[0]
    return {
        m["system"]: float(m["score"])
        for m in re.finditer(r"^\| (?P<system>\S+) \| (?P<score>[\d.]+)\(\d+\)", table, re.M)
    }


@pytest.mark.django_db
@pytest.mark.parametrize(("lp", "segments"), [("en-de", 1418), ("zh-en", 2000)])
def test_wmt20_mqm_segment_scores_give_the_readmes_mqm_table(lp, segments, tmp_path):
    pair = lp.replace("-", "")
    path = bundled.wmt20_human() / "mqm" / f"mqm_newstest2020_{pair}.avg_seg_scores.tsv"
    systems = {canonical_system(line.split()[0]) for line in path.read_text().splitlines()[1:]}
    machine = sorted(s for s in systems if not s.startswith("ref"))
    placeholder_test_set(tmp_path / "txt", lp, machine, segments)
    import_wmt(tmp_path / "txt")
    report = import_scores([path])
    # Human-A.0 and Human-B.0 are references judged as systems, kept with every segment.
    references = len(systems) - len(machine)
    assert report.created["human reference scores"] == segments * references
    out = tmp_path / "mqm.csv"
    call_command("system_scores", "--source", "mqm", "--out", str(out), verbosity=0)
    table = pd.read_csv(out).set_index("system")
    # The README prints MQM as a positive cost, 2 places, and the references as Human-A, -B.
    published = readme_mqm(lp)
    names = {"refA": "Human-A", "refB": "Human-B"}
    assert list(table.index) == sorted(table.index, key=lambda s: published[names.get(s, s)])
    for system, z in table["z"].items():
        assert round(-z, 2) == published[names.get(system, system)]
    assert (table["n"] == segments).all()
    assert list(table.index[table["reference"]]) == [s for s in table.index if s in names]


@pytest.mark.django_db
def test_a_reference_of_one_test_set_is_not_another_test_sets_system(tmp_path):
    """WMT21's TED talks (zh-en) have a system named refB on lines 1-529; newstest2020's
    Human-B.0 is its own reference B, scored on all 2,000 lines and on no TED triple."""
    import_wmt(write_test_set(ted_texts("zh-en"), tmp_path / "ted"))
    path = bundled.wmt20_human() / "mqm" / "mqm_newstest2020_zhen.avg_seg_scores.tsv"
    placeholder_test_set(tmp_path / "txt", "zh-en", ["Online-B"], 2000)
    import_wmt(tmp_path / "txt")
    report = import_scores([path])
    assert report.created["human reference scores"] == 2 * 2000
    assert not MetricScore.objects.filter(item__triple__segment__testset="tedtalks2021").exists()
    table = frames.external_system_table("mqm", TESTSET, ["zh-en"]).set_index("system")
    assert table.loc["refB", "n"] == 2000 and round(-table.loc["refB", "z"], 2) == 3.62
