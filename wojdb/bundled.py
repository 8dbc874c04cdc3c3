"""Real WMT data bundled with the repository for the tests and benchmarks.

The WMT21 into-English slice (texts, document ids, DA judgments and segment scores, system-level
scores) is kept compressed in `fixtures/wmt21-toen.tar.xz` and unpacked on first use into the
ignored `var/data/`, in a folder named after the archive's digest, so a changed archive is
unpacked anew and concurrent first uses never see a half-written folder. The WMT22
into-English DA judgments (the columns a crossed fit needs) are one xz-compressed table,
`fixtures/wmt22-toen-da.tsv.xz`, read as it is. WMT22's into-English DA system tables with a
slice of their segment scores (`fixtures/wmt22-toen-tables.tar.xz`) and Google's TED MQM files
(`fixtures/ted-mqm.tar.xz`) are unpacked as the WMT21 slice is, and so are WMT24's ESA waves 2
and 3 with their pairs' domains (`fixtures/wmt24-esa.tar.xz`) and WMT20's DA and MQM slices
(`fixtures/wmt20-human.tar.xz`).
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

from wojdb.core.language.codes import language

REPO = Path(__file__).resolve().parent.parent
WMT21_TOEN = REPO / "fixtures" / "wmt21-toen.tar.xz"
#: Tab-separated, xz: lp, rater, system, sid, type (SYSTEM or REPEAT), score (layout in
#: fixtures/README.md).
WMT22_TOEN_DA = REPO / "fixtures" / "wmt22-toen-da.tsv.xz"
WMT22_TOEN_TABLES = REPO / "fixtures" / "wmt22-toen-tables.tar.xz"
TED_MQM = REPO / "fixtures" / "ted-mqm.tar.xz"
WMT24_ESA = REPO / "fixtures" / "wmt24-esa.tar.xz"
WMT20_HUMAN = REPO / "fixtures" / "wmt20-human.tar.xz"


def wmt21_toen() -> Path:
    """The unpacked `wmt21-toen` folder (layout in fixtures/README.md)."""
    return unpack(WMT21_TOEN) / "wmt21-toen"


def wmt21_toen_pairs() -> list[tuple[str, str]]:
    """Every (output, reference A) pair of the WMT21 into-English slice's system outputs, in
    file order, leaving out lines where either is empty."""
    pairs, txt = [], wmt21_toen() / "txt"
    for output in sorted((txt / "system-outputs").glob("newstest2021.*.hyp.*.en")):
        language_pair = output.name.split(".")[1]
        reference = txt / "references" / f"newstest2021.{language_pair}.ref.A.en"
        hyps = output.read_text(encoding="utf-8").splitlines()
        refs = reference.read_text(encoding="utf-8").splitlines()
        pairs.extend((h, r) for h, r in zip(hyps, refs, strict=True) if h.strip() and r.strip())
    return pairs


def wmt22_toen_tables() -> Path:
    """The unpacked `wmt22-toen-tables` folder: WMT22's into-English DA system tables and a
    slice of its segment scores (fixtures/README.md)."""
    return unpack(WMT22_TOEN_TABLES) / "wmt22-toen-tables"


def ted_mqm() -> Path:
    """The unpacked `ted-mqm` folder: Google's MQM error files and segment scores of WMT21's TED
    talks, en-de and zh-en (fixtures/README.md)."""
    return unpack(TED_MQM) / "ted-mqm"


def wmt20_human() -> Path:
    """The unpacked `wmt20-human` folder: WMT20's DA system scores with the segment scores of
    some systems (`da/`) and Google's newstest2020 MQM segment scores of some systems with the
    repository's README (`mqm/`) (fixtures/README.md)."""
    return unpack(WMT20_HUMAN) / "wmt20-human"


def wmt24_esa() -> Path:
    """The unpacked `wmt24-esa` folder: WMT24's ESA waves 2 and 3 as released
    (`humeval/esa_generalMT2024_wave*.csv`) and the `txt/documents/LP.docs` of their pairs
    (fixtures/README.md)."""
    return unpack(WMT24_ESA) / "wmt24-esa"


def wmt24_esa_waves() -> list[Path]:
    """The bundled ESA waves 2 and 3 of WMT24, as released."""
    return [wmt24_esa() / "humeval" / f"esa_generalMT2024_wave{n}.csv" for n in (2, 3)]


def wmt24_esa_texts(root: Path) -> Path:
    """A test set for the bundled waves, written under `root`: an mt-metrics-eval folder
    `wmt24/` of their four pairs with the release's `documents/LP.docs` (every line's domain
    and document) and placeholder texts (`LP source N`; the texts are not bundled), every
    system rated with outputs as long as the spans rated on them need."""
    needed = defaultdict(int)
    for path in wmt24_esa_waves():
        for row in csv.reader(path.read_text(encoding="utf-8").splitlines()):
            if "tutorial" not in row[1] and row[1] != "refA" and row[3] == "TGT":
                ends = [s["end_i"] for s in json.loads(row[9]) if s["end_i"] != "missing"]
                key = (f"{language(row[4])}-{language(row[5])}", row[1], int(row[2]) + 1)
                needed[key] = max([needed[key], *ends])
    systems = defaultdict(set)
    for lp, name, _ in needed:
        systems[lp].add(name)
    folder = root / "wmt24"
    for lp in sorted(systems):
        docs = wmt24_esa() / "txt" / "documents" / f"{lp}.docs"
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


def unpack(archive: Path, into: Path = REPO / "var" / "data") -> Path:
    """Unpack `archive` once into a folder of `into` named by its digest; return that folder."""
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()[:16]
    target = into / f"{archive.name.split('.')[0]}-{digest}"
    if target.is_dir():
        return target
    into.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=into, prefix=".unpacking-"))
    try:
        with tarfile.open(archive) as tar:
            tar.extractall(staging, filter="data")
        os.rename(staging, target)
    except OSError:
        if not target.is_dir():  # not another process that finished first
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
