"""The participant service functions (survey/participation.py) and the documents' helpers."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from survey import participation, texts
from survey.models import ConsentText, Rating
from survey.participation import Answer, Refused
from tests.factories import make_study

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
def test_items_are_found_only_at_their_own_positions(participant):
    assert participation.item_at(participant, 0) == participant.study.sample_item
    with pytest.raises(Refused):
        participation.item_at(participant, 5)
    item = participation.item_at(participant, 1)
    with pytest.raises(Refused):
        participation.save_answer(participant, 2, item.pk, Answer(holistic=1))
    assert not Rating.objects.exists()


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
    assert participation.resume_url(participant) == f"/p/{token}/item/0/"
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


@pytest.mark.django_db
def test_the_return_address_gets_the_code_and_only_web_addresses_pass(participant):
    study = make_study(platform_return_url="https://example.org/done?cc={code}&x=1")
    crowd = participation.enter(study, {"prolific_pid": "abc"})
    assert participation.return_url(crowd) == ""  # not finished yet
    participation.finish(crowd)
    assert participation.return_url(crowd) == (
        f"https://example.org/done?cc={crowd.completion_code}&x=1"
    )
    participation.finish(participant)
    assert participation.return_url(participant) == ""  # came without a platform


@pytest.mark.parametrize(
    "params, fields",
    [
        ({}, {}),
        ({"PROLIFIC_PID": "5f", "STUDY_ID": "s", "SESSION_ID": "x"}, None),
        ({"pid": "a.b:c-d_e"}, {"pid": "a.b:c-d_e"}),
        ({"PROLIFIC_PID": ""}, {}),
        ({"other": "ignored"}, {}),
    ],
)
def test_platform_parameters_become_identity_fields(params, fields):
    expected = (
        {"prolific_pid": "5f", "study_id": "s", "session_id": "x"} if fields is None else fields
    )
    assert participation.platform_fields(params) == expected


@pytest.mark.parametrize("value", ["a b", "x" * 65, "<b>", "é"])
def test_malformed_platform_parameters_are_refused(value):
    with pytest.raises(ValueError, match="pid is not a valid id"):
        participation.platform_fields({"pid": value})


@pytest.mark.django_db
def test_a_study_without_consent_statements_gets_the_thesiss_eight():
    study = make_study()
    study.consent_texts.all().delete()
    consent = participation.current_consent(study)
    assert (consent.version, consent.statements) == (1, texts.CONSENT_STATEMENTS)
    assert participation.current_consent(study) == consent
    ConsentText.objects.create(study=study, version=2, statements=["Only this."])
    assert participation.current_consent(study).version == 2


@pytest.mark.django_db
def test_a_new_study_carries_the_thesiss_documents():
    study = make_study()
    assert study.information_sheet == texts.INFORMATION_SHEET
    assert study.consent_intro == texts.CONSENT_INTRO
    assert study.consent_closing == texts.CONSENT_CLOSING
    assert study.debriefing == texts.DEBRIEFING
    assert study.sample_order_note == texts.SAMPLE_ORDER_NOTE


def test_documents_split_into_headings_and_paragraphs():
    text = "## Title\nFirst line\nsecond line\n\nA paragraph.\n\n## Only a heading"
    assert texts.blocks(text) == [
        ("h", "Title"),
        ("p", "First line\nsecond line"),
        ("p", "A paragraph."),
        ("h", "Only a heading"),
    ]


def test_contact_placeholders_are_filled_or_marked_missing():
    class Contacts:
        researcher_name = "Ada"
        researcher_email = ""

    filled = texts.fill("{researcher_name} <{researcher_email}> {supervisor_name}", Contacts())
    assert filled == "Ada <[researcher's e-mail]> [supervisor's name]"


def test_the_documents_are_word_for_word_the_thesiss():
    sheet = texts.blocks(texts.INFORMATION_SHEET)
    assert ("h", "Will my participation be Anonymous and Confidential?") in sheet
    assert (
        "p",
        "You will be given a £5 Amazon voucher for your participation in this survey.",
    ) in sheet
    assert "are outline on their website" in texts.DEBRIEFING
    assert len(texts.CONSENT_STATEMENTS) == 8
    assert texts.CONSENT_STATEMENTS[-1] == "I agree to take part in the study."
