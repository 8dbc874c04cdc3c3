"""The participant's pages through Django's test client: every step, refusal and recovery."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from survey.models import (
    DeclinedConsent,
    Participant,
    ParticipantLanguage,
    PlatformIdentity,
    QuestionnaireEntry,
    Rating,
    Study,
)
from survey.participants.assignment import release_abandoned
from tests.factories import make_study
from wojdb.core import texts
from wojdb.core.texts import en

JSON = {"HTTP_ACCEPT": "application/json"}
# WhiteNoise looks for collected static files, which tests do not need.
pytestmark = pytest.mark.filterwarnings("ignore:No directory at:UserWarning")


def text_of(response) -> str:
    """The page's visible text, tags removed and whitespace collapsed."""
    html = response.content.decode()
    html = re.sub(r"<(script|style|template)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).replace("&#x27;", "'").split())


def enter(client, study, **params) -> Participant:
    response = client.post(f"/s/{study.slug}/", params)
    assert response.status_code == 302
    token = response["Location"].split("/")[2]
    return Participant.objects.get(token=token)


def consent(client, participant, statements=2):
    data = {f"statement_{n}": "yes" for n in range(1, statements + 1)}
    return client.post(f"/p/{participant.token}/consent/", data)


def languages(*rows) -> dict:
    data = {"languages-TOTAL_FORMS": str(len(rows)), "languages-INITIAL_FORMS": "0"}
    for n, (language, fluency, qualifications) in enumerate(rows):
        data |= {
            f"languages-{n}-language": language,
            f"languages-{n}-fluency": str(fluency),
            f"languages-{n}-qualifications": qualifications,
        }
    return data


def started(client, study) -> Participant:
    """A participant who has consented and passed the about-you page."""
    participant = enter(client, study)
    consent(client, participant)
    client.post(f"/p/{participant.token}/about/", languages())
    participant.refresh_from_db()
    return participant


def item_url(participant, position) -> str:
    return f"/p/{participant.token}/item/{position}/"


def entry_item(participant, position):
    return QuestionnaireEntry.objects.get(
        questionnaire=participant.questionnaire, position=position
    ).item


def answer(client, participant, position, json=False, **values):
    item = participant.study.sample_item if position == 0 else entry_item(participant, position)
    data = {"item": item.pk, **{k: str(v) for k, v in values.items()}}
    return client.post(item_url(participant, position), data, **(JSON if json else {}))


# Entry ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_landing_page_lists_open_studies_with_their_entry_links(client):
    open_study = make_study(questionnaires=1, items=2)
    closed = make_study(questionnaires=1, items=2, is_open=False)
    response = client.get("/")
    assert f'href="/s/{open_study.slug}/"' in response.content.decode()
    assert closed.name not in text_of(response)


@pytest.mark.django_db
def test_study_link_shows_the_information_sheet_and_creates_no_one_until_continue(client):
    study = make_study()
    response = client.get(f"/s/{study.slug}/")
    page = text_of(response)
    assert "Participant Information Sheet" in page
    assert f"Project Title {study.name} What is the study about?" in page  # its own title
    assert "Human Judgements" not in page  # not the thesis's
    assert "You will be shown 50 pairs of sentences" in page
    assert "[" not in page  # every setting the texts name is filled
    assert Participant.objects.count() == 0


@pytest.mark.django_db
def test_continue_creates_a_participant_with_an_unguessable_personal_link(client):
    study = make_study()
    response = client.post(f"/s/{study.slug}/")
    participant = Participant.objects.get()
    assert response["Location"] == f"/p/{participant.token}/consent/"
    # token_urlsafe: 6 random bits per character.
    assert len(participant.token) * 6 >= 128
    assert participant.status == "assigned"
    assert participant.questionnaire.study == study
    assert not PlatformIdentity.objects.exists()


@pytest.mark.django_db
def test_study_contacts_fill_the_documents(client):
    study = make_study(researcher_name="Ada Lovelace", researcher_email="ada@example.org")
    page = text_of(client.get(f"/s/{study.slug}/"))
    assert "This study is being conducted by Ada Lovelace at the Example School" in page
    assert "Researcher: Ada Lovelace Contact Details: ada@example.org" in page


@pytest.mark.django_db
def test_the_same_platform_session_resumes_only_in_the_browser_that_started_it(client):
    study = make_study(platform="prolific", completion_code="C1")
    ids = {"PROLIFIC_PID": "abc", "STUDY_ID": "s", "SESSION_ID": "one"}
    first = enter(client, study, **ids)
    # The same browser, with the same ids, is taken back to its participation.
    assert client.post(f"/s/{study.slug}/", ids)["Location"] == f"/p/{first.token}/consent/"
    # Another browser knowing the ids gets no token: the personal link is needed.
    elsewhere = Client().post(f"/s/{study.slug}/", ids)
    assert elsewhere.status_code == 409
    assert "personal link" in text_of(elsewhere)
    assert first.token not in elsewhere.content.decode()
    assert Participant.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize("session", [{"SESSION_ID": "two"}, {}], ids=["another", "none"])
def test_a_prolific_pid_takes_part_once_whatever_its_session(client, session):
    study = make_study(platform="prolific", completion_code="C1")
    first = enter(client, study, PROLIFIC_PID="abc", STUDY_ID="s", SESSION_ID="one")
    elsewhere = Client().post(f"/s/{study.slug}/", {"PROLIFIC_PID": "abc"} | session)
    assert elsewhere.status_code == 409
    assert "You have already started this study" in text_of(elsewhere)
    assert list(Participant.objects.all()) == [first]


@pytest.mark.django_db
def test_an_mturk_worker_takes_part_once_whatever_the_hit_or_assignment(client):
    study = make_study(platform="mturk")
    first = enter(client, study, workerId="W1", assignmentId="A1", hitId="H1")
    consent(client, first)
    client.post(f"/p/{first.token}/review/")
    second_hit = {"workerId": "W1", "assignmentId": "A2", "hitId": "H2"}
    page = Client().post(f"/s/{study.slug}/", second_hit)
    assert page.status_code == 409
    assert "You have already taken part in this study" in text_of(page)
    assert "please return that HIT" in text_of(page)
    assert list(Participant.objects.all()) == [first]
    # In the browser that took part, the study link shows the finished participation.
    held = text_of(client.get(f"/s/{study.slug}/", second_hit))
    assert "You have already taken part in this study" in held
    assert "Start afresh" not in held and "please return that HIT" in held


@pytest.mark.django_db
def test_the_same_browser_opening_the_study_link_again_resumes_its_participation(client):
    study = make_study()
    first = started(client, study)
    answer(client, first, 0, holistic=3, order=3, go="next")
    client.get(item_url(first, 1))
    page = text_of(client.get(f"/s/{study.slug}/"))
    assert "You have already started this study" in page
    assert f'href="/p/{first.token}/"' in client.get(f"/s/{study.slug}/").content.decode()
    again = client.post(f"/s/{study.slug}/")
    assert again["Location"] == item_url(first, 1)
    assert Participant.objects.count() == 1


@pytest.mark.django_db
def test_the_participation_cookie_is_private_to_the_site(client, settings):
    settings.SESSION_COOKIE_SECURE = True  # as WOJDB_HTTPS sets it
    study = make_study()
    response = client.post(f"/s/{study.slug}/")
    cookie = response.cookies[f"wojdb-participation-{study.slug}"]
    assert cookie.value == response["Location"].split("/")[2]
    assert cookie["httponly"] and cookie["secure"] and cookie["samesite"] == "Lax"


@pytest.mark.django_db
def test_starting_afresh_is_an_explicit_choice_that_releases_the_earlier_slot(client):
    study = make_study(questionnaires=2)
    first = started(client, study)
    answer(client, first, 0, holistic=2, order=4)
    response = client.post(f"/s/{study.slug}/", {"afresh": "1"})
    second = Participant.objects.get(token=response["Location"].split("/")[2])
    first.refresh_from_db()
    assert second != first and first.status == "abandoned"
    assert Rating.objects.filter(participant=first, holistic=2, order=4).exists()
    # The abandoned slot is free again: the next browser gets the other questionnaire.
    third = enter(Client(), study)
    assert third.questionnaire != second.questionnaire
    # The earlier personal link still works, and carries on where it stopped.
    assert client.get(f"/p/{first.token}/").status_code == 302
    first.refresh_from_db()
    assert first.status == "in_progress"


@pytest.mark.django_db
def test_a_personal_link_opened_in_another_browser_is_resumed_by_the_study_link(client):
    study = make_study()
    participant = started(client, study)
    elsewhere = Client()
    elsewhere.get(f"/p/{participant.token}/")
    expected = f"/p/{participant.token}/instructions/"
    assert elsewhere.post(f"/s/{study.slug}/")["Location"] == expected
    assert Participant.objects.count() == 1


@pytest.mark.django_db
def test_a_finished_participation_is_shown_and_afresh_keeps_it_finished(client):
    study = make_study()
    participant = started(client, study)
    client.post(f"/p/{participant.token}/review/")
    assert "You have already taken part in this study" in text_of(client.get(f"/s/{study.slug}/"))
    assert client.post(f"/s/{study.slug}/")["Location"] == f"/p/{participant.token}/done/"
    client.post(f"/s/{study.slug}/", {"afresh": "1"})
    participant.refresh_from_db()
    assert participant.status == "completed" and Participant.objects.count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize("leave", ["withdraw/", "consent/"])
def test_a_withdrawn_or_declined_participation_is_forgotten_by_the_browser(client, leave):
    study = make_study()
    participant = enter(client, study)
    data = {"decline": "1"} if leave == "consent/" else {}
    client.post(f"/p/{participant.token}/{leave}", data)
    assert not Participant.objects.filter(pk=participant.pk).exists()
    assert "already started" not in text_of(client.get(f"/s/{study.slug}/"))
    assert enter(client, study) != participant


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["{{%PROLIFIC_PID%}}", "a b", "x" * 65, "<script>", "é"])
def test_a_malformed_platform_id_is_refused(client, value):
    study = make_study(platform="prolific", completion_code="C1")
    response = client.post(f"/s/{study.slug}/", {"PROLIFIC_PID": value})
    assert response.status_code == 400
    assert "This link is not valid" in text_of(response)
    assert Participant.objects.count() == 0


@pytest.mark.django_db
def test_a_closed_study_takes_no_one(client):
    study = make_study(is_open=False)
    assert "This study is closed" in text_of(client.get(f"/s/{study.slug}/"))
    assert client.post(f"/s/{study.slug}/").status_code == 200
    assert Participant.objects.count() == 0


@pytest.mark.django_db
def test_an_unknown_study_or_personal_link_is_not_found(client):
    assert client.get("/s/no-such-study/").status_code == 404
    response = client.get("/p/" + "x" * 32 + "/")
    assert response.status_code == 404
    assert "This personal link is not valid" in text_of(response)


# Consent -------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_consent_form_shows_every_statement_with_yes_and_no(client):
    study = make_study()
    study.consent_texts.all().delete()  # a study without its own statements gets the thesis's
    participant = enter(client, study)
    response = client.get(f"/p/{participant.token}/consent/")
    page = text_of(response)
    assert "Participant Consent Form" in page
    for statement in en.CONSENT_STATEMENTS:
        assert statement in page
    html = response.content.decode()
    assert html.count("<fieldset") == 7
    assert html.count('value="yes"') == html.count('value="no"') == 7
    # Agreeing to release the data is optional, and says so.
    assert page.count("(optional)") == 1
    assert "Participation in this research is completely voluntary" in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    "answers, message",
    [
        ({"statement_1": "yes"}, "Please answer Yes or No to every statement."),
        ({"statement_1": "yes", "statement_2": "no"}, "Taking part needs a Yes to every statement"),
    ],
)
def test_consent_needs_a_yes_to_every_statement(client, answers, message):
    study = make_study()
    participant = enter(client, study)
    response = client.post(f"/p/{participant.token}/consent/", answers)
    assert response.status_code == 200
    assert message in text_of(response)
    participant.refresh_from_db()
    assert participant.consent_version is None
    assert participant.status == "assigned"


@pytest.mark.django_db
def test_consenting_starts_the_participant_and_freezes_the_questionnaire(client):
    study = make_study()
    participant = enter(client, study)
    response = consent(client, participant)
    assert response["Location"] == f"/p/{participant.token}/about/"
    participant.refresh_from_db()
    assert participant.consent_version == 1
    assert participant.consented_at is not None
    assert participant.share_data is True
    assert participant.status == "in_progress"
    assert participant.questionnaire.frozen is True
    # Consent is given once; the page then sends the participant on.
    again = client.get(f"/p/{participant.token}/consent/")
    assert again["Location"] == f"/p/{participant.token}/about/"


@pytest.mark.django_db
def test_declining_ends_politely_and_keeps_only_a_count(client):
    study = make_study(platform="prolific", completion_code="C1")
    participant = enter(client, study, PROLIFIC_PID="abc", SESSION_ID="s1")
    assert PlatformIdentity.objects.filter(participant=participant).exists()
    response = client.post(f"/p/{participant.token}/consent/", {"decline": "1"}, follow=True)
    assert "Thank you for considering taking part" in text_of(response)
    assert not Participant.objects.exists()
    assert not PlatformIdentity.objects.exists()
    assert DeclinedConsent.objects.filter(study=study).count() == 1
    assert client.get(f"/p/{participant.token}/").status_code == 404


@pytest.mark.django_db
def test_pages_after_consent_need_consent_first(client):
    study = make_study()
    participant = enter(client, study)
    consent_url = f"/p/{participant.token}/consent/"
    for path in ("about/", "item/1/", "review/", "done/", ""):
        assert client.get(f"/p/{participant.token}/{path}")["Location"] == consent_url
    assert answer(client, participant, 1, holistic=3)["Location"] == consent_url
    assert not Rating.objects.exists()


# About you -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_about_you_asks_every_question_of_the_cover_page(client):
    study = make_study()
    participant = enter(client, study)
    consent(client, participant)
    response = client.get(f"/p/{participant.token}/about/")
    page = text_of(response)
    # The thesis's cover page, for a study in English.
    assert "Is English your first language?" in page
    assert "Please indicate the languages you speak (including English)" in page
    for question in en.ABOUT_YOU.values():
        assert question.replace("%(language)s", "English") in page
    for option in ("Male", "Female", "Other", "Prefer not to say"):
        assert f"<span>{option}</span>" in response.content.decode()
    for option in en.EDUCATION_LABELS.values():
        assert option in page
    assert en.GRAMMAR_LOW in page and en.GRAMMAR_HIGH in page
    assert "Every question on this page is optional" in page


@pytest.mark.django_db
def test_about_you_stores_every_answer_and_the_language_rows(client):
    study = make_study()
    participant = enter(client, study)
    consent(client, participant)
    data = {
        "target_first": "no",
        "target_years": "12",
        "gender": "other",
        "nationality": " Scottish ",
        "education": "masters",
        "disability": "yes",
        "disability_detail": "dyslexia",
        "grammar_attention": "4",
        "age": "34",
        **languages(("English", 4, "IELTS 8"), ("French", 7, ""), ("", "", "")),
    }
    response = client.post(f"/p/{participant.token}/about/", data)
    assert response["Location"] == f"/p/{participant.token}/instructions/"
    participant.refresh_from_db()
    assert participant.about_done
    assert participant.target_first is False
    assert participant.target_years == 12
    assert participant.gender == "other"
    assert participant.nationality == "Scottish"
    assert participant.education == "masters"
    assert participant.reading_disability == "dyslexia"
    assert participant.grammar_attention == 4
    assert participant.age == 34
    rows = list(participant.languages.order_by("pk").values_list("language", "fluency"))
    assert rows == [("English", 4), ("French", 7)]
    assert participant.languages.get(language="English").qualifications == "IELTS 8"
    assert participant.languages_score == 11
    # Shown again as given, and resubmitting replaces (not duplicates) the languages.
    page = client.get(f"/p/{participant.token}/about/").content.decode()
    assert 'value="Scottish"' in page and 'value="dyslexia"' in page
    client.post(f"/p/{participant.token}/about/", data)
    assert ParticipantLanguage.objects.filter(participant=participant).count() == 2


@pytest.mark.django_db
def test_about_you_is_entirely_optional(client):
    study = make_study()
    participant = enter(client, study)
    consent(client, participant)
    response = client.post(f"/p/{participant.token}/about/", languages())
    assert response.status_code == 302
    participant.refresh_from_db()
    assert participant.about_done
    assert participant.target_first is None and participant.age is None
    assert participant.gender == "" and participant.reading_disability == ""
    assert not participant.languages.exists()


@pytest.mark.django_db
def test_a_plain_no_to_the_disability_question_is_kept(client):
    study = make_study()
    participant = enter(client, study)
    consent(client, participant)
    client.post(f"/p/{participant.token}/about/", {"disability": "no", **languages()})
    participant.refresh_from_db()
    assert participant.reading_disability == "No"


@pytest.mark.django_db
def test_adding_a_language_row_without_javascript_keeps_what_was_typed(client):
    study = make_study()
    participant = enter(client, study)
    consent(client, participant)
    data = {"add_language": "1", "age": "40", **languages(("German", 2, ""))}
    response = client.post(f"/p/{participant.token}/about/", data)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="languages-TOTAL_FORMS" value="2"' in html
    assert 'name="languages-1-language"' in html
    assert 'value="German"' in html
    participant.refresh_from_db()
    assert not participant.about_done
    assert participant.age == 40


@pytest.mark.django_db
@pytest.mark.parametrize(
    "row, message",
    [
        (("Welsh", "", ""), "Please choose how well you speak this language."),
        (("", 3, ""), "Please name the language."),
    ],
)
def test_an_incomplete_language_row_is_explained_and_nothing_saved(client, row, message):
    study = make_study()
    participant = enter(client, study)
    consent(client, participant)
    response = client.post(f"/p/{participant.token}/about/", {"age": "50", **languages(row)})
    assert response.status_code == 200
    assert message in text_of(response)
    participant.refresh_from_db()
    assert participant.age is None and not participant.about_done


@pytest.mark.django_db
def test_an_impossible_age_is_explained(client):
    study = make_study()
    participant = enter(client, study)
    consent(client, participant)
    response = client.post(f"/p/{participant.token}/about/", {"age": "999", **languages()})
    assert "less than or equal to 120" in text_of(response)


@pytest.mark.django_db
@pytest.mark.parametrize("field", ["age", "target_years"])
@pytest.mark.parametrize("typed", ["1_0", "٣٠", "²", "3 0"])
def test_a_number_not_written_in_ascii_digits_is_refused_and_nothing_saved(client, field, typed):
    """As every number WOJ-DB reads (wojdb.core.numbers): Python's int() takes "1_0" as
    10 and "٣٠" as 30."""
    study = make_study()
    participant = enter(client, study)
    consent(client, participant)
    response = client.post(f"/p/{participant.token}/about/", {field: typed, **languages()})
    assert response.status_code == 200 and "Enter a whole number." in text_of(response)
    participant.refresh_from_db()
    assert getattr(participant, field) is None and not participant.about_done


# Items ---------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_pair_shows_hypothesis_first_then_reference_language_and_the_two_questions(client):
    study = make_study(holistic_question="How clear is it?", order_low="Badly")
    participant = started(client, study)
    item = entry_item(participant, 2)
    response = client.get(item_url(participant, 2))
    page = text_of(response)
    assert "Pair 2 of 4" in page
    # The labels name the sentences as the questions do.
    language = item.triple.segment.source_language_name
    machine = page.index(f"First sentence (machine translation from {language}) " + item.text)
    human = page.index("Second sentence (human translation) " + item.reference)
    assert machine < human
    assert "1 How clear is it?" in page
    assert f"2 {study.order_question}" in page
    html = response.content.decode()
    assert '<progress class="progress" max="4" value="2"' in html
    assert html.count('type="radio" id="holistic-') == 5
    assert html.count('type="radio" id="order-') == 5
    # Labelled only at the ends: one visible label pair per scale.
    assert html.count('<div class="ends" aria-hidden="true">') == 2
    assert "<span>Very difficult</span><span>Very easy</span>" in html
    assert "<span>Badly</span><span>Not at all</span>" in html
    holistic_note, _ = texts.practice_notes(item)
    assert holistic_note not in page  # feedback belongs to the practice pair only


@pytest.mark.django_db
def test_the_practice_pair_gives_feedback_and_its_answers_are_kept_as_practice(client):
    study = make_study()
    participant = started(client, study)
    holistic_note, order_note = texts.practice_notes(study.sample_item)
    page = text_of(client.get(item_url(participant, 0)))
    assert "Practice pair" in page
    assert holistic_note not in page  # feedback comes once answered
    response = answer(client, participant, 0, holistic=2, order=5, go="next")
    assert response["Location"] == item_url(participant, 0) + "?feedback=1"
    page = text_of(client.get(response["Location"]))
    assert holistic_note in page and order_note in page
    assert "Start pair 1" in page
    response = answer(client, participant, 0, go="start")
    assert response["Location"] == item_url(participant, 1)
    rating = Rating.objects.get(participant=participant, item=study.sample_item)
    assert (rating.practice, rating.position, rating.holistic, rating.order) == (True, 0, 2, 5)


@pytest.mark.django_db
def test_practice_feedback_describes_the_studys_own_practice_item(client):
    """Feedback is written from the practice item, so it never describes another sentence."""
    study = make_study()
    permutation = entry_item(Participant(questionnaire=study.questionnaires.first()), 2)
    Study.objects.filter(pk=study.pk).update(sample_item=permutation)
    participant = started(client, study)
    answer(client, participant, 0, holistic=3, order=3, go="next")
    page = text_of(client.get(item_url(participant, 0) + "?feedback=1"))
    assert "Here 2 words of the first sentence are out of place." in page
    # Nothing gives away that the first sentence was made from the second.
    assert "the second one" not in page and "swapped" not in page and "moved" not in page
    assert en.SAMPLE_ORDER_NOTE not in page  # the thesis's own sentence is not this one
    # A study's own feedback text takes precedence.
    Study.objects.filter(pk=study.pk).update(sample_order_note="Our own words on this pair.")
    page = text_of(client.get(item_url(participant, 0) + "?feedback=1"))
    assert "Our own words on this pair." in page


@pytest.mark.django_db
def test_instructions_explain_both_questions_and_come_before_the_practice(client):
    study = make_study(holistic_question="How clear is it?", order_low="Badly")
    participant = started(client, study)
    assert client.get(f"/p/{participant.token}/")["Location"] == (
        f"/p/{participant.token}/instructions/"
    )
    page = text_of(client.get(f"/p/{participant.token}/instructions/"))
    # The study's own questions with the meaning of their ends.
    assert "How clear is it? 1 = Very difficult … 5 = Very easy" in page
    assert f"{study.order_question} 1 = Badly … 5 = Not at all" in page
    assert "set aside wrong or missing words" in page
    assert "5 is the best answer and 1 the worst" in page
    assert (
        f'href="{item_url(participant, 0)}"'
        in client.get(f"/p/{participant.token}/instructions/").content.decode()
    )


@pytest.mark.django_db
def test_without_a_practice_pair_no_one_new_enters_and_those_inside_go_to_the_pairs(client):
    study = make_study()
    participant = started(client, study)
    Study.objects.filter(pk=study.pk).update(sample_item=None)
    study.refresh_from_db()
    assert study.unfilled() == ["sample_item (the practice pair)"]
    assert "This study is closed" in text_of(Client().get(f"/s/{study.slug}/"))
    instructions = client.get(f"/p/{participant.token}/instructions/").content.decode()
    assert f'href="{item_url(participant, 1)}"' in instructions
    assert client.get(item_url(participant, 0)).status_code == 404


@pytest.mark.django_db
def test_an_answer_is_saved_with_server_times_position_and_client_time(client):
    study = make_study()
    participant = started(client, study)
    before = timezone.now()
    client.get(item_url(participant, 3))
    rating = Rating.objects.get(participant=participant, position=3)
    assert rating.shown_at >= before and rating.holistic is None and rating.answered_at is None
    response = answer(client, participant, 3, holistic=4, order=2, client_ms=5400, go="next")
    assert response["Location"] == item_url(participant, 4)
    rating.refresh_from_db()
    assert (rating.holistic, rating.order, rating.client_ms) == (4, 2, 5400)
    assert rating.item == entry_item(participant, 3)
    assert rating.practice is False and rating.revisions == 0
    assert rating.shown_at <= rating.answered_at <= timezone.now()


@pytest.mark.django_db
def test_background_saves_answer_json_and_count_revisions(client):
    study = make_study()
    participant = started(client, study)
    first = answer(client, participant, 1, json=True, holistic=3, go="stay")
    assert first.json() == {
        "saved": True,
        "revisions": 0,
        "holistic": 3,
        "order": None,
        "next": item_url(participant, 1),
        "moves": {"back": item_url(participant, 0)},  # see test_moving_on.py
    }
    assert answer(client, participant, 1, json=True, order=1).json()["revisions"] == 0
    assert answer(client, participant, 1, json=True, holistic=5).json()["revisions"] == 1
    assert answer(client, participant, 1, json=True, holistic=5, order=2).json()["revisions"] == 2
    rating = Rating.objects.get(participant=participant, position=1)
    assert (rating.holistic, rating.order, rating.revisions) == (5, 2, 2)


@pytest.mark.django_db
def test_a_repeated_submit_is_idempotent(client):
    study = make_study()
    participant = started(client, study)
    answer(client, participant, 2, holistic=1, order=4, client_ms=900, go="next")
    saved = Rating.objects.get(participant=participant, position=2)
    for _ in range(2):
        response = answer(client, participant, 2, holistic=1, order=4, client_ms=900, go="next")
        assert response["Location"] == item_url(participant, 3)
    again = Rating.objects.get(participant=participant, position=2)
    assert (again.holistic, again.order, again.revisions) == (1, 4, 0)
    assert again.answered_at == saved.answered_at
    assert Rating.objects.filter(participant=participant).count() == 1


@pytest.mark.django_db
def test_a_blank_never_erases_an_answer_and_unanswered_is_allowed(client):
    study = make_study(require_both_answers=False)
    participant = started(client, study)
    answer(client, participant, 1, holistic=2, go="next")
    response = answer(client, participant, 1, holistic="", order="", go="next")
    assert response["Location"] == item_url(participant, 2)
    rating = Rating.objects.get(participant=participant, position=1)
    assert (rating.holistic, rating.order) == (2, None)


@pytest.mark.django_db
def test_back_and_next_move_between_pages(client):
    study = make_study(items=2)
    participant = started(client, study)
    assert answer(client, participant, 1, go="back")["Location"] == item_url(participant, 0)
    back = answer(client, participant, 0, go="back")["Location"]
    assert back == f"/p/{participant.token}/instructions/"
    response = answer(client, participant, 2, holistic=2, order=3, go="next")
    assert response["Location"] == f"/p/{participant.token}/review/"
    assert "Next: finish" in text_of(client.get(item_url(participant, 2)))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "values",
    [
        {"holistic": "0"},
        {"holistic": "6"},
        {"order": "-1"},
        {"order": "three"},
        {"holistic": "2.5"},
        {"holistic": "3", "order": "9"},
        {"holistic": "3", "client_ms": "-5"},
        {"holistic": "3", "go": "elsewhere"},
    ],
)
def test_values_outside_one_to_five_are_refused_and_nothing_written(client, values):
    study = make_study()
    participant = started(client, study)
    client.get(item_url(participant, 1))
    for extra in ({}, JSON):
        response = client.post(
            item_url(participant, 1), {"item": entry_item(participant, 1).pk, **values}, **extra
        )
        assert response.status_code == 400
    assert response.json()["saved"] is False
    rating = Rating.objects.get(participant=participant, position=1)
    assert (rating.holistic, rating.order, rating.client_ms) == (None, None, None)


@pytest.mark.django_db
def test_an_item_not_in_the_participants_questionnaire_is_refused(client):
    study = make_study(questionnaires=2)
    participant = started(client, study)
    other = started(Client(), study)
    assert other.questionnaire != participant.questionnaire
    foreign = entry_item(other, 1)
    misplaced = entry_item(participant, 2)
    for item in (foreign, misplaced, study.sample_item):
        response = client.post(item_url(participant, 1), {"item": item.pk, "holistic": "3"})
        assert response.status_code == 400
        assert "not in your questionnaire" in text_of(response)
    assert client.post(item_url(participant, 1), {"holistic": "3"}).status_code == 400
    assert client.post(item_url(participant, 9), {"item": foreign.pk}).status_code == 400
    assert not Rating.objects.exists() or not Rating.objects.filter(holistic=3).exists()


@pytest.mark.django_db
def test_a_personal_link_opens_only_its_own_questionnaire(client):
    study = make_study(questionnaires=2)
    participant = started(client, study)
    other = started(Client(), study)
    page = text_of(client.get(item_url(participant, 1)))
    assert entry_item(participant, 1).text in page
    # The other participant's link shows the other questionnaire and records nothing for us.
    client.get(item_url(other, 1))
    assert set(Rating.objects.filter(participant=other).values_list("item", flat=True)) == {
        entry_item(other, 1).pk
    }
    assert not Rating.objects.filter(participant=participant, item=entry_item(other, 1)).exists()
    assert client.get(item_url(participant, 99)).status_code == 404


@pytest.mark.django_db
def test_every_post_needs_a_csrf_token():
    study = make_study()
    browser = Client(enforce_csrf_checks=True)
    assert browser.post(f"/s/{study.slug}/").status_code == 403
    assert not Participant.objects.exists()
    participant = started(Client(), study)
    posts = {
        "consent/": {"decline": "1"},
        "about/": {"age": "44", **languages()},
        "item/1/": {"item": entry_item(participant, 1).pk, "holistic": "3"},
        "review/": {},
        "withdraw/": {},
        "reading/": {},
    }
    for path, data in posts.items():
        assert browser.post(f"/p/{participant.token}/{path}", data).status_code == 403, path
    participant.refresh_from_db()
    assert participant.age is None and participant.status == "in_progress"
    assert not participant.reading_mode
    assert not Rating.objects.filter(holistic=3).exists()
    assert not DeclinedConsent.objects.exists()


@pytest.mark.django_db
def test_an_expired_page_says_so_and_recovers_without_losing_the_answer():
    study = make_study()
    participant = started(Client(), study)
    browser = Client(enforce_csrf_checks=True)
    item = entry_item(participant, 1)
    data = {"item": item.pk, "holistic": "4", "order": "2", "go": "next"}
    # Without JavaScript: a renewed page with the answer still selected, not yet saved.
    response = browser.post(item_url(participant, 1), data)
    assert response.status_code == 403
    assert "This page had expired" in text_of(response)
    html = response.content.decode()
    assert 'id="holistic-4" name="holistic" value="4" checked' in html
    assert 'id="order-2" name="order" value="2" checked' in html
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    assert not Rating.objects.filter(holistic=4).exists()
    response = browser.post(item_url(participant, 1), data | {"csrfmiddlewaretoken": token})
    assert response["Location"] == item_url(participant, 2)
    assert Rating.objects.get(participant=participant, item=item).holistic == 4
    # With JavaScript: a fresh token in the reply, and the retry saves.
    fresh = Client(enforce_csrf_checks=True)
    reply = fresh.post(item_url(participant, 2), {"item": entry_item(participant, 2).pk}, **JSON)
    assert reply.status_code == 403
    assert reply.json()["reason"] == "expired"
    retry = {"item": entry_item(participant, 2).pk, "order": "5"}
    reply = fresh.post(
        item_url(participant, 2), retry | {"csrfmiddlewaretoken": reply.json()["csrf"]}, **JSON
    )
    assert reply.json()["saved"] is True
    assert Rating.objects.get(participant=participant, position=2).order == 5


@pytest.mark.django_db
def test_a_stale_page_cannot_overwrite_a_newer_answer_silently(client):
    study = make_study()
    participant = started(client, study)
    stale = {"item": entry_item(participant, 1).pk, "was_holistic": "", "was_order": ""}
    # Another device answered after this page was shown.
    answer(Client(), participant, 1, holistic=5, order=5)
    response = client.post(item_url(participant, 1), stale | {"holistic": "1", "go": "next"})
    assert response.status_code == 409
    assert "changed in another window or on another device" in text_of(response)
    assert 'id="holistic-5" name="holistic" value="5" checked' in response.content.decode()
    reply = client.post(item_url(participant, 1), stale | {"holistic": "1"}, **JSON)
    assert reply.status_code == 409
    assert reply.json() == {
        "saved": False,
        "reason": "conflict",
        "message": reply.json()["message"],
        "holistic": 5,
        "order": 5,
    }
    rating = Rating.objects.get(participant=participant, position=1)
    assert (rating.holistic, rating.order, rating.revisions) == (5, 5, 0)
    # Once the page shows the saved answer, a change goes through.
    fresh = stale | {"was_holistic": "5", "was_order": "5", "holistic": "1"}
    assert client.post(item_url(participant, 1), fresh, **JSON).json()["revisions"] == 1


@pytest.mark.django_db
def test_client_time_on_an_item_only_grows(client):
    study = make_study()
    participant = started(client, study)
    answer(client, participant, 1, json=True, holistic=2, client_ms=4000)
    answer(client, participant, 1, json=True, order=2, client_ms=3000)
    assert Rating.objects.get(participant=participant, position=1).client_ms == 4000


# Finishing -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_unanswered_questions_are_listed_before_finishing(client):
    study = make_study(items=4)
    participant = started(client, study)
    answer(client, participant, 1, holistic=3, order=3)
    answer(client, participant, 2, holistic=3)
    answer(client, participant, 3, order=1)
    response = client.get(f"/p/{participant.token}/review/")
    page = text_of(response)
    assert "You have answered both questions for 1 of 4 pairs." in page
    assert "Pair 2 : question 2 not answered" in page
    assert "Pair 3 : question 1 not answered" in page
    assert "Pair 4 : neither question answered" in page
    assert "Pair 1 :" not in page
    assert f'href="{item_url(participant, 4)}"' in response.content.decode()
    participant.refresh_from_db()
    assert participant.position == 5  # resuming comes back to this check


@pytest.mark.django_db
def test_finishing_gives_a_completion_code_and_the_debriefing(client):
    study = make_study(items=2)
    participant = started(client, study)
    answer(client, participant, 1, holistic=1, order=2)
    answer(client, participant, 2, holistic=3, order=4)
    response = client.post(f"/p/{participant.token}/review/")
    assert response["Location"] == f"/p/{participant.token}/done/"
    participant.refresh_from_db()
    assert participant.status == "completed" and participant.completed_at is not None
    assert re.fullmatch(r"[A-Z2-9]{5}-[A-Z2-9]{5}", participant.completion_code)
    page = text_of(client.get(f"/p/{participant.token}/done/"))
    assert "Participant Debriefing Form" in page
    assert "This research project was conducted" in page
    # Without a crowd platform there is nothing to hand in: a plain end.
    assert "You have finished the study. You can close this page now." in page
    assert participant.completion_code not in page
    assert "Return to the study platform" not in page
    # Finishing twice keeps the first code; the personal link now leads to the debriefing.
    code = participant.completion_code
    client.post(f"/p/{participant.token}/review/")
    participant.refresh_from_db()
    assert participant.completion_code == code
    assert client.get(f"/p/{participant.token}/")["Location"] == f"/p/{participant.token}/done/"
    assert client.get(item_url(participant, 1))["Location"] == f"/p/{participant.token}/done/"


@pytest.mark.django_db
def test_the_debriefing_is_shown_only_after_finishing(client):
    study = make_study()
    participant = started(client, study)
    response = client.get(f"/p/{participant.token}/done/")
    assert response["Location"] == f"/p/{participant.token}/instructions/"


@pytest.mark.django_db
def test_after_finishing_answers_can_no_longer_change(client):
    study = make_study(items=2)
    participant = started(client, study)
    answer(client, participant, 1, holistic=2)
    client.post(f"/p/{participant.token}/review/")
    response = answer(client, participant, 1, holistic=5)
    assert response.status_code == 409
    assert "already finished" in text_of(response)
    reply = answer(client, participant, 1, json=True, holistic=5)
    assert reply.status_code == 409
    assert reply.json()["next"] == f"/p/{participant.token}/done/"
    assert Rating.objects.get(participant=participant, position=1).holistic == 2


@pytest.mark.django_db
def test_the_platform_return_link_appears_only_once_finished(client):
    study = make_study(
        items=2,
        platform="generic",
        platform_return_url="https://app.prolific.com/submissions/complete?cc={code}",
    )
    participant = enter(client, study, pid="p1")
    consent(client, participant)
    client.post(f"/p/{participant.token}/about/", languages())
    answer(client, participant, 2, holistic=2, order=2)
    review = client.get(f"/p/{participant.token}/review/").content.decode()
    assert "prolific.com" not in review
    client.post(f"/p/{participant.token}/review/")
    participant.refresh_from_db()
    html = client.get(f"/p/{participant.token}/done/").content.decode()
    expected = f"https://app.prolific.com/submissions/complete?cc={participant.completion_code}"
    assert f'href="{expected}"' in html
    assert "Return to the study platform" in html


@pytest.mark.django_db
def test_a_return_address_that_is_not_a_web_address_is_never_linked(client):
    study = make_study(items=2, platform="generic", platform_return_url="javascript:alert(1)")
    participant = enter(client, study, pid="p1")
    consent(client, participant)
    client.post(f"/p/{participant.token}/about/", languages())
    client.post(f"/p/{participant.token}/review/")
    html = client.get(f"/p/{participant.token}/done/").content.decode()
    assert "javascript:" not in html


# Withdrawal, abandonment, resume --------------------------------------------------------------


@pytest.mark.django_db
def test_withdrawal_deletes_answers_and_details_and_confirms(client):
    study = make_study(platform="prolific", completion_code="C1")
    participant = enter(client, study, PROLIFIC_PID="p1", SESSION_ID="x")
    assert PlatformIdentity.objects.filter(participant=participant).exists()
    consent(client, participant)
    client.post(f"/p/{participant.token}/about/", {"age": "30", **languages(("Irish", 5, ""))})
    answer(client, participant, 0, holistic=3)
    answer(client, participant, 1, holistic=4, order=4)
    page = text_of(client.get(f"/p/{participant.token}/withdraw/"))
    assert "all your answers and the details you gave about yourself are deleted" in page
    assert Participant.objects.filter(pk=participant.pk).exists()
    response = client.post(f"/p/{participant.token}/withdraw/", follow=True)
    assert "You have withdrawn from the study" in text_of(response)
    assert "have been deleted" in text_of(response)
    assert not Participant.objects.exists()
    assert not Rating.objects.exists()
    assert not ParticipantLanguage.objects.exists()
    assert not PlatformIdentity.objects.exists()
    assert client.get(f"/p/{participant.token}/").status_code == 404


@pytest.mark.django_db
def test_withdrawal_is_offered_on_every_personal_page(client):
    study = make_study()
    participant = started(client, study)
    for path in ("about/", "item/0/", "item/1/", "review/", "information/"):
        html = client.get(f"/p/{participant.token}/{path}").content.decode()
        assert f'href="/p/{participant.token}/withdraw/"' in html, path
        assert f"http://testserver/p/{participant.token}/" in html, path


@pytest.mark.django_db
def test_resuming_from_the_personal_link_on_another_device_continues_where_stopped(client):
    study = make_study()
    participant = started(client, study)
    answer(client, participant, 1, holistic=2, order=3, go="next")
    client.get(item_url(participant, 2))
    answer(client, participant, 2, holistic=5, go="stay")
    other_device = Client()
    response = other_device.get(f"/p/{participant.token}/")
    assert response["Location"] == item_url(participant, 2)
    html = other_device.get(response["Location"]).content.decode()
    assert 'id="holistic-5" name="holistic" value="5" checked' in html
    assert "Saved. One question is not answered yet." in html
    back = other_device.get(item_url(participant, 1)).content.decode()
    assert 'value="2" checked' in back and 'value="3" checked' in back
    assert "Your answers to this pair are saved." in back


@pytest.mark.django_db
def test_an_abandoned_participant_who_returns_carries_on_with_their_answers(client):
    study = make_study(abandon_after_minutes=60)
    participant = started(client, study)
    answer(client, participant, 1, holistic=1, order=1, go="next")
    client.get(item_url(participant, 2))
    Participant.objects.filter(pk=participant.pk).update(
        last_activity=timezone.now() - timedelta(minutes=61)
    )
    assert release_abandoned(study) == 1
    participant.refresh_from_db()
    assert participant.status == "abandoned"
    response = client.get(f"/p/{participant.token}/")
    assert response["Location"] == item_url(participant, 2)
    participant.refresh_from_db()
    assert participant.status == "in_progress"
    assert participant.last_activity > timezone.now() - timedelta(minutes=1)
    assert Rating.objects.get(participant=participant, position=1).holistic == 1


@pytest.mark.django_db
def test_an_abandoned_participant_before_consent_returns_to_consent(client):
    study = make_study(abandon_after_minutes=60)
    participant = enter(client, study)
    Participant.objects.filter(pk=participant.pk).update(status="abandoned")
    assert client.get(f"/p/{participant.token}/")["Location"].endswith("/consent/")
    participant.refresh_from_db()
    assert participant.status == "assigned"


@pytest.mark.django_db
def test_every_request_records_activity(client):
    study = make_study()
    participant = started(client, study)
    old = timezone.now() - timedelta(minutes=30)
    Participant.objects.filter(pk=participant.pk).update(last_activity=old)
    client.get(f"/p/{participant.token}/information/")
    participant.refresh_from_db()
    assert participant.last_activity > old


@pytest.mark.django_db
def test_activity_is_kept_to_the_minute_but_a_move_is_always_recorded(client):
    study = make_study()
    participant = started(client, study)
    recent = timezone.now() - timedelta(seconds=30)
    Participant.objects.filter(pk=participant.pk).update(last_activity=recent)
    answer(client, participant, 1, holistic=2, go="stay")
    participant.refresh_from_db()
    assert participant.last_activity == recent  # an answer saved within the minute: no write
    client.get(item_url(participant, 2))
    participant.refresh_from_db()
    assert participant.position == 2
    assert participant.last_activity > recent


# Reading option and small pages -------------------------------------------------------------


@pytest.mark.django_db
def test_the_reading_option_is_remembered_and_returns_to_the_same_page(client):
    study = make_study()
    participant = started(client, study)
    page = item_url(participant, 1)
    response = client.post(f"/p/{participant.token}/reading/", {"next": page})
    assert response["Location"] == page
    assert '<body class="reading">' in client.get(page).content.decode()
    participant.refresh_from_db()
    assert participant.reading_mode is True
    client.post(f"/p/{participant.token}/reading/", {"next": page})
    assert '<body class="reading">' not in client.get(page).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/p/", "/researcher/"])
def test_the_reading_option_never_redirects_elsewhere(client, target):
    study = make_study()
    participant = started(client, study)
    response = client.post(f"/p/{participant.token}/reading/", {"next": target})
    assert response["Location"] == f"/p/{participant.token}/instructions/"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "target",
    [
        "/p/{own}/../{other}/item/1/",
        "/p/{own}/%2e%2e/{other}/item/1/",
        "/p/{own}/%2E%2E/{other}/item/1/",
        "/p/{own}/.%2e/{other}/item/1/",
        "/p/{own}/item/1/../../../{other}/item/1/",
        "/p/{own}/..%2f{other}/item/1/",
        "/p/{own}/..\\{other}/item/1/",
        "/p/{own}/../../researcher/",
        "/p/{own}/%0a/",
    ],
)
def test_the_reading_option_normalises_the_path_before_checking_it(client, target):
    study = make_study()
    participant = started(client, study)
    other = started(Client(), study)
    address = target.format(own=participant.token, other=other.token)
    response = client.post(f"/p/{participant.token}/reading/", {"next": address})
    assert response["Location"] == f"/p/{participant.token}/instructions/"


@pytest.mark.django_db
def test_the_reading_option_returns_to_an_own_page_however_it_is_written(client):
    study = make_study()
    participant = started(client, study)
    own = participant.token
    returns = {
        f"/p/{own}/about/../item/1/": item_url(participant, 1),
        f"/p/{own}//item/%31/": item_url(participant, 1),
        f"/p/{own}/review/": f"/p/{own}/review/",
    }
    for address, location in returns.items():
        assert client.post(f"/p/{own}/reading/", {"next": address})["Location"] == location


@pytest.mark.django_db
def test_the_reading_option_chosen_on_the_study_link_is_kept(client):
    study = make_study()
    html = client.get(f"/s/{study.slug}/?reading=1").content.decode()
    assert '<body class="reading">' in html
    assert 'name="reading" value="1"' in html
    participant = enter(client, study, reading="1")
    assert participant.reading_mode is True


@pytest.mark.django_db
def test_pages_are_never_cached(client):
    study = make_study()
    participant = started(client, study)
    response = client.get(item_url(participant, 1))
    assert "no-store" in response["Cache-Control"]


@pytest.mark.django_db
def test_the_item_page_needs_few_queries(client, django_assert_max_num_queries):
    study = make_study()
    participant = started(client, study)
    client.get(item_url(participant, 1))
    with django_assert_max_num_queries(9):  # first showing: the rating row is created
        client.get(item_url(participant, 2))
    with django_assert_max_num_queries(6):
        client.get(item_url(participant, 2))
    data = {"item": entry_item(participant, 2).pk, "holistic": "3", "order": "4", "go": "next"}
    with django_assert_max_num_queries(8):
        client.post(item_url(participant, 2), data)


# Crowd platforms, consent by statement, flags ------------------------------------------------


def finish_all(client, participant, answered: int):
    for position in range(1, answered + 1):
        answer(client, participant, position, holistic=3, order=3)
    client.post(f"/p/{participant.token}/review/")
    participant.refresh_from_db()


@pytest.mark.django_db
def test_declining_on_prolific_leads_back_to_return_the_study(client):
    study = make_study(platform="prolific", completion_code="C1")
    participant = enter(client, study, PROLIFIC_PID="abc", SESSION_ID="s1")
    response = client.post(f"/p/{participant.token}/consent/", {"decline": "1"}, follow=True)
    assert "Return submission" in text_of(response)
    study.decline_code = "NOCONSENT"
    study.save()
    participant = enter(client, study, PROLIFIC_PID="abd", SESSION_ID="s2")
    response = client.post(f"/p/{participant.token}/consent/", {"decline": "1"}, follow=True)
    assert 'href="https://app.prolific.com/submissions/complete?cc=NOCONSENT"' in (
        response.content.decode()
    )


@pytest.mark.django_db
def test_withdrawing_on_prolific_leads_back_and_is_counted(client):
    study = make_study(platform="prolific", completion_code="C1", decline_code="NOCONSENT")
    participant = started(client, study)
    page = text_of(client.get(f"/p/{participant.token}/withdraw/"))
    assert en.DATA_USE.split(".")[0] in page  # the same words as the consent form
    response = client.post(f"/p/{participant.token}/withdraw/", follow=True)
    assert "You have withdrawn" in text_of(response)
    assert "cc=NOCONSENT" in response.content.decode()
    assert study.withdrawals.count() == 1


@pytest.mark.django_db
def test_agreeing_to_release_the_data_is_optional_and_recorded():
    study = make_study()
    study.consent_texts.all().delete()
    statements = len(en.CONSENT_STATEMENTS)
    for share, expected in (("no", False), ("yes", True)):
        client = Client()
        participant = enter(client, study)
        data = {f"statement_{n}": "yes" for n in range(1, statements + 1)}
        data[f"statement_{texts.CONSENT_SHARING}"] = share
        response = client.post(f"/p/{participant.token}/consent/", data)
        assert response.status_code == 302
        participant.refresh_from_db()
        assert participant.consent_version == 1 and participant.share_data is expected
    # A required statement answered No still stops the participant.
    participant = enter(Client(), study)
    data = {f"statement_{n}": "yes" for n in range(1, statements + 1)} | {"statement_1": "no"}
    response = Client().post(f"/p/{participant.token}/consent/", data)
    participant.refresh_from_db()
    assert participant.consent_version is None


@pytest.mark.django_db
def test_consent_form_debriefing_and_withdrawal_say_the_same_about_the_data(client):
    study = make_study(items=1)
    participant = enter(client, study)
    said = en.DATA_USE.split(".")[1].strip()
    assert said in text_of(client.get(f"/p/{participant.token}/consent/"))
    consent(client, participant)
    assert said in text_of(client.get(f"/p/{participant.token}/withdraw/"))
    finish_all(client, participant, 1)
    done = text_of(client.get(f"/p/{participant.token}/done/"))
    assert said in done
    assert "they were the human translation with some of its words deliberately moved" in done


@pytest.mark.django_db
def test_a_pair_can_be_flagged_and_commented_with_or_without_javascript(client):
    study = make_study()
    participant = started(client, study)
    answer(client, participant, 1, holistic=3, note="1", flagged="1", comment=" Typo ")
    rating = Rating.objects.get(participant=participant, position=1)
    assert (rating.flagged, rating.comment) == (True, "Typo")
    html = client.get(item_url(participant, 1)).content.decode()
    assert 'name="flagged" value="1" checked' in html and 'value="Typo"' in html
    reply = answer(client, participant, 1, json=True, note="1", comment="")
    assert reply.json()["saved"] is True
    rating.refresh_from_db()
    assert (rating.flagged, rating.comment) == (False, "")


@pytest.mark.django_db
def test_head_answers_as_get_on_study_and_personal_links(client):
    study = make_study()
    participant = started(client, study)
    assert client.head(f"/s/{study.slug}/").status_code == 200
    assert client.head(f"/p/{participant.token}/")["Location"] == (
        f"/p/{participant.token}/instructions/"
    )
    assert client.head(f"/p/{participant.token}/instructions/").status_code == 200
    assert client.head(item_url(participant, 1)).status_code == 200
