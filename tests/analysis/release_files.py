"""Editing a written release in tests: after changing a file, `restamp` states its new size,
hash and rows in datapackage.json, so a test reaches the check it is about rather than the
integrity check (which tests/analysis/test_release_tampering.py tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from analysis.release.read import file_stamp


def restamp(folder: Path, *, rows: bool = True) -> None:
    path = folder / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    for resource in package["resources"]:
        with open(folder / resource["path"], "rb") as handle:
            resource["bytes"], resource["hash"] = file_stamp(handle)
        if rows and "rows" in resource:
            resource["rows"] = len(pd.read_csv(folder / resource["path"], dtype=str))
    path.write_text(json.dumps(package, indent=2), encoding="utf-8")
