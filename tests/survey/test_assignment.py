import random
from datetime import timedelta

import pytest
from django.utils import timezone

from survey.design.lifecycle import launch
from survey.models import Participant, Study
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


@pytest.mark.django_db
def test_a_participant_gone_idle_frees_their_slot_before_being_marked_abandoned():
    # Joins mark the idle at most once a minute; the one before has just done so.
    study = make_study(questionnaires=2, items=2, abandon_after_minutes=120)
    first = enrol(study)
    last_active(first, minutes_ago=121)
    second, third = enrol(study), enrol(study)
    assert {second.questionnaire.number, third.questionnaire.number} == {1, 2}


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
