"""The WOJ-DB release: its files and their schemas, and loading one into pandas without Django.

A release is a folder with one CSV file per table below, typed Parquet copies in ``parquet/``,
a ``README.md`` codebook and a ``datapackage.json`` (a Frictionless Tabular Data Package whose
schemas are written from the tables here). Only the tables marked optional may be absent: they
are left out when they would be empty.

    from analysis.dataset import load_release
    ratings, scores = load_release("wojdb-demo-1.0")

gives the ratings and scores frames of :mod:`analysis.stats.columns`, built by the same functions
(:func:`tidy_ratings`, :func:`tidy_scores`) that turn the live database into frames
(:mod:`analysis.frames`), so a release analyses exactly like the database it came from.

This module imports nothing from Django.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

import wojdb
from analysis.stats import columns as col
from survey.wmt import InputError, input_files, open_input, read_input

PACKAGE_FILE = "datapackage.json"
PARQUET_DIR = "parquet"
DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
TRUE_VALUES = ("True", "true", "TRUE", "1")
FALSE_VALUES = ("False", "false", "FALSE", "0")
#: Problems reported before a validation gives up listing them.
MAX_PROBLEMS = 30

#: Built-in score sources of the scores frame (not stored as MetricScore rows).
WMT_METRIC = "WMT"
PERMUTATION_METRIC = "Permutation degree"

STATUSES = ("assigned", "in_progress", "completed", "abandoned")
GENDERS = ("male", "female", "other", "not_say")


@dataclass(frozen=True)
class Field:
    """One column, described as a Frictionless Table Schema field."""

    name: str
    type: str  # integer, number, string, boolean, datetime or array
    description: str
    required: bool = False
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    def descriptor(self) -> dict:
        out = {"name": self.name, "type": self.type, "description": self.description}
        if self.type == "datetime":
            out["format"] = DATETIME_FORMAT
        if self.type == "boolean":
            out["trueValues"], out["falseValues"] = list(TRUE_VALUES), list(FALSE_VALUES)
        constraints = {"required": True} if self.required else {}
        if self.enum:
            constraints["enum"] = list(self.enum)
        if self.minimum is not None:
            constraints["minimum"] = self.minimum
        if self.maximum is not None:
            constraints["maximum"] = self.maximum
        if constraints:
            out["constraints"] = constraints
        return out

    @classmethod
    def from_descriptor(cls, d: dict) -> Field:
        c = d.get("constraints", {})
        return cls(
            name=d["name"],
            type=d.get("type", "string"),
            description=d.get("description", ""),
            required=bool(c.get("required", False)),
            enum=tuple(c.get("enum", ())),
            minimum=c.get("minimum"),
            maximum=c.get("maximum"),
        )


@dataclass(frozen=True)
class ForeignKey:
    fields: tuple[str, ...]
    resource: str
    reference: tuple[str, ...]


@dataclass(frozen=True)
class Table:
    """One file of the release, with its schema."""

    name: str
    description: str
    fields: tuple[Field, ...]
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    optional: bool = False  # left out of a release when it would be empty

    @property
    def path(self) -> str:
        return f"{self.name}.csv"

    @property
    def parquet_path(self) -> str:
        return f"{PARQUET_DIR}/{self.name}.parquet"

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def schema(self) -> dict:
        out = {"fields": [f.descriptor() for f in self.fields], "missingValues": [""]}
        if self.primary_key:
            out["primaryKey"] = list(self.primary_key)
        if self.foreign_keys:
            out["foreignKeys"] = [
                {
                    "fields": list(fk.fields),
                    "reference": {"resource": fk.resource, "fields": list(fk.reference)},
                }
                for fk in self.foreign_keys
            ]
        return out

    @classmethod
    def from_resource(cls, resource: dict) -> Table:
        schema = resource.get("schema", {})
        return cls(
            name=resource["name"],
            description=resource.get("description", ""),
            fields=tuple(Field.from_descriptor(f) for f in schema.get("fields", [])),
            primary_key=tuple(_as_list(schema.get("primaryKey", []))),
            foreign_keys=tuple(
                ForeignKey(
                    tuple(_as_list(fk["fields"])),
                    fk["reference"]["resource"],
                    tuple(_as_list(fk["reference"]["fields"])),
                )
                for fk in schema.get("foreignKeys", [])
            ),
        )


def _as_list(value) -> list:
    return [value] if isinstance(value, str) else list(value)


def _fk(fields, resource, reference=None) -> ForeignKey:
    fields = _as_list(fields)
    return ForeignKey(tuple(fields), resource, tuple(_as_list(reference or fields)))


ITEMS = Table(
    "items",
    "One row per rated item: a WMT hypothesis, or a permutation of its reference, with the "
    "texts, the WMT scores of the hypothesis and the permutation's parameters.",
    (
        Field("item", "integer", "Item id (stable across the release's files).", True),
        Field(
            "kind",
            "string",
            "hypothesis: a WMT system output; permutation: an automatic permutation of the "
            "reference.",
            True,
            enum=(col.HYPOTHESIS, col.PERMUTATION),
        ),
        Field("text", "string", "The sentence rated (shown second).", True),
        Field("reference", "string", "The human reference translation (shown first).", True),
        Field("source", "string", "The source-language sentence.", True),
        Field(
            "hypothesis",
            "string",
            "The WMT hypothesis of the item's triple; for a permutation, the hypothesis whose "
            "reference was permuted (the permutation's base sentence is `reference`).",
            True,
        ),
        Field("testset", "string", "WMT test set, e.g. newstest2021.", True),
        Field("year", "integer", "WMT year.", True),
        Field("source_lang", "string", "Source language code (ISO 639-1).", True),
        Field("target_lang", "string", "Target language code (ISO 639-1).", True),
        Field("ref_name", "string", "Which of the test set's references (A, B ...).", True),
        Field(
            "segment", "integer", "WMT segment id: 1-based line in the test set.", True, minimum=1
        ),
        Field(
            "document",
            "string",
            "The test set's document holding the segment (XML, SGML, .docs or .docids); empty "
            "where the test set names none.",
        ),
        Field("domain", "string", "The document's domain, e.g. news; empty where unknown."),
        Field("system", "string", "WMT system that produced the hypothesis.", True),
        Field(
            "perm_type",
            "string",
            "Permutation type (thesis §6.2.3); empty for hypotheses.",
            enum=col.PERM_TYPES,
        ),
        Field(
            "degree",
            "integer",
            "Permutation degree: words affected; empty for hypotheses.",
            minimum=0,
        ),
        Field("seed", "integer", "Seed of the permutation's random choices."),
        Field("moved", "array", "JSON list of 0-based reference indices moved or replaced."),
        Field("tokens", "array", "JSON list of the permuted sentence's tokens."),
        Field(
            "mapping",
            "array",
            "JSON list: the reference index of each permuted token, -1 for a new word.",
        ),
        Field(
            "perm_quality",
            "number",
            "Permutation score, eq. 6.2: 1 - (degree - 1) / (maximum degree - 1).",
        ),
        Field("perm_software_version", "string", "WOJ-DB version that generated the permutation."),
        Field("source_length", "integer", "Source length in tokens.", True, minimum=0),
        Field("reference_length", "integer", "Reference length in tokens.", True, minimum=0),
        Field("hypothesis_length", "integer", "Hypothesis length in tokens.", True, minimum=0),
        Field("aligned_share", "number", "Share of hypothesis words aligned to the reference."),
        Field(
            "wmt_rank_score",
            "number",
            "WMT relative ranking made absolute by eq. 6.1: 1 - (rank - 1) / |S|.",
        ),
        Field("wmt_rank_count", "integer", "Number of WMT rankings behind it.", True, minimum=0),
        Field("wmt_da_raw", "number", "Mean raw WMT direct-assessment score, 0-100."),
        Field("wmt_da_z", "number", "Mean per-rater z-score of the WMT direct assessments."),
        Field("wmt_da_count", "integer", "Number of WMT direct assessments.", True, minimum=0),
        Field(
            "wmt_score",
            "number",
            "WMT score on a 0-1 scale: wmt_rank_score where ranked, else wmt_da_raw / 100.",
        ),
    ),
    primary_key=("item",),
)

QUESTIONNAIRES = Table(
    "questionnaires",
    "One row per questionnaire position: which item each questionnaire shows where.",
    (
        Field("questionnaire", "integer", "Questionnaire id.", True),
        Field("number", "integer", "Questionnaire number within the study.", True),
        Field("version", "integer", "Questionnaire version (a new one when recomposed).", True),
        Field("seed", "integer", "Seed of the composition.", True),
        Field("software_version", "string", "WOJ-DB version that composed it."),
        Field("position", "integer", "1-based position shown to participants.", True, minimum=1),
        Field("item", "integer", "Item id (items.csv).", True),
        Field("shared", "boolean", "The item is in every questionnaire of the study.", True),
    ),
    primary_key=("questionnaire", "position"),
    foreign_keys=(_fk("item", "items"),),
)

PARTICIPANTS = Table(
    "participants",
    "One row per participant who consented to data sharing: a pseudonymous id and the "
    "about-you answers. Crowd-platform ids, tokens and contact details are never exported.",
    (
        Field("participant", "integer", "Pseudonymous participant id.", True),
        Field("questionnaire", "integer", "Questionnaire id (questionnaires.csv).", True),
        Field(
            "status",
            "string",
            "assigned, in_progress, completed or abandoned (gave up or timed out).",
            True,
            enum=STATUSES,
        ),
        Field("simulated", "boolean", "Answers produced by a simulation, not a person.", True),
        Field(
            "mode",
            "string",
            "web (in the browser) or paper (a scanned questionnaire).",
            enum=("web", "paper"),
        ),
        Field("consent_version", "integer", "Version of the consent statements accepted."),
        Field("reading_mode", "boolean", "Chose larger, more widely spaced text.", True),
        Field("age", "integer", "Age in years.", minimum=0),
        Field("gender", "string", "male, female, other or not_say.", enum=GENDERS),
        Field("nationality", "string", "Nationality, as written."),
        Field(
            "education",
            "string",
            "Highest education: school, college, undergraduate, masters or phd.",
            enum=col.EDUCATION_LEVELS,
        ),
        Field("english_first", "boolean", "English is a first language."),
        Field("english_years", "integer", "Years of fluent English.", minimum=0),
        Field("reading_disability", "string", "Reading disability, as written."),
        Field(
            "grammar_attention",
            "integer",
            "How much attention the participant pays to grammar, 1-5.",
        ),
        Field(
            "languages_score",
            "integer",
            "Language points: per language known, native 7 ... a few words 1, summed "
            "(participant_languages.csv).",
            True,
            minimum=0,
        ),
    ),
    primary_key=("participant",),
    foreign_keys=(_fk("questionnaire", "questionnaires"),),
)

PARTICIPANT_LANGUAGES = Table(
    "participant_languages",
    "One row per language a participant listed, English included.",
    (
        Field("participant", "integer", "Participant id (participants.csv).", True),
        Field("language", "string", "Language, as written.", True),
        Field(
            "fluency",
            "integer",
            "7 native, 6 near-native, 5 advanced, 4 fluent, 3 conversational, 2 basic, "
            "1 a few words.",
            True,
            minimum=1,
            maximum=7,
        ),
        Field("qualifications", "string", "Qualifications in the language, as written."),
    ),
    foreign_keys=(_fk("participant", "participants"),),
    optional=True,
)

_LIKERT = dict(minimum=col.LIKERT_MIN, maximum=col.LIKERT_MAX)
RATINGS = Table(
    "ratings",
    "One row per participant and item shown: the raw answers as given, their 0-1 values, "
    "position and times. A blank answer is empty.",
    (
        Field("participant", "integer", "Participant id (participants.csv).", True),
        Field("item", "integer", "Item id (items.csv).", True),
        Field(
            "position",
            "integer",
            "Position shown: 0 the practice sample, 1-n the pairs.",
            True,
            minimum=0,
        ),
        Field("practice", "boolean", "The unscored practice sample.", True),
        Field("holistic", "integer", "Holistic answer (first question), 1-5 as given.", **_LIKERT),
        Field("order", "integer", "Word-order answer (second question), 1-5 as given.", **_LIKERT),
        Field("holistic01", "number", "(holistic - 1) / 4: 0, .25, .5, .75, 1 (thesis §6.3.5)."),
        Field("order01", "number", "(order - 1) / 4: 0, .25, .5, .75, 1."),
        Field(
            col.adjusted(col.HOLISTIC),
            "number",
            "holistic01 minus the participant's random intercept (thesis §7.2.3; see "
            "Adjusted scores); empty for the practice sample and blanks.",
        ),
        Field(
            col.adjusted(col.ORDER),
            "number",
            "order01 minus the participant's random intercept; empty for the practice sample "
            "and blanks.",
        ),
        Field(
            "seconds",
            "number",
            "Time spent on the item: the browser's measure where sent, else answered_at - "
            "shown_at.",
        ),
        Field("shown_at", "datetime", "When the item was first shown (UTC, server clock)."),
        Field("answered_at", "datetime", "When an answer last changed (UTC, server clock)."),
        Field(
            "client_ms", "integer", "Milliseconds on the item measured by the browser.", minimum=0
        ),
        Field("revisions", "integer", "Times a given answer was changed.", True, minimum=0),
    ),
    primary_key=("participant", "item"),
    foreign_keys=(_fk("participant", "participants"), _fk("item", "items")),
)

METRICS = Table(
    "metrics",
    "One row per metric configuration whose scores are in metric_scores.csv.",
    (
        Field("metric_id", "integer", "Metric configuration id.", True),
        Field("metric", "string", "Tool name: DTED, DERP, BLEU, Meteor, BEER ...", True),
        Field("variant", "string", "Flags or variant of the tool."),
        Field("config", "string", "Third-party tools the configuration uses (parser, aligner)."),
        Field("version", "string", "Version of the tool."),
        Field("higher_is_better", "boolean", "Higher scores mean better translations.", True),
        Field("builtin", "boolean", "Computed by WOJ-DB (else imported, e.g. from WMT).", True),
        Field("description", "string", "What the configuration is."),
    ),
    primary_key=("metric_id",),
    optional=True,
)

METRIC_SCORES = Table(
    "metric_scores",
    "Automatic scores, long format: one row per item and metric configuration.",
    (
        Field("item", "integer", "Item id (items.csv).", True),
        Field("metric_id", "integer", "Metric configuration id (metrics.csv).", True),
        Field("metric", "string", "Tool name, as in metrics.csv.", True),
        Field("variant", "string", "Variant, as in metrics.csv."),
        Field("config", "string", "Third-party tools, as in metrics.csv."),
        Field("score", "number", "The score.", True),
    ),
    primary_key=("item", "metric_id"),
    foreign_keys=(_fk("item", "items"), _fk("metric_id", "metrics")),
    optional=True,
)

#: In dependency order: a table refers only to tables before it.
TABLES = (
    ITEMS,
    QUESTIONNAIRES,
    PARTICIPANTS,
    PARTICIPANT_LANGUAGES,
    RATINGS,
    METRICS,
    METRIC_SCORES,
)
TABLES_BY_NAME = {t.name: t for t in TABLES}

#: Participant columns carried into the ratings frame (demographic subsets use any of them).
DEMOGRAPHICS = (
    col.AGE,
    col.GENDER,
    "nationality",
    col.EDUCATION,
    col.ENGLISH_FIRST,
    "english_years",
    "reading_disability",
    "grammar_attention",
    col.LANGUAGES_SCORE,
)

#: dtypes of the ratings frame; answers and optional counts are floats so blanks are NaN.
RATINGS_FRAME_TYPES = {
    col.PARTICIPANT: "int64",
    col.ITEM: "int64",
    col.QUESTIONNAIRE: "int64",
    col.POSITION: "int64",
    col.KIND: "str",
    col.PERM_TYPE: "str",
    col.DEGREE: "float64",
    col.QUALITY: "float64",
    col.WMT_SCORE: "float64",
    col.HOLISTIC: "float64",
    col.ORDER: "float64",
    col.unit(col.HOLISTIC): "float64",
    col.unit(col.ORDER): "float64",
    col.SECONDS: "float64",
    col.PRACTICE: "bool",
    col.SHARED: "bool",
    col.SIMULATED: "bool",
    col.AGE: "float64",
    col.GENDER: "str",
    "nationality": "str",
    col.EDUCATION: "str",
    col.ENGLISH_FIRST: "boolean",
    "english_years": "float64",
    "reading_disability": "str",
    "grammar_attention": "float64",
    col.LANGUAGES_SCORE: "int64",
}
SCORES_FRAME_TYPES = {
    col.ITEM: "int64",
    col.METRIC: "str",
    col.VARIANT: "str",
    col.CONFIG: "str",
    col.SCORE: "float64",
    col.HIGHER_IS_BETTER: "bool",
}


# --- typing ------------------------------------------------------------------------------------


def _dtype(f: Field) -> str:
    return {
        "integer": "int64" if f.required else "Int64",
        "number": "float64",
        "boolean": "bool" if f.required else "boolean",
        "string": "str",
        "datetime": "datetime64[us, UTC]",
        "array": "object",
    }[f.type]


def typed(frame: pd.DataFrame, table: Table) -> pd.DataFrame:
    """A table's columns, in schema order, from Python values (as the database gives them).

    Blank strings become missing, as they would after a trip through CSV. Rows keep their
    order; the index becomes 0..n-1.
    """
    frame = frame.reset_index(drop=True)
    out = {}
    for f in table.fields:
        values = frame[f.name] if f.name in frame else pd.Series(None, index=frame.index)
        if f.type == "string":
            values = values.astype(object).where(values.notna() & (values != ""), None)
        elif f.type == "datetime":
            values = pd.to_datetime(values, utc=True, format="ISO8601")
        elif f.type == "array":
            values = values.astype(object).where(values.notna(), None)
            out[f.name] = values
            continue
        out[f.name] = values.astype(_dtype(f))
    return pd.DataFrame(out, index=pd.RangeIndex(len(frame)))


def empty_table(table: Table) -> pd.DataFrame:
    return typed(pd.DataFrame({name: [] for name in table.names}), table)


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


#: What the integer and datetime types accept (checked before converting whole columns).
INTEGER_PATTERN = r"[+-]?\d{1,18}"
DATETIME_PATTERN = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z"  # DATETIME_FORMAT


def _parse(raw: pd.Series, f: Field, file: str, problems: _Problems) -> pd.Series:
    """Typed values of one column of strings; blank is missing. Reports bad cells."""
    present = raw != ""
    if f.required:
        problems.cells(file, f.name, ~present, "a value is required")
    if f.type == "string":
        values = raw.where(present, None).astype("str")
        ok = present
    elif f.type == "integer":
        ok = raw.str.fullmatch(INTEGER_PATTERN) | ~present
        problems.cells(file, f.name, ~ok, lambda i: f"{raw[i]!r} is not an integer")
        values = raw.where(present & ok).astype("Int64")
        if f.required and values.notna().all():
            values = values.astype("int64")
    elif f.type == "number":
        try:
            # numpy's conversion is Python's float(): exact for the shortest text written
            values = raw.where(present, "nan").astype("float64")
            ok = pd.Series(True, index=raw.index)
        except ValueError:
            numbers = pd.to_numeric(raw.where(present), errors="coerce")
            ok = numbers.notna() | ~present
            problems.cells(file, f.name, ~ok, lambda i: f"{raw[i]!r} is not a number")
            values = numbers.astype("float64")
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
    else:  # array; _package_tables admits no other type
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
    return values


def _json_list(text: str):
    if text == "":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _read_csv(folder: Path, table: Table, problems: _Problems) -> pd.DataFrame | None:
    try:
        with open_input(folder / table.path) as handle:
            raw = pd.read_csv(
                handle, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8"
            )
    except InputError as e:
        problems.add(Problem(table.path, e.problem))
        return None
    except (UnicodeDecodeError, pd.errors.ParserError) as e:
        problems.add(Problem(table.path, f"not a readable UTF-8 CSV file: {e}"))
        return None
    if list(raw.columns) != table.names:
        missing = [n for n in table.names if n not in raw.columns]
        extra = [n for n in raw.columns if n not in table.names]
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
    out = {f.name: _parse(raw[f.name], f, table.path, problems) for f in table.fields}
    return pd.DataFrame(out, index=pd.RangeIndex(len(raw)))


def _check_keys(tables: dict[str, pd.DataFrame], schemas: dict[str, Table], problems: _Problems):
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
    values = frame.loc[index, list(fields)].tolist()
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


#: Columns of items.csv that belong to the segment, and to the triple (hypothesis + WMT scores).
SEGMENT_FIELDS = (
    "year",
    "document",
    "domain",
    "source",
    "reference",
    "source_length",
    "reference_length",
)
TRIPLE_KEY = ("testset", "source_lang", "target_lang", "ref_name", "segment", "system")
TRIPLE_FIELDS = (
    "hypothesis",
    "hypothesis_length",
    "aligned_share",
    "wmt_rank_score",
    "wmt_rank_count",
    "wmt_da_raw",
    "wmt_da_z",
    "wmt_da_count",
)


def read_package(folder: str | Path) -> dict:
    try:
        return json.loads(read_input(Path(folder) / PACKAGE_FILE).decode("utf-8"))
    except InputError as e:
        raise ReleaseError([Problem(PACKAGE_FILE, f"{e.problem} (in {folder})")]) from None
    except ValueError as e:
        raise ReleaseError([Problem(PACKAGE_FILE, f"not valid JSON: {e}")]) from None


def _package_tables(package: dict, problems: _Problems) -> dict[str, Table]:
    """The package's CSV resources, checked against this software's tables."""
    found = {}
    for resource in package.get("resources", []):
        if resource.get("format", "csv") != "csv":
            continue
        try:
            table = Table.from_resource(resource)
        except (KeyError, TypeError) as e:
            problems.add(Problem(PACKAGE_FILE, f"malformed resource {resource!r}: {e}"))
            continue
        if resource.get("path") != table.path:
            problems.add(Problem(PACKAGE_FILE, f"resource {table.name} must be at {table.path}"))
        found[table.name] = table
    for expected in TABLES:
        table = found.get(expected.name)
        if table is None:
            if not expected.optional:
                problems.add(Problem(PACKAGE_FILE, f"no resource {expected.name}"))
            continue
        theirs = [(f.name, f.type) for f in table.fields]
        version = package.get("format_version", 1)
        ours = [
            (f.name, f.type) for f in expected.fields if _in_format(expected.name, f.name, version)
        ]
        if theirs != ours:
            problems.add(
                Problem(
                    PACKAGE_FILE,
                    f"resource {expected.name} has fields {theirs}; this version of WOJ-DB "
                    f"reads {ours}",
                )
            )
    unknown = set(found) - set(TABLES_BY_NAME)
    if unknown:
        problems.add(Problem(PACKAGE_FILE, f"unknown resources: {', '.join(sorted(unknown))}"))
    return found


# --- what a release must be beyond its files' schemas ------------------------------------------
# One place for the rules an import relies on that no single file's Table Schema states: the
# release's format, the files it holds, and the links between tables the live database keeps.

#: The release format this software writes. It reads formats 1 to FORMAT_VERSION, whichever WOJ-DB
#: version wrote them; a release without `format_version` is format 1 (written before the field
#: existed). A later format is refused, naming both versions. Format 2 added participants.mode.
FORMAT_VERSION = 2
#: (table, field) -> (the format that added it, what an earlier release means by its absence):
#: before paper questionnaires every participant answered on the web.
ADDED_FIELDS = {("participants", "mode"): (2, "web")}


def _in_format(table: str, field: str, version: int) -> bool:
    return ADDED_FIELDS.get((table, field), (1, None))[0] <= version


#: Files of a release besides those its datapackage.json resources name.
RELEASE_FILES = (PACKAGE_FILE, "README.md")


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
    named = set(RELEASE_FILES) | {str(r.get("path")) for r in package.get("resources", [])}
    try:
        found = [p.relative_to(folder).as_posix() for p in input_files(folder)]
    except InputError as e:
        problems.add(Problem(str(e.path), e.problem))
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


def read_release(folder: str | Path, *, allow_extra_files: bool = False) -> Release:
    """Read a release folder, validating every file against its datapackage.json first, and
    the rules above.

    Raises ReleaseError listing every problem found (file, line, field), up to MAX_PROBLEMS.
    Files the package does not name are refused unless `allow_extra_files`; they are never read.
    """
    folder = Path(folder)
    package = read_package(folder)
    problems = _Problems()
    check_format(package, problems)
    problems.raise_any()
    extra = extra_files(folder, package, problems)
    if extra and not allow_extra_files:
        problems.add(extra_files_problem(folder.name, extra))
    schemas = _package_tables(package, problems)
    problems.raise_any()
    tables = {}
    for name, table in schemas.items():
        frame = _read_csv(folder, table, problems)
        if frame is not None:
            tables[name] = frame
    problems.raise_any()
    version = package.get("format_version", 1)
    for (name, added), (since, meaning) in ADDED_FIELDS.items():
        if version < since and name in tables:
            tables[name] = typed(tables[name].assign(**{added: meaning}), TABLES_BY_NAME[name])
    _check_keys(tables, schemas, problems)
    _check_domain(tables, problems)
    problems.raise_any()
    check_links(tables, package.get("study", {}), problems)
    problems.raise_any()
    for table in TABLES:
        if table.name not in tables:
            tables[table.name] = empty_table(table)
    return Release(tables, package)


# --- frames ------------------------------------------------------------------------------------


def rating_seconds(client_ms: pd.Series, shown_at: pd.Series, answered_at: pd.Series) -> pd.Series:
    """Time on an item: the browser's measure where sent, else the server's answered - shown."""
    server = (answered_at - shown_at).dt.total_seconds()
    return (client_ms.astype("float64") / 1000).fillna(server).astype("float64")


def wmt_score(rank_score: pd.Series, da_raw: pd.Series) -> pd.Series:
    """The WMT score on a 0-1 scale: eq. 6.1 where ranked, else DA raw / 100 (Triple.wmt_score)."""
    return rank_score.fillna(da_raw / 100).astype("float64")


def item_quality(items: pd.DataFrame) -> pd.Series:
    """Eq. 6.2 for permutations, the WMT score (eq. 6.1 or DA) for hypotheses."""
    is_perm = items["kind"] == col.PERMUTATION
    return items["perm_quality"].where(is_perm, items["wmt_score"]).astype("float64")


def tidy_ratings(
    ratings: pd.DataFrame,
    participants: pd.DataFrame,
    items: pd.DataFrame,
    questionnaires: pd.DataFrame,
    *,
    include_practice: bool = False,
    include_simulated: bool = True,
) -> pd.DataFrame:
    """The ratings frame of analysis.stats.columns from the release's tables.

    One row per rating, sorted by participant and position; columns in RATINGS_FRAME_TYPES order.
    """
    people = participants[[col.PARTICIPANT, col.QUESTIONNAIRE, col.SIMULATED, *DEMOGRAPHICS]]
    if not include_simulated:
        people = people[~people[col.SIMULATED]]
    rows = ratings if include_practice else ratings[~ratings[col.PRACTICE]]
    frame = rows[
        [
            col.PARTICIPANT,
            col.ITEM,
            col.POSITION,
            col.PRACTICE,
            col.HOLISTIC,
            col.ORDER,
            col.SECONDS,
        ]
    ].merge(people, on=col.PARTICIPANT, how="inner", validate="many_to_one")
    item_columns = items[[col.ITEM, col.KIND, col.PERM_TYPE, col.DEGREE, col.WMT_SCORE]].assign(
        **{col.QUALITY: item_quality(items)}
    )
    frame = frame.merge(item_columns, on=col.ITEM, how="left", validate="many_to_one")
    shared = questionnaires[[col.QUESTIONNAIRE, col.ITEM, col.SHARED]]
    frame = frame.merge(
        shared, on=[col.QUESTIONNAIRE, col.ITEM], how="left", validate="many_to_one"
    )
    frame[col.SHARED] = frame[col.SHARED].fillna(False).astype("bool")
    for judgment in col.JUDGMENTS:
        frame[judgment] = frame[judgment].astype("float64")
        frame[col.unit(judgment)] = col.to_unit(frame[judgment])
    frame = frame.sort_values([col.PARTICIPANT, col.POSITION, col.ITEM], kind="stable")
    frame = frame[list(RATINGS_FRAME_TYPES)].astype(RATINGS_FRAME_TYPES)
    return frame.reset_index(drop=True)


def builtin_scores(items: pd.DataFrame) -> pd.DataFrame:
    """The score sources that live on the items, in the scores frame's long format.

    ``WMT``: the WMT score of hypothesis items (eq. 6.1 rank score, else DA raw / 100);
    ``Permutation degree``: eq. 6.2 of permutation items. Items without a score get no row.
    """
    is_perm = items[col.KIND] == col.PERMUTATION
    parts = [
        (WMT_METRIC, items[~is_perm], col.WMT_SCORE),
        (PERMUTATION_METRIC, items[is_perm], "perm_quality"),
    ]
    frames = [
        pd.DataFrame(
            {
                col.ITEM: subset[col.ITEM],
                col.METRIC: metric,
                col.VARIANT: "",
                col.CONFIG: "",
                col.SCORE: subset[column],
                col.HIGHER_IS_BETTER: True,  # eq. 6.1 and eq. 6.2 both score quality
            }
        ).dropna(subset=[col.SCORE])
        for metric, subset, column in parts
    ]
    return pd.concat(frames, ignore_index=True)


def tidy_scores(
    metric_scores: pd.DataFrame,
    items: pd.DataFrame | None = None,
    metrics: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The scores frame: stored metric scores, plus the built-in sources of `items` if given.

    ``metrics`` (metrics.csv) gives each configuration's ``higher_is_better``; without it, or
    for a configuration it lacks, higher is taken as better. Sorted by metric, variant, config
    and item; ``variant`` and ``config`` are "" when none.
    """
    better = pd.Series(True, index=metric_scores.index)
    if metrics is not None and len(metrics):
        by_id = metrics.set_index("metric_id")[col.HIGHER_IS_BETTER].astype(bool)
        better = metric_scores["metric_id"].map(by_id).fillna(True).astype(bool)
    stored = pd.DataFrame(
        {
            col.ITEM: metric_scores[col.ITEM],
            col.METRIC: metric_scores[col.METRIC],
            col.VARIANT: metric_scores[col.VARIANT].fillna(""),
            col.CONFIG: metric_scores[col.CONFIG].fillna(""),
            col.SCORE: metric_scores[col.SCORE],
            col.HIGHER_IS_BETTER: better,
        }
    )
    parts = [stored] if items is None else [stored, builtin_scores(items)]
    frame = pd.concat([p.astype(SCORES_FRAME_TYPES) for p in parts], ignore_index=True)
    frame = frame.sort_values([col.METRIC, col.VARIANT, col.CONFIG, col.ITEM], kind="stable")
    return frame.astype(SCORES_FRAME_TYPES).reset_index(drop=True)


def load_release(
    path: str | Path,
    *,
    include_practice: bool = False,
    include_simulated: bool = True,
    allow_extra_files: bool = False,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The ratings and scores frames of a release folder, validated first (ReleaseError)."""
    release = read_release(path, allow_extra_files=allow_extra_files)
    t = release.tables
    ratings = tidy_ratings(
        t["ratings"],
        t["participants"],
        t["items"],
        t["questionnaires"],
        include_practice=include_practice,
        include_simulated=include_simulated,
    )
    return ratings, tidy_scores(t["metric_scores"], t["items"], t.get("metrics"))
