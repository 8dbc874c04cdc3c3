"""A study's release from the database (export), and a release into an empty database (import).

The files are written by :mod:`wojdb.core.release.write` and read by :mod:`wojdb.core.release.read`.
Exports write into a temporary folder beside the target and move it into place at the end, so a
failed export leaves nothing; imports validate every file first and then write in one
transaction.
"""

from __future__ import annotations

import dataclasses
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.models import CharField, TextField

from analysis import frames
from analysis.models import Metric, MetricScore
from survey import platforms
from survey.design.plan import study_fields
from survey.models import (
    ConsentText,
    Corpus,
    ErrorAnnotation,
    ExternalJudgment,
    ExternalSegmentScore,
    Item,
    JudgmentImport,
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
from survey.sources.parses import target_rules
from wojdb.arguments import Output
from wojdb.core.permutations import truth
from wojdb.core.release import derived
from wojdb.core.release.read import (
    Problem,
    Release,
    ReleaseError,
    is_id,
    newer_software_note,
)
from wojdb.core.release.schema import (
    DA_SEGMENT,
    PACKAGE_FILE,
    PARTICIPANTS,
    TABLES,
    TABLES_BY_NAME,
    TRIPLE_KEY,
)
from wojdb.core.release.write import Export, _no_progress, codebook, descriptor, save, write_zip
from wojdb.core.stats import columns as col
from wojdb.core.vocabulary import DEFAULT_RELEASE_VERSION, WITHDRAWN

#: Study fields (of a study file's, survey.design.plan) left out of a release: contact details
#: and how the live study is run (whether it is open, and what each crowd platform has left
#: out: its codes, return address, settings). The import creates the study closed, and says
#: what it needs before opening.
LEFT_OUT_STUDY_FIELDS = (
    "researcher_email",
    "supervisor_email",
    "ethics_contact",
    *platforms.left_out(),
    "is_open",
)
#: Models that must be empty before an import, in the order their rows are counted.
IMPORT_TARGETS = (
    Study, Segment, Corpus, Triple, Item, Participant, Rating, Metric, JudgmentImport,
)  # fmt: skip
#: Rows inserted per statement batch on import.
IMPORT_CHUNK = 5000
#: Models whose primary keys a release keeps (they are the ids in the frames).
KEPT_IDS = (Item, Questionnaire, Participant, Metric)


class ExportError(Exception):
    """Nothing to export, or nowhere to put it; nothing was written."""


class ImportRefused(Exception):
    """The database is not empty; nothing was written."""


# --- export ------------------------------------------------------------------------------------


def released_study_fields() -> list:
    return [f for f in study_fields() if f.name not in LEFT_OUT_STUDY_FIELDS]


def study_configuration(study: Study) -> dict:
    """The study's settings and participant documents, without contact details."""
    config = {f.name: f.value_from_object(study) for f in released_study_fields()}
    config["sample_item"] = study.sample_item_id
    config["shared_items"] = sorted(study.shared_items.values_list("pk", flat=True))
    config["consent_texts"] = [
        {
            "version": c.version,
            "statements": c.statements,
            "optional": c.optional,
            "sharing": c.sharing,
        }
        for c in study.consent_texts.order_by("version")
    ]
    return config


def gather(study: Study, *, include_simulated: bool = False, progress=_no_progress) -> dict:
    """The release's tables for a study: its consenting participants' data only, simulated
    participants' only when asked for."""
    people = frames.select_participants(
        study, sharing_only=True, include_simulated=include_simulated
    )
    ratings = frames.ratings_table(people, include_practice=True)
    progress(1)
    if ratings.empty:
        present = study.participants.exclude(status=WITHDRAWN)
        total, simulated = present.count(), present.filter(simulated=True).count()
        left_out = (
            f", {simulated} of them simulated and left out: --include-simulated (on the "
            "dashboard, the download with the simulated participants) includes them"
            if simulated and not include_simulated
            else ""
        )
        raise ExportError(
            f"Nothing to export: study {study.slug!r} has no ratings from participants who "
            f"consented to data sharing ({total} participants in all{left_out})."
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
        "marks": frames.marks_table(people),
        "metrics": frames.metrics_table(scores["metric_id"].unique()),
        "metric_scores": scores,
        "judgments": frames.released_judgments_table(item_ids),
    }
    progress(1)
    return {
        name: frame
        for name, frame in tables.items()
        if not (frame.empty and TABLES_BY_NAME[name].optional)
    }


def build(
    study: Study,
    *,
    release_version: str = DEFAULT_RELEASE_VERSION,
    license: str | None = None,
    include_simulated: bool = False,
    progress=_no_progress,
) -> Export:
    """The release of a study; simulated participants are left out unless `include_simulated`,
    and the descriptor says which (`wojdb.core.release.write.simulated_statement`)."""
    tables = gather(study, include_simulated=include_simulated, progress=progress)
    adjusted, adjustment = derived.participant_adjusted(tables)
    tables["ratings"] = tables["ratings"].assign(**adjusted)
    package = descriptor(
        tables,
        study_configuration(study),
        adjustment,
        release_version=release_version,
        license=license,
        created=datetime.now(UTC),
        include_simulated=include_simulated,
    )
    return Export(tables, package, codebook(package, tables))


def release_output(out: Path, as_zip: bool) -> Output:
    """Where a release named `out` is written: the folder, or the archive `out`.zip."""
    target = out if not as_zip or out.suffix == ".zip" else out.with_name(out.name + ".zip")
    return Output(target, folder=not as_zip, holds="datapackage.json")


def export_release(
    study: Study,
    out: Path,
    *,
    as_zip: bool = False,
    force: bool = False,
    progress=_no_progress,
    **options,
) -> Path:
    """Export a study to the folder `out` (or, with `as_zip`, the archive `out`.zip), written
    beside it and renamed into place (wojdb.arguments.Output).

    The target must not exist yet, unless `force`; a symbolic link is refused (a CommandError).
    Returns the path written.
    """
    output = release_output(out, as_zip)
    output.claim(force)
    target = output.path
    export = build(study, progress=progress, **options)
    with output.writing(force) as work:
        if as_zip:
            with tempfile.TemporaryDirectory(prefix=".wojdb-export-", dir=target.parent) as files:
                save(export, Path(files), progress)
                write_zip(Path(files), work, export.name)
        else:
            save(export, work, progress)
    return target


#: How many progress steps export_release reports (a progress bar's total).
EXPORT_STEPS = 3 + len(TABLES)


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


def _invalid(error: ValidationError, where: str) -> list[Problem]:
    return [
        Problem(PACKAGE_FILE, f"{where}.{name}: {' '.join(messages)}")
        for name, messages in error.message_dict.items()
    ]


def _study(config: dict) -> Study:
    """The study, closed: the platform's codes it may need to open are not in the release
    (Study.unfilled names them)."""
    names = {f.name for f in released_study_fields()}
    fields = {k: v for k, v in config.items() if k in names}
    study = Study(**fields, is_open=False)
    try:
        study.full_clean(exclude=["sample_item"], validate_unique=False)
    except ValidationError as e:
        raise ReleaseError(_invalid(e, "study")) from None
    return study


def _consent_texts(config: dict) -> list[ConsentText]:
    """The study's consent versions, checked as the admin checks them. Releases written
    before they carried `optional` and `sharing` get the model's defaults."""
    texts = config.get("consent_texts", [])
    if not isinstance(texts, list) or not all(isinstance(t, dict) for t in texts):
        raise ReleaseError([Problem(PACKAGE_FILE, "study.consent_texts: a list of objects")])
    consents, problems, versions = [], [], set()
    for n, text in enumerate(texts):
        where = f"study.consent_texts[{n}]"
        consent = ConsentText(
            version=text.get("version"),
            statements=text.get("statements"),
            optional=text.get("optional", []),
            sharing=text.get("sharing"),
        )
        try:
            consent.full_clean(exclude=["study"], validate_constraints=False)
        except ValidationError as e:
            problems += _invalid(e, where)
            continue
        if consent.version in versions:
            problems.append(Problem(PACKAGE_FILE, f"{where}: version {consent.version} twice"))
        versions.add(consent.version)
        consents.append(consent)
    if problems:
        raise ReleaseError(problems)
    return consents


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
    **{f.name: f.name for f in PARTICIPANTS.fields if f.name != "languages_score"},
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
            "flagged",
            "comment",
            "marks",
        )
    },
}
SCORE_COLUMNS = {"item": "item_id", "metric_id": "metric_id", "score": "score"}
#: judgments.csv's triple key -> the triple's fields.
TRIPLE_LOOKUPS = {
    "testset": "segment__testset",
    "source_lang": "segment__source_lang",
    "target_lang": "segment__target_lang",
    "ref_name": "segment__ref_name",
    "segment": "segment__number",
    "system": "corpus__system",
}
JUDGMENT_FILE_KEY = {
    "file_sha256": "sha256",
    "testset": "testset",
    "source_lang": "source_lang",
    "target_lang": "target_lang",
}
JUDGMENT_ROW = {
    "source_id": "source_id",
    "triple_id": "triple_id",
    "source_lang": "source_lang",
    "target_lang": "target_lang",
    "published_system": "system",
    "published_segment": "segment_id",
    "published_document": "document",
    "line": "line",
}
JUDGMENT_COLUMNS = {
    **JUDGMENT_ROW,
    "rater": "rater",
    "item_type": "item_type",
    "hit": "hit_id",
    "score": "score",
    "seconds": "seconds",
    "file": "source_file",
}
SEGMENT_SCORE_COLUMNS = {**JUDGMENT_ROW, "score": "z", "raw": "raw", "judgments": "judgments"}


#: Tables whose every row becomes one database row.
IMPORTED_TABLES = (
    "items",
    "questionnaires",
    "participants",
    "participant_languages",
    "ratings",
    "metrics",
    "metric_scores",
    "judgments",
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
    perms = _with_truths(items[items["kind"] == col.PERMUTATION].astype({"degree": "int64"}))
    truths = {"displaced": "displaced", "minimal_moves": "minimal_moves"}
    _create(Permutation, perms, PERMUTATION_COLUMNS | truths, progress)
    perms = _with_ids(perms, Permutation.objects, PERMUTATION_KEY, "permutation_id")
    items = items.merge(perms[["item", "permutation_id"]], on="item", how="left")
    columns = {"item": "pk", "triple_id": "triple_id", "permutation_id": "permutation_id"}
    _create(Item, items.astype({"permutation_id": "Int64"}), columns, progress)


def _with_truths(perms: pd.DataFrame) -> pd.DataFrame:
    """The permutations with their truths, which a release leaves out as they follow from the
    rest: stored as generation stores them, so that every permutation has its own."""
    rules = {code: target_rules(code) for code in perms["target_lang"].unique()}
    found = [
        truth.truths(tokens, mapping, moved, rules[code])
        for tokens, mapping, moved, code in zip(
            perms["tokens"], perms["mapping"], perms["moved"], perms["target_lang"], strict=True
        )
    ]
    return perms.assign(
        displaced=[list(displaced) for displaced, _ in found],
        minimal_moves=[list(minimal) for _, minimal in found],
    )


def _import_judgments(judgments: pd.DataFrame, progress) -> None:
    """judgments.csv: one import record per file (hash, test set and pair), the judgments
    linked to the triples items.csv made, and the errors of each. The alignment was checked
    when the files were first imported; here each row names its line."""
    files = judgments.drop_duplicates(list(JUDGMENT_FILE_KEY))
    JudgmentImport.objects.bulk_create(
        JudgmentImport(
            sha256=row.file_sha256, file_name=row.file, testset=row.testset,
            source_lang=row.source_lang, target_lang=row.target_lang, mapping="lines",
            level=JudgmentImport.SEGMENT,
            **dict(zip(("file_format", "kind"), frames.RELEASE_KINDS[row.kind], strict=True)),
        )
        for row in files.itertuples()
    )  # fmt: skip
    judgments = _with_ids(judgments, JudgmentImport.objects, JUDGMENT_FILE_KEY, "source_id")
    judgments = _with_ids(judgments, Triple.objects, TRIPLE_LOOKUPS, "triple_id")
    means = judgments["kind"] == DA_SEGMENT
    _create(ExternalSegmentScore, judgments[means], SEGMENT_SCORE_COLUMNS, progress)
    rated = judgments[~means]
    _create(ExternalJudgment, rated, JUDGMENT_COLUMNS, progress)
    rated = _with_ids(rated, ExternalJudgment.objects, {"source_id": "source_id", "line": "line"},
                      "judgment_id")  # fmt: skip
    ErrorAnnotation.objects.bulk_create(
        (
            ErrorAnnotation(judgment_id=judgment, **error)
            for judgment, errors in zip(rated["judgment_id"], rated["errors"], strict=True)
            for error in errors or ()
        ),
        batch_size=IMPORT_CHUNK,
    )


def with_marks(ratings: pd.DataFrame, marks: pd.DataFrame) -> pd.DataFrame:
    """ratings.csv with each rating's Rating.marks from marks.csv: None where ratings.marked is
    empty, else its units as [unit, shown, time first marked] ([] when none was marked)."""
    key = ["participant", "item"]
    marks = marks.sort_values([*key, "unit"])
    times = [None if pd.isna(at) else at.isoformat() for at in marks["marked_at"]]
    units: dict[tuple, list] = {}
    for p, i, u, shown, at in zip(
        marks["participant"], marks["item"], marks["unit"], marks["shown"], times, strict=True
    ):
        units.setdefault((p, i), []).append([int(u), shown, at])
    answered = ratings["marked"].notna()
    return ratings.assign(
        marks=[
            units.get((p, i), []) if a else None
            for p, i, a in zip(ratings["participant"], ratings["item"], answered, strict=True)
        ]
    )


def _reset_sequences() -> None:
    """Rows were written with their ids; let new rows continue after them (PostgreSQL)."""
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), KEPT_IDS):
            cursor.execute(sql)


def import_steps(release: Release) -> int:
    """Rows the import writes, for a progress bar's total."""
    t = release.tables
    items = t["items"]
    derived = [SEGMENT_KEY, CORPUS_KEY, TRIPLE_KEY]
    return (
        sum(len(items.drop_duplicates(list(key))) for key in derived)
        + int((items["kind"] == col.PERMUTATION).sum())
        + sum(len(t[name]) for name in IMPORTED_TABLES)
    )


def _study_items(config: dict, items: pd.DataFrame) -> list[int]:
    """The items the study configuration names, checked against items.csv."""
    shared = config.get("shared_items", [])
    if not isinstance(shared, list) or not all(map(is_id, shared)):
        problem = Problem(PACKAGE_FILE, "study.shared_items: a list of item ids")
        raise ReleaseError([problem])
    wanted = [config.get("sample_item"), *shared]
    missing = sorted(set(i for i in wanted if i is not None) - set(items["item"]))
    if missing:
        problem = Problem(PACKAGE_FILE, f"study refers to items {missing} absent from items.csv")
        raise ReleaseError([problem])
    return config.get("shared_items", [])


def import_release(release: Release, progress=_no_progress) -> ImportReport:
    """Load a validated release (read.read_release) into an empty database, keeping its
    item, questionnaire, participant and metric ids."""
    refuse_non_empty()
    config = release.study
    if not config.get("slug") or not config.get("name"):
        problem = Problem(PACKAGE_FILE, "study: name and slug are required")
        raise ReleaseError([problem])
    t = release.tables
    shared = _study_items(config, t["items"])
    study = _study(config)
    consents = _consent_texts(config)
    with transaction.atomic():
        study.save()
        _import_items(t["items"], progress)
        study.sample_item_id = config.get("sample_item")
        study.save(update_fields=["sample_item"])
        study.shared_items.set(shared)
        for consent in consents:
            consent.study = study
        ConsentText.objects.bulk_create(consents)
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
        _create(Rating, with_marks(t["ratings"], t["marks"]), RATING_COLUMNS, progress)
        _create(Metric, t["metrics"], frames.METRIC_LOOKUPS, progress)
        _create(MetricScore, t["metric_scores"], SCORE_COLUMNS, progress)
        _import_judgments(t["judgments"], progress)
        _reset_sequences()
    counts = {
        "items": len(t["items"]),
        "questionnaires": int(entries["questionnaire"].nunique()),
        "participants": len(people),
        "ratings": len(t["ratings"]),
        "metric scores": len(t["metric_scores"]),
        "imported judgments": len(t["judgments"]),
    }
    notes = [closed_note(study)]
    if note := newer_software_note(release.package):
        notes.append(note)
    return ImportReport(study, counts, notes)


def closed_note(study: Study) -> str:
    """What the researcher sets before opening an imported study (LEFT_OUT_STUDY_FIELDS)."""
    missing = study.unfilled()
    wanted = f"Set {', '.join(missing)}" if missing else "Set those it needs"
    return (
        f"Study {study.slug!r} was imported closed (is_open off): releases leave out contact "
        f"details and the crowd platform's codes, return address and settings. {wanted} before "
        "opening it."
    )
