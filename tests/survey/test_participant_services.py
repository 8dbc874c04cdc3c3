"""The participant service functions (survey/participants/participation.py) and the documents'
helpers."""

from __future__ import annotations

import re
from datetime import timedelta

import pandas as pd
import pytest
from django.utils.datastructures import MultiValueDict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.report import write_report
from analysis.report_files import forget_participant
from survey.checks import unfilled_study_texts
from survey.models import ConsentText, PlatformIdentity, Rating, Study, Withdrawal
from survey.participants import participation
from survey.participants.participation import Answer, Refused
from survey.platforms import HandIn, mturk
from tests.factories import make_study
from wojdb.core import texts
from wojdb.core.report.model import Report, Section, Table
from wojdb.core.texts import en


def query(params: dict[str, str]) -> MultiValueDict:
    """Parameters as a request holds them."""
    return MultiValueDict({name: [value] for name, value in params.items()})


answers = st.lists(
    st.tuples(st.none() | st.integers(1, 5), st.none() | st.integers(1, 5)), max_size=12
)


@pytest.fixture
def participant(db):
    study = make_study(questionnaires=1, items=4)
    participant = participation.enter(study, {})
    participation.give_consent(participant, participation.current_consent(study))
    return participant


@pytest.mark.django_db
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sequence=answers)
def test_saving_keeps_the_last_answers_and_counts_each_change_as_a_revision(participant, sequence):
    Rating.objects.filter(participant=participant).delete()
    item = participation.item_at(participant, 2)
    expected = {"holistic": None, "order": None}
    revisions = 0
    for holistic, order in sequence:
        for scale, value in (("holistic", holistic), ("order", order)):
            if value is not None and value != expected[scale]:
                revisions += expected[scale] is not None
                expected[scale] = value
        saved = participation.save_answer(participant, 2, item.pk, Answer(holistic, order))
        # Saving the same again changes nothing.
        again = participation.save_answer(participant, 2, item.pk, Answer(holistic, order))
        assert not again.changed and not again.conflict
        assert saved.rating.revisions == revisions
    rows = Rating.objects.filter(participant=participant)
    if sequence:
        rating = rows.get()
        assert (rating.holistic, rating.order, rating.revisions) == (
            expected["holistic"],
            expected["order"],
            revisions,
        )
        assert (rating.answered_at is None) == (expected == {"holistic": None, "order": None})
    else:
        assert not rows.exists()


@pytest.mark.django_db
def test_a_stale_basis_is_a_conflict_and_writes_nothing(participant):
    item = participation.item_at(participant, 1)
    participation.save_answer(participant, 1, item.pk, Answer(holistic=2))
    stale = participation.save_answer(
        participant, 1, item.pk, Answer(holistic=4, basis={"holistic": None})
    )
    assert stale.conflict and not stale.changed
    # The same value as stored is no conflict, whatever the page showed.
    same = participation.save_answer(
        participant, 1, item.pk, Answer(holistic=2, basis={"holistic": None})
    )
    assert not same.conflict
    fresh = participation.save_answer(
        participant, 1, item.pk, Answer(holistic=4, basis={"holistic": 2})
    )
    assert fresh.changed and fresh.rating.revisions == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("meanwhile", "sent", "stored"),
    [
        # The other save answered the question: this one, from a page showing it blank,
        # conflicts with it rather than overwriting it.
        ({"holistic": 2}, Answer(holistic=4, basis={"holistic": None}), (2, None, 0, True)),
        # The other save answered the other question: both answers are kept.
        ({"order": 5}, Answer(holistic=4, basis={"holistic": None}), (4, 5, 0, False)),
        # The other save changed the answer this one changes too: one revision each.
        (
            {"holistic": 3, "revisions": 1},
            Answer(holistic=4, basis={"holistic": 3}),
            (4, None, 2, False),
        ),
    ],
)
@pytest.mark.parametrize("read_with_participant", [False, True])
def test_a_save_landing_between_reading_and_writing_is_not_lost(
    participant, monkeypatch, meanwhile, sent, stored, read_with_participant
):
    item = participation.item_at(participant, 1)
    participation.save_answer(
        participant, 1, item.pk, Answer(holistic=3 if "revisions" in meanwhile else None)
    )
    if read_with_participant:  # as a request's save: the rating read by `find`
        participant = participation.find(participant.token, item.pk)
        assert participant.rating_read[1] is not None
    read = participation.rating_of

    def read_then_another_save(*args, **kwargs):
        rating = read(*args, **kwargs)
        if not kwargs.get("lock"):  # the unlocked read: another request writes right after
            Rating.objects.filter(pk=rating.pk).update(**meanwhile)
        return rating

    monkeypatch.setattr(participation, "rating_of", read_then_another_save)
    saved = participation.save_answer(participant, 1, item.pk, sent)
    rating = Rating.objects.get(pk=saved.rating.pk)
    assert (rating.holistic, rating.order, rating.revisions, saved.conflict) == stored


@pytest.mark.django_db
def test_items_are_found_only_at_their_own_positions(participant):
    assert participation.item_at(participant, 0) == participant.study.sample_item
    with pytest.raises(Refused):
        participation.item_at(participant, 5)
    item = participation.item_at(participant, 1)
    with pytest.raises(Refused):
        participation.save_answer(participant, 2, item.pk, Answer(holistic=1))
    assert not Rating.objects.exists()


@pytest.mark.django_db
def test_the_rating_read_with_the_participant_is_taken_once_and_only_for_its_item(participant):
    item, other = participation.item_at(participant, 1), participation.item_at(participant, 2)
    found = participation.find(participant.token, item.pk)
    assert found.rating_read == (item.pk, None)  # not shown yet: no rating
    saved = participation.save_answer(found, 1, item.pk, Answer(holistic=2))
    assert "rating_read" not in found.__dict__
    found = participation.find(participant.token, item.pk)
    assert found.rating_read[1].pk == saved.rating.pk
    assert found.rating_read[1].holistic == 2  # converted as the ORM converts:
    assert found.rating_read[1].shown_at == Rating.objects.get(pk=saved.rating.pk).shown_at
    assert found.rating_read[1].flagged is False
    # Another item's save reads its own rating.
    assert participation.save_answer(found, 2, other.pk, Answer(order=4)).rating.item_id == other.pk
    assert Rating.objects.filter(participant=participant).count() == 2


@pytest.mark.django_db
def test_a_pair_shown_twice_before_its_position_is_recorded_keeps_one_rating(participant):
    # A second tab, or a reload faster than the first request's end: the position is still
    # past the furthest recorded, so the rating is made at once and found made.
    item, made = participation.show(participant, 1)
    assert participant.furthest is None
    again_item, again = participation.show(participant, 1, now=made.shown_at + timedelta(1))
    assert again_item == item
    assert (again.pk, again.shown_at) == (made.pk, made.shown_at)
    assert Rating.objects.filter(participant=participant).count() == 1


@pytest.mark.django_db
def test_progress_counts_pairs_with_both_answers_and_ignores_the_sample(participant):
    for position, values in {0: (1, 1), 1: (2, 2), 2: (3, None), 4: (None, 5)}.items():
        item = participation.item_at(participant, position)
        participation.save_answer(participant, position, item.pk, Answer(*values))
    progress = participation.progress(participant)
    assert (progress.total, progress.answered) == (4, 1)
    assert progress.unanswered == [(2, ["order"]), (3, ["holistic", "order"]), (4, ["holistic"])]


@pytest.mark.django_db
def test_the_personal_link_resumes_at_each_step(participant):
    token = participant.token
    participant.consent_version = None
    assert participation.resume_url(participant) == f"/p/{token}/consent/"
    participant.consent_version = 1
    assert participation.resume_url(participant) == f"/p/{token}/about/"
    participant.about_done = True
    assert participation.resume_url(participant) == f"/p/{token}/instructions/"
    participant.position = 3
    assert participation.resume_url(participant) == f"/p/{token}/item/3/"
    participant.position = 5
    assert participation.resume_url(participant) == f"/p/{token}/review/"
    participant.status = "completed"
    assert participation.resume_url(participant) == f"/p/{token}/done/"


@pytest.mark.django_db
def test_finishing_twice_keeps_the_first_code(participant):
    participation.finish(participant)
    code = participant.completion_code
    assert re.fullmatch(r"[A-HJ-NP-Z2-9]{5}-[A-HJ-NP-Z2-9]{5}", code)
    participation.finish(participant)
    participant.refresh_from_db()
    assert participant.completion_code == code


def test_completion_codes_are_random():
    codes = {participation.new_completion_code() for _ in range(200)}
    assert len(codes) == 200


def test_the_return_address_gets_the_code_and_only_web_addresses_pass(participant):
    study = make_study(
        platform="generic", platform_return_url="https://example.org/done?cc={code}&x=1"
    )
    crowd = participation.enter(study, {"pid": "abc"})
    assert participation.hand_in(crowd) is None  # not finished yet
    participation.finish(crowd)
    assert participation.hand_in(crowd) == HandIn(
        link=f"https://example.org/done?cc={crowd.completion_code}&x=1"
    )
    participation.finish(participant)
    assert participation.hand_in(participant) is None  # came without a platform


@pytest.mark.parametrize("value", ["a b", "x" * 65, "<b>", "é", "{{%PROLIFIC_PID%}}"])
def test_malformed_platform_parameters_are_refused(value):
    study = Study(platform="prolific")
    with pytest.raises(ValueError, match="PROLIFIC_PID is not a valid id"):
        participation.link_ids(study, query({"PROLIFIC_PID": value}))
    ids = participation.link_ids(study, query({"PROLIFIC_PID": "a.b:c-d_E9", "other": value}))
    assert ids == {"prolific_pid": "a.b:c-d_E9"}


@pytest.mark.django_db
def test_a_study_without_consent_statements_gets_the_default_ones():
    study = make_study()
    study.consent_texts.all().delete()
    consent = participation.current_consent(study)
    assert (consent.version, consent.statements) == (1, en.CONSENT_STATEMENTS)
    # Agreeing to the data's release is optional by default.
    assert consent.optional == [consent.sharing] == [texts.CONSENT_SHARING]
    assert "released in a public dataset" in consent.statements[consent.sharing - 1]
    assert participation.current_consent(study) == consent
    ConsentText.objects.create(study=study, version=2, statements=["Only this."])
    assert participation.current_consent(study).version == 2


@pytest.mark.django_db
def test_a_new_study_carries_the_default_documents():
    study = make_study()
    assert study.information_sheet == en.INFORMATION_SHEET
    assert study.consent_intro == en.CONSENT_INTRO
    assert study.consent_closing == en.CONSENT_CLOSING
    assert study.debriefing == en.DEBRIEFING
    assert study.instructions == en.INSTRUCTIONS
    assert study.sample_order_note == ""  # feedback is written from the practice item


def test_documents_split_into_headings_and_paragraphs():
    text = "## Title\nFirst line\nsecond line\n\nA paragraph.\n\n## Only a heading"
    assert texts.blocks(text) == [
        ("h", "Title"),
        ("p", "First line\nsecond line"),
        ("p", "A paragraph."),
        ("h", "Only a heading"),
    ]


def test_placeholders_are_filled_or_marked_missing():
    class Settings:
        researcher_name = "Ada"
        researcher_email = ""
        items_per_questionnaire = 30

    text = "{researcher_name} <{researcher_email}> {supervisor_name}, {pairs} pairs"
    filled = texts.fill(text, Settings())
    assert filled == "Ada <[researcher_email]> [supervisor_name], 30 pairs"


@pytest.mark.django_db
def test_a_study_with_an_unfilled_setting_is_named_and_cannot_open(client):
    study = make_study(reward="")
    assert study.unfilled() == ["reward"]
    page = client.get(f"/s/{study.slug}/")
    assert b"This study is closed" in page.content
    warnings = [w for w in unfilled_study_texts() if w.obj == study]
    assert len(warnings) == 1 and "reward" in warnings[0].msg
    study.reward = "Paid £3."
    study.save()
    assert study.unfilled() == [] and unfilled_study_texts() == []
    assert b"Continue to the consent form" in client.get(f"/s/{study.slug}/").content


@pytest.mark.django_db
def test_text_from_the_thesis_that_fits_no_other_study_is_named():
    study = make_study(debriefing="We finalised it during 2017. Your signature please.")
    assert study.unfilled() == [
        "debriefing (mentions “during 2017”)",
        "debriefing (mentions “signature”)",
    ]


def test_no_default_text_carries_a_thesis_leftover():
    for document in (en.INFORMATION_SHEET, en.CONSENT_INTRO, en.DEBRIEFING):
        for words in texts.FOREIGN:
            assert words not in document
    assert "[" not in en.INFORMATION_SHEET + en.CONSENT_INTRO + en.DEBRIEFING
    assert en.CONSENT_STATEMENTS[-1] == "I agree to take part in the study."


def test_consent_debriefing_and_withdrawal_say_the_same_about_the_data():
    for document in (en.INFORMATION_SHEET, en.CONSENT_INTRO, en.DEBRIEFING):
        assert "{data_use}" in document


def test_the_debriefing_explains_the_rearranged_sentences():
    debriefing = en.DEBRIEFING
    assert "human translation with some of its words deliberately moved" in debriefing
    assert "knowing it could have changed how you judged" in debriefing


def finished(study, answered: int, platform: dict | None = None):
    """A participant of `study` who answered `answered` pairs fully, then finished."""
    crowd = participation.enter(study, platform or {})
    for position in range(1, answered + 1):
        item_id = participation.item_id_at(crowd, position)
        participation.save_answer(crowd, position, item_id, Answer(holistic=3, order=3))
    participation.finish(crowd)
    return crowd


@pytest.mark.django_db
def test_prolific_gets_the_studys_fixed_code_and_its_completion_address():
    study = make_study(platform="prolific", completion_code="C1ABCDEF")
    crowd = finished(study, 1, {"prolific_pid": "p", "session_id": "s"})
    assert crowd.completion_code == "C1ABCDEF"
    assert participation.hand_in(crowd) == HandIn(
        link="https://app.prolific.com/submissions/complete?cc=C1ABCDEF"
    )
    # Someone who came by the plain study link sees the code but is not sent to Prolific.
    walk_in = finished(study, 1)
    assert walk_in.completion_code == "C1ABCDEF" and participation.hand_in(walk_in) is None


@pytest.mark.django_db
def test_fewer_answered_pairs_than_the_minimum_earn_no_code():
    study = make_study(platform="prolific", completion_code="C1ABCDEF", min_answered_pairs=2)
    short = finished(study, 1, {"prolific_pid": "p1"})
    assert short.status == "completed" and short.completion_code == ""
    assert participation.hand_in(short) is None
    assert finished(study, 2, {"prolific_pid": "p2"}).completion_code == "C1ABCDEF"


@pytest.mark.django_db
def test_a_prolific_study_stays_closed_until_its_completion_code_is_set(client):
    study = make_study(platform="prolific")
    study.full_clean()  # a study is set up before Prolific gives its code
    assert study.unfilled() == ["completion_code (set on Prolific)"]
    assert b"This study is closed" in client.get(f"/s/{study.slug}/").content
    study.completion_code = "C1ABCDEF"
    study.save()
    assert study.unfilled() == []
    assert b"Continue to the consent form" in client.get(f"/s/{study.slug}/").content


@pytest.mark.django_db
def test_declining_or_withdrawing_on_prolific_goes_back_with_the_studys_code():
    study = make_study(platform="prolific", completion_code="C1", decline_code="NOCONSENT")
    assert participation.leaving_url(study) == (
        "https://app.prolific.com/submissions/complete?cc=NOCONSENT"
    )
    assert participation.leaving_url(make_study(platform="prolific", completion_code="C")) == ""


@pytest.mark.django_db
def test_mturk_submits_the_assignment_to_the_address_mturk_gave():
    study = make_study(platform="mturk")
    ids = {"worker_id": "W1", "assignment_id": "A1", "hit_id": "H1"}
    ids["submit_to"] = "https://workersandbox.mturk.com"
    crowd = finished(study, 1, ids)
    assert participation.hand_in(crowd) == HandIn(
        action="https://workersandbox.mturk.com/mturk/externalSubmit",
        fields=(("assignmentId", "A1"), ("completion_code", crowd.completion_code)),
    )
    preview = finished(study, 1, ids | {"worker_id": "W2", "assignment_id": mturk.PREVIEW})
    assert participation.hand_in(preview) is None


@pytest.mark.parametrize("address", ["https://evil.example", "http://www.mturk.com", "x"])
def test_only_mturks_own_addresses_are_taken_as_turk_submit_to(address):
    study = Study(platform="mturk")
    with pytest.raises(ValueError, match="turkSubmitTo is not an MTurk address"):
        participation.link_ids(study, query({"turkSubmitTo": address}))
    ids = participation.link_ids(study, query({"turkSubmitTo": "https://www.mturk.com/"}))
    assert ids == {"submit_to": "https://www.mturk.com/"}


@pytest.mark.django_db
def test_the_same_mturk_assignment_is_not_started_twice():
    study = make_study(platform="mturk")
    ids = {"worker_id": "W1", "assignment_id": "A1"}
    participation.enter(study, ids)
    with pytest.raises(participation.StartedElsewhere):
        participation.enter(study, ids)
    assert PlatformIdentity.objects.count() == 1


@pytest.mark.django_db
def test_the_personal_link_resumes_at_the_furthest_pair_reached(participant):
    for position in (1, 2, 3, 1):
        participant.position = position
        participation.touch(participant)
    participant.refresh_from_db()
    assert (participant.position, participant.furthest) == (1, 3)
    participant.about_done = True
    assert participation.resume_url(participant) == f"/p/{participant.token}/item/3/"


@pytest.mark.django_db
def test_a_flag_and_a_comment_are_stored_with_the_rating_and_can_be_taken_back(participant):
    item_id = participation.item_id_at(participant, 1)
    note = Answer(holistic=2, note=(True, "The sentences do not match."))
    participation.save_answer(participant, 1, item_id, note)
    rating = Rating.objects.get(participant=participant, position=1)
    assert (rating.flagged, rating.comment, rating.holistic) == (
        True,
        "The sentences do not match.",
        2,
    )
    participation.save_answer(participant, 1, item_id, Answer(order=4))  # no note sent: kept
    rating.refresh_from_db()
    assert rating.flagged and rating.order == 4
    participation.save_answer(participant, 1, item_id, Answer(note=(False, "")))
    rating.refresh_from_db()
    assert (rating.flagged, rating.comment) == (False, "")


@pytest.mark.django_db
def test_withdrawal_leaves_a_count_and_removes_the_person_from_stored_reports(
    participant, report_dir
):
    other = participant.pk + 1000
    people = pd.DataFrame(
        {"participant": [participant.pk, other], "age": [34, 51], "nationality": ["Scot", "Welsh"]}
    )
    checks = pd.DataFrame({"participant": [participant.pk, other], "flags": ["time", "degree"]})
    summary = pd.DataFrame({"measure": ["participants"], "value": [2]})
    section = Section(
        "people",
        "People",
        tables=[
            Table("participants", "Participants", people, show=False),
            Table("flagged_participants", "Flagged participants", checks),
            Table("summary", "Summary", summary),
        ],
    )
    folder = report_dir / participant.study.slug  # the study's own report
    elsewhere = report_dir / "another-study"  # another study's report names no one of this
    write_report(Report("Report", "today", [], [section]), folder)
    write_report(Report("Report", "today", [], [section]), elsewhere)
    participation.withdraw(participant)
    assert "34,Scot" in (elsewhere / "tables" / "participants.csv").read_text()
    tables = folder / "tables"
    assert (tables / "participants.csv").read_text().splitlines() == [
        "participant,age,nationality",
        f"{other},51,Welsh",
    ]
    assert (tables / "flagged_participants.csv").read_text().splitlines()[1:] == [f"{other},degree"]
    assert (tables / "summary.csv").read_text() == "measure,value\nparticipants,2\n"
    page = (folder / "report.html").read_text()
    assert ">degree<" in page and ">time<" not in page  # their row left the shown table too
    assert Withdrawal.objects.filter(study=participant.study, simulated=False).count() == 1
    assert forget_participant(other, folder) == 2
    assert ">degree<" not in (folder / "report.html").read_text()


@pytest.mark.django_db
def test_a_report_file_that_cannot_be_rewritten_does_not_hold_a_withdrawal_back(
    participant, report_dir, caplog
):
    # Unreadable as a file:
    (report_dir / participant.study.slug / "tables" / "participants.csv").mkdir(parents=True)
    participation.withdraw(participant)
    assert not type(participant).objects.filter(pk=participant.pk).exists()
    assert Withdrawal.objects.count() == 1
    assert "withdrew but the stored report still names them" in caplog.text
