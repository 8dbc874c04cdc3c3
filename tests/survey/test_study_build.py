"""A study built from one file (`create_study FILE`) on real WMT21 data: sources imported, pool
drawn, permutations generated, practice pair chosen and questionnaires composed in one
transaction; the same file and sources give the same questionnaires in an empty database;
several studies live in one database, each with its own pool; bad input is refused naming the
key, with nothing written, even when the build fails half-way."""

from __future__ import annotations

import json
import re
import tomllib
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command

from analysis.demo_studies import DEMOS
from survey.design.build import study_digest
from survey.design.questionnaires import ITEM_RELATIONS, current_questionnaires, item_key
from survey.models import (
    Corpus,
    Item,
    JudgmentImport,
    Participant,
    Rating,
    Segment,
    Study,
    StudyEvent,
)
from wojdb.core.texts.en import QUESTIONS

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
SLICE = DEMOS["en"].slice
ROOT = Path(__file__).resolve().parents[2]


def section(title: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(title)
    return text[start : text.index("\n## ", start + 1)]


def create(path: Path) -> str:
    out = StringIO()
    call_command("create_study", str(path), "--jobs", "1", stdout=out)
    return out.getvalue()


def small(tmp_path: Path, extra: str = "", *, pool: str = "per_corpus = 20\nmax_length = 40\n",
          practice: str = "", count: int = 2) -> Path:  # fmt: skip
    """A study of 2 questionnaires of 20 items from the slice's German → English corpora."""
    path = tmp_path / "small.toml"
    path.write_text(
        f'name = "Small"\nslug = "small"\nitems_per_questionnaire = 20\n{extra}\n'
        f'[sources]\ntestsets = [{{path = "{SLICE / "txt"}", language_pairs = ["de-en"]}}]\n'
        f"[pool]\n{pool}\n[questionnaires]\ncount = {count}\n{practice}"
    )
    return path


def questionnaire_items(study: Study) -> list[tuple]:
    """Every questionnaire's entries by content: (number, position, item key, shared)."""
    return [
        (q.number, e.position, item_key(e.item), e.shared)
        for q in current_questionnaires(study)
        for e in q.entries.select_related(*(f"item__{r}" for r in ITEM_RELATIONS))
    ]


def empty_database() -> None:
    """Delete every row the builds wrote, and check that nothing is left but the studies'
    records, which outlive them (StudyEvent, append-only)."""
    Study.objects.all().delete()
    Item.objects.all().delete()
    Segment.objects.all().delete()
    Corpus.objects.all().delete()
    JudgmentImport.objects.all().delete()
    for config in ("survey", "analysis"):
        for model in apps.get_app_config(config).get_models():
            assert model is StudyEvent or not model.objects.exists(), model


def nothing_written() -> bool:
    return not Segment.objects.exists() and not Study.objects.exists()


def test_a_study_builds_from_its_file_again_unchanged_and_in_an_empty_database(tmp_path):
    out = create(small(tmp_path))
    assert out.startswith("Created study 'small'.\n")
    assert "  pool: triples in the pool: 80\n" in out
    assert "  questionnaires: 2 built of 20 items (seed 1)\n" in out
    study = Study.objects.get(slug="small")
    digest, items = study_digest(study), questionnaire_items(study)
    assert f"  digest: {digest}\n" in out and len(items) == 2 * 20
    # The default practice pair: the pool's shortest reference of 10-20 words, two words swapped.
    practice = study.sample_item
    assert (practice.permutation.perm_type, practice.permutation.degree) == ("swap", 2)
    assert 10 <= practice.triple.segment.reference_length <= 20
    assert practice.triple.pool_entries.filter(study=study).exists()
    lengths = study.pool_entries.values_list("triple__segment__reference_length", flat=True)
    assert max(lengths) <= 40
    # No questionnaire holds the practice pair's reference.
    assert not study.questionnaires.filter(
        entries__item__triple__segment=practice.triple.segment
    ).exists()

    again = create(small(tmp_path))
    assert "  pool: 80 triples kept\n" in again and "  questionnaires: 2 kept\n" in again
    assert f"  digest: {digest}\n" in again

    written = tmp_path / "out" / "small.toml"
    written.parent.mkdir()
    call_command("study_config", "small", "--out", str(written))
    declared = tomllib.loads(written.read_text())
    source = Path(declared["sources"]["testsets"][0]["path"])
    assert not source.is_absolute() and (written.parent / source).resolve() == SLICE / "txt"
    assert declared["pool"]["per_corpus"] == 20 and declared["questionnaires"]["count"] == 2
    assert declared["practice_item"]["perm_type"] == "swap"
    empty_database()
    create(written)
    rebuilt = Study.objects.get(slug="small")
    assert questionnaire_items(rebuilt) == items
    assert study_digest(rebuilt) == digest


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"pool": "per_corpus = 500\n"},
            r"line 8, key pool\.per_corpus: per_corpus = 500, but 4 "
            r"corpora have fewer triples that qualify: newstest2021 de-en Facebook-AI: \d+ of 107",
        ),
        (
            {"pool": "per_corpus = 20\nmax_length = 6\n"},
            r"key pool\.max_length: per_corpus = 20, but 4 corpora .* over max_length",
        ),
        (
            {"pool": 'per_corpus = 20\nlanguage_pairs = ["xx-yy"]\n'},
            r"line 9, key pool\.language_pairs: no imported corpus has the language pair\(s\) "
            r"xx-yy \(there are de-en\); the pool is unchanged. Nothing was written.",
        ),
        (
            {"pool": 'per_corpus = 20\nexclude = [{system = "Nobody"}]\n'},
            r"key pool\.exclude: \{system = 'Nobody'\} matches no triple",
        ),
        (
            {"count": 40},
            r"key questionnaires\.count: the pool of 80 triples \(\[pool\] per_corpus "
            r"= 20\) cannot fill 40 questionnaire\(s\) of 20 items: (?s:.*)short by 166",
        ),
        (
            {"practice": '[practice_item]\nreference = "No such sentence."\n'},
            r"key practice_item\.reference: no sentence of the study's corpora has this reference",
        ),
        (
            {"practice": '[practice_item]\nrule = "shortest"\nmin_length = 90\nmax_length = 99\n'},
            r"key practice_item: no triple of the study's pool has a swap permutation of degree 2 "
            "with a reference of 90 to 99 words",
        ),
        ({"extra": "max_degree = 0"}, r"key max_degree: .*0 is out of range"),
    ],
)
def test_a_build_that_cannot_finish_names_the_key_and_leaves_the_database_as_it_was(
    tmp_path, change, message
):
    with pytest.raises(CommandError, match=message):
        create(small(tmp_path, **change))
    assert nothing_written()


@pytest.mark.parametrize(
    "source, message",
    [
        (
            f'{{path = "{SLICE / "txt"}", layout = "WMT XML"}}',
            r"line 6, key sources\.testsets\[1\]: .*txt: is in the WMT plain text layout, not "
            "WMT XML",
        ),
        (
            f'"{SLICE / "humaneval"}"',
            r"key sources\.testsets\[1\]: .*humaneval: no known layout here \(mt-metrics-eval; ",
        ),
        (
            f'{{path = "{SLICE / "txt"}", language_pairs = ["de-en"], systems = ["Nobody"]}}',
            r"key sources\.testsets\[1\]: .*txt, field --lp: no test set for language pair\(s\) "
            "de-en",
        ),
    ],
)
def test_a_source_in_another_layout_is_refused_naming_its_key(tmp_path, source, message):
    path = small(tmp_path)
    path.write_text(re.sub(r"testsets = \[.*\]", lambda _: f"testsets = [{source}]",
                           path.read_text()))  # fmt: skip
    with pytest.raises(CommandError, match=message):
        create(path)
    assert nothing_written()


def test_a_practice_pair_named_by_texts_must_read_as_a_permutation_of_its_reference(tmp_path):
    reference = (SLICE / "txt/newstest2021.de-en.ref.A.en").read_text().splitlines()[5]
    practice = f'[practice_item]\nreference = "{reference}"\ntext = "Not one of its permutations"\n'
    with pytest.raises(CommandError, match=r"key practice_item\.text: neither a hypothesis nor a "
                       "permutation of that reference reads so; its permutations of degree 2 "
                       "read: "):  # fmt: skip
        create(small(tmp_path, practice=practice))
    assert nothing_written()
    create(small(tmp_path, practice=f'[practice_item]\nreference = "{reference}"\n'))
    item = Study.objects.get().sample_item  # without a text: the hypothesis
    assert item.permutation is None and item.triple.segment.reference == reference


def test_the_design_changes_until_real_people_take_part(tmp_path):
    create(small(tmp_path))
    study = Study.objects.get()
    call_command("simulate_responses", "--study", "small", "--participants", "2", verbosity=0)
    out = create(small(tmp_path, pool="per_corpus = 21\nmax_length = 40\n"))
    assert "pool: removed the 2 questionnaire(s) built from it and 2 simulated participant(s)" in (
        out
    )
    assert "questionnaires: 2 built" in out and study.pool_entries.count() == 84
    digest = study_digest(study)
    person = Participant.objects.create(study=study, questionnaire=study.questionnaires.first())
    entry = person.questionnaire.entries.first()
    Rating.objects.create(participant=person, item=entry.item, position=1, holistic=3)
    with pytest.raises(CommandError) as error:
        create(small(tmp_path, pool="per_corpus = 22\nmax_length = 40\n"))
    assert str(error.value).endswith(
        "line 7, key pool: study 'small': it has 1 real answer(s); the file changes pool, which "
        "would alter what they are shown. Nothing was written."
    )
    assert study_digest(study) == digest and study.pool_entries.count() == 84
    # Settings that leave the questionnaires alone still change: the contacts participants
    # read in the texts (and so the digest of what they are shown), the questionnaires not.
    items = questionnaire_items(study)
    create(small(tmp_path, 'researcher_name = "Ana"', pool="per_corpus = 21\nmax_length = 40\n"))
    study.refresh_from_db()
    assert study.researcher_name == "Ana" and study_digest(study) != digest
    assert questionnaire_items(study) == items


def printed_digest(out: str) -> str:
    return re.search(r"^  digest: (sha256:\w+)$", out, re.M)[1]


def test_a_file_changing_only_the_first_question_gives_another_digest(tmp_path):
    """The demo's file with only holistic_question, holistic_low and holistic_high changed
    rebuilt the questionnaires and printed the unchanged file's digest."""
    asked = "\n".join(f"{k} = {json.dumps(v)}" for k, v in QUESTIONS.items() if "holistic" in k)
    first = create(small(tmp_path, asked))
    funny = 'holistic_question = "How funny is this translation?"\nholistic_low = "Dull"\n'
    out = create(small(tmp_path, funny + 'holistic_high = "Hilarious"'))
    assert "(holistic_question, holistic_low, holistic_high changed)" in out
    assert printed_digest(out) != printed_digest(first)
    # The same questions again: the same questionnaires, the same digest.
    assert printed_digest(create(small(tmp_path, asked))) == printed_digest(first)


def readme_study(folder: Path) -> Path:
    """The README's own study file ("Your own study in brief"), saved in a folder beside the clone's
    fixtures, as the README has it saved in the clone's folder."""
    (folder / "fixtures").symlink_to(ROOT / "fixtures")
    (text,) = re.findall(r"^```toml\n(.*?)^```", section("## Your own study in brief"), re.M | re.S)
    (folder / "my-study.toml").write_text(text)
    return folder / "my-study.toml"


def test_three_studies_live_in_one_database_and_the_demo_rebuilds_from_its_written_file(tmp_path):
    create(DEMOS["fr"].study_file)
    create(DEMOS["en"].study_file)
    create(readme_study(tmp_path))
    french, english = Study.objects.get(slug="demo-fr"), Study.objects.get(slug="demo")
    readme = Study.objects.get(slug="word-order-cs")
    for study, pairs, size, count in (
        (french, {"de-fr"}, 640, 36),
        (english, {"de-en", "is-en", "ja-en", "ru-en"}, 640, 36),
        (readme, {"cs-en"}, 90, 4),
    ):
        pool = study.pool_entries.select_related("triple__corpus")
        assert {e.triple.corpus.lp for e in pool} == pairs and len(pool) == size
        assert study.questionnaires.count() == count
        held = study.questionnaires.values_list("entries__item__triple__corpus__target_lang")
        assert set(held) == {(study.language,)}
    practice = french.sample_item
    assert (practice.triple.segment.number, practice.permutation.perm_type) == (14, "swap")
    items, digest = questionnaire_items(english), study_digest(english)

    written = tmp_path / "demo.toml"
    out = StringIO()
    call_command("study_config", "demo", stdout=out)
    written.write_text(out.getvalue())
    empty_database()
    assert f"  digest: {digest}\n" in create(written)
    assert questionnaire_items(Study.objects.get(slug="demo")) == items
