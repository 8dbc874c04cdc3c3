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
from django.db.models import Count, Q, QuerySet, Sum, TextField
from django.db.models.functions import Cast, Coalesce

from analysis.models import Metric, MetricScore
from analysis.scores_import import MQM_SEGMENT_SCORES
from survey.models import (
    Corpus,
    ErrorAnnotation,
    ExternalJudgment,
    ExternalSegmentScore,
    Item,
    JudgmentImport,
    Participant,
    ParticipantLanguage,
    QuestionnaireEntry,
    Rating,
    Segment,
    Study,
    SystemScore,
)
from wojdb.core import scales
from wojdb.core.formats import wmt
from wojdb.core.formats.judgments import APPRAISE, CLUSTERS, MQM
from wojdb.core.formats.segment_ids import DIRECT_ASSESSMENT, ERROR_ANNOTATION
from wojdb.core.release import derived, load, schema
from wojdb.core.stats import columns as col
from wojdb.core.stats import marks as word_marks
from wojdb.core.stats import protocols, system
from wojdb.core.vocabulary import EXTERNAL_SOURCES, WITHDRAWN

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


def rated_items_frame(participants: QuerySet) -> pd.DataFrame:
    """items_frame of the items these participants rated, practice left out: the items of
    their ratings frame, scores, marks and system-level tables."""
    rated = Rating.objects.filter(participant__in=participants, practice=False)
    return items_frame(rated.values_list("item_id", flat=True).distinct())


def _items_of(ids: Iterable[int], items: pd.DataFrame | None) -> pd.DataFrame:
    """items_frame(ids), taken from ``items`` (an items frame holding them all) where given:
    one analysis reads its items once for its ratings, scores, marks and systems."""
    if items is None:
        return items_frame(ids)
    return items[items[col.ITEM].isin(set(int(i) for i in ids))].reset_index(drop=True)


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
    marked = _rating_marks(participants).set_index(["participant", "item"])["marks"].map(len)
    at = pd.MultiIndex.from_frame(typed[["participant", "item"]])
    typed["marked"] = pd.array(marked.reindex(at).to_numpy(), dtype="Int64")
    return typed


def _rating_marks(participants: QuerySet) -> pd.DataFrame:
    """participant, item and Rating.marks of the ratings whose marks were answered."""
    answered = Rating.objects.filter(participant__in=participants, marks__isnull=False)
    return _frame(
        answered.order_by("participant_id", "item_id"),
        {"participant": "participant_id", "item": "item_id", "marks": "marks"},
    )


def marks_table(participants: QuerySet) -> pd.DataFrame:
    """marks.csv: one row per unit the participants marked."""
    rows = [
        (participant, item, unit, shown, at)
        for participant, item, marks in _rating_marks(participants).itertuples(index=False)
        for unit, shown, at in marks
    ]
    frame = pd.DataFrame(rows, columns=schema.MARKS.names)
    return schema.typed(frame.sort_values(["participant", "item", "unit"]), schema.MARKS)


def crossing_units(items: Iterable[int]) -> dict[int, list | None]:
    """The stored crossing words of the hypothesis items among `items` (None: never aligned)."""
    hypotheses = Item.objects.filter(permutation__isnull=True)
    frame = _chunked(hypotheses, items, {"item": "pk", "crossing": "triple__crossing_words"})
    return dict(zip(frame["item"], frame["crossing"], strict=True))


def truths_frame(items: pd.DataFrame) -> pd.DataFrame:
    """wojdb.core.stats.marks's truths frame of an items frame's items."""
    return word_marks.item_truths(items, crossing_units(items["item"]))


def marks_frames(
    participants: QuerySet, items: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, ...]:
    """wojdb.core.stats.marks's answers and truths frames of these ratings' participants
    (``items``: an items frame holding their items, if already read)."""
    answered = word_marks.answers(ratings_table(participants), marks_table(participants))
    return answered, truths_frame(_items_of(answered["item"].unique(), items))


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
    items: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The ratings frame: one row per rating with item and participant columns.

    `sharing_only` keeps the participants who consented to data sharing, i.e. what a release
    of the study holds. ``items``: an items frame holding the rated items, if already read.
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
        _items_of(ratings[col.ITEM].unique(), items),
        questionnaires_table(study),
        include_practice=include_practice,
        include_simulated=include_simulated,
    )


def scores_frame(
    items: Iterable[int] | None = None,
    *,
    builtin: bool = True,
    item_frame: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The long scores frame (item, metric, variant, config, score) of the given items.

    With `builtin`, the ``WMT`` and ``Permutation degree`` sources are added as metric rows,
    from ``item_frame`` (an items frame holding the given items) where already read.
    """
    items = None if items is None else sorted(set(int(i) for i in items))
    scores = metric_scores_table(items)
    metrics = metrics_table(scores["metric_id"].unique())
    rows = None
    if builtin:
        rows = items_frame() if items is None else _items_of(items, item_frame)
    return load.tidy_scores(scores, rows, metrics)


def da_judgments_frame(testset: str | None = None) -> pd.DataFrame:
    """Imported WMT direct-assessment per-rater judgments (`ad-XXen-good-stnd.csv`) as
    `wojdb.core.stats.system`'s judgments frame, linked to a sentence or not. With
    ``testset``, only judgments imported for that test set."""
    rows = ExternalJudgment.objects.filter(source__file_format=wmt.JUDGMENTS)
    if testset:
        rows = rows.filter(source__testset=testset)
    lookups = {f: f for f in ("system", "segment_id", "rater", "score", "item_type")}
    lookups |= {
        "source_lang": "source_lang",
        "target_lang": "target_lang",
        system.TESTSET: "source__testset",
        system.DOCUMENT: "document",
    }
    return _as_imported(system.wmt_judgments(_frame(rows.order_by("pk"), lookups)))


def _as_imported(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (system, testset and lp columns) with each system named as every table names
    it: by the mapping its import reported (`wojdb.core.formats.wmt.imported_system`) over the
    systems imported for its test set and language pair (`JDExploreAcademy.6` is
    `JDExploreAcademy`, `HUMAN.0` is `refB`), as the study's items name them."""
    if frame.empty:
        return frame
    imported: dict[tuple[str, str], set[str]] = {}
    for testset, src, tgt, name in Corpus.objects.values_list(
        "testset", "source_lang", "target_lang", "system"
    ):
        imported.setdefault((testset, f"{src}-{tgt}"), set()).add(name)
    keys = list(zip(frame[system.SYSTEM], frame[system.TESTSET], frame[system.LP], strict=True))
    named = {key: wmt.imported_system(key[0], imported.get(key[1:], ())) for key in set(keys)}
    return frame.assign(**{system.SYSTEM: [named[key] for key in keys]})


def da_segments_frame(testset: str | None = None) -> pd.DataFrame:
    """Imported WMT DA segment scores (`ad-seg-scores-LP.csv`), every row as published, as a
    segments frame: ``score`` is Z.SCR, ``raw`` RAW.SCR, ``judgments`` N."""
    rows = ExternalSegmentScore.objects.exclude(source__file_format=MQM_SEGMENT_SCORES)
    if testset:
        rows = rows.filter(source__testset=testset)
    lookups = {
        system.SYSTEM: "system",
        system.SEGMENT: "segment_id",
        system.DOCUMENT: "document",
        system.SCORE: "z",
        system.RAW: "raw",
        "judgments": "judgments",
        system.TESTSET: "source__testset",
        "source_lang": "source_lang",
        "target_lang": "target_lang",
    }
    frame = _frame(rows.order_by("pk"), lookups)
    frame[system.LP] = frame.pop("source_lang") + "-" + frame.pop("target_lang")
    return _as_imported(frame)


#: Per-rater judgments of each `rater_judgments_frame` source: file format and kind.
RATER_SOURCES = {"mqm": (MQM, ERROR_ANNOTATION), "esa": (APPRAISE, ERROR_ANNOTATION)}


def _rater_rows(source: str, testset: str | None, lookups: dict, **only) -> pd.DataFrame:
    """The segment-level judgments of a `RATER_SOURCES` source (document scores left out), one
    row each in import order, with the system, segment, document, rater, score, test set and
    language pair, and the columns of `lookups` besides."""
    file_format, kind = RATER_SOURCES[source]
    rows = ExternalJudgment.objects.filter(
        source__file_format=file_format, source__kind=kind, document_score=False, **only
    )
    if testset:
        rows = rows.filter(source__testset=testset)
    lookups = {
        system.SYSTEM: "system",
        system.SEGMENT: "segment_id",
        system.DOCUMENT: "document",
        system.RATER: "rater",
        system.SCORE: "score",
        system.TESTSET: "source__testset",
        "source_lang": "source_lang",
        "target_lang": "target_lang",
        **lookups,
    }
    frame = _frame(rows.order_by("pk"), lookups).astype({system.SCORE: float})
    frame[system.LP] = frame.pop("source_lang") + "-" + frame.pop("target_lang")
    return frame


def rater_judgments_frame(source: str, testset: str | None = None) -> pd.DataFrame:
    """Imported MQM (error files) or ESA (Appraise) judgments as a judgments frame: one row per
    rater, system and segment, ``score`` the rater's (MQM: minus the error weights; ESA:
    0-100). Document-level scores and Appraise's quality controls (BAD) are left out."""
    return _as_imported(_rater_rows(source, testset, {}, item_type__in=("TGT", "MQM")))


def protocol_ratings_frame(source: str, testset: str | None = None, lps=None) -> pd.DataFrame:
    """Imported ESA (Appraise) or MQM judgments as a ratings frame of
    `wojdb.core.stats.protocols`: every row as imported, quality controls and filler included
    (the protocol says which count), with its document as published (`#tag` kept), its end
    time, its file (``wave``: the import it came from) and its segment's domain: the linked
    line's, else that of the document in the stored test set (a human reference judged as a
    system has no sentences of its own)."""
    extra = {
        system.TYPE: "item_type",
        protocols.TIME_END: "time_end",
        protocols.WAVE: "source_id",
        protocols.DOMAIN: "triple__segment__domain",
    }
    frame = _rater_rows(source, testset, extra).astype({protocols.TIME_END: float})
    if lps:
        frame = frame[frame[system.LP].isin(set(lps))]
    if frame.empty:
        return frame
    domains = {
        (ts, f"{src}-{tgt}", document): domain
        for ts, src, tgt, document, domain in Segment.objects.filter(
            testset__in=set(frame[system.TESTSET])
        )
        .exclude(domain="")
        .values_list("testset", "source_lang", "target_lang", "document", "domain")
        .distinct()
    }
    unlinked = frame[protocols.DOMAIN].isna()
    frame.loc[unlinked, protocols.DOMAIN] = [
        domains.get((ts, lp, document.partition("#")[0]), "")
        for ts, lp, document in frame.loc[
            unlinked, [system.TESTSET, system.LP, system.DOCUMENT]
        ].itertuples(index=False)
    ]
    return _as_imported(frame)


#: The import formats of each source of `external_segments`.
SOURCE_FORMATS = {
    "da": (wmt.SEGMENT_SCORES, wmt.JUDGMENTS, CLUSTERS),
    "mqm": (MQM,),
    "esa": (APPRAISE,),
}


def judgment_years(source: str, testset: str | None = None, lps=None) -> dict[str, int]:
    """The year of each test set that has imported judgments of `source` (of `lps`)."""
    imports = JudgmentImport.objects.filter(file_format__in=SOURCE_FORMATS[source])
    scored = MetricScore.objects.filter(metric__name="MQM", item__permutation=None)
    if testset:
        imports = imports.filter(testset=testset)
        scored = scored.filter(item__triple__segment__testset=testset)
    found = {
        (ts, f"{src}-{tgt}")
        for ts, src, tgt in imports.values_list("testset", "source_lang", "target_lang")
    }
    if source == "mqm":
        found |= {
            (ts, f"{src}-{tgt}")
            for ts, src, tgt in scored.values_list(
                "item__triple__segment__testset",
                "item__triple__segment__source_lang",
                "item__triple__segment__target_lang",
            ).distinct()
        }
    testsets = {ts for ts, lp in found if not lps or lp in set(lps)}
    return dict(
        Segment.objects.filter(testset__in=testsets).values_list("testset", "year").distinct()
    )


def study_judgments_frame(
    ratings: pd.DataFrame,
    testset: str | None = None,
    judgment: str = col.HOLISTIC,
    items: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The study's ratings of WMT hypotheses as a judgments frame (see `system.study_judgments`;
    ``items``: an items frame holding the rated items, if already read)."""
    if ratings.empty:
        return system.wmt_judgments(())
    items = _items_of(ratings[col.ITEM].unique(), items)
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


def mqm_scores_frame(testset: str | None = None) -> pd.DataFrame:
    """Imported MQM segment scores (``import_scores`` of an ``avg_seg_scores`` file: metric
    ``MQM``, and the human references' scores it keeps) as a segments frame; how many raters
    each averages is not known."""
    rows = MetricScore.objects.filter(metric__name="MQM", item__permutation=None)
    if testset:
        rows = rows.filter(item__triple__segment__testset=testset)
    lookups = {
        system.SYSTEM: "item__triple__corpus__system",
        system.SEGMENT: "item__triple__segment__number",
        system.SCORE: "score",
        system.TESTSET: "item__triple__segment__testset",
        "source_lang": "item__triple__segment__source_lang",
        "target_lang": "item__triple__segment__target_lang",
    }
    frame = _frame(rows.order_by("pk"), lookups)
    references = ExternalSegmentScore.objects.filter(source__file_format=MQM_SEGMENT_SCORES)
    if testset:
        references = references.filter(source__testset=testset)
    kept = _frame(
        references.order_by("pk"),
        {**lookups, system.SYSTEM: "system", system.SEGMENT: "segment_id", system.SCORE: "z",
         system.TESTSET: "source__testset", "source_lang": "source_lang",
         "target_lang": "target_lang"},
    )  # fmt: skip
    for part in (frame, kept):
        part[system.LP] = part.pop("source_lang") + "-" + part.pop("target_lang")
    if len(kept):
        frame = pd.concat([frame, _as_imported(kept)], ignore_index=True)
    return frame.assign(judgments=float("nan"))


def da_system_published(testset: str | None = None) -> pd.DataFrame:
    """WMT's system-level results imported as published (WMT21's clusters file, WMT23's
    results), in the columns of `wojdb.core.stats.system.system_scores`: z, raw, the annotation
    count as ``judgments``, ``n`` (segments) unknown, WMT's own ``cluster``, and ``rank`` the
    published order (WMT21 ranked by z, WMT23 by raw)."""
    rows = SystemScore.objects.order_by("source_id", "pk")  # as the file lists them
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
    frame = frame.sort_values(system.LP, kind="stable")
    frame["n"] = float("nan")
    frame["rank"] = frame.groupby(system.LP).cumcount() + 1
    return frame[system.COLUMNS].reset_index(drop=True)


def external_segments(
    source: str, testset: str | None = None, lps: Iterable[str] | None = None
) -> pd.DataFrame:
    """The segment scores (a segments frame) of imported WMT DA, MQM or ESA judgments, each
    language pair's from the first of its sources that it has:

    - da: the segment scores as imported (WMT's own ``ad-seg-scores``: Z.SCR, RAW.SCR, N),
      else the means of the per-rater judgments' SYSTEM and REPEAT items (no raw);
    - mqm: the means over raters of the error files' judgments (mt-metrics-eval's segment
      score), else the imported ``avg_seg_scores``;
    - esa: the means over raters of the Appraise ESA judgments.
    """
    if source not in EXTERNAL_SOURCES:
        raise ValueError(f"unknown source {source!r} (one of {', '.join(EXTERNAL_SOURCES)})")

    def kept(frame):
        return frame[frame[system.LP].isin(set(lps))] if lps else frame

    if source == "da":
        parts = [
            kept(da_segments_frame(testset)),
            system.segment_means(kept(da_judgments_frame(testset))),
        ]
    elif source == "mqm":
        parts = [
            system.segment_means(kept(rater_judgments_frame("mqm", testset))),
            kept(mqm_scores_frame(testset)),
        ]
    else:
        parts = [system.segment_means(kept(rater_judgments_frame("esa", testset)))]
    return system.first_by_pair(*parts)


def external_system_table(
    source: str, testset: str | None = None, lps: Iterable[str] | None = None
) -> pd.DataFrame:
    """The system table (`wojdb.core.stats.system.system_table`'s columns) of imported WMT DA,
    MQM or ESA judgments: WMT's and mt-metrics-eval's means over `external_segments`; for DA,
    a pair with neither segment scores nor judgments has WMT's published system-level
    results, where imported."""
    table = system.system_table(external_segments(source, testset, lps))
    if source != "da":
        return table
    published = da_system_published(testset)
    if lps:
        published = published[published[system.LP].isin(set(lps))]
    return system.first_by_pair(table, published)


#: The protocol column of a pair whose table is WMT's own published results, as imported.
PUBLISHED = "WMT's published results"


def protocol_table(
    source: str, name: str, testset: str | None = None, lps=None, micro: bool = False
) -> protocols.Table:
    """The system table of imported judgments by a WMT year's protocol
    (`wojdb.core.stats.protocols`), in `protocols.COLUMNS`."""
    if name == "wmt24":
        if source == "da":
            raise ValueError(
                "WMT24's protocol ranks per-rater ESA or MQM ratings; WMT DA is ranked by the "
                "wmt22 protocol"
            )
        return protocols.wmt24_table(protocol_ratings_frame(source, testset, lps), micro)
    table = external_system_table(source, testset, lps)
    finished = protocols.finish(table, protocols.describe(name))
    if source == "da":  # a pair taken from WMT's published results was not computed here
        published = set(da_system_published(testset)[system.LP]) - set(
            external_segments(source, testset, lps)[system.LP]
        )
        finished.loc[finished[system.LP].isin(published), "protocol"] = PUBLISHED
    return protocols.Table(finished, [])


def judgments_export(
    sources: Iterable[str] | None = None, testset: str | None = None, lps=None
) -> pd.DataFrame:
    """Every imported per-rater judgment as imported, one row each (of `sources` only, where
    given: da the WMT DA judgments, mqm the error files', esa Appraise's ESA): test set,
    language pair, file, format, kind, system as in the file, segment id and document as
    published, the test-set line where linked, rater, item type, score, seconds, whether it
    scores the whole document, and the number of errors marked."""
    rows = ExternalJudgment.objects.all()
    if sources:
        wanted = Q()
        for source in sources:
            wanted |= (
                Q(source__file_format=wmt.JUDGMENTS)
                if source == "da"
                else Q(source__file_format=RATER_SOURCES[source][0], source__kind=ERROR_ANNOTATION)
            )
        rows = rows.filter(wanted)
    if testset:
        rows = rows.filter(source__testset=testset)
    lookups = {
        "testset": "source__testset",
        "source_lang": "source_lang",
        "target_lang": "target_lang",
        "file": "source_file",
        "format": "source__file_format",
        "kind": "source__kind",
        "system": "system",
        "segment_id": "segment_id",
        "document": "document",
        "line": "triple__segment__number",
        "rater": "rater",
        "item_type": "item_type",
        "score": "score",
        "seconds": "seconds",
        "document_score": "document_score",
        "errors": "errors_count",
    }
    rows = rows.annotate(errors_count=Count("errors")).order_by("source_id", "line")
    frame = _frame(rows, lookups)
    frame.insert(1, system.LP, frame.pop("source_lang") + "-" + frame.pop("target_lang"))
    if lps:
        frame = frame[frame[system.LP].isin(set(lps))]
    return frame.astype({"line": "Int64", "seconds": float}).reset_index(drop=True)


#: Each kind of judgment of a release's judgments.csv: the format and kind of its import.
RELEASE_KINDS = {
    schema.DA: (wmt.JUDGMENTS, DIRECT_ASSESSMENT),
    schema.DA_SEGMENT: (wmt.SEGMENT_SCORES, DIRECT_ASSESSMENT),
    schema.APPRAISE_DA: (APPRAISE, DIRECT_ASSESSMENT),
    schema.ESA: (APPRAISE, ERROR_ANNOTATION),
    schema.MQM: (MQM, ERROR_ANNOTATION),
}
#: judgments.csv's columns of both kinds of row, and of each alone.
RELEASED_JUDGMENT_COMMON = {
    "file_format": "source__file_format",
    "import_kind": "source__kind",
    "testset": "triple__segment__testset",
    "source_lang": "triple__segment__source_lang",
    "target_lang": "triple__segment__target_lang",
    "ref_name": "triple__segment__ref_name",
    "segment": "triple__segment__number",
    "system": "triple__corpus__system",
    "published_system": "system",
    "published_segment": "segment_id",
    "published_document": "document",
    "file": "source__file_name",
    "file_sha256": "source__sha256",
    "line": "line",
}
RELEASED_JUDGMENT = {
    **RELEASED_JUDGMENT_COMMON,
    "judgment": "pk",
    "rater": "rater",
    "item_type": "item_type",
    "hit": "hit_id",
    "score": "score",
    "seconds": "seconds",
}
RELEASED_SEGMENT_SCORE = {
    **RELEASED_JUDGMENT_COMMON,
    "score": "z",
    "raw": "raw",
    "judgments": "judgments",
}


def released_judgments_table(items: Iterable[int]) -> pd.DataFrame:
    """judgments.csv: the imported judgments of the hypotheses of the given items' triples
    (per rater, and WMT's segment means), each with its errors where it is an error
    annotation, sorted by test set, pair, file and line."""
    triples = _chunked(Item.objects.all(), items, {"triple": "triple_id"})["triple"]
    triples = sorted(set(int(t) for t in triples))
    judgments = _chunked(
        ExternalJudgment.objects.filter(source__isnull=False, document_score=False),
        triples,
        RELEASED_JUDGMENT,
        lookup="triple_id__in",
    )
    means = _chunked(
        ExternalSegmentScore.objects.all(), triples, RELEASED_SEGMENT_SCORE, lookup="triple_id__in"
    )
    parts = [part for part in (judgments, means) if len(part)]
    if not parts:
        return schema.empty_table(schema.JUDGMENTS)
    frame = pd.concat(parts, ignore_index=True)
    kind_of = {source: kind for kind, source in RELEASE_KINDS.items()}
    sources = zip(frame["file_format"], frame["import_kind"], strict=True)
    frame["kind"] = [kind_of[source] for source in sources]
    # Read as Python values: a frame would turn offsets with gaps into floats.
    errors: dict[int, list[dict]] = {}
    ids = sorted(int(j) for j in judgments["judgment"]) if len(judgments) else []
    for start in range(0, len(ids), ID_CHUNK):
        marked = ErrorAnnotation.objects.filter(judgment_id__in=ids[start : start + ID_CHUNK])
        for judgment, *values in marked.order_by("pk").values_list(
            "judgment_id", *schema.ERROR_KEYS
        ):
            errors.setdefault(judgment, []).append(
                dict(zip(schema.ERROR_KEYS, values, strict=True))
            )
    # Error annotations list their errors ([] for none); other kinds have no list. Segment
    # means have no judgment id.
    ids = frame.get("judgment", pd.Series(0, index=frame.index)).fillna(0)
    frame["errors"] = [
        errors.get(int(judgment), []) if kind in schema.ERROR_KINDS else None
        for judgment, kind in zip(ids, frame["kind"], strict=True)
    ]
    frame = frame.sort_values(
        ["testset", "source_lang", "target_lang", "file", "file_sha256", "line"], kind="stable"
    )
    return schema.typed(frame, schema.JUDGMENTS)
