import random
from collections import Counter
from datetime import timedelta

import pytest
from django.utils import timezone

from survey.design.lifecycle import clear_pilot, launch
from survey.models import Participant, QuestionnaireLoad, Study
from survey.participants import assignment, participation
from survey.participants.assignment import StudyClosed, enrol, release_abandoned
from tests.factories import make_study


@pytest.mark.django_db
def test_new_participants_fill_questionnaires_evenly():
    study = make_study(questionnaires=3, items=2)
    rng = random.Random(1)
    numbers = [enrol(study, rng=rng).questionnaire.number for _ in range(9)]
    assert sorted(numbers) == [1, 1, 1, 2, 2, 2, 3, 3, 3]


def last_active(participant, minutes_ago: int) -> None:
    Participant.objects.filter(pk=participant.pk).update(
        last_activity=timezone.now() - timedelta(minutes=minutes_ago)
    )


@pytest.mark.django_db
def test_abandoned_participants_release_their_slot_but_keep_answers():
    study = make_study(questionnaires=2, items=2, abandon_after_minutes=120)
    first = enrol(study)
    last_active(first, minutes_ago=121)
    assert release_abandoned(study) == 1
    first.refresh_from_db()
    assert first.status == "abandoned"
    second, third = enrol(study), enrol(study)
    assert {second.questionnaire.number, third.questionnaire.number} == {1, 2}


def a_minute_later(monkeypatch, minutes=1):
    """Joins from now on happen `minutes` and a second later."""
    later = timezone.now() + timedelta(minutes=minutes, seconds=1)
    monkeypatch.setattr(assignment.timezone, "now", lambda: later)


@pytest.mark.django_db
def test_a_participant_gone_idle_frees_their_slot_at_the_next_count_within_a_minute(monkeypatch):
    study = make_study(questionnaires=2, items=2, abandon_after_minutes=120)
    first = enrol(study)
    last_active(first, minutes_ago=121)
    # Counted a moment ago, with the first holding their questionnaire: the other is emptier.
    second = enrol(study)
    assert second.questionnaire.number != first.questionnaire.number
    a_minute_later(monkeypatch)
    third = enrol(study)
    first.refresh_from_db()
    assert first.status == "abandoned"
    assert third.questionnaire.number == first.questionnaire.number


@pytest.mark.parametrize("leave", [participation.decline, participation.withdraw])
@pytest.mark.django_db
def test_one_who_declines_or_withdraws_frees_their_slot_at_once(leave):
    study = make_study(questionnaires=3, items=2)
    rng = random.Random(0)
    first, _, _ = [enrol(study, rng=rng) for _ in range(3)]
    leave(first)
    # The other two questionnaires are held; only the one left is free.
    for seed in range(5):
        joined = enrol(study, rng=random.Random(seed))
        assert joined.questionnaire_id == first.questionnaire_id
        participation.decline(joined)


@pytest.mark.django_db
def test_joins_count_every_participant_again_once_the_pilots_are_cleared():
    """Participants deleted in number (the pilot's, the simulated) are forgotten at once: the
    next join counts those left, here one that came in by another way than a join."""
    study = make_study(questionnaires=2, items=2, launched_at=None)
    rng = random.Random(0)
    joined = [enrol(study, rng=rng) for _ in range(3)]
    counts = Counter(p.questionnaire.number for p in joined)
    fuller, emptier = (n for n, _ in counts.most_common())
    clear_pilot(study)
    Participant.objects.create(
        study=study, questionnaire=study.questionnaires.get(number=emptier), pilot=True
    )
    assert enrol(study, rng=rng).questionnaire.number == fuller


@pytest.mark.django_db
def test_the_kept_counts_are_those_a_count_gives(monkeypatch):
    """However joins, completions and departures interleave, the counts a join reads are what
    counting the participants gives, once a minute has passed since the last count."""
    study = make_study(questionnaires=3, items=2, abandon_after_minutes=120)
    rng = random.Random(3)
    people = []
    for _ in range(40):
        action = rng.choice(["join", "join", "complete", "withdraw", "idle"])
        alive = [p for p in people if p.pk is not None]
        if action == "join" or not alive:
            people.append(enrol(study, rng=rng))
        elif action == "complete":
            Participant.objects.filter(pk=rng.choice(alive).pk).update(status="completed")
        elif action == "withdraw":
            gone = rng.choice(alive)
            participation.withdraw(gone)
            gone.pk = None
        else:
            last_active(rng.choice(alive), minutes_ago=121)

    def held() -> Counter:
        holding = Participant.objects.filter(study=study, status__in=assignment.HOLDING)
        return Counter(holding.values_list("questionnaire_id", flat=True))

    def kept() -> dict[int, int]:
        rows = QuestionnaireLoad.objects.filter(pilot=False, simulated=False)
        return dict(rows.values_list("questionnaire_id", "holding"))

    assert kept().keys() == set(study.questionnaires.values_list("id", flat=True))
    # Joins raise the kept counts as they count: every join is in them.
    assert sum(kept().values()) >= sum(held().values())
    a_minute_later(monkeypatch)
    enrol(study, rng=rng)
    assert {q: n for q, n in kept().items() if n} == dict(held())


@pytest.mark.django_db
def test_a_join_takes_the_study_as_it_is_now_not_as_the_caller_read_it():
    study = make_study(questionnaires=1, items=2, launched_at=None)
    read = Study.objects.get(pk=study.pk)  # as the study link read it, before the launch
    launch(study)
    assert enrol(read).pilot is False
    Study.objects.filter(pk=study.pk).update(is_open=False)
    with pytest.raises(StudyClosed):
        enrol(read)


@pytest.mark.django_db
def test_a_wait_longer_than_the_calendar_releases_no_one(client):
    """2,000,000,000 minutes reach back before the year 1: no one is idle that long, and the
    study link still takes participants."""
    study = make_study(questionnaires=1, items=2, abandon_after_minutes=2_000_000_000)
    first = enrol(study)
    assert release_abandoned(study) == 0
    response = client.post(f"/s/{study.slug}/")
    assert response.status_code == 302
    assert Participant.objects.exclude(pk=first.pk).get().status == "assigned"


@pytest.mark.django_db
def test_closed_study_takes_nobody():
    study = make_study(questionnaires=1, items=2, is_open=False)
    with pytest.raises(StudyClosed):
        enrol(study)
