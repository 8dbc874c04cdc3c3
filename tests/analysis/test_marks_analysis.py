"""A simulated study with word marks whose noise model the test knows: the analysis recovers
it, and the report shows the section (and a study without marks has none)."""

from __future__ import annotations

from io import StringIO

import pandas as pd
import pytest
from django.core.management import call_command

from analysis import frames
from analysis.analysing import run_analysis
from survey.models import Rating, Triple
from tests.factories import make_study
from wojdb.core.stats import marks as M

pytestmark = pytest.mark.django_db

RECALL, FALSE = 0.6, 0.05
#: make_study's sentences have seven words; its permutations displace the first two.
WORDS, DISPLACED = 7, 2


@pytest.fixture
def marked_study():
    """make_study's items, marked by 40 simulated participants; the hypotheses' crossing words
    are stored as the first two units."""
    study = make_study(questionnaires=2, items=4, word_marks=True)
    Triple.objects.filter(items__entries__questionnaire__study=study).update(
        crossing_words=[0, 1], crossing_aligner="test"
    )
    call_command(
        "simulate_responses", "--study", study.slug, "--participants", "40", "--seed", "5",
        "--mark-recall", str(RECALL), "--mark-false", str(FALSE), stdout=StringIO(),
    )  # fmt: skip
    return study


def test_simulated_marks_are_stored_as_a_participant_would_give_them(marked_study):
    marks = list(
        Rating.objects.filter(participant__study=marked_study).values_list("marks", "item")
    )
    assert all(m is not None for m, _ in marks)
    assert any(m == [] for m, _ in marks)  # "no word is out of place"
    for marked, _ in marks:
        assert [u for u, _, _ in marked] == sorted({u for u, _, _ in marked})
    rating = Rating.objects.filter(participant__study=marked_study).exclude(marks=[]).first()
    words = rating.item.text.split()
    assert all(words[u] == shown for u, shown, _ in rating.marks)


def test_the_analysis_recovers_the_noise_model(marked_study):
    answered, truths = frames.marks_frames(frames.select_participants(marked_study))
    table = M.permutation_table(answered, truths, n_boot=400, seed=1)
    displaced = table[table["truth"] == M.DISPLACED].iloc[0]
    assert (displaced["perm_type"], displaced["degree"], displaced["note"]) == ("order", 2, "")
    assert displaced["micro_recall_low"] <= RECALL <= displaced["micro_recall_high"]
    # Precision expected of the model: marked truth units over all units marked.
    expected = DISPLACED * RECALL / (DISPLACED * RECALL + (WORDS - DISPLACED) * FALSE)
    assert displaced["micro_precision_low"] <= expected <= displaced["micro_precision_high"]
    systems = M.system_table(answered, truths, n_boot=400, seed=1)
    for _, row in systems.iterrows():
        assert row["micro_recall_low"] <= RECALL <= row["micro_recall_high"]
    agreement = M.agreement_table(answered, truths).set_index("kind")
    assert agreement.loc["all", "alpha"] > 0.2  # marks share a truth: above chance


def test_the_report_shows_where_participants_see_the_disorder(marked_study, tmp_path):
    run_analysis(tmp_path, study=marked_study, bootstrap=100, no_subsets=True)
    html = (tmp_path / "report.html").read_text()
    assert "Where participants see the disorder" in html
    assert (tmp_path / "figures" / "marks_heat_strips.svg").exists()
    table = pd.read_csv(tmp_path / "tables" / "marks_permutations.csv")
    assert set(table["truth"]) == {M.DISPLACED, M.MINIMAL_MOVES}
    assert (tmp_path / "tables" / "marks_agreement.csv").exists()


def test_a_study_without_marks_has_no_such_section(tmp_path):
    study = make_study(questionnaires=2, items=4)
    call_command("simulate_responses", "--study", study.slug, "--participants", "6",
                 stdout=StringIO())  # fmt: skip
    assert not Rating.objects.filter(marks__isnull=False).exists()
    run_analysis(tmp_path, study=study, bootstrap=50, no_subsets=True, no_figures=True)
    assert "Where participants see the disorder" not in (tmp_path / "report.html").read_text()
