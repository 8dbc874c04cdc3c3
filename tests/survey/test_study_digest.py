"""The build's digest is of everything participants are shown: a study file that changes any of
it gives another digest, one that only reads differently (its keys in another order, its texts
quoted another way, comments) gives the same.

The files here hold a study's settings and consent texts only (no [pool]), so that each example
builds in a moment; test_study_build.py covers the pool, practice pair and questionnaires."""

from __future__ import annotations

import json
import re
import tempfile
import tomllib
from io import StringIO
from pathlib import Path

import pytest
import tomli_w
from django.core.management import call_command
from django.db import models
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from survey.design import shown
from survey.design.build import study_digest
from survey.models import HIGHEST_DEGREE, Study
from tests.factories import make_hypothesis_item, make_permutation_item, make_study
from wojdb.core.design.composition import ConfigurationError, make_layout, table_6_3
from wojdb.core.texts import normalise_line_ends

pytestmark = pytest.mark.django_db
EXAMPLES = settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
BASE = {
    "slug": "digest",
    "name": "Digest study",
    "holistic_question": 'How "good" is this translation? \\ Ça dépend',
    "instructions": "## Steps\n\nRead the 'two' sentences.\nRate them.",
    "max_degree": 12,
    "consent_texts": [{"version": 1, "statements": ["I agree.", "I may withdraw."]}],
}


def build(text: str) -> str:
    """Build the study a file holds; the digest the command printed."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "study.toml"
        path.write_text(text, encoding="utf-8")
        out = StringIO()
        call_command("create_study", str(path), "--jobs", "1", stdout=out)
    return re.search(r"digest: (sha256:\w+)", out.getvalue())[1]


@pytest.fixture
def base() -> tuple[dict, str]:
    """The study's whole file (every field, as study_config writes it) and its digest."""
    build(tomli_w.dumps(BASE))
    out = StringIO()
    call_command("study_config", "digest", stdout=out)
    text = out.getvalue()
    return tomllib.loads(text), build(text)


def _layout_holds(**numbers) -> bool:
    values = {"items": 50, "permutation_share": 0.5, "shared_share": 0.4} | numbers
    try:
        make_layout(values["items"], values["permutation_share"], values["shared_share"])
    except ConfigurationError:
        return False
    return True


TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=60
).filter(str.strip)


def new_values(name: str) -> st.SearchStrategy:
    """Values a study file may give the Study field `name`."""
    field = Study._meta.get_field(name)
    special = {
        "language": st.sampled_from(["fr", "de", "cs", "ja", "ru"]),
        "type_counts": st.just(table_6_3(50, 0.5, 0.4)),
        "items_per_questionnaire": st.integers(4, 300).filter(lambda n: _layout_holds(items=n)),
        "permutation_share": st.floats(0, 1).filter(lambda s: _layout_holds(permutation_share=s)),
        "shared_share": st.floats(0, 1).filter(lambda s: _layout_holds(shared_share=s)),
        "max_degree": st.integers(1, HIGHEST_DEGREE),
    }
    if name in special:
        return special[name]
    if isinstance(field, models.EmailField):
        return st.from_regex(r"[a-z]{1,12}@example\.(org|com)", fullmatch=True)
    if isinstance(field, models.BooleanField):
        return st.booleans()
    assert isinstance(field, models.CharField | models.TextField), name
    return TEXT.map(lambda text: text[: field.max_length])


SHOWN_FIELDS = [name for name in shown.SHOWN if name not in shown.ITEMS]


@EXAMPLES
@given(data=st.data(), name=st.sampled_from(SHOWN_FIELDS))
def test_a_file_changing_anything_participants_are_shown_gives_another_digest(base, data, name):
    """The demo's file with only its first question and its scale ends changed rebuilt the
    questionnaires and printed the unchanged file's digest: two designs, one digest."""
    whole, digest = base
    value = data.draw(new_values(name), label=name)
    before = whole[name]
    if isinstance(value, str):
        assume(normalise_line_ends(value) != before)
    assume(value != before)
    if name == "project_title":  # the title participants read is the study's name without it
        assume(value != whole["name"])
    changed = build(tomli_w.dumps(whole | {name: value}))
    assert changed != digest
    assert build(tomli_w.dumps(whole)) == digest  # by content: back again, the same digest


@EXAMPLES
@given(data=st.data(), name=st.sampled_from([n for n in shown.NOT_SHOWN if n != "slug"]))
def test_a_file_changing_nothing_participants_are_shown_keeps_the_digest(base, data, name):
    """Not shown: how the study is run, and its name once it has a title of its own."""
    whole, digest = base
    values = {
        "name": TEXT.map(lambda text: text[:200]),
        "is_open": st.booleans(),
        "abandon_after_minutes": st.integers(1, 10_000),
        "platform": st.sampled_from(["none", "generic", "prolific"]),
        "completion_code": st.from_regex(r"[A-Z0-9]{4,12}", fullmatch=True),
        "decline_code": st.from_regex(r"[A-Z0-9]{4,12}", fullmatch=True),
        "min_answered_pairs": st.integers(0, 50),
        "platform_return_url": st.just("https://example.org/done?code={code}"),
        "allow_repeats": st.booleans(),
        "platform_settings": st.just(
            {
                "sona": {
                    "credit_url": "https://uni.sona-systems.com/webstudy_credit.aspx?"
                    "experiment_id=1&credit_token=abc&survey_code=XXXX"
                }
            }
        ),
    }
    with_title = whole | {"project_title": "A title of its own"}
    digest = build(tomli_w.dumps(with_title))
    assert build(tomli_w.dumps(with_title | {name: data.draw(values[name])})) == digest
    build(tomli_w.dumps(whole))


def _basic(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _literal(text: str) -> str | None:
    return None if "'" in text or "\n" in text else f"'{text}'"


def _multiline(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"""\n{escaped}"""'  # the line end after the opening quotes is not the text's


def _value(value, style: int) -> str:
    if isinstance(value, str):
        styles = [_basic(value), _literal(value), _multiline(value)]
        return styles[style] or styles[0]
    return tomli_w.dumps({"k": value}).removeprefix("k = ").strip()


@st.composite
def reformatted(draw, whole: dict) -> str:
    """The same file written another way: keys in another order, strings quoted another way,
    comments and blank lines between the keys."""
    lines = [k for k, v in whole.items() if not isinstance(v, dict | list) or v == []]
    tables = [k for k in whole if k not in lines]
    out = []
    for key in draw(st.permutations(lines)):
        out.append(draw(st.sampled_from(["", "\n", "# a comment\n", "   "])))
        spacing = draw(st.sampled_from([" = ", "=", "  =  "]))
        out.append(f"{key}{spacing}{_value(whole[key], draw(st.integers(0, 2)))}\n")
    for key in draw(st.permutations(tables)):
        value = whole[key]
        if isinstance(value, list):
            value = [dict(draw(st.permutations(list(entry.items())))) for entry in value]
        out.append("\n" + tomli_w.dumps({key: value}))
    return "".join(out)


@EXAMPLES
@given(data=st.data())
def test_a_file_written_another_way_gives_the_same_digest(base, data):
    whole, digest = base
    text = data.draw(reformatted(whole))
    assert build(text) == digest


def test_the_practice_pair_and_the_shared_items_are_in_the_digest():
    study = make_study(questionnaires=1, launched_at=None)
    digest = study_digest(study)
    other = make_hypothesis_item()
    study.sample_item = other
    assert study_digest(study) != digest
    study.sample_item = Study.objects.get(pk=study.pk).sample_item
    assert study_digest(study) == digest
    study.shared_items.set([other, make_permutation_item(other.triple)])
    assert study_digest(study) != digest
