"""Word marks in a release: marks.csv and ratings.marked written, valid, loaded, imported and
written again the same; left out for a study that never asked; gone with a withdrawal."""

from __future__ import annotations

import frictionless
import pandas as pd
import pytest
from django.core.management import call_command

from analysis.analysing import run_analysis
from survey.models import Participant, Rating
from survey.participants.participation import withdraw
from tests.analysis.release_files import add_marks, restamp
from tests.analysis.test_frames import build_rated_study
from tests.analysis.test_release_roundtrip import assert_same_release, export, round_trip
from wojdb.core.release import load_release, read

pytestmark = pytest.mark.django_db(transaction=True)


def marked_study():
    rated = build_rated_study()
    return rated, add_marks(rated)


def test_marks_are_released_valid_and_round_trip(tmp_path):
    rated, ratings = marked_study()
    first, again, _ = round_trip(rated.study.slug, tmp_path)
    assert_same_release(first, again)
    assert "The study did not ask which words" not in (first / "README.md").read_text()
    report = frictionless.validate(str(first / "datapackage.json"))
    assert report.valid, report.flatten(["title", "message"])

    tables = read.read_release(first).tables
    marks = tables["marks"]
    assert marks[["item", "unit"]].values.tolist() == [
        [ratings[0].item_id, 0],
        [ratings[0].item_id, 2],
    ]
    assert list(marks["shown"]) == [ratings[0].item.text.split()[i] for i in (0, 2)]
    assert str(marks["marked_at"][0]) == "2026-12-01 10:00:01.250000+00:00"
    full = tables["ratings"]["participant"] == rated.people["full"].pk
    marked = tables["ratings"][full].set_index("item")["marked"]
    assert (marked[ratings[0].item_id], marked[ratings[1].item_id]) == (2, 0)
    assert marked.drop([ratings[0].item_id, ratings[1].item_id]).isna().all()
    # The import keeps each rating's marks as they were stored.
    stored = dict(Rating.objects.filter(marks__isnull=False).values_list("item_id", "marks"))
    assert stored == {ratings[0].item_id: ratings[0].marks, ratings[1].item_id: []}

    ratings_frame, _, answers, truths = load_release(first, marks=True)
    assert sorted(map(tuple, answers[["item", "marked"]].values.tolist())) == sorted(
        [(ratings[0].item_id, (0, 2)), (ratings[1].item_id, ())]
    )
    assert set(truths["item"]) == set(answers["item"])
    # Analysed from the release: two marked pairs are too few to estimate anything.
    run_analysis(tmp_path / "report", release=first, bootstrap=20, no_figures=True)
    html = (tmp_path / "report" / "report.html").read_text()
    assert "Where participants see the disorder" in html and "not estimable" in html


def test_a_study_that_never_asked_has_no_marks_file(tmp_path):
    rated = build_rated_study()
    export(rated.study.slug, tmp_path / "release")
    assert not (tmp_path / "release" / "marks.csv").exists()
    readme = (tmp_path / "release" / "README.md").read_text()
    assert "The study did not ask which words are out of place (`word_marks`)" in readme
    assert read.read_release(tmp_path / "release").tables["ratings"]["marked"].isna().all()


def test_a_withdrawal_takes_the_marks_with_it(tmp_path):
    rated, _ = marked_study()
    withdraw(Participant.objects.get(pk=rated.people["full"].pk))
    assert not Rating.objects.filter(marks__isnull=False).exists()
    call_command("export_wojdb", "--out", str(tmp_path / "r"), "--study", rated.study.slug,
                 "--include-simulated", verbosity=0)  # fmt: skip
    assert not (tmp_path / "r" / "marks.csv").exists()


def test_a_count_of_marks_that_disagrees_with_marks_csv_is_refused(tmp_path):
    rated, ratings = marked_study()
    export(rated.study.slug, tmp_path / "r")
    path = tmp_path / "r" / "ratings.csv"
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    row = table.index[table["item"] == str(ratings[0].item_id)][0]
    table.loc[row, "marked"] = "3"
    table.to_csv(path, index=False)
    restamp(tmp_path / "r")
    with pytest.raises(read.ReleaseError, match="marked: is not the number of the pair's rows"):
        read.read_release(tmp_path / "r")
