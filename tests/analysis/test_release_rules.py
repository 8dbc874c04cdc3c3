"""What a release import checks beyond each file's schema: the links between tables the live
database keeps, one release per zip, the release's format, and files nobody named."""

from __future__ import annotations

import csv
import json
import zipfile
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
from django.core.management import CommandError, call_command

import wojdb
from survey.models import ConsentText, Study
from tests.analysis.release_files import copied, exported, restamp
from wojdb.core.release import load, read, schema

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def release(django_db_setup, django_db_blocker, tmp_path_factory):
    """One exported release for every test here; the database is left as it was."""
    return exported(django_db_blocker, tmp_path_factory)


@pytest.fixture
def copy(release, tmp_path):
    return copied(release, tmp_path)


def table(folder: Path, name: str) -> pd.DataFrame:
    return pd.read_csv(folder / name, dtype=str, keep_default_na=False)


def write(folder: Path, name: str, frame: pd.DataFrame) -> None:
    (folder / name).write_text(frame.to_csv(index=False, lineterminator="\n"), encoding="utf-8")
    restamp(folder)


def edit_package(folder: Path, **changes) -> None:
    package = json.loads((folder / "datapackage.json").read_text())
    (folder / "datapackage.json").write_text(json.dumps({**package, **changes}))


def check(path: Path, *args: str) -> str:
    out = StringIO()
    call_command("import_wojdb", str(path), "--check", *args, stdout=out, verbosity=0)
    return out.getvalue()


def refusal(path: Path, *args: str) -> str:
    with pytest.raises(CommandError) as error:
        check(path, *args)
    return str(error.value)


def test_the_exported_release_passes_every_rule(release):
    assert "is a valid release" in check(release)
    assert json.loads((release / "datapackage.json").read_text())["format_version"] == 5


def test_a_rating_of_an_item_outside_the_participants_questionnaire_is_refused(copy):
    ratings, entries = table(copy, "ratings.csv"), table(copy, "questionnaires.csv")
    people = table(copy, "participants.csv").set_index("participant")["questionnaire"]
    row = ratings.index[ratings["position"] != "0"][0]
    own = people[ratings.at[row, "participant"]]
    mine = entries.loc[entries["questionnaire"] == own, "item"]
    foreign = entries.loc[~entries["item"].isin(mine), "item"]
    before = ratings.at[row, "item"]
    ratings.at[row, "item"] = foreign.iloc[0]
    write(copy, "ratings.csv", ratings)
    found = refusal(copy)
    position = ratings.at[row, "position"]
    assert (
        f"ratings.csv, line {row + 2}, field item: item {foreign.iloc[0]} is not in participant "
        f"{ratings.at[row, 'participant']}'s questionnaire {own} at position {position} "
        f"(item {before} is)"
    ) in found
    assert "Nothing was written" in found


def test_the_practice_item_and_flag_must_agree_with_the_study(copy):
    ratings = table(copy, "ratings.csv")
    practice = ratings.index[ratings["position"] == "0"]
    person = ratings.at[practice[0], "participant"]
    theirs = ratings.loc[ratings["participant"] == person, "item"]
    other = ratings.loc[~ratings["item"].isin(theirs), "item"].iloc[0]
    ratings.at[practice[0], "item"] = other
    ratings.at[practice[1], "practice"] = "false"
    write(copy, "ratings.csv", ratings)
    found = refusal(copy)
    sample = json.loads((copy / "datapackage.json").read_text())["study"]["sample_item"]
    assert (
        f"line {practice[0] + 2}, field item: item {other} at position 0 is "
        f"not the study's practice item ({sample})"
    ) in found
    assert f"line {practice[1] + 2}, field practice: practice is true at position 0" in found


def test_questionnaire_positions_must_run_from_one(copy):
    entries = table(copy, "questionnaires.csv")
    last = entries.index[entries["questionnaire"] == entries.at[0, "questionnaire"]][-1]
    gap = entries.at[last, "position"]
    entries.at[last, "position"] = "99"
    write(copy, "questionnaires.csv", entries)
    found = refusal(copy)
    questionnaire = entries.at[0, "questionnaire"]
    assert (
        f"questionnaires.csv, field position: questionnaire {questionnaire} has no position "
        f"{gap}, "  # 99 leaves every position after the last open
    ) in found
    assert f"'s questionnaire {questionnaire} has no position {gap}" in found  # its ratings


def edit_study(folder: Path, **changes) -> None:
    package = json.loads((folder / "datapackage.json").read_text())
    edit_package(folder, study={**package["study"], **changes})


def load_into_database(folder: Path) -> None:
    call_command("import_wojdb", str(folder), stdout=StringIO(), verbosity=0)


CONSENT = {"version": 1, "statements": ["I agree to take part.", "I may withdraw."]}


@pytest.mark.parametrize(
    "study, message",
    [
        (dict(consent_texts="oops"), "study.consent_texts: a list of objects"),
        (
            dict(consent_texts=[{**CONSENT, "sharing": 3}]),
            "study.consent_texts[0].sharing: is a statement number from 1 to 2, not 3",
        ),
        (
            dict(consent_texts=[{**CONSENT, "optional": [0]}]),
            "study.consent_texts[0].optional: optional[1]: 0 is out of range",
        ),
        (
            dict(consent_texts=[{**CONSENT, "statements": []}]),
            "study.consent_texts[0].statements: This field cannot be blank. lists 0 entries; it "
            "needs 1 to 100",
        ),
        (
            dict(consent_texts=[{"statements": ["I agree."]}]),
            "study.consent_texts[0].version: This field cannot be null.",
        ),
        (dict(consent_texts=[CONSENT, CONSENT]), "study.consent_texts[1]: version 1 twice"),
        (dict(shared_items="12"), "study.shared_items: a list of item ids"),
        (dict(sample_item=[1, 2]), "study.sample_item: [1, 2] is not an item id"),
        (dict(slug=""), "study: name and slug are required"),
    ],
)
def test_a_malformed_study_configuration_is_refused_writing_nothing(copy, study, message):
    edit_study(copy, **study)
    with pytest.raises(CommandError) as error:
        load_into_database(copy)
    assert message in str(error.value) and "Nothing was written" in str(error.value)
    assert not Study.objects.exists()


def test_consent_texts_released_without_optional_and_sharing_statements_get_none(copy):
    """Releases before they carried them: every statement needs a Yes, none is on sharing."""
    edit_study(copy, consent_texts=[CONSENT])
    load_into_database(copy)
    consent = ConsentText.objects.get()
    assert consent.statements == CONSENT["statements"]
    assert (consent.optional, consent.sharing) == ([], None)


def test_a_zip_holding_two_releases_is_refused_naming_both(release, tmp_path):
    archive = tmp_path / "two.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for name in ("first", "second"):
            for path in release.rglob("*"):
                if path.is_file():
                    out.write(path, f"{name}/{path.relative_to(release).as_posix()}")
    found = refusal(archive)
    assert "two.zip: holds 2 releases, first/, second/; import one at a time" in found


def test_a_release_of_a_later_format_is_refused_naming_both_versions(copy):
    edit_package(copy, format_version=6, software_version="9.0.0")
    found = refusal(copy)
    assert (
        "datapackage.json, field format_version: the release is in format 6, written by WOJ-DB "
        f"9.0.0; this WOJ-DB {wojdb.__version__} reads formats 1 to 5"
    ) in found


def test_a_format_three_release_has_no_judgments(copy):
    edit_package(copy, format_version=3)
    assert "datapackage.json: unknown resource judgments" in refusal(copy)
    as_format(copy, 3)
    assert "is a valid release" in check(copy)


def test_a_format_four_release_asked_for_no_word_marks(copy):
    edit_package(copy, format_version=4)
    as_format(copy, 4)
    assert "is a valid release" in check(copy)
    tables = read.read_release(copy).tables
    assert tables["ratings"]["marked"].isna().all() and tables["marks"].empty


def test_a_newer_software_version_in_a_known_format_is_read_and_said(copy):
    edit_package(copy, software_version="9.0.0")
    out = check(copy)
    assert "is a valid release" in out
    assert f"written by WOJ-DB 9.0.0, newer than this {wojdb.__version__}" in out


def test_a_release_without_a_format_version_is_format_one(copy):
    package = json.loads((copy / "datapackage.json").read_text())
    del package["format_version"]
    (copy / "datapackage.json").write_text(json.dumps(package))
    # Format 1 had no participants.mode: a release that has it is not format 1.
    assert (
        "the schema of resource participants differs from the participants.csv of release format 1"
    ) in refusal(copy)
    as_format(copy, 1)
    assert "is a valid release" in check(copy)


def test_a_format_one_release_without_hashes_is_refused(copy):
    """Format 1 is read against its own schema, and its files' hashes are required as for any
    format: a release that states none cannot show it is whole."""
    as_format(copy, 1)
    package = json.loads((copy / "datapackage.json").read_text())
    package["format_version"] = 1
    for resource in package["resources"]:
        del resource["bytes"], resource["hash"]
    (copy / "datapackage.json").write_text(json.dumps(package))
    assert "resource participants states no bytes and sha256: hash" in refusal(copy)


def as_format(release: Path, version: int) -> None:
    """Make a current release's tables what release format `version` wrote: without the
    tables and columns added since (schema.ADDED_TABLES, ADDED_FIELDS), under the names they
    had (RENAMED_FIELDS). The caller states the format."""
    package = json.loads((release / "datapackage.json").read_text())
    later = {t for t, since in schema.ADDED_TABLES.items() if since > version}
    package["resources"] = [
        r for r in package["resources"] if r["name"].removesuffix("_parquet") not in later
    ]
    for table in later:
        (release / f"{table}.csv").unlink(missing_ok=True)
        (release / schema.PARQUET_DIR / f"{table}.parquet").unlink(missing_ok=True)
    dropped = {key for key, (since, _) in schema.ADDED_FIELDS.items() if since > version}
    renamed = {
        key: before for key, (since, before) in schema.RENAMED_FIELDS.items() if since > version
    }
    for table in {t for t, _ in dropped | set(renamed)}:
        path = release / f"{table}.csv"
        rows = list(csv.reader(path.open(encoding="utf-8", newline="")))
        keep = [i for i, name in enumerate(rows[0]) if (table, name) not in dropped]
        rows[0] = [renamed.get((table, name), name) for name in rows[0]]
        with path.open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle, quoting=csv.QUOTE_NONNUMERIC).writerows(
                [row[i] for i in keep] for row in rows
            )
        for resource in package["resources"]:
            if resource["name"] == table:
                fields = resource["schema"]["fields"]
                fields = [f for f in fields if (table, f["name"]) not in dropped]
                for f in fields:
                    f["name"] = renamed.get((table, f["name"]), f["name"])
                resource["schema"]["fields"] = fields
    (release / "datapackage.json").write_text(json.dumps(package))
    restamp(release)


def test_files_the_package_does_not_name_are_listed_and_refused_unless_allowed(copy, tmp_path):
    (copy / "notes.txt").write_text("mine")
    (copy / "parquet" / "old.parquet").write_bytes(b"PAR1")
    found = refusal(copy)
    assert (
        "copy: 2 file(s) the release's datapackage.json does not name: notes.txt, "
        "parquet/old.parquet"
    ) in found
    assert "is a valid release" in check(copy, "--allow-extra-files")
    archive = tmp_path / "beside.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("README-first.txt", "read me")
        for path in copy.rglob("*"):
            if path.is_file() and path.name not in ("notes.txt", "old.parquet"):
                out.write(path, f"wojdb/{path.relative_to(copy).as_posix()}")
    found = refusal(archive)
    assert (
        "beside.zip: 1 file(s) the release's datapackage.json does not name: README-first.txt"
    ) in found
    assert "is a valid release" in check(archive, "--allow-extra-files")


def test_load_release_refuses_extra_files_too(copy):
    (copy / "notes.txt").write_text("mine")
    with pytest.raises(read.ReleaseError, match="notes.txt"):
        load.load_release(copy)
    ratings, _ = load.load_release(copy, allow_extra_files=True)
    assert len(ratings)
