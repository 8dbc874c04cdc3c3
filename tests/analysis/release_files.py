"""Releases in tests: one exported per test module (`exported`), copied per test (`copied`);
after changing a file, `restamp` states its new size, hash and rows in datapackage.json, so a
test reaches the check it is about rather than the integrity check (which
tests/analysis/test_release_tampering.py tests)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
from django.db import transaction

from analysis import releases
from survey.models import Rating, Study
from tests.analysis.test_frames import build_rated_study
from wojdb.core.release.read import file_stamp


def exported(django_db_blocker, tmp_path_factory, prepare=None) -> Path:
    """A release of build_rated_study (after `prepare(rated)`, if given), its simulated
    participant included; the database is left as it was."""
    out = tmp_path_factory.mktemp("release") / "wojdb"
    with django_db_blocker.unblock(), transaction.atomic():
        rated = build_rated_study()
        if prepare is not None:
            prepare(rated)
        releases.export_release(rated.study, out, license="CC-BY-4.0", include_simulated=True)
        transaction.set_rollback(True)
    return out


MARKED_AT = "2026-12-01T10:00:0{}.250000+00:00"


def add_marks(rated) -> list[Rating]:
    """Word marks in build_rated_study: the consenting participant marks two units of their
    first pair and says none are out of place on the second; the others are not answered.
    Returns that participant's ratings, practice left out, in order."""
    Study.objects.filter(pk=rated.study.pk).update(word_marks=True)
    ratings = list(
        Rating.objects.filter(participant=rated.people["full"], practice=False).order_by("position")
    )
    words = ratings[0].item.text.split()
    ratings[0].marks = [[0, words[0], MARKED_AT.format(1)], [2, words[2], MARKED_AT.format(2)]]
    ratings[1].marks = []
    Rating.objects.bulk_update(ratings[:2], ["marks"])
    return ratings


def copied(release: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(release, target)
    return target


def restamp(folder: Path, *, rows: bool = True) -> None:
    path = folder / "datapackage.json"
    package = json.loads(path.read_text(encoding="utf-8"))
    for resource in package["resources"]:
        with open(folder / resource["path"], "rb") as handle:
            resource["bytes"], resource["hash"] = file_stamp(handle)
        if rows and "rows" in resource:
            resource["rows"] = len(pd.read_csv(folder / resource["path"], dtype=str))
    path.write_text(json.dumps(package, indent=2), encoding="utf-8")
