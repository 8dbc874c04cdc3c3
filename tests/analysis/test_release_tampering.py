"""A release is checked against this software's schema for its format, never against what its
own datapackage.json claims: each tampering below is refused by `import_wojdb`, which then
writes nothing. A written release passes the Frictionless validator."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import frictionless
import pandas as pd
import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command

from analysis.models import Metric
from survey.models import Participant, Rating, Study
from tests.analysis.release_files import copied, exported, restamp
from tests.analysis.test_frames import add_raters
from wojdb.core.release import load, read

pytestmark = pytest.mark.django_db
INJECTION = '=HYPERLINK("http://example.org/x","click")'


@pytest.fixture(scope="module")
def release(django_db_setup, django_db_blocker, tmp_path_factory):
    """One exported release, a participant's nationality a spreadsheet formula; the database is
    left as it was."""

    def inject(rated):
        Participant.objects.filter(pk=rated.people["full"].pk).update(nationality=INJECTION)
        rating = Rating.objects.filter(participant=rated.people["full"], practice=False).first()
        Rating.objects.filter(pk=rating.pk).update(comment=INJECTION)
        # Five real participants in all: the participant model is estimable, so the release
        # holds the adjusted scores tampered with below.
        add_raters(rated, 2)

    return exported(django_db_blocker, tmp_path_factory, inject)


@pytest.fixture
def copy(release, tmp_path):
    return copied(release, tmp_path)


def csv(folder: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(folder / name, dtype=str, keep_default_na=False)


def put(folder: Path, name: str, frame: pd.DataFrame, **restamping) -> None:
    (folder / name).write_text(frame.to_csv(index=False, lineterminator="\n"), encoding="utf-8")
    restamp(folder, **restamping)


def package(folder: Path) -> dict:
    return json.loads((folder / "datapackage.json").read_text())


def set_package(folder: Path, descriptor) -> None:
    (folder / "datapackage.json").write_text(json.dumps(descriptor))


def refused(path: Path) -> str:
    """import_wojdb's error for `path`; the database stays empty."""
    with pytest.raises(CommandError) as error:
        call_command("import_wojdb", str(path), verbosity=0)
    assert not (Study.objects.exists() or Rating.objects.exists() or Metric.objects.exists())
    with pytest.raises(CommandError):
        call_command("import_wojdb", str(path), "--check", verbosity=0)
    return str(error.value)


def test_a_written_release_is_a_valid_frictionless_data_package(release):
    report = frictionless.validate(str(release / "datapackage.json"))
    assert report.valid, report.flatten(["title", "message"])
    call_command("import_wojdb", str(release), "--check", verbosity=0)


def field(descriptor: dict, resource: str, name: str) -> dict:
    found = next(r for r in descriptor["resources"] if r["name"] == resource)
    return next(f for f in found["schema"]["fields"] if f["name"] == name)


def test_limits_dropped_from_the_descriptor_are_not_trusted(copy):
    descriptor = package(copy)
    del field(descriptor, "ratings", "holistic")["constraints"]
    del field(descriptor, "participants", "age")["constraints"]
    set_package(copy, descriptor)
    ratings, people = csv(copy, "ratings.csv"), csv(copy, "participants.csv")
    ratings.loc[1, "holistic"], people.loc[0, "age"] = "9", "70000"
    put(copy, "ratings.csv", ratings)
    put(copy, "participants.csv", people)
    found = refused(copy)
    assert (
        "the schema of resource ratings differs from the ratings.csv of release format 5" in found
    )
    assert "the schema of resource participants differs" in found


def test_values_beyond_the_projects_own_limits_are_refused_whatever_the_descriptor(copy):
    people = csv(copy, "participants.csv")
    people.loc[0, "age"] = "70000"
    put(copy, "participants.csv", people)
    assert "participants.csv, line 2, field age: 70000 is above the maximum 120" in refused(copy)


@pytest.mark.parametrize(
    "file, column, value, message",
    [
        ("items.csv", "wmt_score", "1_0", "'1_0' is not a number"),
        ("items.csv", "wmt_score", "nan", "'nan' is not a number"),
        ("items.csv", "wmt_score", "inf", "'inf' is not a number"),
        ("items.csv", "wmt_score", "\u0663", "'\u0663' is not a number"),
        ("items.csv", "wmt_score", "1e999", "'1e999' is not a number"),
        ("items.csv", "wmt_score", "+0.5", "'+0.5' is not a number"),
        ("participants.csv", "age", "\u0663\u0663", "'\u0663\u0663' is not an integer"),
        ("participants.csv", "age", "+30", "'+30' is not an integer"),
        ("participants.csv", "age", "30.0", "'30.0' is not an integer"),
        ("participants.csv", "age", "9" * 19, f"'{'9' * 19}' is not an integer"),
    ],
)
def test_a_number_python_reads_but_no_file_means_is_refused(copy, file, column, value, message):
    frame = csv(copy, file)
    index, line = first_row(frame, frame[column] != "")
    frame.loc[index, column] = value
    put(copy, file, frame)
    assert f"{file}, line {line}, field {column}: {message}" in refused(copy)


def test_an_allowed_value_added_to_the_descriptor_is_not_trusted(copy):
    descriptor = package(copy)
    field(descriptor, "participants", "status")["constraints"]["enum"].append("hacked")
    set_package(copy, descriptor)
    assert "the schema of resource participants differs" in refused(copy)


def test_a_deleted_row_is_caught_by_the_files_hash(copy):
    ratings = csv(copy, "ratings.csv")
    (copy / "ratings.csv").write_text(ratings.iloc[:-1].to_csv(index=False, lineterminator="\n"))
    found = refused(copy)
    assert "ratings.csv: " in found and "not the" in found and "changed or cut" in found


def test_a_deleted_row_is_caught_by_the_row_count_when_the_hash_is_redone(copy):
    ratings = csv(copy, "ratings.csv")
    put(copy, "ratings.csv", ratings.iloc[:-1], rows=False)
    assert f"ratings.csv: {len(ratings) - 1} rows, not the {len(ratings)}" in refused(copy)


def test_a_missing_hash_is_refused(copy):
    descriptor = package(copy)
    del descriptor["resources"][0]["hash"]
    set_package(copy, descriptor)
    assert "resource items states no bytes and sha256: hash" in refused(copy)


@pytest.mark.parametrize(
    "file, column, value",
    [
        ("ratings.csv", "holistic01", "0.9"),
        ("ratings.csv", "seconds", "12345.5"),
        ("items.csv", "wmt_score", "0.123"),
        ("participants.csv", "languages_score", "99"),
    ],
)
def test_derived_columns_are_recomputed_and_must_agree(copy, file, column, value):
    frame = csv(copy, file)
    frame.loc[1, column] = value
    put(copy, file, frame)
    assert f"{file}, line 3, field {column}: {value} disagrees with the" in refused(copy)


def first_row(frame: pd.DataFrame, mask) -> tuple[int, int]:
    """The index and the CSV line number (header = line 1) of the first row in `mask`."""
    index = int(mask.to_numpy().nonzero()[0][0])
    return index, index + 2


@pytest.mark.parametrize("column", ["holistic01_adjusted", "order01_adjusted"])
def test_an_edited_adjusted_score_disagrees_with_the_refit(copy, column):
    ratings = csv(copy, "ratings.csv")
    index, line = first_row(ratings, ratings[column] != "")
    ratings.loc[index, column] = str(float(ratings.loc[index, column]) + 0.01)
    put(copy, "ratings.csv", ratings)
    assert f"ratings.csv, line {line}, field {column}: " in refused(copy)


def test_an_answer_changed_with_its_0_1_value_no_longer_fits_the_adjusted_scores(copy):
    """The answer and its 0-1 value agree; the participant model refitted on the changed
    answers moves the adjusted scores, so the stale ones are caught."""
    ratings = csv(copy, "ratings.csv")
    answered = ratings["holistic"].isin(["1", "2", "3", "4"]) & (ratings["practice"] == "false")
    index, line = first_row(ratings, answered)
    answer = int(ratings.loc[index, "holistic"]) + 1
    ratings.loc[index, ["holistic", "holistic01"]] = [str(answer), str((answer - 1) / 4)]
    put(copy, "ratings.csv", ratings)
    assert f"ratings.csv, line {line}, field holistic01_adjusted: " in refused(copy)


def test_a_permutation_score_no_maximum_degree_gives_is_refused(copy):
    items = csv(copy, "items.csv")
    index, line = first_row(items, (items["kind"] == "permutation") & (items["degree"] != "1"))
    degree = int(items.loc[index, "degree"])
    # Halfway between the scores of two adjacent maximum degrees.
    score = 1 - (degree - 1) / (degree + 0.5 - 1)
    items.loc[index, "perm_quality"] = str(score)
    put(copy, "items.csv", items)
    assert (
        f"items.csv, line {line}, field perm_quality: is not eq. 6.2's score of the row's degree"
        in refused(copy)
    )


def test_a_degree_1_permutation_must_score_1(copy):
    items = csv(copy, "items.csv")
    perms = items["kind"] == "permutation"
    index, line = first_row(items, perms)
    items.loc[index, ["degree", "perm_quality"]] = ["1", "0.5"]
    put(copy, "items.csv", items)
    assert f"items.csv, line {line}, field perm_quality: " in refused(copy)


@pytest.mark.parametrize(
    "descriptor, message",
    [
        ([], "datapackage.json: is not a JSON object"),
        ({"resources": {"items": "items.csv"}}, "datapackage.json: has no list of resources"),
        ({"resources": ["items.csv"]}, "datapackage.json: resource 1 is not a JSON object"),
        ({"resources": [{"name": 3}]}, "resource 1 has no name or path (strings)"),
        ({"resources": [], "study": ["x"]}, "datapackage.json: its study is not a JSON object"),
    ],
)
def test_a_malformed_datapackage_is_a_clear_error(copy, descriptor, message):
    set_package(copy, descriptor)
    assert message in refused(copy)


def zipped(folder: Path, target: Path, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in folder.rglob("*"):
            if path.is_file():
                archive.write(path, f"wojdb/{path.relative_to(folder).as_posix()}")
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return target


def test_a_zip_that_expands_enormously_is_refused_before_filling_the_disk(release, tmp_path):
    bomb = zipped(release, tmp_path / "bomb.zip", {"wojdb/padding.bin": b"\0" * (300 << 20)})
    assert bomb.stat().st_size < 2 << 20
    found = refused(bomb)
    assert "bomb.zip: entry wojdb/padding.bin expands to 314572800 bytes from" in found


def test_a_zip_with_too_many_entries_is_refused(release, tmp_path, monkeypatch):
    monkeypatch.setattr(read, "ZIP_MAX_ENTRIES", 20)
    extra = {f"wojdb/notes/{n}.txt": b"x" for n in range(20)}
    found = refused(zipped(release, tmp_path / "many.zip", extra))
    entries = sum(1 for p in release.rglob("*") if p.is_file()) + len(extra)
    assert f"many.zip: holds {entries} entries; a release has at most 20" in found


def test_a_zip_entry_leaving_its_folder_is_refused(release, tmp_path):
    found = refused(zipped(release, tmp_path / "up.zip", {"../escape.txt": b"x"}))
    assert "up.zip: entries outside the archive's folder: ../escape.txt" in found
    assert not (tmp_path / "escape.txt").exists()


def test_text_is_escaped_in_csv_exact_in_parquet_and_loaded_exactly(release):
    for table, column in (("participants", "nationality"), ("ratings", "comment")):
        cells = set(csv(release, f"{table}.csv")[column])
        assert "'" + INJECTION in cells and INJECTION not in cells, column
        parquet = pq.read_table(release / "parquet" / f"{table}.parquet").to_pandas()
        assert INJECTION in set(parquet[column])
    ratings, _ = load.load_release(release)
    assert INJECTION in set(ratings["nationality"])
    assert INJECTION in set(read.read_release(release).tables["ratings"]["comment"])
    readme = (release / "README.md").read_text()
    assert "formula injection as OWASP advises" in readme and "Every text cell" in readme
