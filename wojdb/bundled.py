"""Real WMT data bundled with the repository for the tests and benchmarks.

The WMT21 into-English slice (texts, document ids, DA judgments and segment scores, system-level
scores) is kept compressed in `fixtures/wmt21-toen.tar.xz` and unpacked on first use into the
ignored `var/data/`, in a folder named after the archive's digest, so a changed archive is
unpacked anew and concurrent first uses never see a half-written folder. The WMT22
into-English DA judgments (the columns a crossed fit needs) are one xz-compressed table,
`fixtures/wmt22-toen-da.tsv.xz`, read as it is. WMT22's into-English DA system tables with a
slice of their segment scores (`fixtures/wmt22-toen-tables.tar.xz`) and Google's TED MQM files
(`fixtures/ted-mqm.tar.xz`) are unpacked as the WMT21 slice is, and so are WMT24's ESA waves 2
and 3 with their pairs' domains (`fixtures/wmt24-esa.tar.xz`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WMT21_TOEN = REPO / "fixtures" / "wmt21-toen.tar.xz"
#: Tab-separated, xz: lp, rater, system, sid, type (SYSTEM or REPEAT), score (layout in
#: fixtures/README.md).
WMT22_TOEN_DA = REPO / "fixtures" / "wmt22-toen-da.tsv.xz"
WMT22_TOEN_TABLES = REPO / "fixtures" / "wmt22-toen-tables.tar.xz"
TED_MQM = REPO / "fixtures" / "ted-mqm.tar.xz"
WMT24_ESA = REPO / "fixtures" / "wmt24-esa.tar.xz"


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


def wmt24_esa() -> Path:
    """The unpacked `wmt24-esa` folder: WMT24's ESA waves 2 and 3 as released
    (`humeval/esa_generalMT2024_wave*.csv`) and the `txt/documents/LP.docs` of their pairs
    (fixtures/README.md)."""
    return unpack(WMT24_ESA) / "wmt24-esa"


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
