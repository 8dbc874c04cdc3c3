"""Export a study, import it into an empty database, and analyse both alike."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from analysis import frames
from survey.models import (
    ErrorAnnotation,
    ExternalJudgment,
    ExternalSegmentScore,
    JudgmentImport,
    Participant,
    Rating,
    Segment,
    Study,
)
from tests.analysis.release_files import restamp
from tests.analysis.test_frames import build_rated_study
from tests.factories import make_study
from wojdb.core.release import load_release, read
from wojdb.core.stats import columns as col
from wojdb.core.stats import correlation, mixed

pytestmark = pytest.mark.django_db


def _export(study, out, *args):
    call_command("export_wojdb", "--out", str(out), "--study", study.slug, *args, verbosity=0)


def _flush():
    """Empty the database, as a fresh one would be (needs a transactional test: PostgreSQL
    will not truncate tables with pending constraint checks)."""
    call_command("flush", interactive=False, verbosity=0)


def _analyse(ratings, scores):
    """The thesis's analysis: adjusted scores (real and simulated participants fitted apart),
    then correlations with every score source."""
    groups = [group for _, group in ratings.groupby(col.SIMULATED, sort=True)]
    assert len(groups) == 2  # the release must keep the two apart
    adjusted = pd.concat([mixed.adjust_scores(group)[0] for group in groups]).sort_index()
    table = correlation.correlation_table(adjusted, scores, min_items=3, n_boot=20)
    return adjusted, table


@pytest.mark.django_db(transaction=True)
def test_roundtrip_gives_the_same_frames_and_results(tmp_path):
    rated = build_rated_study()
    study = rated.study
    Segment.objects.update(document="doc-7", domain="news")  # kept by the release
    study.language = "fr"  # a study's language travels with its texts, which stay as they are
    study.save()
    ratings = frames.ratings_frame(study, include_practice=True, sharing_only=True)
    scored = frames.ratings_frame(study, sharing_only=True)
    _export(study, tmp_path / "release", "--include-simulated")
    release = read.read_release(tmp_path / "release")
    assert set(release.tables["items"]["document"]) == {"doc-7"}
    assert release.study["language"] == "fr"
    scores = frames.scores_frame(release.tables["items"]["item"])
    assert (
        len(ratings)
        == len(release.tables["ratings"])
        == (
            Rating.objects.filter(participant__study=study, participant__share_data=True)
            .exclude(participant__status="withdrawn")
            .count()
        )
    )

    loaded_ratings, loaded_scores = load_release(tmp_path / "release", include_practice=True)
    pd.testing.assert_frame_equal(loaded_ratings, ratings)
    pd.testing.assert_frame_equal(loaded_scores, scores)
    adjusted, correlations = _analyse(scored, scores)
    assert len(correlations) > 10
    keys = [col.PARTICIPANT, col.ITEM]
    for judgment in col.JUDGMENTS:  # ratings.csv holds the analysis's adjusted scores
        name = col.adjusted(judgment)
        merged = adjusted[[*keys, name]].merge(release.tables["ratings"][[*keys, name]], on=keys)
        assert len(merged) == len(adjusted)
        pd.testing.assert_series_equal(merged[name + "_x"], merged[name + "_y"], check_names=False)

    _flush()
    assert not Study.objects.exists()
    call_command("import_wojdb", str(tmp_path / "release"), verbosity=0)
    imported = Study.objects.get()
    assert set(Segment.objects.values_list("document", "domain")) == {("doc-7", "news")}
    # The judgments of the study's hypotheses (add_judgments), linked to their triples, with
    # their errors; those of other triples and document scores were not released.
    assert len(release.tables["judgments"]) == 6
    assert JudgmentImport.objects.count() == 4
    assert ExternalSegmentScore.objects.get().triple.items.get() == rated.shared
    assert ExternalJudgment.objects.filter(triple__isnull=False).count() == 5
    assert sorted(ErrorAnnotation.objects.values_list("severity", "weight")) == [
        ("Major", 5.0), ("Minor", 0.1), ("minor", None)
    ]  # fmt: skip
    assert (imported.slug, imported.is_open) == (study.slug, False)
    assert imported.language == "fr"
    assert imported.information_sheet == study.information_sheet
    assert set(imported.shared_items.all()) == {rated.shared}
    assert imported.sample_item_id == study.sample_item_id
    pd.testing.assert_frame_equal(frames.ratings_frame(imported, include_practice=True), ratings)
    pd.testing.assert_frame_equal(frames.ratings_frame(imported), scored)
    pd.testing.assert_frame_equal(frames.scores_frame(), scores)
    again_adjusted, again_correlations = _analyse(frames.ratings_frame(imported), scores)
    pd.testing.assert_frame_equal(again_adjusted, adjusted)
    pd.testing.assert_frame_equal(again_correlations, correlations)

    _export(imported, tmp_path / "again", "--include-simulated")
    again = read.read_release(tmp_path / "again")
    for name, table in release.tables.items():
        pd.testing.assert_frame_equal(again.tables[name], table, obj=name)
    unstamped = [{k: v for k, v in r.package.items() if k != "created"} for r in (release, again)]
    assert unstamped[0] == unstamped[1]

    new = Participant.objects.create(study=imported, questionnaire=imported.questionnaires.first())
    assert new.pk > max(ratings["participant"])  # sequences continue after imported ids


def test_release_leaves_out_private_and_withdrawn_data(tmp_path):
    rated = build_rated_study()
    rated.study.researcher_email = "someone@example.org"
    rated.study.save()
    _export(rated.study, tmp_path / "r")
    release = read.read_release(tmp_path / "r")
    exported = set(release.tables["participants"]["participant"])
    people = rated.people
    # People only: the simulated participant is left out unless asked for.
    assert exported == {people[n].pk for n in ("full", "abandoned", "active")}
    assert set(release.tables["ratings"]["participant"]) == exported
    assert set(release.tables["participant_languages"]["participant"]) == {people["full"].pk}
    secrets = ["PROLIFICSECRET01", "someone@", *(p.token for p in Participant.objects.all())]
    for path in (tmp_path / "r").rglob("*.*"):
        content = path.read_bytes()
        for secret in secrets if path.suffix == ".parquet" else [*secrets, "@"]:
            assert secret.encode() not in content, (path.name, secret)
    metrics = release.tables["metrics"]
    assert set(metrics["metric"]) == {"DTED", "BLEU"}  # "Unused" scores no exported item

    assert release.package["simulated_participants"] == {
        "included": False, "participants": 0, "ratings": 0,
        "description": "Simulated participants are left out: every participant here is a person.",
    }  # fmt: skip
    assert release.package["description"].endswith("every participant here is a person.")


def test_a_release_holds_simulated_participants_only_when_asked_and_says_so(tmp_path):
    rated = build_rated_study()
    simulated = rated.people["simulated"]
    _export(rated.study, tmp_path / "people")
    people = read.read_release(tmp_path / "people")
    assert simulated.pk not in set(people.tables["participants"]["participant"])
    assert simulated.pk not in set(people.tables["ratings"]["participant"])
    assert not people.tables["participants"]["simulated"].any()

    _export(rated.study, tmp_path / "all", "--include-simulated", "--zip")
    folder = read.read_source(tmp_path / "all.zip", tmp_path / "unpacked")
    release = read.read_release(folder)
    participants, ratings = release.tables["participants"], release.tables["ratings"]
    assert set(participants["participant"]) == set(people.tables["participants"]["participant"]) | {
        simulated.pk
    }
    theirs = int((ratings["participant"] == simulated.pk).sum())
    assert theirs == Rating.objects.filter(participant=simulated).count() > 0
    statement = release.package["simulated_participants"]
    assert (statement["included"], statement["participants"], statement["ratings"]) == (
        True, 1, theirs,
    )  # fmt: skip
    assert statement["description"].startswith(
        f"1 of the 4 participants ({theirs} of the {len(ratings)} ratings) are simulated"
    )
    assert statement["description"] in release.package["description"]
    assert statement["description"] in (folder / "README.md").read_text()


def test_a_release_zip_loads_and_analyses_as_its_folder_does(tmp_path):
    """The dashboard's download and `export_wojdb --zip` give a zip; load_release and
    `analyse --release` refused it: "datapackage.json: does not exist (in release.zip)"."""
    rated = build_rated_study()
    _export(rated.study, tmp_path / "folder")
    _export(rated.study, tmp_path / "archive", "--zip")
    for folder, archive in zip(
        load_release(tmp_path / "folder"), load_release(tmp_path / "archive.zip"), strict=True
    ):
        pd.testing.assert_frame_equal(folder, archive)
    call_command("analyse", "--release", str(tmp_path / "archive.zip"), "--no-figures",
                 "--bootstrap", "0", "--out", str(tmp_path / "report"), verbosity=0)  # fmt: skip
    assert (tmp_path / "report" / "report.html").exists()
    (tmp_path / "notes.txt").write_text("not a release")
    with pytest.raises(read.ReleaseError, match="notes.txt is neither a release folder nor a zip"):
        load_release(tmp_path / "notes.txt")


def test_an_empty_export_fails_and_writes_nothing(tmp_path):
    study = make_study()
    Participant.objects.create(study=study, questionnaire=study.questionnaires.first())
    with pytest.raises(CommandError, match="Nothing to export"):
        _export(study, tmp_path / "empty")
    with pytest.raises(CommandError, match="Nothing to export"):
        _export(study, tmp_path / "empty", "--zip")
    assert list(tmp_path.iterdir()) == []


def test_export_refuses_an_existing_target_unless_forced_and_then_replaces_it_whole(tmp_path):
    rated = build_rated_study()
    taken = tmp_path / "taken"
    _export(rated.study, taken)
    (taken / "notes.txt").write_text("left in the earlier release")
    with pytest.raises(CommandError, match="taken exists; --force replaces it"):
        _export(rated.study, taken)
    assert (taken / "notes.txt").exists()
    _export(rated.study, taken, "--force")
    assert not (taken / "notes.txt").exists() and len(read.read_release(taken).tables["ratings"])
    assert list(tmp_path.iterdir()) == [taken]
    # A folder that holds no release is never replaced, --force or not.
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("kept")
    with pytest.raises(CommandError, match="this command did not write"):
        _export(rated.study, other, "--force")
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


def test_import_refuses_a_database_with_data(tmp_path):
    rated = build_rated_study()
    _export(rated.study, tmp_path / "r")
    ratings = Rating.objects.count()
    with pytest.raises(CommandError, match="already holds data"):
        call_command("import_wojdb", str(tmp_path / "r"), verbosity=0)
    assert Rating.objects.count() == ratings and Study.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_import_validates_every_file_before_writing(tmp_path):
    rated = build_rated_study()
    _export(rated.study, tmp_path / "r")
    _flush()
    broken = tmp_path / "broken"
    shutil.copytree(tmp_path / "r", broken)
    ratings = (broken / "ratings.csv").read_text().splitlines()
    cells = ratings[3].split(",")
    cells[4] = "7"  # holistic
    ratings[3] = ",".join(cells)
    (broken / "ratings.csv").write_text("\n".join(ratings) + "\n")
    restamp(broken)
    with pytest.raises(CommandError) as error:
        call_command("import_wojdb", str(broken), verbosity=0)
    assert "ratings.csv, line 4, field holistic: 7 is above the maximum 5" in str(error.value)
    assert not Study.objects.exists() and not Rating.objects.exists()
    call_command("import_wojdb", str(tmp_path / "r"), "--check", verbosity=0)
    assert not Study.objects.exists()


def test_researchers_download_the_release(client, tmp_path):
    rated = build_rated_study()
    url = reverse("analysis:download_release", args=[rated.study.slug])
    assert client.get(url).status_code == 302  # to the login page
    staff = get_user_model().objects.create_user(
        "researcher", password="pw", is_staff=True, is_superuser=True
    )  # every right: what each role may do is tests/test_permissions.py's
    client.force_login(staff)
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    archive = tmp_path / "download.zip"
    archive.write_bytes(b"".join(response.streaming_content))
    folder = read.read_source(archive, tmp_path / "unpacked")
    assert folder.name == f"wojdb-{rated.study.slug}-1.0"
    people = read.read_release(folder).tables["participants"]
    assert len(people) > 0 and not people["simulated"].any()
    response = client.get(url + "?simulated=include")
    archive.write_bytes(b"".join(response.streaming_content))
    folder = read.read_source(archive, tmp_path / "with-simulated")
    everyone = read.read_release(folder).tables["participants"]
    assert set(everyone["participant"]) == set(people["participant"]) | {
        rated.people["simulated"].pk
    }
    page = client.get(reverse("dashboard:study", args=[rated.study.slug])).content.decode()
    assert f'{url}?simulated=include" data-release-simulated>with the 1 simulated' in page
    empty = make_study()
    response = client.get(reverse("analysis:download_release", args=[empty.slug]))
    assert response.status_code == 409 and b"Nothing to export" in response.content


def test_release_carries_each_pairs_flag_and_comment(tmp_path):
    rated = build_rated_study()
    rating = Rating.objects.filter(participant=rated.people["full"], practice=False).first()
    Rating.objects.filter(pk=rating.pk).update(flagged=True, comment="Odd reference.")
    _export(rated.study, tmp_path / "r")
    ratings = read.read_release(tmp_path / "r").tables["ratings"]
    row = ratings[
        (ratings["participant"] == rating.participant_id) & (ratings["item"] == rating.item_id)
    ]
    assert (bool(row["flagged"].iloc[0]), row["comment"].iloc[0]) == (True, "Odd reference.")
    assert int(ratings["flagged"].astype(bool).sum()) == 1
