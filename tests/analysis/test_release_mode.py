"""`mode` (web or paper) and the ratings' flags and comments in the release, and releases of
format 1, written before they existed."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from django.core.management import call_command

from survey.models import Participant, Rating
from tests.analysis.test_frames import build_rated_study
from tests.analysis.test_release_rules import as_format_one

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

    as_format_one(release)
    package = json.loads((release / "datapackage.json").read_text())
    package["format_version"] = 1
    (release / "datapackage.json").write_text(json.dumps(package))
    call_command("flush", interactive=False, verbosity=0)
    call_command("import_wojdb", str(release), verbosity=0)
    assert set(Participant.objects.values_list("mode", flat=True)) == {"web"}
    assert set(Rating.objects.values_list("flagged", "comment")) == {(False, "")}
