"""The demo cut down to one participant: every mixed model of its report says it is not
estimable and every hypothesis that it is not testable, each with its reason, and no number of
theirs is given anywhere (no standard error, let alone one above 1,000)."""

from __future__ import annotations

import pandas as pd
import pytest

import analysis.demo_studies
from analysis.analysing import run_analysis
from analysis.demo_studies import DEMOS, build_demo
from wojdb.core.metrics import registry

pytestmark = [pytest.mark.django_db, pytest.mark.engine_independent]


@pytest.mark.slow
def test_the_demo_with_one_participant_estimates_nothing_it_cannot(tmp_path, monkeypatch):
    # The demo as `demo` builds it with one simulated participant, scored by the study's own
    # tools and one baseline only.
    monkeypatch.setattr(analysis.demo_studies, "write_report", lambda *args, **kwargs: None)
    monkeypatch.setattr(analysis.demo_studies, "PARTICIPANTS", 1)
    study = build_demo(DEMOS["en"], metrics=registry.select(["dted", "derp", "bleu"]))
    assert study.participants.filter(ratings__isnull=False).distinct().count() == 1
    done = run_analysis(tmp_path, study=study, no_figures=True, bootstrap=50)
    tables = tmp_path / "tables"
    models = pd.read_csv(tables / "models.csv")
    assert len(models) == 8 and not models["estimable"].any()
    assert models["outcome"].str.startswith("only 1 participant: a participant variance").all()
    decided = pd.read_csv(tables / "table_7_4.csv")
    assert len(decided) == 18
    for column in ("H₀ rejected: thesis's rule", "H₀ rejected: 95% interval clears"):
        assert (decided[column] == "not testable").all()
    assert decided["result"].str.contains("only 1 participant").all()
    assert decided[["margin", "margin 2.5%", "margin 97.5%"]].isna().all().all()
    for name in ("model_coefficients", "model_variances", "participant_effects"):
        assert not (tables / f"{name}.csv").exists()
    for path in tables.glob("*.csv"):
        assert not {"se", "std. error"} & set(pd.read_csv(path).columns), path.name
    # The demo asks for word marks: one person's marks give no agreement figure either.
    marks = pd.read_csv(tables / "marks_permutations.csv")
    assert len(marks) and marks["micro_f1"].isna().all()
    assert (marks["note"] == "not estimable: fewer than 10 marked pairs").all()
    html = (tmp_path / "report.html").read_text()
    assert "Where participants see the disorder" in html
    assert html.count("NOT ESTIMABLE, so no estimates are shown:") == 8
    assert "std. error" not in html
    assert sum("is not estimable: only 1 participant" in note for note in done.notes) == 8
