"""A researcher's change to a study reaches the participant pages at once, though every app server
process keeps the study in memory (survey/participants/study_cache.py): each request checks the copy
against the study's revision, which every write of the study changes. Parts of pages kept rendered
show each participant their own answers."""

from __future__ import annotations

import pytest
from django.test import Client

from survey.models import Item, Participant, Study
from survey.participants import study_cache
from tests.factories import make_study
from tests.security.flow import about_data, started

pytestmark = pytest.mark.filterwarnings("ignore:No directory at:UserWarning")


@pytest.fixture
def reader(db):
    """A participant who has seen a page, so that the process keeps their study."""
    client = Client()
    participant = started(client, make_study())
    assert client.get(f"/p/{participant.token}/information/").status_code == 200
    return client, participant


def information(client, participant) -> str:
    return client.get(f"/p/{participant.token}/information/").content.decode()


def test_a_study_saved_by_the_researcher_is_read_again(reader):
    client, participant = reader
    study = Study.objects.get(pk=participant.study_id)
    study.information_sheet = "Sheet after a save."
    study.save()
    assert "Sheet after a save." in information(client, participant)


def test_a_save_of_some_fields_changes_the_revision_too(reader):
    client, participant = reader
    study = Study.objects.get(pk=participant.study_id)
    study.information_sheet = "Sheet after a partial save."
    study.save(update_fields=["information_sheet"])
    assert "Sheet after a partial save." in information(client, participant)


def test_a_study_changed_by_a_queryset_update_is_read_again(reader):
    # As a command or another app server changes it: nothing in this process is told.
    client, participant = reader
    Study.objects.filter(pk=participant.study_id).update(
        information_sheet="Sheet after an update.", language="fr"
    )
    page = information(client, participant)
    assert "Sheet after an update." in page and '<html lang="fr">' in page


def test_the_study_link_shows_a_change_made_after_it_was_opened(db):
    study = make_study()
    client = Client()
    assert client.get(f"/s/{study.slug}/").status_code == 200  # the process keeps the study
    Study.objects.filter(pk=study.pk).update(information_sheet="Sheet for newcomers.")
    assert "Sheet for newcomers." in client.get(f"/s/{study.slug}/").content.decode()
    Study.objects.filter(pk=study.pk).update(is_open=False)
    assert "Sheet for newcomers." not in client.get(f"/s/{study.slug}/").content.decode()
    assert client.get("/s/no-such-study/").status_code == 404


def test_a_study_changed_by_deleting_what_it_refers_to_is_read_again(db):
    # The deletion sets the study's practice pair to NULL through Django's deletion collector.
    study = make_study()
    client = Client()
    assert client.get(f"/s/{study.slug}/").status_code == 200  # the process keeps the study
    Item.objects.filter(pk=study.sample_item_id).delete()
    assert "This study is closed" in client.get(f"/s/{study.slug}/").content.decode()


def test_the_study_link_sees_its_questionnaires_withdrawn_and_offered_again(db):
    # Offering a questionnaire writes no study row, so no revision tells the process.
    study = make_study()
    client = Client()
    assert client.get(f"/s/{study.slug}/").status_code == 200  # the process keeps the study
    study.questionnaires.update(active=False)
    assert "This study is closed" in client.get(f"/s/{study.slug}/").content.decode()
    assert client.post(f"/s/{study.slug}/").status_code == 200
    assert not Participant.objects.exists()
    study.questionnaires.filter(number=2).update(active=True)
    assert client.post(f"/s/{study.slug}/").status_code == 302
    assert Participant.objects.get().questionnaire.number == 2


@pytest.mark.django_db
def test_each_write_gives_a_new_revision_and_an_empty_save_none():
    study = Study(name="s", slug="s")
    revisions = {study.revision}
    for write in (lambda: study.save(), lambda: study.save(update_fields=["name"])):
        write()
        revisions.add(Study.objects.get(pk=study.pk).revision)
    Study.objects.filter(pk=study.pk).update(name="t")
    revisions.add(Study.objects.get(pk=study.pk).revision)
    assert len(revisions) == 4
    study.refresh_from_db()
    study.save(update_fields=[])
    assert Study.objects.get(pk=study.pk).revision == study.revision


def test_each_request_gets_its_own_copy_of_the_kept_study(reader):
    _, participant = reader
    first = study_cache.study(participant.study_id, participant.study.revision)
    first.name = "changed by one request"
    again = study_cache.study(participant.study_id, participant.study.revision)
    assert again.name != "changed by one request"


def test_parts_kept_rendered_show_each_participant_their_own_answers(db):
    study = make_study()
    first, second = Client(), Client()
    answered, newcomer = started(first, study), started(second, study)
    about = about_data(gender="female", nationality="Scottish")
    first.post(f"/p/{answered.token}/about/", about)
    assert 'value="Scottish"' in first.get(f"/p/{answered.token}/about/").text
    assert "Scottish" not in second.get(f"/p/{newcomer.token}/about/").text
    first.get(f"/p/{answered.token}/item/1/")
    item = answered.questionnaire.entries.get(position=1).item_id
    first.post(f"/p/{answered.token}/item/1/", {"item": item, "holistic": "5", "order": "4"})
    page = first.get(f"/p/{answered.token}/item/1/").text
    assert 'value="5" checked' in page and 'value="4" checked' in page
    assert "checked" not in second.get(f"/p/{newcomer.token}/item/1/").text
    # The consent form with the refusal it explains, then afresh without it.
    third = Client()
    token = third.post(f"/s/{study.slug}/")["Location"].split("/")[2]
    refused = third.post(f"/p/{token}/consent/", {"statement_1": "yes"})
    assert "Please answer Yes or No to every statement." in refused.text
    assert "Please answer Yes or No" not in third.get(f"/p/{token}/consent/").text


def sentence_shown(client, participant) -> bool:
    return (
        "Sentence changed after the first showing."
        in client.get(f"/p/{participant.token}/item/1/").text
    )


def change_the_first_sentence(participant) -> None:
    """As a command or the shell could; the admin refuses it once the study is locked."""
    item = Item.objects.select_related("triple").get(
        pk=participant.questionnaire.entries.get(position=1).item_id
    )
    if item.permutation_id:
        item.permutation.text = "Sentence changed after the first showing."
        item.permutation.save(update_fields=["text"])
    else:
        item.triple.hypothesis = "Sentence changed after the first showing."
        item.triple.save(update_fields=["hypothesis"])


def test_a_pilots_items_are_read_again_at_every_showing(db):
    # Before real people take part, what a study shows may still change: a pilot sees it.
    study = make_study(launched_at=None)
    client = Client()
    pilot = started(client, study)
    assert pilot.pilot and not sentence_shown(client, pilot)
    change_the_first_sentence(pilot)
    assert sentence_shown(client, pilot)


def test_a_real_participants_items_are_read_once_by_the_process(reader):
    # A real participant's consent locks what the study shows: the process keeps the items.
    client, participant = reader
    assert not participant.pilot and not sentence_shown(client, participant)
    change_the_first_sentence(participant)
    assert not sentence_shown(client, participant)
    study_cache.clear()  # as in another process, or after a restart
    assert sentence_shown(client, participant)
