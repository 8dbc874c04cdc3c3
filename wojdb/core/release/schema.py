"""The WOJ-DB release's tables and columns: the one schema every other release module uses.

A release is a folder with one CSV file per table below, typed Parquet copies in ``parquet/``,
a ``README.md`` codebook and a ``datapackage.json`` (a Frictionless Data Package whose table
schemas are written from the tables here). Only the tables marked optional may be absent: they
are left out when they would be empty. Adding a column is adding its :class:`Field` here: the
export, the readers, the import, the codebook and the descriptor follow; a column added to a
released format also needs a new FORMAT_VERSION and its ADDED_FIELDS entry.

Imports nothing from Django.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from wojdb.core.stats import columns as col
from wojdb.core.vocabulary import (
    EDUCATION_LEVELS,
    GENDERS,
    PARTICIPANT_STATUSES,
    PARTICIPATION_MODES,
    WEB,
    WITHDRAWN,
)

PACKAGE_FILE = "datapackage.json"
PARQUET_DIR = "parquet"
DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
TRUE_VALUES = ("True", "true", "TRUE", "1")
FALSE_VALUES = ("False", "false", "FALSE", "0")

#: Built-in score sources of the scores frame (not stored as MetricScore rows).
WMT_METRIC = "WMT"
PERMUTATION_METRIC = "Permutation degree"

#: Withdrawn participants are never released.
STATUSES = tuple(s for s in PARTICIPANT_STATUSES if s != WITHDRAWN)


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
    pattern: str | None = None  # a regular expression the whole value matches

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
        if self.pattern is not None:
            constraints["pattern"] = self.pattern
        if constraints:
            out["constraints"] = constraints
        return out


@dataclass(frozen=True)
class ForeignKey:
    fields: tuple[str, ...]
    resource: str
    reference: tuple[str, ...]


@dataclass(frozen=True)
class TableSchema:
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


def _as_list(value) -> list:
    return [value] if isinstance(value, str) else list(value)


def _fk(fields, resource, reference=None) -> ForeignKey:
    fields = _as_list(fields)
    return ForeignKey(tuple(fields), resource, tuple(_as_list(reference or fields)))


ITEMS = TableSchema(
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

QUESTIONNAIRES = TableSchema(
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

_LIKERT = dict(minimum=col.LIKERT_MIN, maximum=col.LIKERT_MAX)
#: The about-you page's limit for ages and years of the language
#: (survey.participants.forms.AboutForm).
MAX_YEARS = 120
PARTICIPANTS = TableSchema(
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
            enum=PARTICIPATION_MODES,
        ),
        Field("consent_version", "integer", "Version of the consent statements accepted."),
        Field("reading_mode", "boolean", "Chose larger, more widely spaced text.", True),
        Field("age", "integer", "Age in years.", minimum=0, maximum=MAX_YEARS),
        Field("gender", "string", "male, female, other or not_say.", enum=GENDERS),
        Field("nationality", "string", "Nationality, as written."),
        Field(
            "education",
            "string",
            "Highest education: school, college, undergraduate, masters or phd.",
            enum=EDUCATION_LEVELS,
        ),
        Field(
            "target_first",
            "boolean",
            "The study's language (the items' target_lang) is a first language.",
        ),
        Field(
            "target_years",
            "integer",
            "Years of speaking the study's language fluently.",
            minimum=0,
            maximum=MAX_YEARS,
        ),
        Field("reading_disability", "string", "Reading disability, as written."),
        Field(
            "grammar_attention",
            "integer",
            "How much attention the participant pays to grammar, 1-5.",
            **_LIKERT,
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

PARTICIPANT_LANGUAGES = TableSchema(
    "participant_languages",
    "One row per language a participant listed, the study's language included.",
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
        Field(
            "qualifications",
            "string",
            "Qualifications in the language, as written.",
        ),
    ),
    foreign_keys=(_fk("participant", "participants"),),
    optional=True,
)

RATINGS = TableSchema(
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
        Field("flagged", "boolean", "The participant flagged the pair as having a problem."),
        Field("comment", "string", "The participant's comment on the pair; empty if none."),
        Field(
            "marked",
            "integer",
            "Studies asking which words are out of place (word_marks): how many units of the "
            "sentence the participant marked (marks.csv), 0 when they said no word is out of "
            "place; empty when the pair's marks were not answered or the study never asked.",
            minimum=0,
        ),
    ),
    primary_key=("participant", "item"),
    foreign_keys=(_fk("participant", "participants"), _fk("item", "items")),
)

MARKS = TableSchema(
    "marks",
    "Studies asking which words are out of place (word_marks): one row per unit of a rated "
    "sentence a participant marked. Units are the sentence's whitespace words, or its "
    "characters (spaces left out) in a script written without spaces. A pair answered with no "
    "word out of place has no row here and 0 in ratings.marked. Left out of the release of a "
    "study that never asked.",
    (
        Field("participant", "integer", "Participant id (participants.csv).", True),
        Field("item", "integer", "Item id (items.csv).", True),
        Field("unit", "integer", "Position of the unit in the sentence, from 0.", True, minimum=0),
        Field("shown", "string", "The unit as shown to the participant.", True),
        Field("marked_at", "datetime", "When the unit was first marked (UTC)."),
    ),
    primary_key=("participant", "item", "unit"),
    foreign_keys=(
        _fk("participant", "participants"),
        _fk("item", "items"),
        _fk(["participant", "item"], "ratings"),
    ),
    optional=True,
)

METRICS = TableSchema(
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

METRIC_SCORES = TableSchema(
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

TRIPLE_KEY = ("testset", "source_lang", "target_lang", "ref_name", "segment", "system")
#: Kinds of imported judgment: a WMT DA rater's z score (per-rater files), WMT's segment mean
#: of them (segment-score files), an Appraise DA score, an ESA score with its error spans and
#: an MQM score with its errors (Google's error files).
DA, DA_SEGMENT, APPRAISE_DA, ESA, MQM = "da", "da_segment", "appraise_da", "esa", "mqm"
JUDGMENT_KINDS = (DA, DA_SEGMENT, APPRAISE_DA, ESA, MQM)
#: Kinds whose rows list the errors marked (`errors`).
ERROR_KINDS = (ESA, MQM)
#: The keys of each error in `errors`, in this order.
ERROR_KEYS = ("category", "severity", "side", "start", "end", "span", "weight")
JUDGMENTS = TableSchema(
    "judgments",
    "One row per imported human judgment of a hypothesis of the release's items (WMT DA per "
    "rater and per segment, Appraise DA, ESA, MQM), as the file it came from has it. Only the "
    "judgments of the release's own sentences and systems: the whole of an evaluation is its "
    "publisher's to release (see Imported human judgments).",
    (
        Field(
            "kind",
            "string",
            "da: one WMT DA rater's z score; da_segment: WMT's mean of a segment's DA "
            "judgments (raw, z and their number); appraise_da: an Appraise DA score, 0-100; "
            "esa: an ESA score, 0-100, with its error spans; mqm: an MQM score, minus the "
            "rater's error weights.",
            True,
            enum=JUDGMENT_KINDS,
        ),
        Field("testset", "string", "Test set of the judged hypothesis (items.csv).", True),
        Field("source_lang", "string", "Source language (items.csv).", True),
        Field("target_lang", "string", "Target language (items.csv).", True),
        Field("ref_name", "string", "Reference of the judged triple (items.csv).", True),
        Field("segment", "integer", "Test-set line judged (items.csv).", True, minimum=1),
        Field(
            "system",
            "string",
            "The judged system, named as items.csv names it (the name as imported where a "
            "system of that name was imported, else the file's name normalised).",
            True,
        ),
        Field(
            "published_system",
            "string",
            "The system as the file names it (JDExploreAcademy.6).",
            True,
        ),
        Field(
            "published_segment",
            "integer",
            "The segment id as the file gives it (WMT SID, Appraise itemId, MQM seg_id): not "
            "always the line.",
            True,
            minimum=0,
        ),
        Field("published_document", "string", "The document id as the file gives it, if any."),
        Field("rater", "string", "The file's anonymous rater id; empty for da_segment."),
        Field(
            "item_type",
            "string",
            "WMT DA: SYSTEM, REPEAT, BAD_REF or REF (only SYSTEM and REPEAT score a system); "
            "Appraise: TGT, BAD ...; MQM: MQM; empty for da_segment.",
        ),
        Field("hit", "string", "WMT DA: the HIT the judgment was made in."),
        Field(
            "score",
            "number",
            "da, da_segment: the rater-standardised z score (da_segment: Z.SCR, the mean); "
            "appraise_da, esa: 0-100; mqm: minus the sum of the error weights (0 is no error).",
            True,
        ),
        Field(
            "raw",
            "number",
            "da_segment: RAW.SCR, the mean raw score, 0-100.",
            minimum=0,
            maximum=100,
        ),  # fmt: skip
        Field("judgments", "integer", "da_segment: N, the judgments averaged.", minimum=1),
        Field("seconds", "number", "Time the judgment took, where the file gives it.", minimum=0),
        Field(
            "errors",
            "array",
            "esa, mqm: JSON list of the errors marked, each an object with "
            + ", ".join(ERROR_KEYS)
            + " (side: target or source; start, end: character offsets, null where none; "
            "weight: MQM's); [] where none was marked.",
        ),
        Field("file", "string", "Name of the imported file.", True),
        Field(
            "file_sha256",
            "string",
            "SHA-256 of the imported file: which publication of it was imported.",
            True,
            pattern="[0-9a-f]{64}",
        ),
        Field("line", "integer", "The (first) line of the file it comes from.", True, minimum=1),
    ),
    primary_key=("testset", "source_lang", "target_lang", "file_sha256", "line"),
    foreign_keys=(_fk(list(TRIPLE_KEY), "items"),),
    optional=True,
)

#: In dependency order: a table refers only to tables before it.
TABLES = (
    ITEMS,
    QUESTIONNAIRES,
    PARTICIPANTS,
    PARTICIPANT_LANGUAGES,
    RATINGS,
    MARKS,
    METRICS,
    METRIC_SCORES,
    JUDGMENTS,
)
TABLES_BY_NAME = {t.name: t for t in TABLES}

#: Participant columns carried into the ratings frame (demographic subsets use any of them).
DEMOGRAPHICS = (
    col.AGE,
    col.GENDER,
    "nationality",
    col.EDUCATION,
    col.TARGET_FIRST,
    "target_years",
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
    col.TARGET_LANG: "str",
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
    col.TARGET_FIRST: "boolean",
    "target_years": "float64",
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


def typed(frame: pd.DataFrame, table: TableSchema) -> pd.DataFrame:
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


def empty_table(table: TableSchema) -> pd.DataFrame:
    return typed(pd.DataFrame({name: [] for name in table.names}), table)


SEGMENT_FIELDS = (
    "year",
    "document",
    "domain",
    "source",
    "reference",
    "source_length",
    "reference_length",
)
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


# --- format ------------------------------------------------------------------------------------

#: The release format this software writes. It reads formats 1 to FORMAT_VERSION, whichever WOJ-DB
#: version wrote them; a release without `format_version` is format 1 (written before the field
#: existed). A later format is refused, naming both versions. Format 2 added participants.mode
#: and ratings.flagged and ratings.comment; format 3 renamed participants.english_first and
#: english_years to target_first and target_years (studies in other languages); format 4 added
#: judgments.csv; format 5 added word marks (marks.csv and ratings.marked).
FORMAT_VERSION = 5
#: table -> the format that added it (an earlier release has none of its rows).
ADDED_TABLES = {"judgments": 4, "marks": 5}
#: (table, field) -> (the format that added it, what an earlier release means by its absence):
#: before paper questionnaires every participant answered on the web, and before flags and
#: comments no pair was flagged or commented on; before word marks no study asked for them.
ADDED_FIELDS = {
    ("participants", "mode"): (2, WEB),
    ("ratings", "flagged"): (2, False),
    ("ratings", "comment"): (2, ""),
    ("ratings", "marked"): (5, None),
}
#: (table, field) -> (the format that renamed it, its name before): earlier formats were all
#: English studies, whose answers on English are the answers on the study's language.
RENAMED_FIELDS = {
    ("participants", "target_first"): (3, "english_first"),
    ("participants", "target_years"): (3, "english_years"),
}
#: Files of a release besides those its datapackage.json resources name.
RELEASE_FILES = (PACKAGE_FILE, "README.md")


def in_format(table: str, field: str, version: int) -> bool:
    """Whether release format `version` has the column (ADDED_FIELDS)."""
    return ADDED_FIELDS.get((table, field), (1, None))[0] <= version


def name_in_format(table: str, field: str, version: int) -> str:
    """The column's name in release format `version` (RENAMED_FIELDS)."""
    since, before = RENAMED_FIELDS.get((table, field), (1, field))
    return before if version < since else field


def format_tables(version: int) -> tuple[TableSchema, ...]:
    """The tables as release format `version` has them: without the tables and columns added
    later, with the names they had then."""
    return tuple(
        replace(
            t,
            fields=tuple(
                replace(f, name=name_in_format(t.name, f.name, version))
                for f in t.fields
                if in_format(t.name, f.name, version)
            ),
        )
        for t in TABLES
        if ADDED_TABLES.get(t.name, 1) <= version
    )


#: The tables of each format this software reads. A release is checked against these, never
#: against the limits or allowed values its own datapackage.json states.
SCHEMAS = {version: format_tables(version) for version in range(1, FORMAT_VERSION + 1)}


def upgraded(tables: dict[str, pd.DataFrame], version: int) -> dict[str, pd.DataFrame]:
    """The tables of a format-`version` release with the columns renamed since under their
    new names, and those added since filled by what the release meant by their absence, typed
    as this format has them."""
    out = dict(tables)
    for (name, field), (since, before) in RENAMED_FIELDS.items():
        if version < since and name in out:
            out[name] = out[name].rename(columns={before: field})
    for (name, added), (since, meaning) in ADDED_FIELDS.items():
        if version < since and name in out:
            out[name] = typed(out[name].assign(**{added: meaning}), TABLES_BY_NAME[name])
    return out
