"""Reading a release back, trusting nothing it says about itself.

Every file is checked against this software's schema for the release's format
(:data:`schema.SCHEMAS`), never against the limits or allowed values of the release's own
datapackage.json; each file's size and SHA-256 against the descriptor, so a deleted row is
caught; every cell against its column; keys, links and derived columns across files. A zip is
unpacked within limits of entry count and size. Problems name file, line and field.

Imports nothing from Django.
"""

from __future__ import annotations

import csv
import hashlib
import json
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

import wojdb
from wojdb.core import budgets, scales
from wojdb.core.budgets import Budgets
from wojdb.core.io import InputError, input_files, open_input, read_input
from wojdb.core.numbers import DECIMAL, INTEGER, read_number
from wojdb.core.release import derived
from wojdb.core.release.schema import (
    DA_SEGMENT,
    DATETIME_FORMAT,
    ERROR_KEYS,
    ERROR_KINDS,
    FALSE_VALUES,
    FORMAT_VERSION,
    ITEMS,
    JUDGMENTS,
    MARKS,
    METRIC_SCORES,
    PACKAGE_FILE,
    PARTICIPANTS,
    QUESTIONNAIRES,
    RATINGS,
    RELEASE_FILES,
    SCHEMAS,
    SEGMENT_FIELDS,
    TABLES,
    TRIPLE_FIELDS,
    TRIPLE_KEY,
    TRUE_VALUES,
    Field,
    TableSchema,
    empty_table,
    upgraded,
)
from wojdb.core.spreadsheet import unescape_text
from wojdb.core.stats import columns as col

#: Problems reported before a validation gives up listing them.
MAX_PROBLEMS = 30
#: What a release zip may hold: a release has about twenty files, each within the release file
#: budget (wojdb.core.budgets). The ratio catches a small archive that would expand enormously.
ZIP_MAX_ENTRIES = 200
ZIP_MAX_TOTAL_BYTES = 8 * 1024**3
ZIP_MAX_RATIO = 200
HASH_PREFIX = "sha256:"
#: A datapackage.json is about 60 KB (its schemas); a table's header under 2 KB.
PACKAGE_MAX_BYTES = 4 * 1024**2
HEADER_MAX_BYTES = 64 * 1024
NAME_MAX_BYTES = 255  # the longest file name common file systems store

# --- reading and validating --------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """What is wrong, and where: file, line (1 is the header) and field."""

    file: str
    message: str
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f", line {self.line}"
        if self.field is not None:
            where += f", field {self.field}"
        return f"{where}: {self.message}"


class ReleaseError(ValueError):
    """A release that does not match its datapackage.json or this software's schema."""

    def __init__(self, problems: list[Problem], more: int = 0):
        self.problems = problems
        lines = [str(p) for p in problems]
        if more:
            lines.append(f"... and {more} more problems")
        super().__init__("\n".join(lines))


@dataclass
class Release:
    """A release read back: its typed tables and its datapackage descriptor."""

    tables: dict[str, pd.DataFrame]
    package: dict = field(default_factory=dict)

    @property
    def study(self) -> dict:
        return self.package.get("study", {})


class _Problems:
    def __init__(self):
        self.found: list[Problem] = []
        self.more = 0

    def add(self, problem: Problem) -> None:
        if len(self.found) < MAX_PROBLEMS:
            self.found.append(problem)
        else:
            self.more += 1

    def cells(self, file: str, name: str, bad: pd.Series, message) -> None:
        """Report the rows where `bad` holds; `message` is a text, or a function of the row."""
        mask = bad.to_numpy(dtype=bool, na_value=False)
        if not mask.any():
            return
        rows = bad.index[mask]
        room = max(0, MAX_PROBLEMS - len(self.found))
        for index in rows[:room]:
            text = message if isinstance(message, str) else message(index)
            self.found.append(Problem(file, text, int(index) + 2, name))
        self.more += max(0, len(rows) - room)

    def raise_any(self) -> None:
        if self.found:
            raise ReleaseError(self.found, self.more)


#: What the datetime type accepts (checked before converting whole columns); numbers are read by
#: the program's one rule (wojdb.core.numbers), its patterns over whole columns.
DATETIME_PATTERN = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"  # DATETIME_FORMAT


def _whole(text: str) -> bool:
    try:
        read_number(text, int)
    except ValueError:
        return False
    return True


def _parse(raw: pd.Series, f: Field, file: str, problems: _Problems) -> pd.Series:
    """Typed values of one column of strings; blank is missing. Reports bad cells."""
    present = raw != ""
    if f.required:
        problems.cells(file, f.name, ~present, "a value is required")
    if f.type == "string":
        values = raw.where(present, None).astype("str")
        ok = present
    elif f.type == "integer":
        ok = raw.str.fullmatch(INTEGER.pattern)
        long = ok & (raw.str.len() > 18)  # 64-bit or not: told one by one
        ok[long] = raw[long].map(_whole)
        ok |= ~present
        problems.cells(file, f.name, ~ok, lambda i: f"{raw[i]!r} is not an integer")
        values = raw.where(present & ok).astype("Int64")
        if f.required and values.notna().all():
            values = values.astype("int64")
    elif f.type == "number":
        shaped = raw.str.fullmatch(DECIMAL.pattern)
        # numpy's conversion is Python's float(): exact for the shortest text written
        values = raw.where(present & shaped, "nan").astype("float64")
        ok = (shaped & np.isfinite(values)) | ~present
        values = values.where(ok)
        problems.cells(file, f.name, ~ok, lambda i: f"{raw[i]!r} is not a number")
    elif f.type == "boolean":
        values = raw.map({**dict.fromkeys(TRUE_VALUES, True), **dict.fromkeys(FALSE_VALUES, False)})
        ok = values.notna() | ~present
        problems.cells(file, f.name, present & ~ok, lambda i: f"{raw[i]!r} is not true or false")
        values = values.astype("boolean")
        if f.required and values.notna().all():
            values = values.astype("bool")
    elif f.type == "datetime":
        shaped = raw.str.fullmatch(DATETIME_PATTERN)
        values = pd.to_datetime(
            raw.where(present & shaped), format="ISO8601", utc=True, errors="coerce"
        ).astype("datetime64[us, UTC]")
        ok = (shaped & values.notna()) | ~present  # the shape, and a real date
        problems.cells(
            file, f.name, ~ok, lambda i: f"{raw[i]!r} is not a date-time {DATETIME_FORMAT}"
        )
    else:  # array; the schema has no other type
        values = raw.map(_json_list).astype(object)
        ok = raw.eq("") | values.map(lambda v: isinstance(v, list))
        problems.cells(file, f.name, ~ok, lambda i: f"{raw[i]!r} is not a JSON array")
        values = values.where(present & ok, None)
    ok = ok & present
    if f.enum:
        bad = ok & ~raw.isin(f.enum)
        problems.cells(file, f.name, bad, lambda i: f"{raw[i]!r} is not one of {', '.join(f.enum)}")
    if f.minimum is not None:
        bad = ok & (values.astype("float64") < f.minimum).fillna(False)
        problems.cells(file, f.name, bad, lambda i: f"{raw[i]} is below the minimum {f.minimum}")
    if f.maximum is not None:
        bad = ok & (values.astype("float64") > f.maximum).fillna(False)
        problems.cells(file, f.name, bad, lambda i: f"{raw[i]} is above the maximum {f.maximum}")
    if f.pattern is not None:
        bad = ok & ~raw.str.fullmatch(f.pattern)
        problems.cells(file, f.name, bad, lambda i: f"{raw[i]!r} does not match {f.pattern}")
    return values


def _json_list(text: str):
    if text == "":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _open(path: Path, limits: Budgets):
    return open_input(path, limits.release_file_bytes, limits.variable("release_file_bytes"))


def _header(handle) -> list[str] | None:
    """The names of a CSV file's first line, read within HEADER_MAX_BYTES (None beyond), so a
    header of a million columns is refused before a table of them is built."""
    line = handle.readline(HEADER_MAX_BYTES + 1)
    if len(line) > HEADER_MAX_BYTES:
        return None
    handle.seek(0)
    text = line.decode("utf-8", errors="replace").lstrip("\ufeff")
    return next(csv.reader([text]), [])


def _read_csv(
    folder: Path, table: TableSchema, limits: Budgets, problems: _Problems
) -> pd.DataFrame | None:
    try:
        with _open(folder / table.path, limits) as handle:
            names = _header(handle)
            if names == table.names:
                raw = pd.read_csv(
                    handle, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8"
                )
    except InputError as e:
        problems.add(Problem(table.path, e.problem))
        return None
    except (UnicodeDecodeError, pd.errors.ParserError) as e:
        problems.add(Problem(table.path, f"not a readable UTF-8 CSV file: {e}"))
        return None
    if names is None:
        problem = f"header over {HEADER_MAX_BYTES:,} bytes, not the header of {table.path}"
        problems.add(Problem(table.path, problem, 1))
        return None
    if names != table.names:
        missing = [n for n in table.names if n not in names]
        extra = [n for n in names if n not in table.names]
        if len(extra) > MAX_PROBLEMS:
            extra = [*extra[:MAX_PROBLEMS], f"... ({len(extra):,} in all)"]
        detail = "; ".join(
            part
            for part in (
                missing and f"missing {', '.join(missing)}",
                extra and f"unexpected {', '.join(map(str, extra))}",
                not (missing or extra) and "columns out of order",
            )
            if part
        )
        problems.add(Problem(table.path, f"header does not match datapackage.json: {detail}", 1))
        return None
    out = {
        f.name: _parse(
            unescape_text(raw[f.name]) if f.type == "string" else raw[f.name],
            f,
            table.path,
            problems,
        )
        for f in table.fields
    }
    return pd.DataFrame(out, index=pd.RangeIndex(len(raw)))


def _check_keys(
    tables: dict[str, pd.DataFrame], schemas: dict[str, TableSchema], problems: _Problems
):
    for name, frame in tables.items():
        table = schemas[name]
        if table.primary_key:
            dup = frame.duplicated(list(table.primary_key), keep="first")
            key = ", ".join(table.primary_key)
            problems.cells(table.path, key, dup, f"duplicate primary key ({key})")
        for fk in table.foreign_keys:
            if fk.resource not in tables:
                if len(frame):
                    problems.add(Problem(table.path, f"refers to {fk.resource}, which is absent"))
                continue
            target = tables[fk.resource]
            child = pd.MultiIndex.from_frame(frame[list(fk.fields)])
            parent = pd.MultiIndex.from_frame(target[list(fk.reference)])
            missing = pd.Series(~child.isin(parent), index=frame.index)
            missing &= frame[list(fk.fields)].notna().any(axis=1)
            names = ", ".join(fk.fields)
            problems.cells(
                table.path,
                names,
                missing,
                lambda i, frame=frame, fk=fk: (
                    f"{_key(frame, fk.fields, i)} is not in {schemas[fk.resource].path}"
                ),
            )


def _key(frame: pd.DataFrame, fields, index) -> str:
    # As Python values: numpy's integers print as np.int64(3).
    values = [v.item() if isinstance(v, np.generic) else v for v in frame.loc[index, list(fields)]]
    return str(values[0]) if len(values) == 1 else str(tuple(values))


def _varies_within(frame, key: list[str], fields, file: str, group: str, problems) -> None:
    counts = frame.groupby(key)[list(fields)].transform("nunique", dropna=False)
    for name in fields:
        problems.cells(file, name, counts[name] > 1, f"differs between rows of {group}")


def _check_domain(tables: dict[str, pd.DataFrame], problems: _Problems) -> None:
    """Rules the Table Schema cannot state, which an import relies on."""
    items = tables["items"]
    perm = items["kind"] == col.PERMUTATION
    for name in ("perm_type", "degree", "seed", "moved", "tokens", "mapping", "perm_quality"):
        missing = perm & items[name].isna()
        problems.cells(ITEMS.path, name, missing, "required for a permutation")
    problems.cells(
        ITEMS.path,
        "perm_quality",
        derived.permutation_quality_problems(items),
        "is not eq. 6.2's score of the row's degree for any maximum degree",
    )
    problems.cells(
        ITEMS.path,
        "perm_type",
        ~perm & items["perm_type"].notna(),
        "only for a permutation",
    )
    same = [
        (("testset", "source_lang", "target_lang", "ref_name", "segment"), SEGMENT_FIELDS),
        (TRIPLE_KEY, TRIPLE_FIELDS),
    ]
    for key, fields in same:
        _varies_within(items, list(key), fields, ITEMS.path, f"the same {key[-1]}", problems)
    once = [
        (
            perm,
            [*TRIPLE_KEY, "perm_type", "degree"],
            "a second permutation of this type and degree",
        ),
        (~perm, list(TRIPLE_KEY), "a second hypothesis item of the same triple"),
    ]
    for rows, key, message in once:
        twice = items[rows].duplicated(key)
        problems.cells(ITEMS.path, "item", twice.reindex(items.index, fill_value=False), message)
    entries = tables["questionnaires"]
    fields = ("number", "version", "seed", "software_version")
    _varies_within(
        entries, ["questionnaire"], fields, QUESTIONNAIRES.path, "one questionnaire", problems
    )
    twice = entries.duplicated(["questionnaire", "item"])
    problems.cells(QUESTIONNAIRES.path, "item", twice, "item twice in one questionnaire")
    scores = tables.get("metric_scores")
    if scores is not None and "metrics" in tables:
        named = scores.merge(tables["metrics"], on="metric_id", how="left", suffixes=("", "_m"))
        for name in ("metric", "variant", "config"):
            a, b = named[name].fillna(""), named[name + "_m"].fillna("")
            problems.cells(METRIC_SCORES.path, name, a != b, "does not match metrics.csv")
    if (judgments := tables.get("judgments")) is not None:
        _check_judgments(judgments, problems)
    if "marked" in tables["ratings"]:
        _check_marks(tables["ratings"], tables.get("marks"), problems)


def _check_marks(ratings: pd.DataFrame, marks: pd.DataFrame | None, problems: _Problems) -> None:
    """ratings.marked counts the pair's rows in marks.csv, which only answered pairs have."""
    key = ["participant", "item"]
    rows = pd.Series(0, index=pd.MultiIndex.from_frame(ratings[key]))
    if marks is not None:
        found = marks.groupby(key).size()
        rows = found.reindex(rows.index, fill_value=0)
        answered = ratings.set_index(key)["marked"].notna()
        unanswered = ~pd.MultiIndex.from_frame(marks[key]).isin(answered[answered].index)
        problems.cells(
            MARKS.path, "item", pd.Series(unanswered, index=marks.index),
            "a mark of a pair whose ratings.marked is empty (marks not answered)",
        )  # fmt: skip
    stated = ratings["marked"].fillna(-1).astype("int64").to_numpy()
    wrong = ratings["marked"].notna() & (stated != rows.to_numpy())
    problems.cells(
        RATINGS.path, "marked", wrong, "is not the number of the pair's rows in marks.csv"
    )


#: What each key of an error in judgments.csv `errors` holds: its JSON type, by name, and
#: whether it may be null.
ERROR_VALUES = {
    "category": ("text", str, False),
    "severity": ("text", str, False),
    "side": ("text", str, False),
    "start": ("integer", int, True),
    "end": ("integer", int, True),
    "span": ("text", str, False),
    "weight": ("number", (int, float), True),
}


def _error_problem(errors: list) -> str | None:
    """What is wrong with one row's `errors`, or None."""
    for n, error in enumerate(errors, start=1):
        if not isinstance(error, dict) or list(error) != list(ERROR_KEYS):
            return f"error {n} is not an object of {', '.join(ERROR_KEYS)} in this order"
        for key, (name, types, nullable) in ERROR_VALUES.items():
            value = error[key]
            if value is None and nullable:
                continue
            if isinstance(value, bool) or not isinstance(value, types):
                return f"error {n}: {key} {json.dumps(value)} is not a {name}"
            if name == "integer" and value < 0:
                return f"error {n}: {key} {value} is negative"
        if not error["severity"]:
            return f"error {n} has no severity"
    return None


def _check_judgments(judgments: pd.DataFrame, problems: _Problems) -> None:
    """Each kind's columns: a segment mean has raw and its number of judgments and no rater, a
    rater's judgment a rater; only error annotations list errors, each one as the codebook
    says; one file (hash, test set and pair) has one name and one kind."""
    file, segment_mean = JUDGMENTS.path, judgments["kind"] == DA_SEGMENT
    for name in ("raw", "judgments"):
        problems.cells(file, name, segment_mean & judgments[name].isna(), "required for da_segment")
        problems.cells(file, name, ~segment_mean & judgments[name].notna(), "only for da_segment")
    problems.cells(
        file, "rater", ~segment_mean & judgments["rater"].isna(), "required for a rater's judgment"
    )
    problems.cells(file, "rater", segment_mean & judgments["rater"].notna(), "not for da_segment")
    annotated = judgments["kind"].isin(ERROR_KINDS)
    errors = judgments["errors"]
    problems.cells(
        file, "errors", annotated & errors.isna(), "required for esa and mqm ([] for none)"
    )
    problems.cells(file, "errors", ~annotated & errors.notna(), "only for esa and mqm")
    found = errors[annotated & errors.notna()].map(_error_problem)
    found = found[found.notna()].reindex(judgments.index)
    problems.cells(file, "errors", found.notna(), lambda i: found[i])
    key = ["file_sha256", "testset", "source_lang", "target_lang"]
    _varies_within(judgments, key, ("file", "kind"), file, "one imported file", problems)


#: Columns of items.csv that belong to the segment, and to the triple (hypothesis + WMT scores).
def read_package(folder: str | Path) -> dict:
    """datapackage.json as a dict, its shape checked enough for the checks that follow."""
    try:
        data = read_input(Path(folder) / PACKAGE_FILE, PACKAGE_MAX_BYTES)
        package = json.loads(data.decode("utf-8"))
    except InputError as e:
        raise ReleaseError([Problem(PACKAGE_FILE, f"{e.problem} (in {folder})")]) from None
    except ValueError as e:
        raise ReleaseError([Problem(PACKAGE_FILE, f"not valid JSON: {e}")]) from None
    problems = []
    if not isinstance(package, dict):
        problems.append("is not a JSON object")
    elif not isinstance(package.get("resources"), list):
        problems.append("has no list of resources")
    else:
        for n, resource in enumerate(package["resources"]):
            if not isinstance(resource, dict):
                problems.append(f"resource {n + 1} is not a JSON object")
            elif not all(isinstance(resource.get(k), str) for k in ("name", "path")):
                problems.append(f"resource {n + 1} has no name or path (strings)")
        study = package.get("study", {})
        if not isinstance(study, dict):
            problems.append("its study is not a JSON object")
        elif not (study.get("sample_item") is None or is_id(study["sample_item"])):
            problems.append(
                f"study.sample_item: {json.dumps(study['sample_item'])} is not an item id"
            )
    if problems:
        raise ReleaseError([Problem(PACKAGE_FILE, p) for p in problems])
    return package


def is_id(value) -> bool:
    """A row id as JSON gives it: an integer (JSON's true and false are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _without_descriptions(value):
    """A schema descriptor without its descriptions, which may be reworded within a format."""
    if isinstance(value, dict):
        return {k: _without_descriptions(v) for k, v in value.items() if k != "description"}
    if isinstance(value, list):
        return [_without_descriptions(v) for v in value]
    return value


def check_package(
    package: dict, tables: tuple[TableSchema, ...], problems: _Problems
) -> list[TableSchema]:
    """The package's resources against this software's tables: the same paths and schemas
    (constraints included), each file's size and hash stated. Returns the tables present."""
    ours = {t.name: t for t in tables}
    parquet = {f"{t.name}_parquet": t for t in tables}
    declared = {r["name"]: r for r in package["resources"]}
    for name, resource in declared.items():
        table = ours.get(name) or parquet.get(name)
        if table is None:
            problems.add(Problem(PACKAGE_FILE, f"unknown resource {name}"))
            continue
        path = table.path if name in ours else table.parquet_path
        if resource["path"] != path:
            problems.add(Problem(PACKAGE_FILE, f"resource {name} must be at {path}"))
        if not isinstance(resource.get("bytes"), int) or not str(
            resource.get("hash", "")
        ).startswith(HASH_PREFIX):
            problems.add(
                Problem(PACKAGE_FILE, f"resource {name} states no bytes and {HASH_PREFIX} hash")
            )
        if name in ours and _without_descriptions(resource.get("schema")) != _without_descriptions(
            table.schema()
        ):
            problems.add(
                Problem(
                    PACKAGE_FILE,
                    f"the schema of resource {name} differs from the {table.path} of release "
                    f"format {package.get('format_version', 1)} (columns, types or constraints)",
                )
            )
    present = []
    for table in tables:
        if table.name in declared:
            present.append(table)
        elif not table.optional:
            problems.add(Problem(PACKAGE_FILE, f"no resource {table.name}"))
    return present


def check_files(folder: Path, package: dict, limits: Budgets, problems: _Problems) -> None:
    """Each resource's file is a regular file within the budget, of the size and SHA-256 hash
    its descriptor states."""
    for resource in package["resources"]:
        path = folder / resource["path"]
        try:
            with _open(path, limits) as handle:
                size, digest = file_stamp(handle)
        except InputError as e:
            problems.add(Problem(resource["path"], e.problem))
            continue
        if size != resource.get("bytes") or digest != resource.get("hash"):
            problems.add(
                Problem(
                    resource["path"],
                    f"{size} bytes with hash {digest[:19]}…, not the {resource.get('bytes')} "
                    "bytes and hash datapackage.json states: the file was changed or cut after "
                    "the release was written",
                )
            )


def file_stamp(handle) -> tuple[int, str]:
    """The size and ``sha256:`` hash of an open binary file, as a descriptor states them."""
    digest, size = hashlib.sha256(), 0
    while chunk := handle.read(1 << 20):
        digest.update(chunk)
        size += len(chunk)
    return size, HASH_PREFIX + digest.hexdigest()


def check_rows(tables: dict[str, pd.DataFrame], package: dict, problems: _Problems) -> None:
    """Each table has the number of rows its resource states."""
    for resource in package["resources"]:
        frame = tables.get(resource["name"])
        if frame is not None and resource.get("rows") != len(frame):
            problems.add(
                Problem(
                    resource["path"],
                    f"{len(frame)} rows, not the {resource.get('rows')} datapackage.json states",
                )
            )


def _disagree(stated: pd.Series, computed: pd.Series, tolerance: float = 1e-12) -> pd.Series:
    a, b = stated.astype("float64").to_numpy(), computed.astype("float64").to_numpy()
    same = np.isclose(a, b, rtol=tolerance, atol=tolerance) | (np.isnan(a) & np.isnan(b))
    return pd.Series(~same, index=stated.index)


def check_derived(tables: dict[str, pd.DataFrame], problems: _Problems) -> None:
    """Columns computed from others are recomputed here and must agree."""
    items, ratings = tables["items"], tables["ratings"]
    recomputed = [
        (
            ITEMS.path,
            items,
            col.WMT_SCORE,
            scales.wmt_score(items["wmt_rank_score"], items["wmt_da_raw"]),
        ),
        *(
            (
                RATINGS.path,
                ratings,
                col.unit(j),
                scales.answer_to_unit(ratings[j].astype("float64")),
            )
            for j in col.JUDGMENTS
        ),
        (
            RATINGS.path,
            ratings,
            col.SECONDS,
            derived.rating_seconds(
                ratings["client_ms"], ratings["shown_at"], ratings["answered_at"]
            ),
        ),
        (
            PARTICIPANTS.path,
            tables["participants"],
            col.LANGUAGES_SCORE,
            derived.languages_score(tables["participants"], tables.get("participant_languages")),
        ),
    ]
    adjusted, _ = derived.participant_adjusted(tables)
    recomputed += [(RATINGS.path, ratings, name, values) for name, values in adjusted.items()]
    for file, frame, name, values in recomputed:
        tolerance = derived.ADJUSTED_TOLERANCE if name in adjusted else 1e-12
        problems.cells(
            file,
            name,
            _disagree(frame[name], values, tolerance),
            lambda i, frame=frame, name=name, values=values: (
                f"{frame[name][i]} disagrees with the {values[i]} its other columns give"
            ),
        )


def _version_tuple(text) -> tuple[int, ...]:
    parts = []
    for part in str(text).split("."):
        digits = part[: len(part) - len(part.lstrip("0123456789"))]
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def check_format(package: dict, problems: _Problems) -> None:
    """The release's format must be one this software reads (see FORMAT_VERSION)."""
    version = package.get("format_version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        problems.add(
            Problem(PACKAGE_FILE, f"{version!r} is not a format version", field="format_version")
        )
    elif version > FORMAT_VERSION:
        problems.add(
            Problem(
                PACKAGE_FILE,
                f"the release is in format {version}, written by WOJ-DB "
                f"{package.get('software_version', '(unknown version)')}; this WOJ-DB "
                f"{wojdb.__version__} reads formats 1 to {FORMAT_VERSION}: upgrade WOJ-DB to "
                "read it",
                field="format_version",
            )
        )


def newer_software_note(package: dict) -> str | None:
    """A line to show when a newer WOJ-DB wrote a release in a format this one reads."""
    written = package.get("software_version")
    if written and _version_tuple(written) > _version_tuple(wojdb.__version__):
        return (
            f"The release was written by WOJ-DB {written}, newer than this {wojdb.__version__}; "
            f"it is read as format {package.get('format_version', 1)}, which this version reads."
        )
    return None


def extra_files_problem(where: str, names: list[str]) -> Problem:
    shown = ", ".join(names[:MAX_PROBLEMS]) + (" ..." if len(names) > MAX_PROBLEMS else "")
    return Problem(
        where,
        f"{len(names)} file(s) the release's datapackage.json does not name: {shown} (remove "
        "them, or allow them with --allow-extra-files; they are not read)",
    )


def extra_files(folder: Path, package: dict, problems: _Problems) -> list[str]:
    """Files in the release folder that neither its resources nor RELEASE_FILES name."""
    named = set(RELEASE_FILES) | {r["path"] for r in package["resources"]}
    try:
        found = [p.relative_to(folder).as_posix() for p in input_files(folder)]
    except InputError as e:  # named within the release, as every other problem of its files
        where = Path(e.path)
        shown = where.relative_to(folder).as_posix() if where.is_relative_to(folder) else e.path
        problems.add(Problem(str(shown), e.problem))
        return []
    return [name for name in found if name not in named]


def check_links(tables: dict[str, pd.DataFrame], study: dict, problems: _Problems) -> None:
    """Links between tables the live database keeps: a participant rates the items of their own
    questionnaire at their positions and the study's practice item at position 0, and a
    questionnaire's positions run 1..n."""
    entries = tables["questionnaires"]
    positions = entries.groupby("questionnaire")["position"].agg(["count", "max"])
    for questionnaire, row in positions[positions["count"] != positions["max"]].iterrows():
        have = set(entries.loc[entries["questionnaire"] == questionnaire, "position"])
        gaps = sorted(set(range(1, int(row["max"]) + 1)) - have)
        problems.add(
            Problem(
                QUESTIONNAIRES.path,
                f"questionnaire {questionnaire} has no position {', '.join(map(str, gaps[:10]))}"
                " (positions run 1 to the number of items)",
                field="position",
            )
        )
    ratings = tables["ratings"].merge(
        tables["participants"][["participant", "questionnaire"]], on="participant", how="left"
    )
    ratings = ratings.merge(
        entries[["questionnaire", "position", "item"]].rename(columns={"item": "entry_item"}),
        on=["questionnaire", "position"],
        how="left",
    )
    file, practice = RATINGS.path, ratings["position"] == 0
    problems.cells(
        file,
        "practice",
        ratings["practice"] != practice,
        "practice is true at position 0, the practice sample, and only there",
    )
    sample = study.get("sample_item")
    problems.cells(
        file,
        "item",
        practice & (ratings["item"] != sample),
        lambda i: (
            f"item {ratings['item'][i]} at position 0 is not the study's practice item "
            f"({'none' if sample is None else sample})"
        ),
    )

    def where(i) -> str:
        return (
            f"participant {ratings['participant'][i]}'s questionnaire {ratings['questionnaire'][i]}"
        )

    missing = ~practice & ratings["entry_item"].isna() & ratings["questionnaire"].notna()
    problems.cells(
        file,
        "position",
        missing,
        lambda i: f"{where(i)} has no position {ratings['position'][i]}",
    )
    other = ~practice & ratings["entry_item"].notna() & (ratings["entry_item"] != ratings["item"])
    problems.cells(
        file,
        "item",
        other,
        lambda i: (
            f"item {ratings['item'][i]} is not in {where(i)} at position "
            f"{ratings['position'][i]} (item {int(ratings['entry_item'][i])} is)"
        ),
    )


def read_release(
    folder: str | Path, *, allow_extra_files: bool = False, limits: Budgets | None = None
) -> Release:
    """Read a release folder, or its zip archive (as `export_wojdb --zip` and the dashboard's
    download write it), validating everything above before returning anything.

    Raises ReleaseError listing every problem found (file, line, field), up to MAX_PROBLEMS.
    Files the package does not name are refused unless `allow_extra_files`; they are never read.
    Each file must be a regular file within `limits` (default: wojdb.core.budgets.current()).
    The tables come back as the current format has them: columns an earlier format lacks are
    filled with what it meant (schema.ADDED_FIELDS).
    """
    folder = Path(folder)
    limits = limits or budgets.current()
    if folder.exists() and not folder.is_dir():
        return _read_archive(folder, allow_extra_files, limits)
    package = read_package(folder)
    problems = _Problems()
    check_format(package, problems)
    problems.raise_any()
    extra = extra_files(folder, package, problems)
    if extra and not allow_extra_files:
        problems.add(extra_files_problem(folder.name, extra))
    version = package.get("format_version", 1)
    present = check_package(package, SCHEMAS[version], problems)
    problems.raise_any()
    check_files(folder, package, limits, problems)
    problems.raise_any()
    tables = {}
    for table in present:
        frame = _read_csv(folder, table, limits, problems)
        if frame is not None:
            tables[table.name] = frame
    problems.raise_any()
    check_rows(tables, package, problems)
    _check_keys(tables, {t.name: t for t in present}, problems)
    _check_domain(tables, problems)
    problems.raise_any()
    tables = upgraded(tables, version)
    for table in TABLES:
        if table.name not in tables:
            tables[table.name] = empty_table(table)
    check_links(tables, package.get("study", {}), problems)
    check_derived(tables, problems)
    problems.raise_any()
    return Release(tables, package)


def _read_archive(path: Path, allow_extra_files: bool, limits: Budgets) -> Release:
    """A release archive, unpacked within the limits into a folder deleted once it is read
    (the tables are read into memory)."""
    with tempfile.TemporaryDirectory(prefix=".wojdb-release-") as unpacked:
        try:
            folder = read_source(
                path, Path(unpacked), allow_extra_files=allow_extra_files, limits=limits
            )
        except InputError as e:
            raise ReleaseError([Problem(path.name, e.problem)]) from None
        except FileNotFoundError as e:
            raise ReleaseError([Problem(path.name, str(e))]) from None
        return read_release(folder, allow_extra_files=allow_extra_files, limits=limits)


def _unpack(archive: zipfile.ZipFile, into: Path, name: str, limits: Budgets) -> None:
    """Extract within the ZIP_* limits and the release file budget, counting the bytes
    actually inflated (a stated size can lie)."""
    entries = archive.infolist()
    if len(entries) > ZIP_MAX_ENTRIES:
        problem = f"holds {len(entries)} entries; a release has at most {ZIP_MAX_ENTRIES}"
        raise ReleaseError([Problem(name, problem)])
    if problems := _entry_name_problems(entries):
        raise ReleaseError([Problem(name, p) for p in problems[:MAX_PROBLEMS]])
    total = 0
    for entry in entries:
        ratio_limit = max(entry.compress_size, 1 << 20) * ZIP_MAX_RATIO
        limit = min(limits.release_file_bytes, ratio_limit)
        if entry.file_size > limit or total + entry.file_size > ZIP_MAX_TOTAL_BYTES:
            raise ReleaseError([Problem(name, _too_big(entry, limits))])
        target = into / entry.filename
        if entry.is_dir():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with archive.open(entry) as source, open(target, "wb") as out:
            written = 0
            while chunk := source.read(1 << 20):
                written += len(chunk)
                if written > limit or total + written > ZIP_MAX_TOTAL_BYTES:
                    raise ReleaseError([Problem(name, _too_big(entry, limits))])
                out.write(chunk)
        total += written


def _shown(entry_name: str) -> str:
    return entry_name if len(entry_name) <= 60 else f"{entry_name[:40]}… ({len(entry_name)} long)"


def _entry_name_problems(entries: list[zipfile.ZipInfo]) -> list[str]:
    """Entry names that cannot be unpacked as one folder: outside it, a name longer than file
    systems store, one path twice, a file and a folder of one name."""
    outside = [_shown(e.filename) for e in entries if not _inside(e.filename)]
    if outside:
        return [f"entries outside the archive's folder: {', '.join(outside[:5])}"]
    problems, files, folders = [], {}, set()
    for entry in entries:
        name, parts = entry.filename, PurePosixPath(entry.filename).parts
        if any(len(part.encode("utf-8")) > NAME_MAX_BYTES for part in parts):
            problems.append(f"entry {_shown(name)}: a name over {NAME_MAX_BYTES} bytes")
        elif not entry.is_dir() and parts in files:
            problems.append(f"entry {_shown(name)} is in the archive twice")
        folders.update(parts[:n] for n in range(1, len(parts) + entry.is_dir()))
        if not entry.is_dir():
            files.setdefault(parts, name)
    for parts in sorted(files.keys() & folders):
        problems.append(f"entry {_shown(files[parts])} is both a file and a folder")
    return problems


def _too_big(entry: zipfile.ZipInfo, limits: Budgets) -> str:
    return (
        f"entry {_shown(entry.filename)} expands to {entry.file_size} bytes from "
        f"{entry.compress_size}: over the limits of {limits.release_file_bytes:,} bytes a file "
        f"({limits.variable('release_file_bytes')} raises it), {ZIP_MAX_TOTAL_BYTES:,} in all "
        f"and {ZIP_MAX_RATIO} times its packed size"
    )


#: What a damaged or unusual archive raises while it is read.
ZIP_ERRORS = (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, zlib.error)


def read_source(
    path: Path,
    unpack_into: Path,
    *,
    allow_extra_files: bool = False,
    limits: Budgets | None = None,
) -> Path:
    """The release folder at `path`: a folder, or a .zip unpacked into `unpack_into`, which
    must hold one release and, unless `allow_extra_files`, nothing beside it."""
    if path.is_dir():
        return path
    limits = limits or budgets.current()
    # The archive is read entry by entry, each within the limits of _unpack; it cannot usefully
    # be larger than all it may unpack to.
    with open_input(path, ZIP_MAX_TOTAL_BYTES) as handle:
        if not zipfile.is_zipfile(handle):
            raise FileNotFoundError(f"{path} is neither a release folder nor a zip archive")
        try:
            with zipfile.ZipFile(handle) as archive:
                _unpack(archive, unpack_into, path.name, limits)
        except ZIP_ERRORS as e:
            raise ReleaseError([Problem(path.name, f"cannot be unpacked: {e}")]) from None
        except OSError as e:
            problem = f"cannot be unpacked into {unpack_into}: {e.strerror or e}"
            raise ReleaseError([Problem(path.name, problem)]) from None
    found = sorted(p.parent for p in unpack_into.rglob(PACKAGE_FILE))
    if not found:
        raise FileNotFoundError(f"{path} holds no {PACKAGE_FILE}")
    names = [f"{p.relative_to(unpack_into).as_posix()}/" for p in found]
    if len(found) > 1:
        problem = f"holds {len(found)} releases, {', '.join(names)}; import one at a time"
        raise ReleaseError([Problem(path.name, problem)])
    outside = [
        p.relative_to(unpack_into).as_posix()
        for p in input_files(unpack_into)
        if found[0] not in p.parents
    ]
    if outside and not allow_extra_files:
        raise ReleaseError([extra_files_problem(path.name, outside)])
    return found[0]


def _inside(name: str) -> bool:
    """An entry name that stays within the folder it is unpacked into."""
    parts = Path(name).parts
    return bool(parts) and not Path(name).is_absolute() and ".." not in parts
