"""WMT24's ESA waves through the database: imported as released, ranked by system_scores as the
organisers ranked them (their figures: tests/core/data/README.md).

The waves are bundled whole, the texts are not: the test set is the release's own documents
with placeholder texts (`wojdb.bundled.wmt24_esa_texts`); the items' documents carry the
alignment check (each names the document of its line).
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from survey.models import ExternalJudgment
from survey.sources.human_judgments import import_judgments
from survey.sources.testsets import import_wmt
from wojdb import bundled
from wojdb.core.stats import protocols

ORGANISERS = pd.read_csv(Path(__file__).parents[1] / "core/data/wmt24_esa_organisers.csv")
PAIRS = ("en-cs", "en-hi", "en-ja", "en-zh")


def waves() -> list[Path]:
    return bundled.wmt24_esa_waves()


@pytest.fixture
def imported(db, tmp_path):
    import_wmt(bundled.wmt24_esa_texts(tmp_path))
    return "\n".join(import_judgments(waves()).lines())


@pytest.mark.slow
def test_the_waves_import_as_released_and_rank_as_the_organisers_ranked(imported, tmp_path):
    """One import for both: it is most of the time either takes."""
    assert "esa_generalMT2024_wave2.csv: wmt24 en-cs: 11 rows repeat an earlier row" in imported
    repeats = sum(
        int(line.split(": ")[2].split()[0].replace(",", ""))
        for line in imported.splitlines()
        if "rows repeat an earlier row exactly" in line
    )
    assert repeats == 95 + 87
    assert "(line 1072 kept, repeated at 1097" in imported
    assert ExternalJudgment.objects.count() == 20_434 + 11_299 - repeats

    out = tmp_path / "systems.csv"
    call_command("system_scores", "--source", "esa", "--out", str(out), verbosity=0)
    table = pd.read_csv(out, keep_default_na=False)
    assert list(table.columns) == protocols.COLUMNS
    assert set(table["protocol"]) == {protocols.describe("wmt24")}
    merged = table.merge(ORGANISERS, on=["lp", "system"], validate="one_to_one")
    assert len(merged) == len(table) == len(ORGANISERS)
    np.testing.assert_allclose(merged["z"], merged["overall"], rtol=1e-5)  # written %.6g
    assert list(merged["ranks"]) == list(merged["rank_y"])
    assert list(merged["cluster_x"]) == list(merged["cluster_y"])
    for lp in PAIRS:
        expected = ORGANISERS[ORGANISERS["lp"] == lp]["system"].tolist()
        assert table[table["lp"] == lp]["system"].tolist() == expected
    assert set(table[table["reference"].astype(str) == "True"]["system"]) == {"refA"}


# The judgments are read from the database as for the official table above, which runs on
# every engine; here only what system_scores computes from them changes.
@pytest.mark.slow
@pytest.mark.engine_independent
def test_the_protocol_is_said_and_micro_and_wmt22_are_other_tables(imported, tmp_path):
    from io import StringIO

    said = StringIO()
    out = tmp_path / "s.csv"
    call_command("system_scores", "--source", "esa", "--out", str(out), stdout=said)
    assert "protocol wmt24: mean over domains" in said.getvalue()
    assert "the judgments' test set year 2024" in said.getvalue()
    for extra in (["--micro"], ["--protocol", "wmt22"]):
        call_command(
            "system_scores", "--source", "esa", "--out", str(out), "--force", *extra, verbosity=0
        )
        other = pd.read_csv(out)
        assert other["protocol"].iat[0] != protocols.describe("wmt24")
        cs = other[other["lp"] == "en-cs"]["system"].tolist()
        assert cs != ORGANISERS[ORGANISERS["lp"] == "en-cs"]["system"].tolist()
    with pytest.raises(CommandError, match="WMT24's protocol ranks per-rater ESA or MQM"):
        call_command(
            "system_scores", "--out", str(out), "--force", "--protocol", "wmt24", verbosity=0
        )
