"""simulate_responses writes marked, balanced, reproducible participants; power_analysis prints."""

from __future__ import annotations

import random
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from analysis.simulation import simulated_about_you
from survey.design.questionnaires import is_frozen
from survey.models import Participant, Questionnaire, Rating, Study
from tests.factories import make_study


def simulate(study: Study, *args: str) -> str:
    out = StringIO()
    call_command("simulate_responses", "--study", study.slug, *args, stdout=out)
    return out.getvalue()


def answers(study: Study) -> list[tuple]:
    return list(
        Rating.objects.filter(participant__study=study)
        .order_by("participant__questionnaire__number", "participant_id", "position")
        .values_list("position", "practice", "holistic", "order", "client_ms")
    )


@pytest.mark.django_db
def test_simulated_participants_answer_every_pair_of_balanced_questionnaires():
    study = make_study(questionnaires=2, items=4)
    out = simulate(study, "--participants", "6", "--seed", "3")
    people = Participant.objects.filter(study=study)
    assert people.count() == 6 and all(p.simulated for p in people)
    assert {p.status for p in people} == {"completed"}
    assert sorted(people.values_list("questionnaire__number", flat=True)) == [1, 1, 1, 2, 2, 2]
    # The practice sample (position 0) and the four pairs, answered on the 1-5 scale.
    for person in people:
        ratings = list(person.ratings.order_by("position"))
        assert [r.position for r in ratings] == [0, 1, 2, 3, 4]
        assert [r.practice for r in ratings] == [True, False, False, False, False]
        assert all(1 <= r.holistic <= 5 and 1 <= r.order <= 5 for r in ratings)
        assert all(r.shown_at < r.answered_at for r in ratings)
        assert person.position == 5 and person.languages.filter(language="English").exists()
    # A dry run freezes nothing: the design can still be edited or rebuilt.
    assert not any(Questionnaire.objects.filter(study=study).values_list("frozen", flat=True))
    assert not any(is_frozen(q) for q in Questionnaire.objects.filter(study=study))
    assert "Added 6 simulated participant(s) with 30 ratings" in out


@pytest.mark.django_db
def test_the_same_seed_gives_the_same_answers_and_replace_keeps_real_participants():
    study = make_study(questionnaires=2, items=4)
    real = Participant.objects.create(study=study, questionnaire=study.questionnaires.first())
    Rating.objects.create(participant=real, item=study.sample_item, position=0, holistic=2, order=3)
    simulate(study, "--participants", "4", "--seed", "7")
    first = answers(study)
    out = simulate(study, "--participants", "4", "--seed", "7", "--replace")
    assert answers(study) == first
    assert "Removed 4 earlier simulated participant(s)" in out
    assert Participant.objects.filter(pk=real.pk).exists()
    simulate(study, "--participants", "4", "--seed", "7", "--replace", "--noise-sd", "2.5")
    assert answers(study) != first


@pytest.mark.django_db
def test_runs_are_additive_without_replace():
    study = make_study(questionnaires=2, items=2)
    simulate(study, "--participants", "3", "--seed", "1")
    simulate(study, "--participants", "2", "--seed", "2")
    assert Participant.objects.filter(study=study, simulated=True).count() == 5


@pytest.mark.django_db
def test_blank_rate_leaves_answers_blank():
    study = make_study(questionnaires=1, items=8)
    simulate(study, "--participants", "10", "--seed", "1", "--blank-rate", "0.5")
    blanks = Rating.objects.filter(participant__study=study, holistic__isnull=True).count()
    assert 30 < blanks < 60  # about half of 90 answers


@pytest.mark.django_db
def test_clear_errors():
    study = make_study(questionnaires=1, items=2)
    empty = Study.objects.create(name="Empty", slug="empty")
    with pytest.raises(CommandError, match="no active questionnaire"):
        simulate(empty, "--participants", "2")
    with pytest.raises(CommandError, match="--participants: 0 is outside the allowed range"):
        simulate(study, "--participants", "0")
    with pytest.raises(CommandError, match="no study with slug"):
        call_command("simulate_responses", "--participants", "1", "--study", "nope")
    with pytest.raises(CommandError, match="several studies"):
        call_command("simulate_responses", "--participants", "1")
    study.is_open = False
    study.save()
    with pytest.raises(CommandError, match="closed"):
        simulate(study, "--participants", "1")
    assert not Participant.objects.exists()


def test_about_you_answers_resemble_the_thesis_participants():
    rng = random.Random(0)
    drawn = [simulated_about_you(rng) for _ in range(400)]
    ages = [fields["age"] for fields, _ in drawn]
    assert min(ages) >= 18 and max(ages) <= 74
    assert 0.65 < sum(a < 30 for a in ages) / len(ages) < 0.85
    assert {fields["grammar_attention"] for fields, _ in drawn} == {3, 4, 5}
    for fields, languages in drawn:
        names = [name for name, _ in languages]
        assert "English" in names and len(names) == len(set(names))
        native = [name for name, fluency in languages if fluency == 7]
        assert native == (["English"] if fields["target_first"] else native[:1])
    # In a French study, French takes English's place.
    for fields, languages in (simulated_about_you(rng, "French") for _ in range(100)):
        names = [name for name, _ in languages]
        assert "French" in names and len(names) == len(set(names))
        native = [name for name, fluency in languages if fluency == 7]
        assert native == (["French"] if fields["target_first"] else native[:1])


def power(*args: str) -> str:
    out = StringIO()
    call_command("power_analysis", *args, stdout=out)
    return out.getvalue()


def test_power_analysis_prints_power_per_number_of_participants():
    out = power(
        "--difference", "0.3", "--r-a", "0.6", "--participants", "40,4", "--simulations", "8"
    )
    lines = out.splitlines()
    header = next(
        i for i, line in enumerate(lines) if line.split()[:3] == ["participants", "items", "power"]
    )
    rows = [line.split() for line in lines[header + 1 : header + 3]]
    assert [row[0] for row in rows] == ["4", "40"]
    # 10 shared hypotheses plus 15 unique ones per participant.
    assert [row[1] for row in rows] == ["70", "610"]
    assert all(0 <= float(row[2]) <= 1 for row in rows)
    assert float(rows[1][2]) >= float(rows[0][2])
    assert "Metric A r = 0.6 vs metric B r = 0.3" in out
    assert "Fewest participants reaching power 0.8" in out or "No size tried reached" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--difference", "0"],
            r"--difference: 0 is outside the allowed range: number in \(0, 2\)",
        ),
        (["--difference", "0.2", "--r-a", "1.2"], r"--r-a: 1.2 is outside .* in \(-1, 1\)"),
        (["--difference", "0.8", "--r-a", "-0.5"], "minus --difference must be above -1"),
        (
            ["--difference", "0.1", "--participants", "ten"],
            "'ten' is not a number: expected a whole number >= 2",
        ),
        (["--difference", "0.1", "--participants", "1"], "1 is outside .* whole number >= 2"),
        (["--difference", "0.1", "--shared-items", "30"], "fewer than"),
        ([], "--difference is required to plan the metric comparison"),
        (
            ["--difference", "0.1", "--half-width", "0.1"],
            "--half-width: not an option of the plan without --word-marks",
        ),
        (
            ["--word-marks", "--difference", "0.1", "--alpha", "0.01"],
            "--difference, --alpha: not an option of the plan with --word-marks",
        ),
        (["--word-marks", "--mark-recall", "1.5"], r"--mark-recall: 1.5 is outside .* \[0, 1\]"),
        (["--word-marks", "--half-width", "0"], r"--half-width: 0 is outside .* \(0, 0.5\]"),
        (["--word-marks", "--bootstrap", "5"], "--bootstrap: 5 is outside .* >= 10"),
    ],
)
def test_power_analysis_rejects_impossible_settings(args, message):
    with pytest.raises(CommandError, match=message):
        power(*args)


def test_power_analysis_for_word_marks_prints_the_half_widths_per_number_of_participants():
    out = power(
        "--word-marks", "--participants", "30,10", "--simulations", "2", "--bootstrap", "50"
    )
    lines = out.splitlines()
    header = next(
        i for i, line in enumerate(lines) if line.split()[:2] == ["participants", "groups"]
    )
    rows = [line.split() for line in lines[header + 1 : header + 3]]
    assert [row[0] for row in rows] == ["10", "30"]
    assert all(0 <= float(row[2]) <= 1 for row in rows)  # the share estimable
    assert "each displaced unit marked with probability 0.7" in out
    assert "half-width wanted 0.1" in out
    # Ten participants see too few pairs of every group for recall to be estimated.
    assert rows[0][3] == "n/e"
    assert "No size tried brings every group within ±0.1" in out
