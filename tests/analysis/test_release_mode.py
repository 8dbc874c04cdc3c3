"""`mode` (web or paper) and the ratings' flags and comments in the release, and releases of
format 1, written before they existed; the answers on the study's language, and releases of
format 2, which called them the answers on English."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from django.core.management import call_command

from survey.models import Participant, Rating
from tests.analysis.test_frames import build_rated_study
from tests.analysis.test_release_rules import as_format

pytestmark = pytest.mark.django_db(transaction=True)


def test_mode_is_released_and_a_format_one_release_loads_as_web(tmp_path):
    study = build_rated_study().study
    paper = Participant.objects.filter(study=study, share_data=True).order_by("pk").first()
    Participant.objects.filter(pk=paper.pk).update(mode="paper")
    Rating.objects.filter(participant=paper, practice=False).update(flagged=True, comment="Odd.")
    release = tmp_path / "release"
    call_command("export_wojdb", "--out", str(release), "--study", study.slug, verbosity=0)
    modes = dict(pd.read_csv(release / "participants.csv")[["participant", "mode"]].values)
    assert modes.pop(paper.pk) == "paper"
    assert set(modes.values()) == {"web"}

    call_command("flush", interactive=False, verbosity=0)
    call_command("import_wojdb", str(release), verbosity=0)
    assert Participant.objects.get(pk=paper.pk).mode == "paper"
    assert set(Rating.objects.filter(flagged=True).values_list("comment", flat=True)) == {"Odd."}

    as_format(release, 1)
    package = json.loads((release / "datapackage.json").read_text())
    package["format_version"] = 1
    (release / "datapackage.json").write_text(json.dumps(package))
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_wojdb", str(release), verbosity=0)
    assert set(Participant.objects.values_list("mode", flat=True)) == {"web"}
    assert set(Rating.objects.values_list("flagged", "comment")) == {(False, "")}


def test_a_format_two_release_gives_its_answers_on_english_as_those_on_the_language(tmp_path):
    study = build_rated_study().study
    people = Participant.objects.filter(study=study, share_data=True).order_by("pk")
    first, second = people[0], people[1]
    Participant.objects.filter(pk=first.pk).update(target_first=True, target_years=None)
    Participant.objects.filter(pk=second.pk).update(target_first=False, target_years=7)
    release = tmp_path / "release"
    call_command(
        "export_wojdb", "--out", str(release), "--study", study.slug, "--include-simulated",
        verbosity=0,
    )  # fmt: skip
    header = (release / "participants.csv").read_text().splitlines()[0]
    assert '"target_first","target_years"' in header

    as_format(release, 2)
    header = (release / "participants.csv").read_text().splitlines()[0]
    assert '"english_first","english_years"' in header and "target_" not in header
    package = json.loads((release / "datapackage.json").read_text())
    package["format_version"] = 2
    (release / "datapackage.json").write_text(json.dumps(package))
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_wojdb", str(release), verbosity=0)
    answers = dict(Participant.objects.values_list("pk", "target_first"))
    assert (answers[first.pk], answers[second.pk]) == (True, False)
    assert Participant.objects.get(pk=second.pk).target_years == 7
