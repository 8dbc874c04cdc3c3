"""A study declared in one TOML file: study_config writes it, create_study reads it back; an
update never alters what participants have seen; every step of a study runs from the command
line."""

from __future__ import annotations

import tomllib
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from analysis.demo_studies import DEMOS
from survey.design.plan import read_study_file, study_fields
from survey.models import Participant, PoolEntry, Questionnaire, Study
from tests.factories import (
    make_hypothesis_item,
    make_permutation_item,
    make_study,
    make_triple,
)

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
    assert create(tmp_path / "study.toml").startswith(f"Created study {study.slug!r}.\n")
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
    with pytest.raises(CommandError, match=r"key shared_items\[2\]\.degree_x: unknown key"):
        create(path)
    path.write_text(text.replace("items_per_questionnaire = 40", "items_per_questionnaire = 30"))
    with pytest.raises(CommandError) as error:
        create(path)
    line = text.splitlines().index("items_per_questionnaire = 40") + 1
    assert str(error.value) == (
        f"{path}, line {line}, key items_per_questionnaire: study {study.slug!r}: 1 real "
        "participant(s) have started it; the file changes items_per_questionnaire, which would "
        "alter what they are shown. Nothing was written."
    )
    assert Study.objects.get(pk=study.pk).items_per_questionnaire == 40


def test_an_update_elsewhere_is_applied_while_questionnaires_are_frozen(tmp_path):
    study, path = frozen_study(tmp_path)
    text = tomllib.loads(path.read_text())
    assert text["researcher_name"] == "Ada Researcher"
    path.write_text(
        path.read_text().replace('researcher_name = "Ada Researcher"', 'researcher_name = "Ana"')
    )
    assert create(path).startswith(f"Updated study {study.slug!r}.\n")
    assert Study.objects.get(pk=study.pk).researcher_name == "Ana"


@pytest.mark.parametrize(
    "old, new, named",
    [
        ('holistic_question = "', 'holistic_question = "How funny is this? ', "holistic_question"),
        ('holistic_low = "', 'holistic_low = "Not at all ', "holistic_low"),
        ('information_sheet = """', 'information_sheet = """Read.\n', "information_sheet"),
        ('instructions = """', 'instructions = """Look closely.\n', "instructions"),
        ('language = "en"', 'language = "fr"', "language"),
        ('reward = "', 'reward = "Nothing. ', "reward"),
        ("require_both_answers = true", "require_both_answers = false", "require_both_answers"),
        ("word_marks = false", "word_marks = true", "word_marks"),
        ('sample_order_note = ""', 'sample_order_note = "Well done."', "sample_order_note"),
    ],
)
def test_what_participants_read_before_or_while_answering_is_fixed_once_they_took_part(
    tmp_path, old, new, named
):
    """A file changing the texts participants read was applied to a started study: only the
    questionnaire's layout and questions were held."""
    study, path = frozen_study(tmp_path)
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(CommandError) as error:
        create(path)
    line = next(n for n, row in enumerate(text.splitlines(), 1) if row.startswith(old))
    assert str(error.value) == (
        f"{path}, line {line}, key {named}: study {study.slug!r}: 1 real participant(s) have "
        f"started it; the file changes {named}, which would alter what they are shown. Nothing "
        "was written."
    )
    assert config(study.slug) == text


def test_a_new_name_is_refused_while_it_is_the_title_participants_read(tmp_path):
    study, path = frozen_study(tmp_path)
    Study.objects.filter(pk=study.pk).update(project_title="")
    path.write_text(config(study.slug).replace(f'name = "{study.name}"', 'name = "Renamed"'))
    with pytest.raises(CommandError, match="the file changes name, which would alter"):
        create(path)
    # With a title of its own, the name is the researcher's alone.
    Study.objects.filter(pk=study.pk).update(project_title="Its own title")
    path.write_text(config(study.slug).replace(f'name = "{study.name}"', 'name = "Renamed"'))
    create(path)
    assert Study.objects.get(pk=study.pk).name == "Renamed"


def test_what_participants_read_after_answering_stays_editable(tmp_path):
    study, path = frozen_study(tmp_path)
    text = path.read_text()
    path.write_text(
        text.replace('debriefing = """', 'debriefing = """Thank you.\n', 1).replace(
            'researcher_email = "ada@example.org"', 'researcher_email = "ada@example.com"'
        )
    )
    create(path)
    after = Study.objects.get(pk=study.pk)
    assert after.debriefing.startswith("Thank you.\n")
    assert after.researcher_email == "ada@example.com"


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


HEAD = 'slug = "x"\nname = "X"\n'


@pytest.mark.parametrize(
    "text, message",
    [
        (HEAD + 'colour = "red"\n', r"bad.toml, line 3, key colour: unknown key 'colour'"),
        ('slug = "x"\nname = "   "\n', r"bad.toml, line 2, key name: must not be empty"),
        ('slug = "x"\nname = =\n', "bad.toml: not a TOML file: .*line 2"),
        (HEAD + "items_per_questionnaire = 7\n", "cannot describe a questionnaire"),
        (
            HEAD + '[practice_item]\ntestset = "t"\nsource_lang = "de"\ntarget_lang = "en"\n'
            'ref_name = "A"\nsegment = 9999\nsystem = "S"\n',
            r"line 3, key practice_item: no imported sentence has this key",
        ),
        (
            HEAD + '[[consent_texts]]\nversion = 1\nstatements = ["A", "B"]\noptional = [3]\n',
            r"line 6, key consent_texts\[1\]\.optional\[1\]: lists statement numbers from 1 to "
            "2, not 3",
        ),
        (
            HEAD + '[[consent_texts]]\nversion = 1\nstatements = ["A"]\nsharing = 2\n',
            r"key consent_texts\[1\]\.sharing: is a statement number from 1 to 1, not 2",
        ),
        (HEAD + 'language = "French"\n', "key language: 'French' is not an ISO 639"),
        (HEAD + 'language = "fra"\n', r"key language: .*\(write 'fr'\)"),
        # What issue 29 found: wrong types, numbers out of range, repeated versions.
        (
            HEAD + '[[consent_texts]]\nversion = 1\nstatements = ["A"]\n'
            '[[consent_texts]]\nversion = 1\nstatements = ["B"]\n',
            r"line 7, key consent_texts\[2\]\.version: version 1 is given twice",
        ),
        (
            HEAD + '[practice_item]\ntestset = "t"\nsource_lang = "de"\ntarget_lang = "en"\n'
            'ref_name = "A"\nsegment = 50.5\nsystem = "S"\n',
            r"line 8, key practice_item\.segment: must be a whole number from 1 to "
            r"2,147,483,647, not a number \(50\.5\)",
        ),
        ('slug = "x"\nname = ["a", "b"]\n', r"line 2, key name: must be a text, not a list"),
        ('slug = "x"\nname = {a = 1}\n', "key name: must be a text, not a table"),
        ('slug = "x"\nname = 1979-05-27T07:32:00Z\n', "key name: must be a text, not a date"),
        (
            HEAD + "[[consent_texts]]\nversion = 1\nstatements = []\n",
            r"key consent_texts\[1\]\.statements: lists 0 entries; it needs 1 to 100",
        ),
        (HEAD + 'consent_texts = "oops"\n', "line 3, key consent_texts: must be a list, not a"),
        (
            HEAD + "consent_texts = [1, 2]\n",
            r"key consent_texts\[1\]: must be a table, not a whole number",
        ),
        (
            HEAD + '[[consent_texts]]\nversion = -1\nstatements = ["A"]\n',
            r"key consent_texts\[1\]\.version: -1 is out of range",
        ),
        (
            HEAD + '[[consent_texts]]\nversion = 100000000000000000000\nstatements = ["A"]\n',
            r"key consent_texts\[1\]\.version: 100,000,000,000,000,000,000 is out of range",
        ),
        (
            HEAD + '[practice_item]\nrule = "shortest"\nsegment = "abc"\n',
            r"key practice_item\.segment: must be a whole number .*not a text \('abc'\)",
        ),
        (
            HEAD + '[[shared_items]]\ntestset = "t"\nsource_lang = "de"\ntarget_lang = "en"\n'
            'ref_name = "A"\nsegment = inf\nsystem = "S"\n',
            r"line 8, key shared_items\[1\]\.segment: must be a whole number .*\(inf\)",
        ),
        (
            HEAD + "abandon_after_minutes = 2000000000\n",
            r"line 3, key abandon_after_minutes: 2,000,000,000 is out of range: a whole number "
            "from 1 to 527,040",
        ),
        (HEAD + "permutation_share = nan\n", "key permutation_share: nan is out of range"),
        (
            HEAD + "[questionnaires]\ncount = 1001\n",
            r"line 4, key questionnaires\.count: 1,001 is out of range: a whole number from 1 to "
            "1,000",
        ),
        (HEAD + 'platform = "carrier-pigeon"\n', r"key platform: must be one of 'none'"),
        (
            HEAD + 'word_marks = "yes"\n',
            r"line 3, key word_marks: must be true or false, not a text",
        ),
        (HEAD + 'platform_settings = "x"\n', r"line 3, key platform_settings: must be a table"),
        (
            HEAD + '[platform_settings.mturk]\nhosts = "x"\n',
            r"line 3, key platform_settings\.mturk: no platform 'mturk' has settings",
        ),
        (HEAD + 'researcher_email = "not an address"\n', "key researcher_email: Enter a valid"),
        (HEAD + 'type_counts = {shared = {order = "2"}}\n', r"key type_counts\.shared\.order"),
        # The build's tables.
        (HEAD + "[pool]\nper_corpus = 0\n", r"line 4, key pool\.per_corpus: 0 is out of range"),
        (HEAD + "[pool]\nmin_length = 9\nmax_length = 5\n", r"key pool\.max_length: 5 is below"),
        (HEAD + "[pool]\nper_corpora = 5\n", r"key pool\.per_corpora: unknown key"),
        (HEAD + "[pool]\nseed = -3\n", r"key pool\.seed: -3 is out of range"),
        (HEAD + "[pool]\nexclude = [{}]\n", r"key pool\.exclude\[1\]: names nothing"),
        (HEAD + "[questionnaires]\ncount = 3\n", r"key questionnaires: \[questionnaires\] is"),
        (HEAD + "[pool]\n[questionnaires]\nseed = 3\n", r"key questionnaires: needs the key"),
        (HEAD + '[permutations]\ntypes = ["order", "mix"]\n', r"types\[2\]: must be one of"),
        (HEAD + '[sources]\ntestsets = ["nowhere"]\n', r"testsets\[1\]: .*nowhere does not"),
        (
            HEAD + '[sources]\ntestsets = [{path = ".", layout = "foo"}]\n',
            r"key sources\.testsets\[1\]\.layout: must be one of 'mt-metrics-eval'",
        ),
        (HEAD + '[sources]\ndocuments = ["."]\n', r"documents\[1\]: .* give the file itself"),
        (HEAD + '[practice_item]\nrule = "shortest"\nreference = "A."\n', "one of three ways"),
        (
            HEAD + '[practice_item]\ntestset = "t"\nsource_lang = "de"\n',
            "an item's key needs target_lang, ref_name, segment, system as well",
        ),
    ],
)
def test_a_bad_study_file_is_refused_naming_the_key_and_writes_nothing(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(CommandError, match=message):
        create(path)
    assert not Study.objects.exists()


def test_word_marks_are_off_unless_the_file_turns_them_on_and_written_back(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(HEAD)
    create(path)
    assert Study.objects.get(slug="x").word_marks is False
    assert "word_marks = false\n" in config("x")
    path.write_text(HEAD + "word_marks = true\n")
    create(path)
    assert Study.objects.get(slug="x").word_marks is True
    assert "word_marks = true\n" in config("x")


def test_line_ends_in_a_study_files_texts_become_one_kind(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(HEAD + 'instructions = "## Steps\\r\\n\\r\\nRead.\\rRate."\n')
    create(path)
    assert Study.objects.get().instructions == "## Steps\n\nRead.\nRate."


def test_a_pool_drawn_before_pools_were_declared_is_said_not_to_be_in_the_file():
    study = make_study(questionnaires=0)
    PoolEntry.objects.create(study=study, triple=make_triple())
    assert config(study.slug).startswith(
        "# The study's pool of 1 triples was not drawn by a [pool] rule, so this file\n"
    )


def test_a_pool_drawn_by_command_is_written_back_as_the_files_pool(tmp_path):
    study = make_study(questionnaires=0, launched_at=None)
    for _ in range(3):
        make_triple(lp="de-en")
    call_command("sample_pool", "--study", study.slug, "--per-corpus", "2", "--seed", "9",
                 verbosity=0)  # fmt: skip
    declared = tomllib.loads(config(study.slug))
    assert declared["pool"] == {
        "testsets": [], "language_pairs": [], "systems": [], "per_corpus": 2, "seed": 9,
        "min_length": 1, "single_sentence": True, "sentence_end": True, "exclude": [],
    }  # fmt: skip


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


def test_the_demos_are_study_files_whose_sources_are_their_slices():
    for demo in DEMOS.values():
        declared = read_study_file(demo.study_file)
        assert declared.fields["slug"] == demo.slug
        assert declared.questionnaires == {"count": 36, "seed": 1}
        assert declared.pool["max_length"] == 40 and declared.pool["single_sentence"]
        paths = [Path(e["path"]) for entries in declared.sources.values() for e in entries]
        assert paths and all(p.is_relative_to(demo.slice.resolve()) for p in paths)


@pytest.mark.slow
def test_a_study_is_built_from_the_command_line_alone(tmp_path):
    slice_ = ROOT / "fixtures" / "wmt21-slice"
    quiet = {"verbosity": 0}
    call_command("import_wmt", str(slice_ / "txt"), **quiet)
    path = tmp_path / "study.toml"
    path.write_text('name = "Word order"\nslug = "word-order"\nitems_per_questionnaire = 40\n')
    create(path)
    call_command("sample_pool", "--per-corpus", "30", "--seed", "1", **quiet)
    call_command("generate_permutations", "--seed", "1", **quiet)
    call_command("build_questionnaires", "--count", "3", "--seed", "1", **quiet)
    study = Study.objects.get(slug="word-order")
    assert study.questionnaires.count() == 3
    assert {q.entries.count() for q in study.questionnaires.all()} == {40}


def test_the_dashboard_and_the_command_build_as_many_questionnaires_as_a_study_file():
    from survey.researchers.dashboard import BuildForm

    assert BuildForm({"count": 1000, "seed": 1}).fields["count"].max_value == 1000
    with pytest.raises(CommandError, match="1001 is outside the allowed range"):
        call_command("build_questionnaires", "--count", "1001", "--seed", "1")
