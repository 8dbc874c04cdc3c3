"""The database as the tidy DataFrames of wojdb.core.stats.columns: the one place that reads it.

Every table comes from one ``values_list`` query (a few for long lists of ids; never one per
row) and is typed by the release schema (:mod:`wojdb.core.release.schema`); the frames are then
joined by the same pure functions that load an exported release, so the live database and its
release analyse identically.

Score sources (:func:`scores_frame`): the stored ``MetricScore`` rows, plus two built-in sources
that live on the items rather than in ``MetricScore`` (``wojdb.core.release.load.builtin_scores``):
``WMT`` (the WMT score of hypothesis items: eq. 6.1 rank score, else DA raw / 100) and
``Permutation degree`` (eq. 6.2 of permutation items). They are metric rows like any other so
correlations treat every source alike; ``builtin=False`` leaves them out.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
from django.db import connections
from django.db.models import QuerySet, Sum, TextField
from django.db.models.functions import Cast, Coalesce

from analysis.models import Metric, MetricScore
from survey.models import (
    ExternalJudgment,
    Item,
    Participant,
    ParticipantLanguage,
    QuestionnaireEntry,
    Rating,
    Study,
    SystemScore,
)
from wojdb.core import scales
from wojdb.core.release import derived, load, schema
from wojdb.core.stats import columns as col
from wojdb.core.stats import system
from wojdb.core.vocabulary import WITHDRAWN

#: SQLite allows 999 variables in a statement on old builds; lists of ids go in chunks.
ID_CHUNK = 900

ITEM_LOOKUPS = {
    "item": "pk",
    "permutation_id": "permutation_id",
    "permutation_text": "permutation__text",
    "reference": "triple__segment__reference",
    "source": "triple__segment__source",
    "hypothesis": "triple__hypothesis",
    "testset": "triple__segment__testset",
    "year": "triple__segment__year",
    "source_lang": "triple__segment__source_lang",
    "target_lang": "triple__segment__target_lang",
    "ref_name": "triple__segment__ref_name",
    "segment": "triple__segment__number",
    "document": "triple__segment__document",
    "domain": "triple__segment__domain",
    "system": "triple__corpus__system",
    "perm_type": "permutation__perm_type",
    "degree": "permutation__degree",
    "seed": "permutation__seed",
    "moved": "permutation__moved",
    "tokens": "permutation__tokens",
    "mapping": "permutation__mapping",
    "perm_quality": "permutation__quality",
    "perm_software_version": "permutation__software_version",
    "source_length": "triple__segment__source_length",
    "reference_length": "triple__segment__reference_length",
    "hypothesis_length": "triple__hypothesis_length",
    "aligned_share": "triple__aligned_share",
    "wmt_rank_score": "triple__rank_score",
    "wmt_rank_count": "triple__rank_count",
    "wmt_da_raw": "triple__da_raw",
    "wmt_da_z": "triple__da_z",
    "wmt_da_count": "triple__da_count",
}
PARTICIPANT_LOOKUPS = {
    "participant": "pk",
    "questionnaire": "questionnaire_id",
    **{
        f.name: f.name
        for f in schema.PARTICIPANTS.fields
        if f.name not in ("participant", "questionnaire", "languages_score")
    },
    "languages_score": "languages_score",
}
LANGUAGE_LOOKUPS = {
    "participant": "participant_id",
    "language": "language",
    "fluency": "fluency",
    "qualifications": "qualifications",
}
RATING_COLUMNS = {
    "participant": "participant_id",
    "item": "item_id",
    "position": "position",
    "practice": "practice",
    "holistic": "holistic",
    "order": "order",
    "shown_at": "shown_at_text",
    "answered_at": "answered_at_text",
    "client_ms": "client_ms",
    "revisions": "revisions",
    "flagged": "flagged",
    "comment": "comment",
}
ENTRY_LOOKUPS = {
    "questionnaire": "questionnaire_id",
    "number": "questionnaire__number",
    "version": "questionnaire__version",
    "seed": "questionnaire__seed",
    "software_version": "questionnaire__software_version",
    "position": "position",
    "item": "item_id",
    "shared": "shared",
}
METRIC_LOOKUPS = {
    "metric_id": "pk",
    "metric": "name",
    "variant": "variant",
    "config": "config",
    "version": "version",
    "higher_is_better": "higher_is_better",
    "builtin": "builtin",
    "description": "description",
}
SCORE_LOOKUPS = {
    "item": "item_id",
    "metric_id": "metric_id",
    "metric": "metric__name",
    "variant": "metric__variant",
    "config": "metric__config",
    "score": "score",
}


def _frame(queryset: QuerySet, lookups: dict[str, str]) -> pd.DataFrame:
    """The queryset's `lookups` (column -> ORM lookup) as a frame of Python values."""
    rows = queryset.values_list(*lookups.values()).iterator(chunk_size=20_000)
    return pd.DataFrame.from_records(rows, columns=list(lookups))


def _bulk_frame(queryset: QuerySet, columns: dict[str, str]) -> pd.DataFrame:
    """For a big table: the queryset's SQL run on a plain cursor, columns found by name.

    The ORM's per-value converters cost more than the query itself at a million rows;
    schema.typed() converts whole columns at once instead.
    """
    sql, params = queryset.values_list(*columns.values()).query.sql_with_params()
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(sql, params)
        found = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
    names = {column: name for name, column in columns.items()}
    return pd.DataFrame.from_records(rows, columns=[names[c] for c in found])


def _chunked(queryset: QuerySet, ids: Iterable[int] | None, lookups, lookup="pk__in"):
    """_frame of the rows whose `lookup` is in `ids` (all rows if None), asked in chunks."""
    if ids is None:
        return _frame(queryset, lookups)
    ids = sorted(set(int(i) for i in ids))
    parts = [
        _frame(queryset.filter(**{lookup: ids[i : i + ID_CHUNK]}), lookups)
        for i in range(0, len(ids), ID_CHUNK)
    ]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(lookups))


def _study(study: Study | str | None) -> Study | None:
    return Study.objects.get(slug=study) if isinstance(study, str) else study


def select_participants(
    study: Study | str | None = None,
    *,
    sharing_only: bool = False,
    include_simulated: bool = True,
    include_pilot: bool = False,
) -> QuerySet:
    """Participants to analyse; withdrawn ones never (they are deleted, this is a safeguard),
    nor paper participants whose consent is incomplete (on the web they could not take part),
    nor pilot participants (who came before the study's launch) unless asked for."""
    people = Participant.objects.exclude(status=WITHDRAWN).exclude(
        mode="paper", consent_version__isnull=True
    )
    if not include_pilot:
        people = people.filter(pilot=False)
    if (study := _study(study)) is not None:
        people = people.filter(study=study)
    if sharing_only:
        people = people.filter(share_data=True)
    if not include_simulated:
        people = people.filter(simulated=False)
    return people


def items_frame(items: Iterable[int] | None = None) -> pd.DataFrame:
    """One row per item (all, or the given ids) with its texts and attributes: items.csv."""
    frame = _chunked(Item.objects.all(), items, ITEM_LOOKUPS)
    is_perm = frame["permutation_id"].notna()
    frame["kind"] = is_perm.map({True: col.PERMUTATION, False: col.HYPOTHESIS})
    frame["text"] = frame["permutation_text"].where(is_perm, frame["hypothesis"])
    frame["wmt_score"] = scales.wmt_score(frame["wmt_rank_score"], frame["wmt_da_raw"])
    return schema.typed(frame.sort_values("item"), schema.ITEMS)


def participants_table(participants: QuerySet) -> pd.DataFrame:
    """participants.csv: pseudonymous ids and about-you answers, with language points."""
    annotated = participants.annotate(
        languages_score=Coalesce(Sum("languages__fluency"), 0)
    ).order_by("pk")
    return schema.typed(_frame(annotated, PARTICIPANT_LOOKUPS), schema.PARTICIPANTS)


def participant_languages_table(participants: QuerySet) -> pd.DataFrame:
    """participant_languages.csv: every language the participants listed."""
    languages = ParticipantLanguage.objects.filter(participant__in=participants)
    frame = _frame(languages.order_by("participant_id", "pk"), LANGUAGE_LOOKUPS)
    return schema.typed(frame, schema.PARTICIPANT_LANGUAGES)


def ratings_table(participants: QuerySet, *, include_practice: bool = True) -> pd.DataFrame:
    """ratings.csv: the answers as given, their 0-1 values, position and times.

    The adjusted columns stay empty here: they depend on which ratings are analysed together
    (see wojdb.core.release.derived.participant_adjusted).
    """
    ratings = Rating.objects.filter(participant__in=participants).annotate(
        # As text: SQLite's datetime converter is the slowest part of reading a million rows.
        shown_at_text=Cast("shown_at", TextField()),
        answered_at_text=Cast("answered_at", TextField()),
    )
    if not include_practice:
        ratings = ratings.filter(practice=False)
    # Sorted here rather than by the database, which would sort a million rows more slowly.
    frame = _bulk_frame(ratings.order_by(), RATING_COLUMNS)
    frame = frame.sort_values(["participant", "position", "item"], kind="stable")
    typed = schema.typed(frame, schema.RATINGS)
    for judgment in col.JUDGMENTS:
        typed[col.unit(judgment)] = scales.answer_to_unit(typed[judgment].astype("float64"))
    typed[col.SECONDS] = derived.rating_seconds(
        typed["client_ms"], typed["shown_at"], typed["answered_at"]
    )
    return typed


def questionnaires_table(study: Study | str | None = None) -> pd.DataFrame:
    """questionnaires.csv: every questionnaire's items by position."""
    entries = QuestionnaireEntry.objects.all()
    if (study := _study(study)) is not None:
        entries = entries.filter(questionnaire__study=study)
    frame = _frame(entries.order_by("questionnaire_id", "position"), ENTRY_LOOKUPS)
    return schema.typed(frame, schema.QUESTIONNAIRES)


def metric_scores_table(items: Iterable[int] | None = None) -> pd.DataFrame:
    """metric_scores.csv: stored scores of the given items (all if None), long format."""
    frame = _chunked(MetricScore.objects.all(), items, SCORE_LOOKUPS, lookup="item_id__in")
    frame = frame.sort_values(["metric_id", "item"], kind="stable")
    return schema.typed(frame, schema.METRIC_SCORES)


def metrics_table(metric_ids: Iterable[int] | None = None) -> pd.DataFrame:
    """metrics.csv: the given metric configurations (all if None)."""
    frame = _chunked(Metric.objects.all(), metric_ids, METRIC_LOOKUPS)
    return schema.typed(frame.sort_values("metric_id"), schema.METRICS)


def ratings_frame(
    study: Study | str | None = None,
    include_practice: bool = False,
    include_simulated: bool = True,
    *,
    sharing_only: bool = False,
    include_pilot: bool = False,
) -> pd.DataFrame:
    """The ratings frame: one row per rating with item and participant columns.

    `sharing_only` keeps the participants who consented to data sharing, i.e. what a release
    of the study holds.
    """
    people = select_participants(
        study,
        sharing_only=sharing_only,
        include_simulated=include_simulated,
        include_pilot=include_pilot,
    )
    ratings = ratings_table(people, include_practice=include_practice)
    return load.tidy_ratings(
        ratings,
        participants_table(people),
        items_frame(ratings[col.ITEM].unique()),
        questionnaires_table(study),
        include_practice=include_practice,
        include_simulated=include_simulated,
    )


def scores_frame(items: Iterable[int] | None = None, *, builtin: bool = True) -> pd.DataFrame:
    """The long scores frame (item, metric, variant, config, score) of the given items.

    With `builtin`, the ``WMT`` and ``Permutation degree`` sources are added as metric rows.
    """
    items = None if items is None else sorted(set(int(i) for i in items))
    scores = metric_scores_table(items)
    metrics = metrics_table(scores["metric_id"].unique())
    return load.tidy_scores(scores, items_frame(items) if builtin else None, metrics)


def da_judgments_frame(testset: str | None = None) -> pd.DataFrame:
    """Imported WMT direct-assessment judgments as `wojdb.core.stats.system`'s judgments frame.

    ``raw`` is the segment's mean raw score (``ad-seg-scores``, on the linked triple), so a
    system's raw score is WMT's mean over segments; NaN for judgments not linked to a sentence
    (systems not imported, or segment ids that could not be mapped). With ``testset``, only
    judgments imported for that test set, linked or not.
    """
    rows = ExternalJudgment.objects.all()
    if testset:
        rows = rows.filter(source__testset=testset)
    fields = ["system", "segment_id", "rater", "score", "item_type", "source_lang", "target_lang"]
    records = pd.DataFrame.from_records(
        rows.order_by("pk").values_list(*fields, "triple__da_raw"), columns=[*fields, "raw"]
    )
    return system.wmt_judgments(records)


def study_judgments_frame(
    ratings: pd.DataFrame, testset: str | None = None, judgment: str = col.HOLISTIC
) -> pd.DataFrame:
    """The study's ratings of WMT hypotheses as a judgments frame (see `system.study_judgments`)."""
    if ratings.empty:
        return system.wmt_judgments(())
    items = items_frame(ratings[col.ITEM].unique())
    if testset:
        items = items[items["testset"] == testset]
    return system.study_judgments(ratings, items, judgment)


def corpus_segments_frame(testset: str | None = None, lps=None) -> pd.DataFrame:
    """Hypothesis items of imported triples with their WMT segment DA (`stats.corpus` frame).

    Only items that exist (``import_scores`` makes them for the triples it scores) count;
    system names are the corpus's (``UF``, not the judgment file's ``UF.15``).
    """
    items = Item.objects.filter(permutation=None)
    if testset:
        items = items.filter(triple__segment__testset=testset)
    lookups = {
        "item": "pk",
        "source_lang": "triple__segment__source_lang",
        "target_lang": "triple__segment__target_lang",
        "system": "triple__corpus__system",
        "segment": "triple__segment__number",
        "da_z": "triple__da_z",
        "da_raw": "triple__da_raw",
    }
    frame = _frame(items.order_by("pk"), lookups)
    frame.insert(1, system.LP, frame.pop("source_lang") + "-" + frame.pop("target_lang"))
    if lps:
        frame = frame[frame[system.LP].isin(lps)]
    return frame.astype({"da_z": float, "da_raw": float}).reset_index(drop=True)


def mqm_judgments_frame(testset: str | None = None) -> pd.DataFrame:
    """Imported MQM segment scores (metric ``MQM``) as a judgments frame, one row per segment.

    MQM files give one score per system and segment, averaged over raters; ``score`` is that
    (negative error weight: higher is better).
    """
    rows = MetricScore.objects.filter(metric__name="MQM", item__permutation=None)
    if testset:
        rows = rows.filter(item__triple__segment__testset=testset)
    lookups = {
        "system": "item__triple__corpus__system",
        "segment_id": "item__triple__segment__number",
        "score": "score",
        "source_lang": "item__triple__segment__source_lang",
        "target_lang": "item__triple__segment__target_lang",
    }
    frame = _frame(rows.order_by("pk"), lookups)
    return system.wmt_judgments(frame.assign(rater="", item_type="SYSTEM"))


def da_system_raw(testset: str | None = None) -> pd.DataFrame:
    """WMT's system-level raw DA scores kept where segment ids could not be mapped (lp, system,
    raw)."""
    rows = SystemScore.objects.filter(cluster__isnull=True)  # not the published results
    if testset:
        rows = rows.filter(testset=testset)
    frame = pd.DataFrame.from_records(
        rows.values_list("source_lang", "target_lang", "system", "raw"),
        columns=["source_lang", "target_lang", system.SYSTEM, system.RAW],
    )
    frame.insert(0, system.LP, frame.pop("source_lang") + "-" + frame.pop("target_lang"))
    return frame


def da_system_published(testset: str | None = None) -> pd.DataFrame:
    """WMT's system-level results imported as published (WMT21's clusters file), in the columns
    of `wojdb.core.stats.system.system_scores`: z, raw, the annotation count as ``judgments``,
    ``n`` (segments) unknown, ``rank`` by z and WMT's own ``cluster``."""
    rows = SystemScore.objects.filter(cluster__isnull=False)
    if testset:
        rows = rows.filter(testset=testset)
    frame = pd.DataFrame.from_records(
        rows.values_list(
            "source_lang", "target_lang", "system", "z", "raw", "judgments", "cluster"
        ),
        columns=["source_lang", "target_lang", system.SYSTEM, "z", system.RAW, "judgments",
                 "cluster"],
    )  # fmt: skip
    frame.insert(0, system.LP, frame.pop("source_lang") + "-" + frame.pop("target_lang"))
    frame = frame.sort_values([system.LP, "z"], ascending=[True, False], kind="stable")
    frame["n"] = float("nan")
    frame["rank"] = frame.groupby(system.LP).cumcount() + 1
    return frame[system.COLUMNS].reset_index(drop=True)
