"""A release's files against its datapackage.json, checked independently with pandas and json;
its codebook; loading without Django; and errors that name file, line and field."""

from __future__ import annotations

import io
import json
import math
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import wojdb
from tests.analysis.release_files import add_marks, exported, restamp
from wojdb.core.release import load, read, schema

ROOT = Path(__file__).resolve().parents[2]
# Marked so the test database is set up; the tests themselves only read files.
pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def release(django_db_setup, django_db_blocker, tmp_path_factory):
    """One exported release for every test here, word marks and all; the database is left as
    it was."""
    return exported(django_db_blocker, tmp_path_factory, add_marks)


def _cell_ok(value: str, field: dict) -> bool:
    kind = field.get("type", "string")
    if kind == "integer":
        return re.fullmatch(r"-?\d+", value) is not None
    if kind == "number":
        try:
            return not math.isnan(float(value))
        except ValueError:
            return False
    if kind == "boolean":
        return value in field["trueValues"] + field["falseValues"]
    if kind == "datetime":
        try:
            datetime.strptime(value, field["format"])
        except ValueError:
            return False
        return True
    if kind == "array":
        try:
            return isinstance(json.loads(value), list)
        except ValueError:
            return False
    return kind == "string"


ARROW_TYPES = {
    "integer": ("int64",),
    "number": ("double",),
    "boolean": ("bool",),
    "string": ("string", "large_string"),
    "datetime": ("timestamp[us, tz=UTC]",),
    "array": ("list<element: int64>", "list<element: string>", "list<item: int64>",
              "list<item: string>", "null"),
}  # fmt: skip


def test_every_file_matches_its_schema(release):
    package = json.loads((release / "datapackage.json").read_text())
    assert package["profile"] == "data-package"
    frames = {}
    schemas = {r["name"]: r["schema"] for r in package["resources"] if r["format"] == "csv"}
    for resource in package["resources"]:
        path = release / resource["path"]
        # A Parquet copy is a plain file to Frictionless; its columns are its CSV table's.
        schema = schemas[resource["name"].removesuffix("_parquet")]
        names = [f["name"] for f in schema["fields"]]
        if resource["format"] == "parquet":
            arrow = pq.read_schema(path)
            assert arrow.names == names, path
            for f in schema["fields"]:
                typed = str(arrow.field(f["name"]).type)
                # judgments.csv's errors: a list of objects, each error's keys typed
                objects = f["type"] == "array" and typed.startswith("list<element: struct<")
                assert objects or typed in ARROW_TYPES[f["type"]], (path, f)
            continue
        assert resource["path"].endswith(".csv") and resource["mediatype"] == "text/csv"
        data = pd.read_csv(path, dtype=str, keep_default_na=False)
        assert list(data.columns) == names, path
        assert len(data) > 0, f"{path} is empty"
        for f in schema["fields"]:
            values = data[f["name"]]
            present = values[values != ""]
            assert all(_cell_ok(v, f) for v in present), (path.name, f["name"])
            constraints = f.get("constraints", {})
            if constraints.get("required"):
                assert len(present) == len(values), (path.name, f["name"])
            if "enum" in constraints:
                assert set(present) <= set(constraints["enum"]), (path.name, f["name"])
            if "minimum" in constraints:
                assert (present.astype(float) >= constraints["minimum"]).all()
            if "maximum" in constraints:
                assert (present.astype(float) <= constraints["maximum"]).all()
        if key := schema.get("primaryKey"):
            assert not data.duplicated(key).any(), path.name
        frames[resource["name"]] = (data, schema)
    for data, schema in frames.values():
        for fk in schema.get("foreignKeys", []):
            target = frames[fk["reference"]["resource"]][0]
            child = data[fk["fields"]].apply(tuple, axis=1)
            parent = set(target[fk["reference"]["fields"]].apply(tuple, axis=1))
            assert child.isin(parent).all(), fk


def test_package_records_versions_and_the_study(release):
    package = json.loads((release / "datapackage.json").read_text())
    assert package["version"] == package["release_version"] == "1.0"
    assert package["software_version"] == wojdb.__version__ == "0.1.0"
    assert package["licenses"] == [{"name": "CC-BY-4.0"}]
    study = package["study"]
    assert study["items_per_questionnaire"] == 50 and study["max_degree"] == 18
    assert study["consent_texts"][0]["statements"]
    assert not {"researcher_email", "supervisor_email", "platform_return_url"} & set(study)
    csvs = {r["name"] for r in package["resources"] if r["format"] == "csv"}
    assert csvs == {t.name for t in schema.TABLES}
    assert package["counts"]["ratings"] == len(pd.read_csv(release / "ratings.csv"))


def test_readme_is_a_codebook(release):
    readme = (release / "README.md").read_text()
    package = json.loads((release / "datapackage.json").read_text())
    assert package["study"]["name"] in readme and "release 1.0" in readme
    assert f"WOJ-DB {wojdb.__version__}" in readme
    assert package["study"]["holistic_question"] in readme
    for table in schema.TABLES:
        section = readme.split(f"### {table.path}")[1].split("###")[0]
        for name in table.names:
            assert f"| `{name}` |" in section, (table.path, name)


def test_load_release_needs_no_django(release):
    code = (
        "import sys; from wojdb.core.release import load_release; "
        f"r, s = load_release({str(release)!r}); "
        "assert 'django' not in sys.modules; print(len(r), len(s))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    ratings, scores = map(int, done.stdout.split())
    assert ratings > 0 and scores > 0


def test_wojdb_release_loads_a_release_without_importing_django(release):
    """The package's entry point for researchers who only want the data."""
    code = (
        "import sys; from wojdb.release import load_release; "
        "imported = any(m == 'django' or m.startswith('django.') for m in sys.modules); "
        f"r, s = load_release({str(release)!r}); "
        "loaded = any(m == 'django' or m.startswith('django.') for m in sys.modules); "
        "print(imported, loaded, len(r), len(s))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    imported, loaded, ratings, scores = done.stdout.split()
    assert (imported, loaded) == ("False", "False")
    assert int(ratings) > 0 and int(scores) > 0


def _broken(release, tmp_path, edits: dict[str, callable]) -> str:
    copy = tmp_path / "broken"
    shutil.copytree(release, copy)
    for file, edit in edits.items():
        path = copy / file
        path.write_text(edit(path.read_text()), encoding="utf-8")
    if "datapackage.json" not in edits:
        restamp(copy)
    with pytest.raises(read.ReleaseError) as error:
        read.read_release(copy)
    return str(error.value)


def _set_cells(*changes):
    """An edit of a CSV text setting (line, column) cells; line 1 is the header."""

    def edit(text: str) -> str:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        for line, column, value in changes:
            frame.loc[line - 2, column] = value
        return frame.to_csv(index=False, lineterminator="\n")

    return edit


def test_bad_values_are_named_by_file_line_and_field(release, tmp_path):
    found = _broken(
        release,
        tmp_path,
        {
            "ratings.csv": _set_cells((3, "order", "x"), (2, "shown_at", "yesterday")),
            "items.csv": _set_cells(
                (2, "text", ""), (3, "perm_type", "shuffle"), (3, "moved", "[1,")
            ),
            "participants.csv": _set_cells((2, "simulated", "maybe"), (3, "participant", "")),
        },
    )
    for message in [
        "ratings.csv, line 3, field order: 'x' is not an integer",
        "ratings.csv, line 2, field shown_at: 'yesterday' is not a date-time",
        "items.csv, line 2, field text: a value is required",
        "items.csv, line 3, field perm_type: 'shuffle' is not one of order, swap",
        "items.csv, line 3, field moved: '[1,' is not a JSON array",
        "participants.csv, line 2, field simulated: 'maybe' is not true or false",
        "participants.csv, line 3, field participant: a value is required",
    ]:
        assert message in found


def test_broken_links_between_files_are_named(release, tmp_path):
    found = _broken(
        release,
        tmp_path,
        {
            "ratings.csv": _set_cells((5, "item", "999999")),
            "questionnaires.csv": _set_cells((4, "position", "1")),
            "metric_scores.csv": _set_cells((2, "metric", "BLUE")),
        },
    )
    for message in [
        "ratings.csv, line 5, field item: 999999 is not in items.csv",
        "questionnaires.csv, line 4, field questionnaire, position: duplicate primary key",
        "metric_scores.csv, line 2, field metric: does not match metrics.csv",
    ]:
        assert message in found


def test_a_wrong_header_or_package_is_reported(release, tmp_path):
    found = _broken(release, tmp_path, {"items.csv": lambda t: t.replace("kind", "sort", 1)})
    assert "items.csv, line 1: header does not match datapackage.json" in found
    found = _broken(release, tmp_path / "2", {"datapackage.json": lambda t: t[:-3]})
    assert "datapackage.json: not valid JSON" in found


def _csv_rows(path: Path) -> list[dict]:
    return pd.read_csv(path, dtype=str, keep_default_na=False).to_dict("records")


def test_the_release_holds_the_imported_judgments_of_its_own_hypotheses(release):
    """build_rated_study's judgments (tests/analysis/test_frames.py: add_judgments): those of
    the shared hypothesis and of the first permutation's triple, not those of a triple the
    study does not rate nor ESA's document score; the system named as items.csv names it."""
    rows = _csv_rows(release / "judgments.csv")
    items = pd.read_csv(release / "items.csv", dtype=str, keep_default_na=False)
    shared = json.loads((release / "datapackage.json").read_text())["study"]["shared_items"]
    judged = items[items["item"] == str(shared[0])].iloc[0]
    triple = {k: judged[k] for k in ("testset", "source_lang", "target_lang", "ref_name")}
    line = judged["segment"]
    blank = dict(published_document="", rater="", item_type="", hit="", raw="", judgments="",
                 seconds="", errors="")  # fmt: skip
    da = dict(blank, kind="da", **triple, segment=line, system="SysA",
              published_system="SysA.7", published_segment="12", file="ad-deen-good-stnd.csv",
              file_sha256="a" * 64)  # fmt: skip
    mqm_file = dict(file="mqm_newstest2021_deen.tsv", file_sha256="d" * 64)
    mqm_triple = [r for r in rows if r["kind"] == "mqm"][0]["segment"]
    mqm = dict(blank, kind="mqm", **triple, segment=mqm_triple, system="SysA",
               published_system="SysA.7", published_segment="7", published_document="doc-2",
               item_type="MQM", **mqm_file)  # fmt: skip
    errors = [
        {"category": "Accuracy/Mistranslation", "severity": "Major", "side": "target",
         "start": 0, "end": 4, "span": "text", "weight": 5.0},
        {"category": "Fluency/Punctuation", "severity": "Minor", "side": "", "start": None,
         "end": None, "span": "", "weight": 0.1},
    ]  # fmt: skip
    expected = [
        dict(da, rater="R1", item_type="SYSTEM", hit="HIT1", score="0.25", seconds="40",
             line="5"),
        dict(da, rater="R2", item_type="REPEAT", hit="HIT2", score="-0.5", line="9"),
        dict(da, kind="da_segment", score="-0.125", raw="71.5", judgments="2",
             file="ad-seg-scores-de-en.csv", file_sha256="b" * 64, line="3"),
        dict(mqm, rater="rater1", score="-5.1", errors=json.dumps(errors), line="2"),
        dict(mqm, rater="rater2", score="0", errors="[]", line="4"),
        dict(da, kind="esa", published_segment="40", published_document="doc-1", rater="E1",
             item_type="TGT", score="80", seconds="12.5", file="wmt24-esa.csv",
             file_sha256="c" * 64, line="2", errors=json.dumps([
                {"category": "", "severity": "minor", "side": "target", "start": 2, "end": 5,
                 "span": "", "weight": None}])),
    ]  # fmt: skip
    fields = [f.name for f in schema.JUDGMENTS.fields]
    assert [list(r) for r in rows] == [fields] * len(rows)
    by_file = sorted(expected, key=lambda r: (r["file"], int(r["line"])))
    assert rows == by_file
    package = json.loads((release / "datapackage.json").read_text())
    assert package["counts"]["judgments"] == 6 and package["format_version"] == 5
    ratings, _, judgments = load.load_release(release, judgments=True)
    # The shared hypothesis's judgments meet its ratings on its item id.
    assert set(judgments.loc[judgments["segment"] == int(line), "item"]) == {shared[0]}
    assert set(judgments["lp"]) == {f"{triple['source_lang']}-{triple['target_lang']}"}
    assert shared[0] in set(ratings["item"])


def test_bad_judgments_are_named_by_line_and_field(release, tmp_path):
    rows = _csv_rows(release / "judgments.csv")
    at = {(r["kind"], r["line"]): n for n, r in enumerate(rows, start=2)}
    mean, esa, mqm = at["da_segment", "3"], at["esa", "2"], at["mqm", "2"]
    found = _broken(
        release,
        tmp_path,
        {
            "judgments.csv": _set_cells(
                (mean, "raw", ""),
                (mean, "rater", "R9"),
                (esa, "errors", '[{"severity": "minor"}]'),
                (mqm, "errors", ""),
                (at["da", "9"], "segment", "999"),
            )
        },
    )
    cells = _broken(
        release,
        tmp_path / "cells",
        {
            "judgments.csv": _set_cells(
                (at["da", "5"], "file_sha256", "A" * 64), (at["mqm", "4"], "kind", "bleu")
            )
        },
    )
    found += "\n" + cells
    for message in [
        f"judgments.csv, line {mean}, field raw: required for da_segment",
        f"judgments.csv, line {mean}, field rater: not for da_segment",
        f"judgments.csv, line {esa}, field errors: error 1 is not an object of category, "
        "severity, side, start, end, span, weight in this order",
        f"judgments.csv, line {mqm}, field errors: required for esa and mqm ([] for none)",
        f"judgments.csv, line {at['da', '5']}, field file_sha256: '{'A' * 64}' does not match",
        f"judgments.csv, line {at['da', '9']}, field testset, source_lang, target_lang, "
        "ref_name, segment, system: ('newstest2021', 'de', 'en', 'A', 999, 'SysA') is not in "
        "items.csv",
        f"judgments.csv, line {at['mqm', '4']}, field kind: 'bleu' is not one of da, ",
    ]:
        assert message in found


def test_optional_tables_may_be_absent(release, tmp_path):
    copy = tmp_path / "lean"
    shutil.copytree(release, copy)
    package = json.loads((copy / "datapackage.json").read_text())
    package["resources"] = [
        r for r in package["resources"] if not r["name"].startswith(("metric", "participant_"))
    ]
    (copy / "datapackage.json").write_text(json.dumps(package))
    for name in ("metrics", "metric_scores", "participant_languages"):
        (copy / f"{name}.csv").unlink()
        (copy / "parquet" / f"{name}.parquet").unlink()
    # Without languages listed, every participant's language points are 0.
    people = pd.read_csv(copy / "participants.csv", dtype=str, keep_default_na=False)
    people["languages_score"] = "0"
    (copy / "participants.csv").write_text(people.to_csv(index=False, lineterminator="\n"))
    restamp(copy)
    ratings, scores = load.load_release(copy)
    assert set(scores["metric"]) == {schema.WMT_METRIC, schema.PERMUTATION_METRIC}
    assert len(ratings) == len(load.load_release(release)[0])
