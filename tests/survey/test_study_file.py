"""A study declared in one TOML file: study_config writes it, create_study reads it back; an
update never alters what participants have seen; every step of a study runs from the command
line."""

from __future__ import annotations

import tomllib
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from analysis.demo import DEMOS, demo_study
from survey.models import Participant, Questionnaire, Study
from survey.study_file import study_fields
from tests.factories import make_hypothesis_item, make_permutation_item, make_study

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def config(slug: str) -> str:
    out = StringIO()
    call_command("study_config", slug, stdout=out)
    return out.getvalue()


def create(path: Path) -> str:
    out = StringIO()
    call_command("create_study", str(path), stdout=out)
    return out.getvalue()


def a_study() -> Study:
    study = make_study(questionnaires=1, items_per_questionnaire=40, shared_share=0.5)
    hypothesis = make_hypothesis_item()
    study.shared_items.set([hypothesis, make_permutation_item(hypothesis.triple, "swap", 3)])
    study.consent_texts.create(
        version=2, statements=["I agree.", 'Quotes " and\nlines.'], optional=[2], sharing=2
    )
    study.consent_texts.create(version=3, statements=["I agree to all."])
    study.platform_return_url = "https://example.org/done?code={code}"
    study.platform, study.completion_code, study.decline_code = "prolific", "C0DE", "DECL"
    study.min_answered_pairs, study.ethics_contact = 3, "ethics@example.org"
    study.type_counts = {
        "shared": {"order": 4, "swap": 2, "phrase": 2, "choice": 2},
        "unique": {"order": 2, "swap": 2, "phrase": 2, "choice": 2, "random": 2},
    }
    study.save()
    return study


def test_study_config_then_create_study_gives_the_same_study(tmp_path):
    study = a_study()
    written = config(study.slug)
    declared = tomllib.loads(written)
    # Every editable field of the model, by name, with the items by key.
    assert {f.name for f in study_fields()} <= set(declared)
    assert {"platform_return_url", "information_sheet", "type_counts"} <= set(declared)
    assert declared["shared_items"][1]["perm_type"] == "swap"
    assert declared["practice_item"]["segment"] == study.sample_item.triple.segment.number
    shared = sorted(study.shared_items.values_list("pk", flat=True))
    sample = study.sample_item_id
    (tmp_path / "study.toml").write_text(written)
    Questionnaire.objects.all().delete()
    study.delete()
    assert create(tmp_path / "study.toml") == f"Created study {study.slug!r}.\n"
    again = Study.objects.get(slug=study.slug)
    assert again.pk != study.pk
    assert config(study.slug) == written
    assert sorted(again.shared_items.values_list("pk", flat=True)) == shared
    assert again.sample_item_id == sample
    assert dict(again.consent_texts.values_list("version", "statements"))[2][1] == (
        'Quotes " and\nlines.'
    )
    # Which statements may be answered No, and which agrees to the release, come back too.
    consent = {c.version: (c.optional, c.sharing) for c in again.consent_texts.all()}
    assert consent[2] == ([2], 2) and consent[3] == ([], None)
    assert (again.platform, again.completion_code, again.decline_code) == (
        "prolific",
        "C0DE",
        "DECL",
    )
    assert (again.min_answered_pairs, again.ethics_contact) == (3, "ethics@example.org")


def frozen_study(tmp_path) -> tuple[Study, Path]:
    study = a_study()
    Participant.objects.create(
        study=study, questionnaire=study.questionnaires.get(), status="in_progress"
    )
    path = tmp_path / "study.toml"
    path.write_text(config(study.slug))
    return study, path


def test_an_update_that_would_alter_a_frozen_questionnaire_is_refused_naming_it(tmp_path):
    study, path = frozen_study(tmp_path)
    text = path.read_text()
    path.write_text(
        text.replace("items_per_questionnaire = 40", "items_per_questionnaire = 30").replace(
            'perm_type = "swap"', 'perm_type = "order"\ndegree_x = 1', 1
        )
    )
    with pytest.raises(CommandError, match="unknown item keys degree_x"):
        create(path)
    path.write_text(text.replace("items_per_questionnaire = 40", "items_per_questionnaire = 30"))
    with pytest.raises(CommandError) as error:
        create(path)
    assert (
        f"study {study.slug!r}: questionnaires 1 are frozen (participants started them); the "
        "file changes items_per_questionnaire, which would alter them. Nothing was written."
    ) == str(error.value)
    assert Study.objects.get(pk=study.pk).items_per_questionnaire == 40


def test_an_update_elsewhere_is_applied_while_questionnaires_are_frozen(tmp_path):
    study, path = frozen_study(tmp_path)
    text = tomllib.loads(path.read_text())
    assert text["researcher_name"] == "Ada Researcher"
    path.write_text(
        path.read_text().replace('researcher_name = "Ada Researcher"', 'researcher_name = "Ana"')
    )
    assert create(path) == f"Updated study {study.slug!r}.\n"
    assert Study.objects.get(pk=study.pk).researcher_name == "Ana"


def test_an_existing_consent_version_never_changes(tmp_path):
    study, path = frozen_study(tmp_path)
    path.write_text(path.read_text().replace('"I agree."', '"I agree to everything."'))
    with pytest.raises(CommandError, match="consent version 2 exists with other statements"):
        create(path)
    assert study.consent_texts.get(version=2).statements[0] == "I agree."


def test_an_existing_consent_version_keeps_its_optional_statements(tmp_path):
    study, path = frozen_study(tmp_path)
    path.write_text(path.read_text().replace("optional = [\n    2,\n]", "optional = []"))
    with pytest.raises(CommandError, match="consent version 2 exists with other statements"):
        create(path)
    assert study.consent_texts.get(version=2).optional == [2]


@pytest.mark.parametrize(
    "text, message",
    [
        ('slug = "x"\nname = "X"\ncolour = "red"\n', "unknown keys colour"),
        ('slug = "x"\nname = =\n', "bad.toml: not a TOML file: .*line 2"),
        (
            'slug = "x"\nname = "X"\nitems_per_questionnaire = 7\n',
            "cannot describe a questionnaire",
        ),
        (
            'slug = "x"\nname = "X"\n[practice_item]\ntestset = "t"\nsource_lang = "de"\n'
            'target_lang = "en"\nref_name = "A"\nsegment = 9999\nsystem = "S"\n',
            "practice_item: no item .* in the database",
        ),
        (
            'slug = "x"\nname = "X"\n[[consent_texts]]\nversion = 1\nstatements = ["A", "B"]\n'
            "optional = [3]\n",
            "consent_texts 1: optional lists statement numbers from 1 to 2",
        ),
        (
            'slug = "x"\nname = "X"\n[[consent_texts]]\nversion = 1\nstatements = ["A"]\n'
            "sharing = 0\n",
            "consent_texts 1: sharing is a statement number from 1 to 1",
        ),
        ('slug = "x"\nname = "X"\nlanguage = "French"\n', "language: 'French' is not an ISO 639"),
        ('slug = "x"\nname = "X"\nlanguage = "fra"\n', r"language: .*\(write 'fr'\)"),
    ],
)
def test_a_bad_study_file_is_refused_naming_the_file_and_writes_nothing(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(CommandError, match=message):
        create(path)
    assert not Study.objects.exists()


def test_a_study_file_in_french_gives_a_french_study_and_writes_its_language_back(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('slug = "fr"\nname = "Étude"\nlanguage = "fr"\nholistic_low = "Ardu"\n')
    create(path)
    study = Study.objects.get(slug="fr")
    assert study.language == "fr"
    # The texts the file leaves out are the French defaults; the one it gives is kept.
    assert study.consent_closing.startswith("La participation à cette recherche")
    assert (study.holistic_low, study.holistic_high) == ("Ardu", "Très facile")
    declared = tomllib.loads(config("fr"))
    assert declared["language"] == "fr"
    assert declared["instructions"].startswith("## Ce que vous verrez")


def test_the_demo_builds_its_study_from_its_file():
    study = demo_study(DEMOS["en"])
    declared = tomllib.loads((Path(settings.FIXTURES_DIR) / "demo-study.toml").read_text())
    assert {k: getattr(study, k) for k in declared} == declared
    assert demo_study(DEMOS["en"]) == study  # a re-run keeps it


@pytest.mark.slow
def test_a_study_is_built_from_the_command_line_alone(tmp_path):
    slice_ = ROOT / "fixtures" / "wmt21-slice"
    quiet = {"verbosity": 0}
    call_command("import_wmt", str(slice_ / "txt"), **quiet)
    call_command("sample_pool", "--per-corpus", "30", "--seed", "1", **quiet)
    call_command("generate_permutations", "--seed", "1", **quiet)
    path = tmp_path / "study.toml"
    path.write_text('name = "Word order"\nslug = "word-order"\nitems_per_questionnaire = 40\n')
    create(path)
    call_command("build_questionnaires", "--count", "3", "--seed", "1", **quiet)
    study = Study.objects.get(slug="word-order")
    assert study.questionnaires.count() == 3
    assert {q.entries.count() for q in study.questionnaires.all()} == {40}
