"""WMT24's ESA waves through the database: imported as released, ranked by system_scores as the
organisers ranked them (their figures: tests/core/data/README.md).

The waves are bundled whole, the texts are not (every pair's system outputs are 67 MB): the test
set is written from the release's own `documents/LP.docs` (each line's domain and document) with
placeholder texts: every system rated, its outputs as long as the spans rated on them need. The
items' documents carry the alignment check (each names the document of its line).
"""

import csv
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from survey.judgments import import_judgments
from survey.models import ExternalJudgment
from survey.testsets import import_wmt
from wojdb import bundled
from wojdb.core.language.codes import language
from wojdb.core.stats import protocols

ORGANISERS = pd.read_csv(Path(__file__).parents[1] / "core/data/wmt24_esa_organisers.csv")
PAIRS = ("en-cs", "en-hi", "en-ja", "en-zh")


def waves() -> list[Path]:
    return [bundled.wmt24_esa() / "humeval" / f"esa_generalMT2024_wave{n}.csv" for n in (2, 3)]


def placeholder_testset(root: Path) -> Path:
    """An mt-metrics-eval folder `wmt24/` of the four pairs: the release's documents, texts
    `LP source N`, each system's outputs long enough for every span rated on them."""
    needed = defaultdict(int)
    for path in waves():
        for row in csv.reader(path.read_text(encoding="utf-8").splitlines()):
            if "tutorial" not in row[1] and row[1] != "refA" and row[3] == "TGT":
                ends = [s["end_i"] for s in json.loads(row[9]) if s["end_i"] != "missing"]
                key = (f"{language(row[4])}-{language(row[5])}", row[1], int(row[2]) + 1)
                needed[key] = max([needed[key], *ends])
    systems = defaultdict(set)
    for lp, name, _ in needed:
        systems[lp].add(name)
    folder = root / "wmt24"
    for lp in PAIRS:
        docs = bundled.wmt24_esa() / "txt" / "documents" / f"{lp}.docs"
        count = len(docs.read_text(encoding="utf-8").splitlines())
        numbers = range(1, count + 1)
        texts = {
            f"sources/{lp}.txt": [f"{lp} source {n}" for n in numbers],
            f"references/{lp}.refA.txt": [f"{lp} reference {n}" for n in numbers],
        }
        for name in sorted(systems[lp]):
            texts[f"system-outputs/{lp}/{name}.txt"] = [
                f"{lp} {name} {n} ".ljust(needed[lp, name, n], "x") for n in numbers
            ]
        for name, lines in texts.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        (folder / "documents").mkdir(exist_ok=True)
        (folder / "documents" / docs.name).write_bytes(docs.read_bytes())
    return folder


@pytest.fixture
def imported(db, tmp_path):
    import_wmt(placeholder_testset(tmp_path))
    return "\n".join(import_judgments(waves()).lines())


def test_the_waves_import_as_released(imported):
    assert "esa_generalMT2024_wave2.csv: wmt24 en-cs: 11 rows repeat an earlier row" in imported
    repeats = sum(
        int(line.split(": ")[2].split()[0].replace(",", ""))
        for line in imported.splitlines()
        if "rows repeat an earlier row exactly" in line
    )
    assert repeats == 95 + 87
    assert "(line 1072 kept, repeated at 1097" in imported
    assert ExternalJudgment.objects.count() == 20_434 + 11_299 - repeats


def test_system_scores_are_wmt24s_official_table(imported, tmp_path):
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


def test_the_protocol_is_said_and_micro_and_wmt22_are_other_tables(imported, tmp_path):
    from io import StringIO

    said = StringIO()
    out = tmp_path / "s.csv"
    call_command("system_scores", "--source", "esa", "--out", str(out), stdout=said)
    assert "protocol wmt24: mean over domains" in said.getvalue()
    assert "the judgments' test set year 2024" in said.getvalue()
    for extra in (["--micro"], ["--protocol", "wmt22"]):
        call_command("system_scores", "--source", "esa", "--out", str(out), *extra, verbosity=0)
        other = pd.read_csv(out)
        assert other["protocol"].iat[0] != protocols.describe("wmt24")
        cs = other[other["lp"] == "en-cs"]["system"].tolist()
        assert cs != ORGANISERS[ORGANISERS["lp"] == "en-cs"]["system"].tolist()
    with pytest.raises(CommandError, match="WMT24's protocol ranks per-rater ESA or MQM"):
        call_command("system_scores", "--out", str(out), "--protocol", "wmt24", verbosity=0)
