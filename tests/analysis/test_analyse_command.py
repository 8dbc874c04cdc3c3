"""analyse writes the report from the database or a release; the dashboard serves and makes it."""

from __future__ import annotations

import getpass
import json
import os
import time
from io import StringIO

import numpy as np
import pandas as pd
import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from analysis import analysing, report_store, report_views
from analysis.analysing import AnalysisError, run_analysis
from analysis.models import Metric, MetricScore
from survey import access, record
from survey.models import DeclinedConsent, Item, Participant, Study, Triple, Withdrawal
from tests.factories import make_study
from wojdb.core.report import figures as F
from wojdb.core.vocabulary import ANALYST, VIEWER


def rated_study(participants: int = 8) -> Study:
    """A study with simulated answers, spread WMT scores and a BLEU that follows them."""
    study = make_study(questionnaires=4, items=20)
    rng = np.random.default_rng(0)
    for triple in Triple.objects.all():
        triple.da_raw = float(rng.uniform(0, 100))
        triple.save(update_fields=["da_raw"])
    call_command(
        "simulate_responses", "--participants", str(participants), "--study", study.slug,
        stdout=StringIO(),
    )  # fmt: skip
    bleu = Metric.objects.create(name="BLEU")
    MetricScore.objects.bulk_create(
        MetricScore(metric=bleu, item=item, score=item.quality + rng.normal(0, 0.2))
        for item in Item.objects.select_related("triple", "permutation")
    )
    return study


def analyse(*args: str) -> str:
    out = StringIO()
    call_command("analyse", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_analyse_writes_the_html_report_tables_and_figures(tmp_path):
    study = rated_study()
    # Those who left are counts only; a withdrawal keeps whether the person was simulated.
    DeclinedConsent.objects.create(study=study)
    Withdrawal.objects.create(study=study, simulated=False)
    out = analyse(
        "--out", str(tmp_path / "r"), "--study", study.slug, "--bootstrap", "20", "--no-subsets"
    )
    folder = tmp_path / "r"
    manifest = json.loads((folder / "report.json").read_text())
    assert manifest["title"] == f"WOJ-DB analysis: {study.name}"
    assert ["Participants analysed: real", "0"] in manifest["facts"]
    assert ["Participants analysed: simulated", "8"] in manifest["facts"]
    assert ["Declined consent", "1"] in manifest["facts"]
    assert ["Withdrew", "1 real, 0 simulated"] in manifest["facts"]
    assert ["Target language", "English (en)"] in manifest["facts"]  # the items are de-en
    assert manifest["real_participants"] == 0 and manifest["simulated_participants"] == 8
    assert manifest["source"]["study"] == study.slug and manifest["source"]["as_of"]
    figures = [f["name"] for f in manifest["figures"]]
    assert figures == [
        "figure_6_5",
        "figure_6_6",
        "figure_6_7",
        "figure_7_1",
        "figure_7_2",
        "system_scores",
        "figure_7_3",
        "figure_7_4",
        "figure_7_7",
    ]
    for name in figures:
        assert (folder / "figures" / f"{name}.png").stat().st_size > 1000
        assert (folder / "figures" / f"{name}.svg").exists()
    systems = pd.read_csv(folder / "tables" / "system_scores.csv")
    assert set(systems["source"]) == {"study"}  # no DA judgments were imported
    expected = set(Triple.objects.values_list("corpus__system", flat=True))
    assert set(systems["system"]) == expected and (systems["cluster"] >= 1).all()
    correlations = pd.read_csv(folder / "tables" / "correlations.csv")
    assert {"BLEU", "WMT"} <= set(correlations["metric"])
    html = (folder / "report.html").read_text()
    assert study.name in html and "8 simulated participants" in html
    assert "Figure 7.6 not drawn: no DTED or DERP scores were correlated." in manifest["notes"]
    assert "- mixed models …" in out and "Wrote" in out and "report.html" in out


@pytest.mark.django_db
def test_a_study_without_ratings_is_an_error_and_writes_nothing(tmp_path):
    study = make_study(questionnaires=1, items=2)
    with pytest.raises(CommandError, match="No ratings to analyse"):
        analyse("--out", str(tmp_path / "r"), "--study", study.slug)
    assert not (tmp_path / "r").exists()
    with pytest.raises(CommandError, match="no study with slug"):
        analyse("--out", str(tmp_path / "r"), "--study", "nope")


@pytest.mark.django_db
def test_run_analysis_takes_a_study_and_the_options_of_the_command(tmp_path):
    study = rated_study(participants=2)
    steps: list[str] = []
    done = run_analysis(
        tmp_path / "r", study=study, no_figures=True, no_subsets=True, bootstrap=0,
        progress=steps.append,
    )  # fmt: skip
    assert tmp_path / "r" / "report.html" in done.written and "writing files …" in steps
    with pytest.raises(AnalysisError, match="simulated ones left out"):
        run_analysis(tmp_path / "s", study=study, no_simulated=True)
    assert not (tmp_path / "s").exists()


@pytest.mark.django_db
def test_the_fewest_groups_a_model_needs_is_an_option(tmp_path):
    study = rated_study(participants=3)
    options = ["--study", study.slug, "--no-figures", "--no-subsets", "--bootstrap", "0"]
    analyse("--out", str(tmp_path / "a"), *options)
    models = pd.read_csv(tmp_path / "a" / "tables" / "models.csv")
    assert not models["estimable"].any()
    assert models["outcome"].str.contains("only 3 participants: a participant variance").all()
    analyse("--out", str(tmp_path / "b"), *options, "--min-groups", "3")
    models = pd.read_csv(tmp_path / "b" / "tables" / "models.csv")
    assert models["estimable"].all()
    with pytest.raises(CommandError, match="--min-groups: 1 is outside the allowed range"):
        analyse("--out", str(tmp_path / "c"), *options, "--min-groups", "1")


@pytest.mark.django_db
def test_the_subsets_add_the_native_speakers_of_the_items_language(tmp_path):
    french = pd.DataFrame({"target_lang": ["fr", "fr"]})
    assert analysing.subsets(french)["native French speakers"] == "target_first == True"
    assert analysing.subsets(french)["non-native French speakers"] == "target_first == False"
    mixed = pd.DataFrame({"target_lang": ["fr", "de"]})
    assert not any("native" in name for name in analysing.subsets(mixed))

    study = rated_study()
    people = list(study.participants.order_by("pk"))
    for n, person in enumerate(people):
        person.target_first = n % 2 == 0
        person.save(update_fields=["target_first"])
    run_analysis(tmp_path / "r", study=study, no_figures=True, bootstrap=0)
    table = pd.read_csv(tmp_path / "r" / "tables" / "subset_correlations.csv")
    counts = table.drop_duplicates("subset").set_index("subset")["participants"]
    assert counts["native English speakers"] == counts["non-native English speakers"] == 4


@pytest.mark.django_db
def test_leaving_out_simulated_participants_can_leave_nothing(tmp_path):
    study = rated_study(participants=2)
    with pytest.raises(CommandError, match="simulated ones left out"):
        analyse("--out", str(tmp_path / "r"), "--study", study.slug, "--no-simulated")


@pytest.mark.django_db
def test_real_and_simulated_participants_are_analysed_apart_unless_left_out(tmp_path):
    study = rated_study(participants=4)
    people = study.participants.order_by("pk").values_list("pk", flat=True)[:2]
    Participant.objects.filter(pk__in=list(people)).update(simulated=False)
    options = ["--no-figures", "--no-subsets", "--bootstrap", "0"]
    analyse("--out", str(tmp_path / "both"), "--study", study.slug, *options)
    names = {p.stem for p in (tmp_path / "both" / "tables").glob("*.csv")}
    assert {"levels_real", "levels_simulated", "correlations_real"} <= names
    assert not {"levels", "correlations", "adjustment_ttest"} & names
    html = (tmp_path / "both" / "report.html").read_text()
    assert html.index("Response trends (real participants)") < html.index(
        "Response trends (simulated participants)"
    )
    analyse("--out", str(tmp_path / "real"), "--study", study.slug, "--no-simulated", *options)
    levels = pd.read_csv(tmp_path / "real" / "tables" / "levels.csv")
    pd.testing.assert_frame_equal(
        levels, pd.read_csv(tmp_path / "both" / "tables" / "levels_real.csv")
    )
    html = (tmp_path / "real" / "report.html").read_text()
    assert "Response trends (real participants)" in html and "simulated participants)" not in html


@pytest.mark.django_db
def test_an_exported_release_analyses_like_the_database(tmp_path):
    study = rated_study(participants=5)  # the fewest a participant model takes
    call_command(
        "export_wojdb", "--out", str(tmp_path / "release"), "--include-simulated", stdout=StringIO()
    )
    options = ["--no-figures", "--no-subsets", "--bootstrap", "0"]
    analyse("--out", str(tmp_path / "db"), "--study", study.slug, *options)
    analyse("--out", str(tmp_path / "rel"), "--release", str(tmp_path / "release"), *options)
    for name in ("levels", "correlations", "adjustment_ttest"):
        from_db = pd.read_csv(tmp_path / "db" / "tables" / f"{name}.csv")
        from_release = pd.read_csv(tmp_path / "rel" / "tables" / f"{name}.csv")
        pd.testing.assert_frame_equal(from_db, from_release)
    with pytest.raises(CommandError, match="cannot read the release"):
        analyse("--out", str(tmp_path / "x"), "--release", str(tmp_path / "missing"))


# --- the dashboard page ----------------------------------------------------------------------


@pytest.fixture
def researcher(db):
    return get_user_model().objects.create_user("r", password="pw-for-tests", is_staff=True)


@pytest.fixture
def staff(researcher):
    client = Client()
    client.force_login(researcher)
    return client


def owned(study, researcher):
    """The study, with the test's researcher as its analyst (who sees and makes reports)."""
    access.set_role(study, researcher, ANALYST)
    return study


@pytest.fixture
def synchronous(monkeypatch):
    monkeypatch.setattr(report_views, "run_in_background", lambda job: job())


def test_only_the_studys_analysts_and_owners_see_its_report_pages(researcher, staff):
    study = make_study(questionnaires=1, items=2)
    assert Client().get(reverse("report:index", args=[study.slug])).status_code == 302
    user = get_user_model().objects.create_user("p", password="pw-for-tests")
    client = Client()
    client.force_login(user)
    assert client.get(reverse("report:latest", args=[study.slug])).status_code == 403
    # A researcher outside the team meets the study as if it did not exist; a viewer is refused.
    assert staff.get(reverse("report:index", args=[study.slug])).status_code == 404
    access.set_role(study, researcher, VIEWER)
    assert staff.get(reverse("report:index", args=[study.slug])).status_code == 403
    assert staff.get(reverse("report:table", args=[study.slug, "levels"])).status_code == 403


def test_generating_from_the_dashboard_writes_and_serves_the_report(
    report_dir, staff, researcher, synchronous
):
    study = owned(rated_study(participants=4), researcher)
    index = reverse("report:index", args=[study.slug])
    latest = reverse("report:latest", args=[study.slug])
    assert "No report has been generated yet" in staff.get(index).text
    response = staff.post(
        reverse("report:generate", args=[study.slug]), {"include_simulated": "on"}
    )
    assert response.status_code == 302 and response.url == index
    status = report_store.read_status(study.slug)
    assert status["state"] == "done" and status["by"] == "r"
    page = staff.get(index).text
    assert f"WOJ-DB analysis: {study.name}" in page and latest in page
    assert " · made by r · " in page  # who made the report, beside when
    assert reverse("report:table", args=[study.slug, "levels"]) in page
    served = staff.get(latest)
    assert served["Content-Type"].startswith("text/html")
    assert "default-src 'none'" in served["Content-Security-Policy"]
    assert study.name in served.text and "<script" not in served.text
    csv = staff.get(reverse("report:table", args=[study.slug, "levels"]))
    assert csv["Content-Disposition"] == 'attachment; filename="levels.csv"'
    assert b"judgment,kind" in b"".join(csv.streaming_content)
    assert staff.get(reverse("report:table", args=[study.slug, "nothing"])).status_code == 404
    # Generating again replaces the report as a whole; no staging folders are left behind.
    staff.post(reverse("report:generate", args=[study.slug]), {"include_simulated": "on"})
    assert sorted(p.name for p in report_dir.iterdir()) == [study.slug, f"{study.slug}.status.json"]
    actions = [e.action for e in record.entries(study.slug)]
    assert actions.count("report generated") == 2 and "report opened" in actions


def test_each_study_has_its_own_report(report_dir, staff, researcher, synchronous):
    first = owned(rated_study(participants=2), researcher)
    second = owned(make_study(questionnaires=1, items=2), researcher)
    staff.post(reverse("report:generate", args=[first.slug]), {"include_simulated": "on"})
    assert staff.get(reverse("report:latest", args=[first.slug])).status_code == 200
    assert staff.get(reverse("report:latest", args=[second.slug])).status_code == 404
    assert (
        "No report has been generated yet"
        in staff.get(reverse("report:index", args=[second.slug])).text
    )


def test_analyse_writes_the_studys_own_report_where_its_page_finds_it(
    report_dir, staff, researcher
):
    study = owned(rated_study(participants=2), researcher)
    out = StringIO()
    call_command("analyse", "--study", study.slug, "--no-figures", "--bootstrap", "0", stdout=out)
    assert str(report_dir / study.slug) in out.getvalue()
    page = staff.get(reverse("report:index", args=[study.slug])).text
    assert f"WOJ-DB analysis: {study.name}" in page and "by command" not in page
    assert (
        record.entries(study.slug)
        .get(action="report generated")
        .actor.endswith("run by " + getpass.getuser())
    )


def test_figures_are_served_as_png_and_svg_only(report_dir, staff, researcher):
    study = owned(make_study(questionnaires=1, items=2), researcher)
    folder = report_store.report_dir(study.slug) / "figures"
    F.save(F.language_knowledge(pd.DataFrame({"participant": [1]})), folder, "f")
    png = staff.get(reverse("report:figure", args=[study.slug, "f", "png"]))
    assert png["Content-Type"] == "image/png"
    svg = staff.get(reverse("report:figure", args=[study.slug, "f", "svg"]))
    assert svg["Content-Type"] == "image/svg+xml"
    assert staff.get(reverse("report:figure", args=[study.slug, "f", "html"])).status_code == 404


def test_a_failed_run_is_reported_on_the_page(report_dir, staff, researcher, synchronous):
    study = owned(make_study(questionnaires=1, items=2), researcher)
    staff.post(reverse("report:generate", args=[study.slug]), {"include_simulated": "on"})
    status = report_store.read_status(study.slug)
    assert status["state"] == "failed" and "No ratings to analyse" in status["message"]
    page = staff.get(reverse("report:index", args=[study.slug])).text
    assert "failed" in page and "No ratings to analyse" in page
    assert not report_store.report_dir(study.slug).exists()


def test_one_run_at_a_time_and_post_only_with_csrf(report_dir, staff, researcher, synchronous):
    study = owned(make_study(questionnaires=1, items=2), researcher)
    generate = reverse("report:generate", args=[study.slug])
    report_store.write_status(
        study.slug, state="running", study=study.slug, started="2999-01-01T00:00:00+00:00", by="x"
    )
    response = staff.post(generate, {}, follow=True)
    assert "being generated already" in response.text
    assert 'http-equiv="refresh"' in response.text
    assert staff.get(generate).status_code == 405
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(researcher)
    assert strict.post(generate, {}).status_code == 403


def test_a_start_claimed_by_another_app_server_waits_and_a_dead_claim_is_taken_over(
    report_dir, staff, researcher, synchronous, monkeypatch
):
    study = owned(make_study(questionnaires=1, items=2), researcher)
    # What another process holding the claim leaves in the shared media folder.
    claim = report_dir / f"{study.slug}.claim"
    claim.parent.mkdir(parents=True, exist_ok=True)
    claim.touch()
    monkeypatch.setattr(report_store.time, "sleep", lambda seconds: None)
    generate = reverse("report:generate", args=[study.slug])
    response = staff.post(generate, {}, follow=True)
    assert "being started already" in response.text
    assert report_store.read_status(study.slug) is None and claim.exists()
    stale = time.time() - report_store.CLAIM_STALE_SECONDS - 1
    os.utime(claim, (stale, stale))
    staff.post(generate, {})
    assert report_store.read_status(study.slug)["state"] == "failed"  # it ran: no ratings
    assert not claim.exists()


def test_the_page_runs_the_analysis_function_and_tells_of_newer_answers(
    report_dir, staff, researcher, synchronous, monkeypatch
):
    study = owned(rated_study(participants=2), researcher)
    index, generate = (reverse(f"report:{n}", args=[study.slug]) for n in ("index", "generate"))
    calls = []
    run = analysing.run_analysis
    monkeypatch.setattr(analysing, "run_analysis", lambda *a, **k: calls.append(k) or run(*a, **k))
    staff.post(generate, {"include_simulated": "on"})
    assert [study] == [k["study"] for k in calls]
    assert "newer than this report" not in staff.get(index).text
    # Simulated answers are back-dated: new rows count as newer all the same.
    call_command(
        "simulate_responses", "--participants", "1", "--study", study.slug, stdout=StringIO()
    )
    page = staff.get(index).text
    assert "newer than this report" in page and "Regenerate the report" in page
    assert '<input type="hidden" name="include_simulated" value="on">' in page
    staff.post(generate, {"include_simulated": "on"})
    page = staff.get(index).text
    assert "newer than this report" not in page
    assert '<th scope="row">Participants analysed: simulated</th><td>3</td>' in page
