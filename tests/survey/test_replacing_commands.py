"""Commands that replace or delete stored data check their arguments against the database
first, refuse what matches nothing, leave everything as it was when refused, and say what
they replaced."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from analysis.models import MetricScore
from survey.models import Item, Participant, PoolEntry, Study, Triple
from tests.factories import make_study, make_triple


def run(name: str, *args: str) -> str:
    out = StringIO()
    call_command(name, *args, stdout=out)
    return out.getvalue()


def pool_ids(study) -> set[int]:
    return set(study.pool_entries.values_list("triple_id", flat=True))


@pytest.fixture
def two_pairs(db):
    """A study whose pool holds eight triples: four de-en and four cs-en."""
    study = Study.objects.create(name="Pooled", slug="pooled")
    for lp in ("de-en", "cs-en"):
        for _ in range(4):
            PoolEntry.objects.create(study=study, triple=make_triple(lp=lp))
    return study


def test_sample_pool_refuses_a_language_pair_no_corpus_has_and_keeps_the_pool(two_pairs):
    before = pool_ids(two_pairs)
    with pytest.raises(CommandError, match=r"language pair\(s\) xx-yy \(there are cs-en, de-en\)"):
        run("sample_pool", "--per-corpus", "2", "--lp", "xx-yy")
    with pytest.raises(CommandError, match="Nothing was written"):
        run("sample_pool", "--per-corpus", "2", "--lp", "de-en", "xx-yy")
    assert pool_ids(two_pairs) == before


def test_sample_pool_refuses_when_nothing_is_imported(db):
    Study.objects.create(name="Empty", slug="empty")
    with pytest.raises(CommandError, match="no corpora are imported yet"):
        run("sample_pool", "--per-corpus", "2")


def test_sample_pool_says_what_it_replaced(two_pairs):
    out = run("sample_pool", "--per-corpus", "2", "--lp", "de-en")
    assert "replaced the earlier pool of 8 triples from 2 corpora" in out
    assert len(pool_ids(two_pairs)) == 2
    first = run("sample_pool", "--per-corpus", "1")
    assert "replaced the earlier pool of 2 triples from 1 corpora" in first


def test_sample_pool_is_refused_once_real_people_take_part(two_pairs):
    study = make_study(questionnaires=1, items=2, launched_at=None)  # piloting
    PoolEntry.objects.bulk_create(
        PoolEntry(study=study, triple_id=pk) for pk in pool_ids(two_pairs)
    )
    # Simulated participants do not lock the pool: their questionnaires go with it.
    run("simulate_responses", "--study", study.slug, "--participants", "2")
    out = run("sample_pool", "--study", study.slug, "--per-corpus", "1")
    assert "removed the 1 questionnaire(s) built from it and 2 simulated participant(s)" in out
    assert not study.questionnaires.exists() and not study.participants.exists()
    study = make_study(questionnaires=1, items=2)
    PoolEntry.objects.bulk_create(
        PoolEntry(study=study, triple_id=pk) for pk in pool_ids(two_pairs)
    )
    Participant.objects.create(study=study, questionnaire=study.questionnaires.get())
    before = pool_ids(study)
    with pytest.raises(CommandError, match="1 real participant.* can no longer be redrawn"):
        run("sample_pool", "--study", study.slug, "--per-corpus", "1")
    assert pool_ids(study) == before and study.questionnaires.exists()


@pytest.mark.django_db
def test_simulate_responses_replace_keeps_the_earlier_participants_when_refused():
    study = make_study(questionnaires=1, items=2)
    run("simulate_responses", "--study", study.slug, "--participants", "2")
    earlier = set(Participant.objects.values_list("pk", flat=True))
    with pytest.raises(CommandError, match="no study with slug 'nope'"):
        run("simulate_responses", "--study", "nope", "--participants", "1", "--replace")
    study.is_open = False
    study.save()
    with pytest.raises(CommandError, match="closed"):
        run("simulate_responses", "--study", study.slug, "--participants", "1", "--replace")
    assert set(Participant.objects.values_list("pk", flat=True)) == earlier
    study.is_open = True
    study.save()
    out = run("simulate_responses", "--study", study.slug, "--participants", "1", "--replace")
    assert "Removed 2 earlier simulated participant(s)." in out
    assert not Participant.objects.filter(pk__in=earlier).exists()


def test_import_scores_says_how_many_stored_scores_it_replaced(two_pairs, tmp_path):
    items = [Item.objects.create(triple_id=pk) for pk in sorted(pool_ids(two_pairs))[:3]]
    path = tmp_path / "scores.csv"
    path.write_text("item_id,metric,score\n" + "".join(f"{i.pk},m,0.5\n" for i in items[:2]))
    assert "replaced" not in run("import_scores", str(path))
    path.write_text("item_id,metric,score\n" + "".join(f"{i.pk},m,0.7\n" for i in items))
    assert "2 stored score(s) of m were replaced" in run("import_scores", str(path))
    assert sorted(MetricScore.objects.values_list("score", flat=True)) == [0.7, 0.7, 0.7]


def test_score_imports_refuse_a_test_set_that_matches_nothing(two_pairs, tmp_path):
    scores = tmp_path / "ad-seg-scores-de-en.csv"
    scores.write_text("SYS SID RAW.SCR Z.SCR N\nSysA 1 50 0.1 3\n")
    rankings = Path(__file__).parent / "data/rankings.csv"
    for name, path in (("import_da", scores), ("import_ranks", rankings)):
        with pytest.raises(CommandError, match="--testset: unknown test set 'newstest1999'"):
            run(name, str(path), "--testset", "newstest1999")
    assert set(Triple.objects.values_list("da_raw", flat=True)) == {70.0}
    assert not Triple.objects.exclude(rank_score=None).exists()


def test_build_questionnaires_extend_keeps_every_existing_questionnaire(db):
    from tests.survey.test_questionnaires import make_pool, snapshot
    from tests.survey.test_questionnaires import make_study as empty_study

    make_pool()
    study = empty_study()
    with pytest.raises(CommandError, match="no questionnaires to extend"):
        run(
            "build_questionnaires", "--study", study.slug, "--count", "1", "--seed", "1", "--extend"
        )
    run("build_questionnaires", "--study", study.slug, "--count", "2", "--seed", "1")
    before = snapshot(study)
    with pytest.raises(CommandError, match="already has 2 questionnaire"):
        run("build_questionnaires", "--study", study.slug, "--count", "2", "--seed", "2")
    run("build_questionnaires", "--study", study.slug, "--count", "1", "--seed", "2", "--extend")
    assert snapshot(study)[:2] == before and len(snapshot(study)) == 3
