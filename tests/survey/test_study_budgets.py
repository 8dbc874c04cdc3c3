"""A study's inputs within their budgets, refused by name where they are not: participant texts
swollen by their placeholders (at creation and on the admin's save), lists nested 2,000 deep in
a study file (exit status 2), and a pool's 5,000 exclusions matching nothing (one bounded line)."""

from __future__ import annotations

import pytest
import tomli_w
from django.core.management import CommandError, call_command
from django.urls import reverse

from survey.design.sentence_pool import PoolError, sample_pool
from survey.models import Study
from tests.factories import make_study, make_triple
from tests.survey.test_study_texts import unchanged_form
from wojdb.core.design.pool import Exclusion, PoolRule

pytestmark = pytest.mark.django_db

#: The attack as found: a study file of 73 KB whose information sheet names a data_use of
#: 40 KB 3,000 times; every visit to the study link then returned 120 MB in 12.9 s.
AMPLIFIED = {"information_sheet": "## Data\n" + "{data_use} " * 3_000, "data_use": "x" * 40_000}


def refused(path) -> str:
    with pytest.raises(CommandError) as error:
        call_command("create_study", str(path), verbosity=0)
    assert error.value.returncode == 2
    return str(error.value)


def test_a_study_file_whose_texts_swell_once_filled_is_refused_naming_the_text(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(tomli_w.dumps({"name": "Amplified", "slug": "amplified", **AMPLIFIED}))
    assert 70_000 < path.stat().st_size < 80_000
    assert refused(path) == (
        f"{path}, line 3, key information_sheet: is 120,003,008 characters once its "
        "placeholders are filled; a text participants read is at most 100,000 Nothing was "
        "written."
    )
    assert not Study.objects.exists()


def test_a_setting_naming_a_placeholder_is_refused_naming_its_key(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('name = "S"\nslug = "s"\nreward = "{data_use}"\n')
    message = refused(path)
    assert message.startswith(f"{path}, line 3, key reward: names {{data_use}}, which would be")
    assert not Study.objects.exists()


def test_the_admin_refuses_texts_that_swell_once_filled(admin_client):
    study = make_study(questionnaires=1, items=2, launched_at=None)  # its texts still editable
    url = reverse("admin:survey_study_change", args=[study.pk])
    form = unchanged_form(admin_client.get(url).content.decode(), "study_form")
    form |= {name: [text] for name, text in AMPLIFIED.items()} | {"_save": ["Save"]}
    page = admin_client.post(url, form)
    assert page.status_code == 200  # the form again, with its error
    # Its preview is of the texts as saved, not of the refused ones filled (120 MB).
    assert len(page.content) < 1_000_000
    # The form strips the text's last space: one character fewer than from the file.
    assert "is 120,003,007 characters once its placeholders are filled" in page.content.decode()
    study.refresh_from_db()
    assert study.data_use != AMPLIFIED["data_use"]


def test_a_study_file_nesting_lists_2000_deep_exits_with_status_2_naming_key_and_line(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('name = "S"\nslug = "s"\n[pool]\nexclude = ' + "[" * 2_000 + "]" * 2_000)
    assert refused(path) == (
        f"{path}, line 4, key pool.exclude: lists or tables nest 2,000 deep; a study file nests "
        "them at most 10 deep"
    )


def test_thousands_of_exclusions_matching_nothing_are_named_in_one_short_line():
    """50,000 unmatched exclusions ended in an error message of 1,000,245 bytes."""
    study = make_study(questionnaires=0, launched_at=None)
    for _ in range(3):
        make_triple()
    rule = PoolRule(per_corpus=1, exclude=tuple(Exclusion(segment=10**6 + n) for n in range(5_000)))
    with pytest.raises(PoolError) as error:
        sample_pool(study, rule)
    assert str(error.value) == (
        "{segment = 1000000}, {segment = 1000001}, {segment = 1000002}, {segment = 1000003}, "
        "{segment = 1000004}, … and 4,995 more match no triple of the pool's corpora; the pool "
        "is unchanged"
    )
    assert error.value.key == "exclude"
