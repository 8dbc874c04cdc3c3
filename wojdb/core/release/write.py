"""Writing a release: its files, datapackage.json and README.md codebook (codebook.md).

Imports nothing from Django; :mod:`analysis.releases` gathers the tables.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from string import Template

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyarrow import csv as pa_csv

import wojdb
from wojdb.core import texts
from wojdb.core.release.read import file_stamp
from wojdb.core.release.schema import (
    FORMAT_VERSION,
    PACKAGE_FILE,
    PARQUET_DIR,
    TABLES,
    TABLES_BY_NAME,
    TableSchema,
)
from wojdb.core.spreadsheet import escape_text
from wojdb.core.stats import columns as col

CODEBOOK = Template((Path(__file__).parent / "codebook.md").read_text(encoding="utf-8"))
#: Study settings shown as documents, not in the codebook's settings table.
DOCUMENTS = (
    *texts.DOCUMENTS,
    "sample_holistic_note",
    "sample_order_note",
    "consent_texts",
)


def _no_progress(_: int) -> None:
    pass


@dataclass
class Export:
    tables: dict[str, pd.DataFrame]
    package: dict
    readme: str

    @property
    def name(self) -> str:
        return self.package["name"] + "-" + self.package["version"]


def descriptor(
    tables: dict[str, pd.DataFrame],
    study: dict,
    adjustment: dict,
    *,
    release_version: str,
    license: str | None,
    created: datetime,
    include_simulated: bool = False,
) -> dict:
    """The Frictionless Tabular Data Package describing the release."""
    resources = []
    for table in TABLES:
        if table.name not in tables:
            continue
        resources.append(
            {
                "name": table.name,
                "path": table.path,
                "profile": "tabular-data-resource",
                "format": "csv",
                "mediatype": "text/csv",
                "type": "table",
                "encoding": "utf-8",
                "description": table.description,
                "schema": table.schema(),
            }
        )
    for table in TABLES:
        if table.name not in tables:
            continue
        # A plain file to Frictionless, which reads no Parquet: its columns are the CSV's.
        resources.append(
            {
                "name": f"{table.name}_parquet",
                "path": table.parquet_path,
                "type": "file",
                "profile": "data-resource",
                "format": "parquet",
                "mediatype": "application/vnd.apache.parquet",
                "description": f"{table.path} as Parquet: the same columns, typed.",
            }
        )
    ratings = tables["ratings"]
    simulated = simulated_statement(tables["participants"], ratings, include_simulated)
    package = {
        "profile": "data-package",
        "name": f"wojdb-{study['slug'].lower()}",
        "title": f"WOJ-DB: {study['name']}",
        "description": (
            "Human judgments of machine-translation word order: holistic and word-order "
            "ratings (1-5) of WMT hypotheses and automatic permutations of their references, "
            "with participants' demographics and automatic metric scores. "
            + simulated["description"]
        ),
        "version": release_version,
        "release_version": release_version,
        "format_version": FORMAT_VERSION,
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
            "judgments": len(tables.get("judgments", ())),
        },
        "simulated_participants": simulated,
        "study": json.loads(json.dumps(study, default=str)),
        "adjustment": adjustment,
        "resources": resources,
    }
    if license:
        package["licenses"] = [{"name": license}]
    return package


def simulated_statement(participants: pd.DataFrame, ratings: pd.DataFrame, included: bool) -> dict:
    """Whether the release holds simulated participants (whose answers a generative model gave,
    `simulate_responses`), how many and with how many ratings, in a sentence."""
    marked = participants[col.SIMULATED].astype(bool)
    simulated = set(participants.loc[marked, col.PARTICIPANT])
    n, total = len(simulated), len(participants)
    rated = int(ratings[col.PARTICIPANT].isin(simulated).sum())
    if not included:
        text = "Simulated participants are left out: every participant here is a person."
    elif n == 0:
        text = "No participant is simulated."
    else:
        share = f"All {total}" if n == total else f"{n} of the {total}"
        text = (
            f"{share} participants ({rated} of the {len(ratings)} ratings) are simulated: "
            "their answers come from a generative model (simulate_responses), not from people; "
            "participants.csv marks them in the column `simulated`."
        )
    return {"included": included, "participants": n, "ratings": rated, "description": text}


def _cell(value) -> str:
    text = json.dumps(value) if isinstance(value, list | dict | bool) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def codebook(package: dict, tables: dict[str, pd.DataFrame]) -> str:
    """README.md: what the release holds, the study's configuration and every column."""
    study, counts, adjustment = package["study"], package["counts"], package["adjustment"]
    absent = [t.path for t in TABLES if t.name not in tables]
    present = [t for t in TABLES if t.name in tables]
    # The study's questions and scale labels fill their placeholders by name.
    return CODEBOOK.substitute(
        {**study, **package},
        licence=package["licenses"][0]["name"]
        if package.get("licenses")
        else "not stated; ask the study's researchers",
        **counts,
        files="\n".join(
            f"| `{t.path}` | {len(tables[t.name])} | {t.description} |" for t in present
        ),
        parquet_dir=PARQUET_DIR,
        absent=(
            f"\nNot in this release because they would be empty: {', '.join(absent)}.\n"
            if absent
            else ""
        )
        + (
            ""
            if study.get("word_marks")
            else "\nThe study did not ask which words are out of place (`word_marks`): no "
            "`marks.csv`, and `ratings.marked` is empty.\n"
        ),
        settings="\n".join(
            f"| {key} | {_cell(value)} |" for key, value in study.items() if key not in DOCUMENTS
        ),
        adjustment_model=adjustment["model"],
        adjustment_method=adjustment["fitted_by"],
        fits="\n".join(_fit_line(j, fit) for j, fit in adjustment["fits"].items()),
        codebook="".join(_columns(t) for t in present),
    )


def _fit_line(judgment: str, fit: dict) -> str:
    if "error" in fit:
        return f"- {judgment}: not computed ({fit['error']}); the column is empty."
    return (
        f"- {judgment}: {fit['n']} ratings, participant variance "
        f"{fit['participant_variance']:.4g}, residual variance {fit['residual_variance']:.4g}"
        f"{'' if fit['converged'] else ', did not converge'}"
        f"{', singular fit' if fit['singular'] else ''}."
    )


def _columns(table: TableSchema) -> str:
    out = ["", f"### {table.path}", "", table.description, ""]
    if table.primary_key:
        out.append(f"One row per {', '.join(table.primary_key)}.")
    for fk in table.foreign_keys:
        out.append(f"`{', '.join(fk.fields)}` refers to `{TABLES_BY_NAME[fk.resource].path}`.")
    out += ["", "| column | type | required | description |", "| --- | --- | --- | --- |"]
    for f in table.fields:
        allowed = f" One of: {', '.join(f.enum)}." if f.enum else ""
        out.append(
            f"| `{f.name}` | {f.type} | {'yes' if f.required else ''} | "
            f"{_cell(f.description)}{allowed} |"
        )
    return "\n".join(out) + "\n"


def stamped(package: dict, tables: dict[str, pd.DataFrame], folder: Path) -> dict:
    """The descriptor with each written file's size and SHA-256 hash, and each table's rows."""
    resources = []
    for resource in package["resources"]:
        with open(folder / resource["path"], "rb") as handle:
            size, digest = file_stamp(handle)
        extra = {"bytes": size, "hash": digest}
        if resource["name"] in tables:
            extra["rows"] = len(tables[resource["name"]])
        resources.append({**resource, **extra})
    return {**package, "resources": resources}


def write_table(frame: pd.DataFrame, table: TableSchema, folder: Path) -> None:
    """One table as Parquet and as CSV, converted to Arrow once; Arrow writes CSV about ten
    times faster than pandas at a million rows.

    CSV cells: missing values empty, booleans true/false, floats the shortest text that reads
    back exactly, times DATETIME_FORMAT in UTC, lists JSON arrays, every text cell
    escaped against spreadsheet formulas (wojdb.core.spreadsheet).
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
        elif f.type == "string":
            column = pa.array(escape_text(frame[f.name]), pa.string())
        elif f.type == "datetime":
            text = column.cast(pa.int64()).cast(pa.timestamp("us")).cast(pa.string())
            column = pc.binary_join_element_wise(pc.replace_substring(text, " ", "T"), "Z", "")
        columns.append(column)
    pa_csv.write_csv(pa.table(columns, names=table.names), folder / table.path)


def save(export: Export, folder: Path, progress=_no_progress) -> None:
    """Write every file of the release into an existing empty folder."""
    (folder / PARQUET_DIR).mkdir()
    for table in TABLES:
        if (frame := export.tables.get(table.name)) is not None:
            write_table(frame, table, folder)
        progress(1)
    package = stamped(export.package, export.tables, folder)
    (folder / PACKAGE_FILE).write_text(
        json.dumps(package, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (folder / "README.md").write_text(export.readme, encoding="utf-8")


def write_zip(folder: Path, target, arcname: str) -> None:
    """Pack a release folder as `arcname/...` into a path or a binary file object."""
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                archive.write(path, f"{arcname}/{path.relative_to(folder).as_posix()}")
