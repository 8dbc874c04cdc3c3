"""The database as tidy frames: columns, filters, values and query counts."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pandas as pd
import pytest
from django.db import transaction

from analysis import frames
from analysis.models import Metric, MetricScore
from survey.models import (
    ErrorAnnotation,
    ExternalJudgment,
    ExternalSegmentScore,
    JudgmentImport,
    Participant,
    ParticipantLanguage,
    PlatformIdentity,
    QuestionnaireEntry,
    Rating,
    Triple,
)
from tests.factories import make_hypothesis_item, make_study, make_triple
from wojdb.core.release import schema
from wojdb.core.stats import columns as col

pytestmark = pytest.mark.django_db

START = datetime(2024, 5, 1, 9, 30, 0, 123456, tzinfo=UTC)


def _rate(participant, item, position, rng, *, blanks=False):
    shown = START + timedelta(minutes=position, microseconds=rng.randrange(10**6))
    holistic = None if blanks and position % 3 == 0 else rng.randint(1, 5)
    order = None if blanks and position % 4 == 1 else rng.randint(1, 5)
    answered = shown + timedelta(seconds=rng.uniform(2, 40)) if holistic or order else None
    return Rating.objects.create(
        participant=participant,
        item=item,
        position=position,
        practice=position == 0,
        holistic=holistic,
        order=order,
        shown_at=shown,
        answered_at=answered,
        client_ms=rng.randrange(500, 40_000) if position % 2 else None,
        revisions=position % 3 == 2,
    )


def build_rated_study(seed: int = 7) -> SimpleNamespace:
    """A demo-like study: three questionnaires with a shared item, participants who did and did
    not consent to sharing (one simulated, one withdrawn), ratings with blanks, metric scores."""
    rng = random.Random(seed)
    study = make_study(questionnaires=3, items=6)
    shared = make_hypothesis_item()
    Triple.objects.filter(items=shared).update(rank_score=0.75, rank_count=4, da_raw=None)
    study.shared_items.add(shared)
    questionnaires = list(study.questionnaires.order_by("number"))
    for q in questionnaires:
        QuestionnaireEntry.objects.create(questionnaire=q, position=7, item=shared, shared=True)
    Triple.objects.filter(items__entries__questionnaire=questionnaires[1]).update(
        aligned_share=0.8, da_z=0.25, da_count=3
    )
    people = {}
    plan = [
        # name, questionnaire, status, share, simulated, about-you
        ("full", 0, "completed", True, False, dict(age=24, gender="female", nationality="Scottish",
            education="masters", target_first=True, target_years=24, grammar_attention=4,
            reading_disability="dyslexia")),
        ("private", 0, "completed", False, False, dict(age=40)),
        ("simulated", 1, "completed", True, True, {}),
        ("abandoned", 1, "abandoned", True, False, dict(age=31, target_first=False)),
        ("withdrawn", 2, "withdrawn", True, False, dict(age=50)),
        ("active", 2, "in_progress", True, False, dict(gender="not_say", education="phd")),
    ]  # fmt: skip
    for name, q, status, share, simulated, about in plan:
        person = Participant.objects.create(
            study=study,
            questionnaire=questionnaires[q],
            status=status,
            share_data=share,
            simulated=simulated,
            consent_version=1,
            **about,
        )
        people[name] = person
        _rate(person, study.sample_item, 0, rng)
        entries = list(questionnaires[q].entries.order_by("position"))
        if status in ("abandoned", "in_progress"):
            entries = entries[:4]
        for entry in entries:
            _rate(person, entry.item, entry.position, rng, blanks=True)
    ParticipantLanguage.objects.create(participant=people["full"], language="English", fluency=7)
    ParticipantLanguage.objects.create(
        participant=people["full"], language="French", fluency=4, qualifications="A-level | B"
    )
    ParticipantLanguage.objects.create(participant=people["private"], language="German", fluency=7)
    PlatformIdentity.objects.create(participant=people["full"], prolific_pid="PROLIFICSECRET01")
    dted = Metric.objects.create(
        name="DTED", variant="fco", config="spaCy, fast_align", version="0.1", builtin=True
    )
    stanford = Metric.objects.create(name="DTED", variant="fco", config="Stanford, Meteor")
    bleu = Metric.objects.create(name="BLEU", variant="", version="sacrebleu 2.4")
    Metric.objects.create(name="Unused", variant="x")
    items = sorted({e.item for q in questionnaires for e in q.entries.all()}, key=lambda i: i.pk)
    for n, item in enumerate(items):
        if n != 2:
            MetricScore.objects.create(metric=dted, item=item, score=round(rng.random(), 6))
        if n < 4:
            MetricScore.objects.create(metric=stanford, item=item, score=rng.random())
        if item.permutation_id is None:
            MetricScore.objects.create(metric=bleu, item=item, score=rng.random())
    other = make_study(questionnaires=1, items=2)
    stranger = Participant.objects.create(
        study=other, questionnaire=other.questionnaires.get(), share_data=True
    )
    _rate(stranger, other.questionnaires.get().entries.first().item, 1, rng)
    add_judgments(rated := SimpleNamespace(study=study, people=people, items=items, shared=shared))
    return rated


def add_judgments(rated: SimpleNamespace) -> None:
    """Imported judgments of the study's shared hypothesis (WMT DA per rater and its segment
    mean, ESA with a span) and of the triple of its first permutation (MQM: one rater with two
    errors, one with none), and of a triple the study does not rate and a document score,
    which its release leaves out."""
    rated.judged = Triple.objects.get(items=rated.shared)
    rated.permuted = next(i.triple for i in rated.items if i.permutation_id is not None)
    other = make_triple(system="Elsewhere")

    def imported(name, file_format, kind, digest):
        segment = rated.judged.segment
        return JudgmentImport.objects.create(
            sha256=digest * 64, file_name=name, file_format=file_format, testset=segment.testset,
            source_lang=segment.source_lang, target_lang=segment.target_lang, mapping="documents",
            level="segment", kind=kind,
        )  # fmt: skip

    def judgment(source, triple, line, **fields):
        return ExternalJudgment.objects.create(
            source=source, triple=triple, line=line, source_file=source.file_name,
            source_lang=source.source_lang, target_lang=source.target_lang,
            system=f"{triple.corpus.system}.7" if triple else "SysA.7", **fields,
        )  # fmt: skip

    da = imported("ad-deen-good-stnd.csv", "WMT DA judgments", "direct assessment", "a")
    judgment(da, rated.judged, 5, segment_id=12, hit_id="HIT1", rater="R1", item_type="SYSTEM",
             score=0.25, seconds=40.0)  # fmt: skip
    judgment(da, rated.judged, 9, segment_id=12, hit_id="HIT2", rater="R2", item_type="REPEAT",
             score=-0.5)  # fmt: skip
    judgment(da, other, 11, segment_id=3, hit_id="HIT2", rater="R2", item_type="SYSTEM", score=1)
    means = imported("ad-seg-scores-de-en.csv", "WMT DA segment scores", "direct assessment", "b")
    ExternalSegmentScore.objects.create(
        source=means, source_lang="de", target_lang="en", system=f"{rated.judged.corpus.system}.7",
        segment_id=12, triple=rated.judged, raw=71.5, z=-0.125, judgments=2, line=3,
    )  # fmt: skip
    esa = imported("wmt24-esa.csv", "Appraise CSV", "error annotation", "c")
    span = judgment(esa, rated.judged, 2, segment_id=40, document="doc-1", rater="E1",
                    item_type="TGT", score=80.0, seconds=12.5)  # fmt: skip
    ErrorAnnotation.objects.create(judgment=span, severity="minor", side="target", start=2, end=5)
    judgment(esa, None, 3, segment_id=41, document="doc-1", document_score=True, rater="E1",
             item_type="TGT", score=75.0)  # fmt: skip
    mqm = imported("mqm_newstest2021_deen.tsv", "Google MQM", "error annotation", "d")
    marked = judgment(mqm, rated.permuted, 2, segment_id=7, document="doc-2", rater="rater1",
                      item_type="MQM", score=-5.1)  # fmt: skip
    ErrorAnnotation.objects.create(
        judgment=marked, category="Accuracy/Mistranslation", severity="Major", side="target",
        start=0, end=4, span="text", weight=5.0,
    )  # fmt: skip
    ErrorAnnotation.objects.create(
        judgment=marked, category="Fluency/Punctuation", severity="Minor", weight=0.1
    )
    judgment(mqm, rated.permuted, 4, segment_id=7, document="doc-2", rater="rater2",
             item_type="MQM", score=0.0)  # fmt: skip


def add_raters(rated: SimpleNamespace, count: int, seed: int = 11) -> None:
    """``count`` more real participants who completed the first questionnaire and share their
    data: with them a release has enough people for the participant model."""
    rng = random.Random(seed)
    questionnaire = rated.study.questionnaires.order_by("number").first()
    for _ in range(count):
        person = Participant.objects.create(
            study=rated.study,
            questionnaire=questionnaire,
            status="completed",
            share_data=True,
            consent_version=1,
        )
        _rate(person, rated.study.sample_item, 0, rng)
        for entry in questionnaire.entries.order_by("position"):
            _rate(person, entry.item, entry.position, rng)


@pytest.fixture(scope="module")
def rated(django_db_setup, django_db_blocker):
    """Built once for the module, inside a transaction each test nests in and that is rolled
    back at the end, as Django's TestCase.setUpTestData does."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield build_rated_study()
        transaction.set_rollback(True)


def _ids(frame, *names, people):
    return {people[n].pk for n in names} == set(frame[col.PARTICIPANT])


def test_ratings_frame_follows_the_column_schema(rated):
    frame = frames.ratings_frame(rated.study)
    col.check_ratings(frame)
    assert list(frame.columns) == list(schema.RATINGS_FRAME_TYPES)
    assert {c: str(t) for c, t in frame.dtypes.items()} == {
        c: str(pd.Series(dtype=t).dtype) for c, t in schema.RATINGS_FRAME_TYPES.items()
    }
    assert frame.index.equals(pd.RangeIndex(len(frame)))
    assert frame.equals(frame.sort_values([col.PARTICIPANT, col.POSITION]).reset_index(drop=True))


def test_filters_choose_participants_and_practice(rated):
    people = rated.people
    everyone = frames.ratings_frame(rated.study)
    assert _ids(everyone, "full", "private", "simulated", "abandoned", "active", people=people)
    assert not everyone[col.PRACTICE].any()
    sharing = frames.ratings_frame(rated.study, sharing_only=True)
    assert _ids(sharing, "full", "simulated", "abandoned", "active", people=people)
    real = frames.ratings_frame(rated.study, include_simulated=False)
    assert not real[col.SIMULATED].any() and people["simulated"].pk not in set(real.participant)
    practice = frames.ratings_frame(rated.study, include_practice=True)
    assert len(practice) == len(everyone) + 5
    assert (practice.loc[practice[col.PRACTICE], col.POSITION] == 0).all()
    assert len(frames.ratings_frame()) == len(everyone) + 1  # the other study's one rating


def test_rows_carry_answers_items_and_participants(rated):
    frame = frames.ratings_frame(rated.study).set_index([col.PARTICIPANT, col.ITEM])
    full = rated.people["full"]
    for rating in Rating.objects.filter(participant=full, practice=False).select_related(
        "item__permutation", "item__triple"
    ):
        row = frame.loc[(full.pk, rating.item_id)]
        for judgment in col.JUDGMENTS:
            answer = getattr(rating, judgment)
            if answer is None:
                assert pd.isna(row[judgment]) and pd.isna(row[col.unit(judgment)])
            else:
                assert row[col.unit(judgment)] == (answer - 1) / 4
        if rating.client_ms is not None:
            assert row[col.SECONDS] == rating.client_ms / 1000
        elif rating.answered_at is not None:
            assert row[col.SECONDS] == (rating.answered_at - rating.shown_at).total_seconds()
        else:
            assert pd.isna(row[col.SECONDS])
        item = rating.item
        assert row[col.KIND] == item.kind
        assert row[col.QUALITY] == pytest.approx(item.quality)
        assert row[col.WMT_SCORE] == pytest.approx(item.triple.wmt_score)
        assert row[col.SHARED] == (item == rated.shared)
        if item.permutation:
            assert row[col.PERM_TYPE] == item.permutation.perm_type
            assert row[col.DEGREE] == item.permutation.degree
        else:
            assert pd.isna(row[col.PERM_TYPE]) and pd.isna(row[col.DEGREE])
    row = frame.loc[full.pk].iloc[0]
    assert (row[col.AGE], row[col.EDUCATION], row[col.LANGUAGES_SCORE]) == (24, "masters", 11)
    assert row[col.TARGET_FIRST] is True or row[col.TARGET_FIRST] == True  # noqa: E712
    active = frame.loc[rated.people["active"].pk].iloc[0]
    assert pd.isna(active[col.AGE]) and pd.isna(active[col.TARGET_FIRST])
    assert active[col.LANGUAGES_SCORE] == 0 and active[col.GENDER] == "not_say"


def test_scores_frame_holds_stored_and_builtin_sources(rated):
    ids = [i.pk for i in rated.items]
    scores = frames.scores_frame(ids)
    col.check_scores(scores)
    assert list(scores.columns) == [
        col.ITEM, col.METRIC, col.VARIANT, col.CONFIG, col.SCORE, col.HIGHER_IS_BETTER
    ]  # fmt: skip
    sources = scores.groupby([col.METRIC, col.VARIANT, col.CONFIG]).size().to_dict()
    hypotheses = [i for i in rated.items if i.permutation_id is None]
    permutations = [i for i in rated.items if i.permutation_id]
    assert sources == {
        ("BLEU", "", ""): len(hypotheses),
        ("DTED", "fco", "Stanford, Meteor"): 4,
        ("DTED", "fco", "spaCy, fast_align"): len(ids) - 1,
        (schema.WMT_METRIC, "", ""): len(hypotheses),
        (schema.PERMUTATION_METRIC, "", ""): len(permutations),
    }
    wmt = scores[scores[col.METRIC] == schema.WMT_METRIC].set_index(col.ITEM)[col.SCORE]
    assert wmt[rated.shared.pk] == 0.75  # eq. 6.1 rank score
    assert wmt[hypotheses[0].pk] == 0.70  # DA 70 / 100
    perm = scores[scores[col.METRIC] == schema.PERMUTATION_METRIC].set_index(col.ITEM)
    assert perm.loc[permutations[0].pk, col.SCORE] == permutations[0].permutation.quality
    assert scores[col.HIGHER_IS_BETTER].all()
    Metric.objects.filter(name="BLEU").update(higher_is_better=False)
    oriented = frames.scores_frame(ids)
    lower = oriented[~oriented[col.HIGHER_IS_BETTER]]
    assert set(lower[col.METRIC]) == {"BLEU"} and len(lower) == len(hypotheses)
    stored_only = frames.scores_frame(ids, builtin=False)
    assert set(stored_only[col.METRIC]) == {"BLEU", "DTED"}
    assert len(frames.scores_frame()) >= len(scores)


def test_items_frame_has_one_row_per_item(rated):
    ids = [i.pk for i in rated.items]
    items = frames.items_frame(ids)
    assert list(items.columns) == schema.ITEMS.names
    assert list(items["item"]) == sorted(ids)
    perm = rated.items[1].permutation
    row = items.set_index("item").loc[rated.items[1].pk]
    assert (row["kind"], row["text"], row["degree"], row["moved"]) == (
        "permutation",
        perm.text,
        perm.degree,
        perm.moved,
    )
    hyp = items.set_index("item").loc[rated.items[0].pk]
    assert hyp["text"] == rated.items[0].triple.hypothesis and hyp["moved"] is None


def test_frames_take_a_fixed_number_of_queries(rated, django_assert_max_num_queries):
    def more_ratings(n):
        person = rated.people["full"]
        extra = make_study(questionnaires=1, items=n)
        for entry in extra.questionnaires.get().entries.all():
            Rating.objects.create(
                participant=person, item=entry.item, position=100 + entry.position
            )

    with django_assert_max_num_queries(8) as few:
        frames.ratings_frame(rated.study)
        frames.scores_frame([i.pk for i in rated.items])
    more_ratings(12)
    with django_assert_max_num_queries(len(few.captured_queries)):
        frames.ratings_frame(rated.study)
        frames.scores_frame([i.pk for i in rated.items])


def test_tables_keep_the_order_they_are_sorted_in(rated):
    ratings = frames.ratings_table(frames.select_participants(rated.study))
    order = [col.PARTICIPANT, col.POSITION, col.ITEM]
    assert ratings[order].equals(ratings[order].sort_values(order).reset_index(drop=True))
    shuffled = pd.DataFrame(
        {"metric_id": [2, 1], "metric": ["B", "A"], "higher_is_better": True, "builtin": False},
        index=[7, 3],
    )
    assert list(schema.typed(shuffled, schema.METRICS)["metric"]) == ["B", "A"]


@pytest.mark.django_db
def test_a_release_of_segment_means_alone_lists_them_without_errors():
    item = make_hypothesis_item()
    means = JudgmentImport.objects.create(
        sha256="e" * 64, file_name="ad-seg-scores-de-en.csv", file_format="WMT DA segment scores",
        testset="newstest2021", source_lang="de", target_lang="en", mapping="lines",
        level="segment", kind="direct assessment",
    )  # fmt: skip
    ExternalSegmentScore.objects.create(
        source=means, source_lang="de", target_lang="en", system="SysA.3", segment_id=4,
        triple=item.triple, raw=55.0, z=0.5, judgments=3, line=2,
    )  # fmt: skip
    table = frames.released_judgments_table([item.pk])
    assert table[["kind", "system", "published_system", "score", "raw", "judgments"]].to_dict(
        "records"
    ) == [dict(kind="da_segment", system="SysA", published_system="SysA.3", score=0.5, raw=55.0,
               judgments=3)]  # fmt: skip
    assert table["errors"].isna().all() and table["rater"].isna().all()
    assert frames.released_judgments_table([]).empty
