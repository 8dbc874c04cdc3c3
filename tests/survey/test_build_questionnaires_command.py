"""The build_questionnaires management command."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from survey.management.commands.build_questionnaires import Command
from survey.models import Questionnaire
from tests.survey.test_questionnaires import make_pool, make_study


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("build_questionnaires", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_help_describes_every_option():
    text = Command().create_parser("manage.py", "build_questionnaires").format_help()
    for option in ("--count", "--seed", "--study", "--extend", "Table 6.3"):
        assert option in text


def test_bad_arguments_exit_non_zero():
    with pytest.raises(SystemExit) as exit:
        Command().run_from_argv(
            ["manage.py", "build_questionnaires", "--count", "0", "--seed", "1"]
        )
    assert exit.value.code != 0


@pytest.mark.django_db
def test_builds_then_extends_with_a_progress_bar(capsys):
    make_pool(size=120)
    study = make_study()
    out, _ = run("--count", "3", "--seed", "5")
    assert f"Built 3 questionnaire(s), numbers 1–3, for study '{study.slug}' with seed 5" in out
    assert "questionnaires: 100%" in capsys.readouterr().err  # tqdm writes to the terminal
    out, _ = run("--count", "2", "--seed", "6", "--extend", "--study", study.slug)
    assert "Added 2 questionnaire(s), numbers 4–5" in out
    assert list(study.questionnaires.values_list("number", "seed")) == [
        (1, 5),
        (2, 5),
        (3, 5),
        (4, 6),
        (5, 6),
    ]


@pytest.mark.django_db
def test_a_pool_too_small_fails_naming_the_rule_and_writes_nothing():
    make_pool(size=40)
    make_study()
    with pytest.raises(CommandError, match=r"short by .*\nNothing was written"):
        run("--count", "3", "--seed", "1")
    assert not Questionnaire.objects.exists()


@pytest.mark.django_db
def test_the_study_must_be_named_when_there_are_several():
    with pytest.raises(CommandError, match="no study yet"):
        run("--count", "1", "--seed", "1")
    a, b = make_study(), make_study()
    with pytest.raises(CommandError, match=f"several studies exist.*{a.slug}, {b.slug}"):
        run("--count", "1", "--seed", "1")
    with pytest.raises(CommandError, match="no study with slug 'nope'"):
        run("--count", "1", "--seed", "1", "--study", "nope")


@pytest.mark.django_db
def test_building_twice_is_refused():
    make_pool(size=80)
    make_study()
    run("--count", "1", "--seed", "1")
    with pytest.raises(CommandError, match="already has 1 questionnaire.*extend it"):
        run("--count", "1", "--seed", "1")
