"""A release is read only from regular files within the release file budget
(wojdb.core.budgets): a device or a named pipe in place of a file, an oversized file, a header
of a million columns and an archive whose entries cannot be unpacked are each refused with a
line naming the file; a release whose ratings.csv is at the budget is read, as the others are
refused, in a fresh interpreter whose peak memory stays under 500 MB
(VmHWM: ru_maxrss would carry the forking parent's over exec)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from django.core.management import CommandError, call_command

from survey.models import Study
from tests.analysis.release_files import copied, exported, restamp
from wojdb.core.budgets import Budgets
from wojdb.core.release import derived
from wojdb.core.stats import columns as col

pytestmark = [pytest.mark.django_db, pytest.mark.engine_independent]
ROOT = Path(__file__).resolve().parents[2]
MEMORY_MB = 500
READ = """
import resource, sys
from wojdb.core.release.read import ReleaseError, read_release
try:
    print("read", len(read_release(sys.argv[1]).tables["ratings"]), "ratings")
except ReleaseError as e:
    print(e)
hwm = [f for f in open("/proc/self/status") if f.startswith("VmHWM:")]
print("peak", int(hwm[0].split()[1]) // 1024)
"""


@pytest.fixture(scope="module")
def release(django_db_setup, django_db_blocker, tmp_path_factory):
    return exported(django_db_blocker, tmp_path_factory)


@pytest.fixture
def copy(release, tmp_path):
    return copied(release, tmp_path)


def read_in_child(folder: Path, env: dict[str, str] | None = None) -> tuple[str, int]:
    """What read_release says of `folder`, and its peak memory in MB, in a fresh interpreter
    (no Django: the researchers' loader). A read that never ends fails the test."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("WOJDB_MAX_")}
    result = subprocess.run(
        [sys.executable, "-c", READ, str(folder)],
        cwd=ROOT,
        env=base | (env or {}),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    *lines, peak = result.stdout.splitlines()
    return "\n".join(lines), int(peak.split()[1])


def test_a_device_as_a_release_file_is_refused(copy):
    (copy / "ratings.csv").unlink()
    (copy / "ratings.csv").symlink_to("/dev/zero")
    said, _ = read_in_child(copy)
    assert said == "ratings.csv: is not a regular file (a device, named pipe or socket): refused"


def test_a_named_pipe_as_datapackage_json_is_refused(copy):
    (copy / "datapackage.json").unlink()
    os.mkfifo(copy / "datapackage.json")
    said, _ = read_in_child(copy)
    assert said.startswith("datapackage.json: is not a regular file")


def test_a_file_over_the_budget_is_refused_naming_the_variable(copy):
    size = (copy / "ratings.csv").stat().st_size
    said, _ = read_in_child(copy, {"WOJDB_MAX_RELEASE_FILE_BYTES": str(size - 1)})
    assert (
        f"ratings.csv: is {size:,} bytes, over the budget of {size - 1:,} bytes "
        "(WOJDB_MAX_RELEASE_FILE_BYTES raises it)"
    ) in said.splitlines()


def test_a_header_of_a_million_columns_is_refused_within_memory(copy):
    header = ",".join(f"c{n}" for n in range(1_000_000))
    (copy / "ratings.csv").write_text(header + "\n" + "1," * 999_999 + "1\n")
    restamp(copy, rows=False)
    said, peak = read_in_child(copy)
    assert said == "ratings.csv, line 1: header over 65,536 bytes, not the header of ratings.csv"
    assert peak < MEMORY_MB


def test_a_header_with_unexpected_columns_lists_a_few_and_counts_them(copy):
    ratings = pd.read_csv(copy / "ratings.csv", dtype=str, keep_default_na=False)
    extra = pd.DataFrame({f"x{n}": [""] * len(ratings) for n in range(40)})
    pd.concat([ratings, extra], axis=1).to_csv(copy / "ratings.csv", index=False)
    restamp(copy, rows=False)
    said, _ = read_in_child(copy)
    assert said.startswith("ratings.csv, line 1: header does not match datapackage.json: ")
    assert said.endswith(", x29, ... (40 in all)")


def with_adjusted(ratings: pd.DataFrame, participants: pd.DataFrame, folder: Path) -> pd.DataFrame:
    """The copies' participant-adjusted scores as the release's reader refits them: copies make
    a participant model estimable that the original few participants could not carry."""

    def number(column):
        return pd.to_numeric(ratings[column].replace("", np.nan))

    items = pd.read_csv(folder / "items.csv", dtype=str, keep_default_na=False)
    frame = pd.DataFrame(
        {
            col.PARTICIPANT: ratings["participant"].astype(int),
            col.ITEM: ratings["item"].astype(int),
            col.PRACTICE: ratings["practice"].str.lower().isin(["true", "1"]),
            **{j: number(j) for j in col.JUDGMENTS},
            **{col.unit(j): number(col.unit(j)) for j in col.JUDGMENTS},
        }
    )
    people = participants.drop_duplicates("participant")
    tables = {
        "ratings": frame,
        "items": pd.DataFrame(
            {
                col.ITEM: items["item"].astype(int),
                col.KIND: items["kind"],
                col.PERM_TYPE: items["perm_type"].replace("", None),
            }
        ),
        "participants": pd.DataFrame(
            {
                col.PARTICIPANT: ratings["participant"].astype(int).unique(),
                col.SIMULATED: False,
            }
        ),
    }
    simulated = dict(
        zip(
            people["participant"].astype(int),
            people["simulated"].str.lower() == "true",
            strict=True,
        )
    )
    step = max(simulated)  # the copies' ids are the original's plus multiples of the largest
    tables["participants"][col.SIMULATED] = tables["participants"][col.PARTICIPANT].map(
        lambda p: simulated[(p - 1) % step + 1]
    )
    adjusted, _ = derived.participant_adjusted(tables)
    out = ratings.copy()
    for name, values in adjusted.items():
        out[name] = [repr(v) if pd.notna(v) else "" for v in values]
    return out


def inflate_ratings(folder: Path, target: int) -> int:
    """Copies of the release's participants (new ids, the same questionnaires, ratings and
    languages) until ratings.csv is just under `target` bytes; the ratings' count."""
    frames = {
        name: pd.read_csv(folder / f"{name}.csv", dtype=str, keep_default_na=False)
        for name in ("participants", "ratings", "participant_languages")
    }
    step = int(frames["participants"]["participant"].astype(int).max())

    def write(copies: int) -> int:
        for name, frame in frames.items():
            many = pd.concat([frame] * copies, ignore_index=True)
            shift = np.repeat(np.arange(copies) * step, len(frame))
            many["participant"] = (many["participant"].astype(int) + shift).astype(str)
            if name == "ratings":
                many = with_adjusted(many, frames["participants"], folder)
            many.to_csv(folder / f"{name}.csv", index=False, lineterminator="\n")
        return (folder / "ratings.csv").stat().st_size

    per_copy = len(frames["ratings"].to_csv(index=False, header=False).encode())
    copies = target // per_copy
    copies = int(copies * target / write(copies) * 0.999)  # longer ids take more bytes
    write(copies)
    restamp(folder)
    return copies * len(frames["ratings"])


@pytest.mark.slow
def test_a_release_whose_ratings_are_at_the_budget_is_read_within_memory(copy):
    budget = Budgets().release_file_bytes
    ratings = inflate_ratings(copy, budget)
    assert budget * 0.99 < (copy / "ratings.csv").stat().st_size <= budget
    said, peak = read_in_child(copy)
    assert said == f"read {ratings} ratings"
    assert peak < MEMORY_MB


def zipped(release: Path, target: Path, extra: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(release.rglob("*")):
            if path.is_file():
                archive.write(path, f"wojdb/{path.relative_to(release).as_posix()}")
        for name, data in extra.items():
            archive.writestr(name, data)
    return target


def refused(path: Path) -> str:
    with pytest.raises(CommandError) as error:
        call_command("import_wojdb", str(path), verbosity=0)
    assert not Study.objects.exists()
    return str(error.value)


@pytest.mark.parametrize(
    "extra, problem",
    [
        (
            {"wojdb/notes": b"x", "wojdb/notes/a.txt": b"y"},
            "entry wojdb/notes is both a file and a folder",
        ),
        (
            {"wojdb/" + "n" * 300 + ".txt": b"x"},
            f"entry wojdb/{'n' * 34}… (310 long): a name over 255 bytes",
        ),
        (
            {"wojdb/a.txt": b"x", "wojdb/./a.txt": b"y"},
            "entry wojdb/./a.txt is in the archive twice",
        ),
    ],
)
def test_zip_entries_that_cannot_be_unpacked_are_refused(release, tmp_path, extra, problem):
    found = refused(zipped(release, tmp_path / "bad.zip", extra))
    assert found == f"bad.zip: {problem}\nNothing was written."


def test_a_damaged_zip_is_refused(release, tmp_path):
    archive = zipped(release, tmp_path / "damaged.zip", {})
    data = bytearray(archive.read_bytes())
    start = data.index(b"PK\x03\x04") + 30 + len("wojdb/README.md")
    data[start : start + 64] = bytes(64)  # the first entry's deflated bytes
    archive.write_bytes(bytes(data))
    found = refused(archive)
    assert found.startswith("damaged.zip: cannot be unpacked: ")
