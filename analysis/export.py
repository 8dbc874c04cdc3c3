"""A study as a WOJ-DB release (export), and a release back into an empty database (import).

The release layout and schemas are in :mod:`analysis.dataset`. Exports write into a temporary
folder beside the target and move it into place at the end, so a failed export leaves nothing;
imports validate every file first and then write in one transaction.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import CharField, TextField
from pyarrow import csv as pa_csv

import wojdb
from analysis import dataset, frames
from analysis.models import Metric, MetricScore
from analysis.stats import columns as col
from analysis.stats import mixed
from survey.models import (
    ConsentText,
    Corpus,
    Item,
    Participant,
    ParticipantLanguage,
    Permutation,
    Questionnaire,
    QuestionnaireEntry,
    Rating,
    Segment,
    Study,
    Triple,
)
from survey.wmt import input_files, open_input

DEFAULT_RELEASE_VERSION = "1.0"
ADJUSTMENT_MODEL = "judgment01 ~ 1 + (1 | participant)"
ADJUSTMENT_METHOD = (
    "REML as lme4 fits it (analysis.stats.mixed.adjust_scores), per judgment, on the release's "
    "ratings without the practice sample"
)
#: Study fields left out of a release: contact details and how the live study is run.
PRIVATE_STUDY_FIELDS = ("id", "researcher_email", "supervisor_email", "platform_return_url")
OPERATIONAL_STUDY_FIELDS = ("is_open", "created")
#: Models that must be empty before an import, in the order their rows are counted.
IMPORT_TARGETS = (Study, Segment, Corpus, Triple, Item, Participant, Rating, Metric)
#: Rows inserted per statement batch on import.
IMPORT_CHUNK = 5000
#: Models whose primary keys a release keeps (they are the ids in the frames).
KEPT_IDS = (Item, Questionnaire, Participant, Metric)


class ExportError(Exception):
    """Nothing to export, or nowhere to put it; nothing was written."""


class ImportRefused(Exception):
    """The database is not empty; nothing was written."""


def _no_progress(_: int) -> None:
    pass


# --- export ------------------------------------------------------------------------------------


@dataclass
class Export:
    tables: dict[str, pd.DataFrame]
    package: dict
    readme: str

    @property
    def name(self) -> str:
        return self.package["name"] + "-" + self.package["version"]


def study_configuration(study: Study) -> dict:
    """The study's settings and participant documents, without contact details."""
    config = {}
    for f in Study._meta.concrete_fields:
        if f.name in PRIVATE_STUDY_FIELDS + OPERATIONAL_STUDY_FIELDS or f.is_relation:
            continue
        config[f.name] = f.value_from_object(study)
    config["sample_item"] = study.sample_item_id
    config["shared_items"] = sorted(study.shared_items.values_list("pk", flat=True))
    config["consent_texts"] = [
        {"version": c.version, "statements": c.statements}
        for c in study.consent_texts.order_by("version")
    ]
    return config


def gather(study: Study, *, include_simulated: bool = True, progress=_no_progress) -> dict:
    """The release's tables for a study: its consenting participants' data only."""
    people = frames.select_participants(
        study, sharing_only=True, include_simulated=include_simulated
    )
    ratings = frames.ratings_table(people, include_practice=True)
    progress(1)
    if ratings.empty:
        total = study.participants.exclude(status="withdrawn").count()
        raise ExportError(
            f"Nothing to export: study {study.slug!r} has no ratings from participants who "
            f"consented to data sharing ({total} participants in all"
            f"{'' if include_simulated else ', simulated ones left out'})."
        )
    participants = frames.participants_table(people)
    questionnaires = frames.questionnaires_table(study)
    progress(1)
    item_ids = set(questionnaires[col.ITEM]) | set(ratings[col.ITEM])
    item_ids |= set(study.shared_items.values_list("pk", flat=True))
    if study.sample_item_id:
        item_ids.add(study.sample_item_id)
    scores = frames.metric_scores_table(item_ids)
    tables = {
        "items": frames.items_frame(item_ids),
        "questionnaires": questionnaires,
        "participants": participants,
        "participant_languages": frames.participant_languages_table(people),
        "ratings": ratings,
        "metrics": frames.metrics_table(scores["metric_id"].unique()),
        "metric_scores": scores,
    }
    progress(1)
    return {
        name: frame
        for name, frame in tables.items()
        if not (frame.empty and dataset.TABLES_BY_NAME[name].optional)
    }


def adjust(tables: dict[str, pd.DataFrame]) -> dict:
    """Fill the ratings' participant-adjusted columns (thesis §7.2.3) from this release's own
    scored ratings, so anyone refitting the release gets the same values; returns each fit's
    outcome for the package."""
    ratings = tables["ratings"]
    # Only what the model and the sentence groups need: a full ratings frame costs seconds.
    kinds = tables["items"][[col.ITEM, col.KIND, col.PERM_TYPE]]
    frame = ratings[
        [col.PARTICIPANT, col.ITEM, col.PRACTICE, *col.JUDGMENTS, *map(col.unit, col.JUDGMENTS)]
    ].merge(kinds, on=col.ITEM, how="left", validate="many_to_one")
    fits = {}
    for judgment in col.JUDGMENTS:
        name = col.adjusted(judgment)
        if frame[col.unit(judgment)].notna().sum() == 0:
            fits[judgment] = {"error": "no answers"}
            continue
        try:
            adjusted, fit = mixed.adjust_scores(frame, judgments=(judgment,))
        except (ValueError, np.linalg.LinAlgError) as e:
            fits[judgment] = {"error": str(e)}
            continue
        keys = [col.PARTICIPANT, col.ITEM]
        values = ratings[keys].merge(adjusted[[*keys, name]], on=keys, how="left")
        ratings[name] = values[name].to_numpy(dtype="float64")
        result = fit[judgment]
        fits[judgment] = {
            "n": result.n_obs,
            "converged": result.state.converged,
            "singular": result.state.singular,
            "participant_variance": float(result.variances[col.PARTICIPANT]),
            "residual_variance": float(result.variances["residual"]),
        }
    return {"model": ADJUSTMENT_MODEL, "fitted_by": ADJUSTMENT_METHOD, "fits": fits}


def build(
    study: Study,
    *,
    release_version: str = DEFAULT_RELEASE_VERSION,
    license: str | None = None,
    include_simulated: bool = True,
    progress=_no_progress,
) -> Export:
    tables = gather(study, include_simulated=include_simulated, progress=progress)
    adjustment = adjust(tables)
    package = descriptor(
        tables,
        study_configuration(study),
        adjustment,
        release_version=release_version,
        license=license,
        created=datetime.now(UTC),
    )
    return Export(tables, package, codebook(package, tables))


def descriptor(
    tables: dict[str, pd.DataFrame],
    study: dict,
    adjustment: dict,
    *,
    release_version: str,
    license: str | None,
    created: datetime,
) -> dict:
    """The Frictionless Tabular Data Package describing the release."""
    resources = []
    for table in dataset.TABLES:
        if table.name not in tables:
            continue
        resources.append(
            {
                "name": table.name,
                "path": table.path,
                "profile": "tabular-data-resource",
                "format": "csv",
                "mediatype": "text/csv",
                "encoding": "utf-8",
                "description": table.description,
                "schema": table.schema(),
            }
        )
    for table in dataset.TABLES:
        if table.name not in tables:
            continue
        resources.append(
            {
                "name": f"{table.name}_parquet",
                "path": table.parquet_path,
                "profile": "data-resource",
                "format": "parquet",
                "mediatype": "application/vnd.apache.parquet",
                "description": f"{table.path} as Parquet: the same columns, typed.",
                "schema": table.schema(),
            }
        )
    ratings = tables["ratings"]
    package = {
        "profile": "tabular-data-package",
        "name": f"wojdb-{study['slug'].lower()}",
        "title": f"WOJ-DB: {study['name']}",
        "description": (
            "Human judgments of machine-translation word order: holistic and word-order "
            "ratings (1-5) of WMT hypotheses and automatic permutations of their references, "
            "with participants' demographics and automatic metric scores."
        ),
        "version": release_version,
        "release_version": release_version,
        "format_version": dataset.FORMAT_VERSION,
        "software": "WOJ-DB",
        "software_version": wojdb.__version__,
        "created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "counts": {
            "participants": len(tables["participants"]),
            "items": len(tables["items"]),
            "questionnaires": int(tables["questionnaires"]["questionnaire"].nunique()),
            "ratings": len(ratings),
            "practice_ratings": int(ratings["practice"].sum()),
            "metric_scores": len(tables.get("metric_scores", ())),
        },
        "study": json.loads(json.dumps(study, default=str)),
        "adjustment": adjustment,
        "resources": resources,
    }
    if license:
        package["licenses"] = [{"name": license}]
    return package


def _cell(value) -> str:
    text = json.dumps(value) if isinstance(value, list | dict | bool) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def codebook(package: dict, tables: dict[str, pd.DataFrame]) -> str:
    """README.md: what the release holds, the study's configuration and every column."""
    study, counts, adjustment = package["study"], package["counts"], package["adjustment"]
    licence = (
        package["licenses"][0]["name"]
        if package.get("licenses")
        else "not stated; ask the study's researchers"
    )
    out = [
        f"# {package['title']} — release {package['release_version']}",
        "",
        package["description"],
        "",
        f"- Release version: {package['release_version']}",
        f"- Software: {package['software']} {package['software_version']}",
        f"- Release format: {package['format_version']} (WOJ-DB reads the formats up to its "
        "own, whichever version wrote them)",
        f"- Created: {package['created']}",
        f"- Licence: {licence}",
        f"- {counts['participants']} participants, {counts['questionnaires']} questionnaires, "
        f"{counts['items']} items, {counts['ratings']} ratings "
        f"({counts['practice_ratings']} of the practice sample), "
        f"{counts['metric_scores']} metric scores",
        "",
        "## Privacy",
        "",
        "Only participants who consented to data sharing are included, and participants who "
        "withdrew never are. Participant ids are pseudonymous. The release holds no names, "
        "e-mail addresses, crowd-platform ids or participant links.",
        "",
        "## Files",
        "",
        "| file | rows | contents |",
        "| --- | --- | --- |",
    ]
    for table in dataset.TABLES:
        if table.name in tables:
            out.append(f"| `{table.path}` | {len(tables[table.name])} | {table.description} |")
    absent = [t.path for t in dataset.TABLES if t.name not in tables]
    out += [
        "| `datapackage.json` | | Frictionless Tabular Data Package: every file's schema, the "
        "study configuration, the release and software versions. |",
        f"| `{dataset.PARQUET_DIR}/` | | Parquet copies of every table, typed. |",
        "",
    ]
    if absent:
        out += [f"Not in this release because they would be empty: {', '.join(absent)}.", ""]
    out += [
        "CSV files are UTF-8 with a header line; an empty cell is a missing value; "
        "booleans are true/false; times are UTC (`2024-05-01T12:00:00.000000Z`); list columns "
        "hold JSON arrays.",
        "",
        "## Loading",
        "",
        "With WOJ-DB's Python package (no server or database needed), the frames its analysis "
        "takes:",
        "",
        "```python",
        "from analysis.dataset import load_release",
        "ratings, scores = load_release('path/to/this/folder')",
        "```",
        "",
        "Any CSV reader works too, e.g. `pandas.read_csv('ratings.csv')` or R's "
        "`read.csv('ratings.csv')`. `manage.py import_wojdb FOLDER` loads the release into an "
        "empty WOJ-DB database.",
        "",
        "## Study configuration",
        "",
        "| setting | value |",
        "| --- | --- |",
    ]
    documents = {
        "information_sheet",
        "consent_intro",
        "consent_closing",
        "debriefing",
        "sample_holistic_note",
        "sample_order_note",
        "consent_texts",
    }
    for key, value in study.items():
        if key not in documents:
            out.append(f"| {key} | {_cell(value)} |")
    out += [
        "",
        "Answers are on a 5-point scale, 1 the low end and 5 the high end:",
        "",
        f"1. holistic: “{study.get('holistic_question')}” "
        f"(1 = {study.get('holistic_low')}, 5 = {study.get('holistic_high')})",
        f"2. order: “{study.get('order_question')}” "
        f"(1 = {study.get('order_low')}, 5 = {study.get('order_high')})",
        "",
        "The participant documents (information sheet, consent statements, debriefing) are in "
        "`datapackage.json` under `study`.",
        "",
        "## Adjusted scores",
        "",
        f"`holistic01_adjusted` and `order01_adjusted` in `ratings.csv` are the 0-1 scores minus "
        f"the participant's predicted random intercept from `{adjustment['model']}`, fitted by "
        f"{adjustment['fitted_by']} (thesis §7.2.3).",
        "",
    ]
    for judgment, fit in adjustment["fits"].items():
        if "error" in fit:
            out.append(f"- {judgment}: not computed ({fit['error']}); the column is empty.")
        else:
            out.append(
                f"- {judgment}: {fit['n']} ratings, participant variance "
                f"{fit['participant_variance']:.4g}, residual variance "
                f"{fit['residual_variance']:.4g}"
                f"{'' if fit['converged'] else ', did not converge'}"
                f"{', singular fit' if fit['singular'] else ''}."
            )
    out += ["", "## Codebook"]
    for table in dataset.TABLES:
        if table.name not in tables:
            continue
        out += ["", f"### {table.path}", "", table.description, ""]
        if table.primary_key:
            out.append(f"One row per {', '.join(table.primary_key)}.")
        for fk in table.foreign_keys:
            target = dataset.TABLES_BY_NAME[fk.resource].path
            out.append(f"`{', '.join(fk.fields)}` refers to `{target}`.")
        out += ["", "| column | type | required | description |", "| --- | --- | --- | --- |"]
        for f in table.fields:
            allowed = f" One of: {', '.join(f.enum)}." if f.enum else ""
            out.append(
                f"| `{f.name}` | {f.type} | {'yes' if f.required else ''} | "
                f"{_cell(f.description)}{allowed} |"
            )
    return "\n".join(out) + "\n"


def write_table(frame: pd.DataFrame, table: dataset.Table, folder: Path) -> None:
    """One table as Parquet and as CSV, converted to Arrow once; Arrow writes CSV about ten
    times faster than pandas at a million rows.

    CSV cells: missing values empty, booleans true/false, floats the shortest text that reads
    back exactly, times DATETIME_FORMAT in UTC, lists JSON arrays.
    """
    arrow = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(arrow, folder / table.parquet_path)
    columns = []
    for f in table.fields:
        column = arrow.column(f.name)
        if f.type == "array":
            column = pa.array(
                [None if v is None else json.dumps(v) for v in frame[f.name]], pa.string()
            )
        elif f.type == "datetime":
            text = column.cast(pa.int64()).cast(pa.timestamp("us")).cast(pa.string())
            column = pc.binary_join_element_wise(pc.replace_substring(text, " ", "T"), "Z", "")
        columns.append(column)
    pa_csv.write_csv(pa.table(columns, names=table.names), folder / table.path)


def save(export: Export, folder: Path, progress=_no_progress) -> None:
    """Write every file of the release into an existing empty folder."""
    (folder / dataset.PARQUET_DIR).mkdir()
    for table in dataset.TABLES:
        if (frame := export.tables.get(table.name)) is not None:
            write_table(frame, table, folder)
        progress(1)
    (folder / dataset.PACKAGE_FILE).write_text(
        json.dumps(export.package, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (folder / "README.md").write_text(export.readme, encoding="utf-8")


def write_zip(folder: Path, target, arcname: str) -> None:
    """Pack a release folder as `arcname/...` into a path or a binary file object."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{arcname}/{path.relative_to(folder).as_posix()}")


def export_release(
    study: Study, out: Path, *, as_zip: bool = False, progress=_no_progress, **options
) -> Path:
    """Export a study to the folder `out` (or, with `as_zip`, the archive `out`.zip).

    The target must not exist yet. Returns the path written.
    """
    target = out if not as_zip or out.suffix == ".zip" else out.with_name(out.name + ".zip")
    if target.exists():
        raise ExportError(f"{target} already exists; choose a new name. Nothing was written.")
    if not target.parent.is_dir():
        raise ExportError(f"{target.parent} is not a folder. Nothing was written.")
    export = build(study, progress=progress, **options)
    work = Path(tempfile.mkdtemp(prefix=".wojdb-export-", dir=target.parent))
    try:
        save(export, work, progress)
        if as_zip:
            partial = work.with_suffix(".zip")
            write_zip(work, partial, export.name)
            os.replace(partial, target)
        else:
            os.replace(work, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


#: How many progress steps export_release reports (a progress bar's total).
EXPORT_STEPS = 3 + len(dataset.TABLES)


# --- import ------------------------------------------------------------------------------------


@dataclass
class ImportReport:
    study: Study
    counts: dict[str, int]
    notes: list[str] = dataclasses.field(default_factory=list)

    def lines(self) -> list[str]:
        parts = ", ".join(f"{n} {name}" for name, n in self.counts.items())
        return [f"Imported study {self.study.slug!r}: {parts}.", *self.notes]


def refuse_non_empty() -> None:
    held = {m._meta.verbose_name_plural: m.objects.count() for m in IMPORT_TARGETS}
    held = {name: n for name, n in held.items() if n}
    if held:
        listing = ", ".join(f"{n} {name}" for name, n in held.items())
        raise ImportRefused(
            f"The database already holds data ({listing}); a release is loaded only into an "
            "empty database. Point DATABASE_URL at a new database, run `manage.py migrate`, "
            "and import again. Nothing was written."
        )


def _values(series: pd.Series) -> list:
    """Python values for the ORM: None for missing, datetimes as datetime objects."""
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        return [None if pd.isna(v) else v.to_pydatetime() for v in series]
    return [None if v is None or v is pd.NA or v != v else v for v in series.astype(object)]


def _create(
    model, frame: pd.DataFrame, fields: dict[str, str], progress=_no_progress, **fixed
) -> None:
    """Insert a row per frame row: `fields` maps column -> model field, `fixed` adds values.

    Works a chunk at a time so a million ratings never sit in memory as model objects. Text
    fields get "" where the release has a missing value (the model's blank).
    """
    texts = {
        f.name
        for f in model._meta.concrete_fields
        if isinstance(f, CharField | TextField) and not f.null
    }
    for start in range(0, len(frame), IMPORT_CHUNK):
        chunk = frame.iloc[start : start + IMPORT_CHUNK]
        columns = {field: _values(chunk[column]) for column, field in fields.items()}
        for field in texts & set(columns):
            columns[field] = ["" if v is None else v for v in columns[field]]
        model.objects.bulk_create(
            model(**fixed, **dict(zip(columns, row, strict=True)))
            for row in zip(*columns.values(), strict=True)
        )
        progress(len(chunk))


def _with_ids(frame: pd.DataFrame, queryset, key: dict[str, str], name: str) -> pd.DataFrame:
    """`frame` with the ids of the rows just written from it, matched on `key`
    (release column -> model field), in column `name`."""
    rows = pd.DataFrame.from_records(
        list(queryset.values_list(*key.values(), "pk")), columns=[*key, name]
    )
    rows = rows.astype({c: frame[c].dtype for c in key})
    return frame.merge(rows, on=list(key), how="left", validate="many_to_one")


def _study(config: dict) -> Study:
    names = {f.name for f in Study._meta.concrete_fields if not f.is_relation}
    fields = {
        k: v
        for k, v in config.items()
        if k in names and k not in PRIVATE_STUDY_FIELDS + OPERATIONAL_STUDY_FIELDS
    }
    study = Study(**fields, is_open=False)
    try:
        study.full_clean(exclude=["sample_item"], validate_unique=False)
    except ValidationError as e:
        problems = [
            dataset.Problem(dataset.PACKAGE_FILE, f"study.{name}: {' '.join(messages)}")
            for name, messages in e.message_dict.items()
        ]
        raise dataset.ReleaseError(problems) from None
    return study


SEGMENT_KEY = {
    "testset": "testset",
    "source_lang": "source_lang",
    "target_lang": "target_lang",
    "ref_name": "ref_name",
    "segment": "number",
}
SEGMENT_COLUMNS = {
    **SEGMENT_KEY,
    "year": "year",
    "document": "document",
    "domain": "domain",
    "source": "source",
    "reference": "reference",
    "source_length": "source_length",
    "reference_length": "reference_length",
}
CORPUS_KEY = {k: k for k in ("testset", "source_lang", "target_lang", "system")}
TRIPLE_COLUMNS = {
    "corpus_id": "corpus_id",
    "segment_id": "segment_id",
    "hypothesis": "hypothesis",
    "hypothesis_length": "hypothesis_length",
    "aligned_share": "aligned_share",
    "wmt_rank_score": "rank_score",
    "wmt_rank_count": "rank_count",
    "wmt_da_raw": "da_raw",
    "wmt_da_z": "da_z",
    "wmt_da_count": "da_count",
}
PERMUTATION_KEY = {"triple_id": "triple_id", "perm_type": "perm_type", "degree": "degree"}
PERMUTATION_COLUMNS = {
    **PERMUTATION_KEY,
    "seed": "seed",
    "text": "text",
    "tokens": "tokens",
    "moved": "moved",
    "mapping": "mapping",
    "perm_quality": "quality",
    "perm_software_version": "software_version",
}
QUESTIONNAIRE_COLUMNS = {
    "questionnaire": "pk",
    "number": "number",
    "version": "version",
    "seed": "seed",
    "software_version": "software_version",
}
ENTRY_COLUMNS = {
    "questionnaire": "questionnaire_id",
    "position": "position",
    "item": "item_id",
    "shared": "shared",
}
PARTICIPANT_COLUMNS = {
    **{f.name: f.name for f in dataset.PARTICIPANTS.fields if f.name != "languages_score"},
    "participant": "pk",
    "questionnaire": "questionnaire_id",
}
RATING_COLUMNS = {
    "participant": "participant_id",
    "item": "item_id",
    **{
        name: name
        for name in (
            "position",
            "practice",
            "holistic",
            "order",
            "shown_at",
            "answered_at",
            "client_ms",
            "revisions",
        )
    },
}
METRIC_COLUMNS = {
    "metric_id": "pk",
    "metric": "name",
    "variant": "variant",
    "config": "config",
    "version": "version",
    "higher_is_better": "higher_is_better",
    "builtin": "builtin",
    "description": "description",
}
SCORE_COLUMNS = {"item": "item_id", "metric_id": "metric_id", "score": "score"}


#: Tables whose every row becomes one database row.
IMPORTED_TABLES = (
    "items",
    "questionnaires",
    "participants",
    "participant_languages",
    "ratings",
    "metrics",
    "metric_scores",
)


def _import_items(items: pd.DataFrame, progress) -> None:
    """Segments, corpora, triples and permutations from items.csv, then the items."""
    _create(Segment, items.drop_duplicates(list(SEGMENT_KEY)), SEGMENT_COLUMNS, progress)
    _create(
        Corpus, items.drop_duplicates(list(CORPUS_KEY)), {**CORPUS_KEY, "year": "year"}, progress
    )
    items = _with_ids(items, Segment.objects, SEGMENT_KEY, "segment_id")
    items = _with_ids(items, Corpus.objects, CORPUS_KEY, "corpus_id")
    triple_key = {"corpus_id": "corpus_id", "segment_id": "segment_id"}
    _create(Triple, items.drop_duplicates(list(triple_key)), TRIPLE_COLUMNS, progress)
    items = _with_ids(items, Triple.objects, triple_key, "triple_id")
    perms = items[items["kind"] == col.PERMUTATION].astype({"degree": "int64"})
    _create(Permutation, perms, PERMUTATION_COLUMNS, progress)
    perms = _with_ids(perms, Permutation.objects, PERMUTATION_KEY, "permutation_id")
    items = items.merge(perms[["item", "permutation_id"]], on="item", how="left")
    columns = {"item": "pk", "triple_id": "triple_id", "permutation_id": "permutation_id"}
    _create(Item, items.astype({"permutation_id": "Int64"}), columns, progress)


def _reset_sequences() -> None:
    """Rows were written with their ids; let new rows continue after them (PostgreSQL)."""
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), KEPT_IDS):
            cursor.execute(sql)


def import_steps(release: dataset.Release) -> int:
    """Rows the import writes, for a progress bar's total."""
    t = release.tables
    items = t["items"]
    derived = [SEGMENT_KEY, CORPUS_KEY, dataset.TRIPLE_KEY]
    return (
        sum(len(items.drop_duplicates(list(key))) for key in derived)
        + int((items["kind"] == col.PERMUTATION).sum())
        + sum(len(t[name]) for name in IMPORTED_TABLES)
    )


def _study_items(config: dict, items: pd.DataFrame) -> list[int]:
    """The items the study configuration names, checked against items.csv."""
    wanted = [config.get("sample_item"), *config.get("shared_items", [])]
    missing = sorted(set(i for i in wanted if i is not None) - set(items["item"]))
    if missing:
        problem = dataset.Problem(
            dataset.PACKAGE_FILE, f"study refers to items {missing} absent from items.csv"
        )
        raise dataset.ReleaseError([problem])
    return config.get("shared_items", [])


def import_release(release: dataset.Release, progress=_no_progress) -> ImportReport:
    """Load a validated release (dataset.read_release) into an empty database, keeping its
    item, questionnaire, participant and metric ids."""
    refuse_non_empty()
    config = release.study
    if not config.get("slug") or not config.get("name"):
        problem = dataset.Problem(dataset.PACKAGE_FILE, "study: name and slug are required")
        raise dataset.ReleaseError([problem])
    t = release.tables
    shared = _study_items(config, t["items"])
    study = _study(config)
    with transaction.atomic():
        study.save()
        _import_items(t["items"], progress)
        study.sample_item_id = config.get("sample_item")
        study.save(update_fields=["sample_item"])
        study.shared_items.set(shared)
        ConsentText.objects.bulk_create(
            ConsentText(study=study, version=c["version"], statements=c["statements"])
            for c in config.get("consent_texts", [])
        )
        entries = t["questionnaires"]
        _create(
            Questionnaire,
            entries.drop_duplicates("questionnaire"),
            QUESTIONNAIRE_COLUMNS,
            study_id=study.pk,
            frozen=True,
        )
        _create(QuestionnaireEntry, entries, ENTRY_COLUMNS, progress)
        people = t["participants"]
        _create(
            Participant, people, PARTICIPANT_COLUMNS, progress, study_id=study.pk, share_data=True
        )
        _create(ParticipantLanguage, t["participant_languages"], frames.LANGUAGE_LOOKUPS, progress)
        _create(Rating, t["ratings"], RATING_COLUMNS, progress)
        _create(Metric, t["metrics"], METRIC_COLUMNS, progress)
        _create(MetricScore, t["metric_scores"], SCORE_COLUMNS, progress)
        _reset_sequences()
    counts = {
        "items": len(t["items"]),
        "questionnaires": int(entries["questionnaire"].nunique()),
        "participants": len(people),
        "ratings": len(t["ratings"]),
        "metric scores": len(t["metric_scores"]),
    }
    note = dataset.newer_software_note(release.package)
    return ImportReport(study, counts, [note] if note else [])


def read_source(path: Path, unpack_into: Path, *, allow_extra_files: bool = False) -> Path:
    """The release folder at `path`: a folder, or a .zip unpacked into `unpack_into`, which
    must hold one release and, unless `allow_extra_files`, nothing beside it."""
    if path.is_dir():
        return path
    with open_input(path) as handle:
        if not zipfile.is_zipfile(handle):
            raise FileNotFoundError(f"{path} is neither a release folder nor a zip archive")
        with zipfile.ZipFile(handle) as archive:
            archive.extractall(unpack_into)
    found = sorted(p.parent for p in unpack_into.rglob(dataset.PACKAGE_FILE))
    if not found:
        raise FileNotFoundError(f"{path} holds no {dataset.PACKAGE_FILE}")
    names = [f"{p.relative_to(unpack_into).as_posix()}/" for p in found]
    if len(found) > 1:
        problem = f"holds {len(found)} releases, {', '.join(names)}; import one at a time"
        raise dataset.ReleaseError([dataset.Problem(path.name, problem)])
    outside = [
        p.relative_to(unpack_into).as_posix()
        for p in input_files(unpack_into)
        if found[0] not in p.parents
    ]
    if outside and not allow_extra_files:
        raise dataset.ReleaseError([dataset.extra_files_problem(path.name, outside)])
    return found[0]
