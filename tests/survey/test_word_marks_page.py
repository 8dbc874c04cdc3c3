"""The words out of place on the participant pages (a study with `word_marks`), without
JavaScript: one box per unit of the first sentence, posted, checked, stored and required to move
on; a study without the setting is left as it was."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from survey.models import Permutation, Rating, Study
from survey.participants import participation
from tests.factories import make_study
from tests.survey.test_participant_views import JSON, entry_item, item_url, started, text_of

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]
QUESTION = "Which words of the first sentence are out of place?"
EVERY = "Please answer every question about this pair before moving on."


def answer(client, participant, position, json=False, **values):
    """A post of the item page, as its form sends it (`marks` may be several positions)."""
    item = participant.study.sample_item if position == 0 else entry_item(participant, position)
    data = {"item": item.pk, **values}
    return client.post(item_url(participant, position), data, **(JSON if json else {}))


def marks_study(**fields) -> Study:
    return make_study(items=2, word_marks=True, **fields)


def underlined(html: str) -> list[str]:
    """The values of the word boxes shown as the practice pair's truth."""
    return re.findall(
        r'<label class="mark truth"><input type="checkbox" name="marks" value="(\d+)"', html
    )


def boxes(html: str) -> list[tuple[str, str, bool]]:
    """The word boxes of a page: (value, the word labelling it, ticked)."""
    found = re.findall(
        r'<label class="mark(?: truth)?"><input type="checkbox" name="marks" '
        r'value="(\d+)"( checked)?>'
        r"<span>([^<]*)</span></label>",
        html,
    )
    return [(value, word, bool(checked)) for value, checked, word in found]


def marks_of(participant, position):
    return Rating.objects.get(participant=participant, position=position).marks


def test_a_study_without_word_marks_asks_nothing_more(client):
    study = make_study(items=2)
    person = started(client, study)
    html = client.get(item_url(person, 1)).content.decode()
    assert QUESTION not in html and 'name="marks' not in html
    answer(client, person, 1, holistic=3, order=4, marks="0", marks_asked="1", go="stay")
    assert marks_of(person, 1) is None  # the study does not ask, whatever is posted


def test_each_word_of_the_first_sentence_is_a_box_labelled_by_the_word(client):
    study = marks_study()
    person = started(client, study)
    item = entry_item(person, 1)
    html = client.get(item_url(person, 1)).content.decode()
    assert QUESTION in text_of(client.get(item_url(person, 1)))
    words = item.text.split()
    assert boxes(html) == [(str(n), word, False) for n, word in enumerate(words)]
    assert 'name="marks_none" value="1">' in html
    assert 'dir="ltr"' in html and f'lang="{study.language}"' in html


def test_marked_words_are_saved_with_the_word_and_the_time_and_shown_again(client):
    study = marks_study()
    person = started(client, study)
    words = entry_item(person, 1).text.split()
    before = timezone.now()
    response = answer(
        client, person, 1, holistic=3, order=4, marks_asked="1", go="next", marks=["3", "1"]
    )
    assert response["Location"] == item_url(person, 2)
    marks = marks_of(person, 1)
    assert [(p, w) for p, w, _ in marks] == [(1, words[1]), (3, words[3])]
    for _, _, when in marks:
        assert before <= timezone.datetime.fromisoformat(when) <= timezone.now()
    shown = boxes(client.get(item_url(person, 1)).content.decode())
    assert [value for value, _, ticked in shown if ticked] == ["1", "3"]


def test_a_word_still_marked_keeps_its_time_and_a_change_is_a_revision(client):
    study = marks_study()
    person = started(client, study)
    answer(client, person, 1, holistic=3, order=4, marks_asked="1", marks=["1", "3"])
    first = {p: when for p, _, when in marks_of(person, 1)}
    assert Rating.objects.get(participant=person, position=1).revisions == 0
    answer(client, person, 1, marks_asked="1", marks=["3", "4"])
    again = {p: when for p, _, when in marks_of(person, 1)}
    assert sorted(again) == [3, 4]
    assert again[3] == first[3] and again[4] >= first[3]
    assert Rating.objects.get(participant=person, position=1).revisions == 1
    answer(client, person, 1, marks_asked="1", marks=["3", "4"])  # the same again: no change
    assert Rating.objects.get(participant=person, position=1).revisions == 1


def test_no_word_out_of_place_is_an_answer_and_nothing_ticked_is_none(client):
    study = marks_study()
    person = started(client, study)
    answer(client, person, 1, holistic=3, order=4, marks_asked="1", marks_none="1")
    assert marks_of(person, 1) == []
    html = client.get(item_url(person, 1)).content.decode()
    assert 'name="marks_none" value="1" checked>' in html
    assert 'name="was_marks" value="none"' in html
    answer(client, person, 1, marks_asked="1")  # every box unticked: no longer answered
    assert marks_of(person, 1) is None
    answer(client, person, 1, holistic=2)  # a page that did not ask leaves the marks alone
    assert marks_of(person, 1) is None


def test_words_and_none_together_are_refused_and_nothing_saved(client):
    study = marks_study()
    person = started(client, study)
    response = answer(
        client, person, 1, holistic=3, marks_asked="1", marks_none="1", marks="2", go="next"
    )
    assert response.status_code == 400
    assert (
        "Some words are marked out of place and “No word is out of place” is ticked too: "
        "please choose one or the other." in text_of(response)
    )
    assert not Rating.objects.filter(participant=person, position=1, holistic=3).exists()


@pytest.mark.parametrize(
    "posted, message",
    [
        ("99", "word 99 is not in the first sentence, which has 7"),
        ("7", "word 7 is not in the first sentence, which has 7"),
        ("-1", "the words marked out of place"),
        ("two", "the words marked out of place"),
        ("٣", "the words marked out of place"),
    ],
)
def test_a_position_outside_the_sentence_or_not_a_number_is_refused(client, posted, message):
    study = marks_study()
    person = started(client, study)
    triple = entry_item(person, 1).triple  # a machine translation of 7 words
    triple.hypothesis = "The cat sat on the mat ."
    triple.save()
    response = answer(client, person, 1, holistic=3, marks_asked="1", marks=["1", posted])
    assert response.status_code == 400
    assert message in text_of(response)
    rating = Rating.objects.filter(participant=person, position=1).first()
    assert rating is None or (rating.holistic, rating.marks) == (None, None)


def test_moving_on_needs_the_words_or_none(client):
    study = marks_study()
    person = started(client, study)
    response = answer(client, person, 1, holistic=3, order=4, marks_asked="1", go="next")
    assert response["Location"] == item_url(person, 1) + "?unanswered=1"
    html = client.get(response["Location"]).content.decode()
    assert EVERY in text_of(client.get(response["Location"]))
    assert '<fieldset class="scale marks missing" data-marks' in html
    assert '<fieldset class="scale missing"' not in html  # both scales are answered
    assert answer(client, person, 1, go="back")["Location"] == item_url(person, 0)
    response = answer(client, person, 1, marks_asked="1", marks_none="1", go="next")
    assert response["Location"] == item_url(person, 2)


def test_a_study_letting_scales_be_skipped_still_needs_the_words(client):
    study = marks_study(require_both_answers=False)
    person = started(client, study)
    response = answer(client, person, 1, holistic=3, marks_asked="1", go="next")
    assert response["Location"] == item_url(person, 1) + "?unanswered=1"
    response = answer(client, person, 1, marks_asked="1", marks="0", go="next")
    assert response["Location"] == item_url(person, 2)


def test_the_page_script_is_told_the_marks_and_what_is_missing(client):
    study = marks_study()
    person = started(client, study)
    response = answer(client, person, 1, json=True, holistic=5, order=2, marks_asked="1", go="next")
    assert response.status_code == 400
    assert response.json() == {
        "saved": True,
        "reason": "incomplete",
        "message": EVERY,
        "missing": ["marks"],
        "revisions": 0,
        "holistic": 5,
        "order": 2,
        "marks": None,
    }
    response = answer(client, person, 1, json=True, marks_asked="1", marks=["4", "2"], go="next")
    reply = response.json()
    assert "Pair 2 of " in reply.pop("page")  # the next pair's, shown in place
    assert reply == {
        "saved": True,
        "revisions": 0,
        "holistic": 5,
        "order": 2,
        "marks": [2, 4],
        "next": item_url(person, 2),
    }


def test_a_stale_page_cannot_overwrite_newer_marks_silently(client):
    study = marks_study()
    person = started(client, study)
    answer(client, person, 1, marks_asked="1", marks="1", was_marks="")
    # Another window, showing word 1, marks 2 instead.
    answer(client, person, 1, marks_asked="1", marks="2", was_marks="1")
    # The first window, still showing only word 1 marked, adds word 3.
    response = answer(
        client, person, 1, json=True, marks_asked="1", marks=["1", "3"], was_marks="1"
    )
    assert response.status_code == 409
    assert response.json()["marks"] == [2]
    assert [p for p, _, _ in marks_of(person, 1)] == [2]


def test_the_counts_of_answered_pairs_need_the_words(client):
    study = marks_study()
    person = started(client, study)
    answer(client, person, 1, holistic=3, order=4, marks_asked="1", marks="0")
    answer(client, person, 2, holistic=3, order=4)
    progress = participation.progress(person)
    assert (progress.answered, progress.unanswered) == (1, [(2, ["marks"])])
    assert "question 3 not answered" in text_of(client.get(f"/p/{person.token}/review/"))


def test_a_language_written_without_spaces_marks_characters_shown_without_spaces(client):
    study = marks_study(language="zh")
    person = started(client, study)
    item = entry_item(person, 1)
    item.triple.hypothesis = "我 今天 去 学校。"
    item.triple.save()
    html = client.get(item_url(person, 1)).content.decode()
    assert [word for _, word, _ in boxes(html)] == ["我", "今", "天", "去", "学", "校", "。"]
    assert "</label><label" in html  # no space between the characters
    answer(client, person, 1, marks_asked="1", marks=["1", "2"])
    assert [(p, w) for p, w, _ in marks_of(person, 1)] == [(1, "今"), (2, "天")]


def test_a_right_to_left_language_sets_the_words_right_to_left(client):
    study = marks_study(language="ar")
    person = started(client, study)
    item = entry_item(person, 1)
    item.triple.hypothesis = "ذهب الولد إلى المدرسة"
    item.triple.save()
    html = client.get(item_url(person, 1)).content.decode()
    assert 'lang="ar" dir="rtl" data-marks-words' in html
    assert [word for _, word, _ in boxes(html)] == ["ذهب", "الولد", "إلى", "المدرسة"]


def test_the_practice_feedback_names_the_words_its_permutation_moved(client):
    study = marks_study()
    permuted = entry_item(participation_of(study), 2)
    Study.objects.filter(pk=study.pk).update(sample_item=permuted)
    Permutation.objects.filter(pk=permuted.permutation_id).update(displaced=[0, 1])
    person = started(client, study)
    response = answer(client, person, 0, holistic=3, order=3, marks_asked="1", go="next")
    assert response["Location"] == item_url(person, 0) + "?unanswered=1"  # the words first
    response = answer(client, person, 0, marks_asked="1", marks="4", go="next")
    assert response["Location"] == item_url(person, 0) + "?feedback=1"
    page = client.get(response["Location"])
    first, second = permuted.permutation.tokens[:2]
    assert f"The words out of place in the first sentence are: “{first}”, “{second}”." in (
        text_of(page)
    )
    assert underlined(page.content.decode()) == ["0", "1"]  # on the sentence itself too
    # A real pair says nothing of the kind.
    answer(client, person, 0, go="start")
    answer(client, person, 1, holistic=3, order=3, marks_asked="1", marks="0", go="stay")
    assert "out of place in the first sentence are" not in text_of(client.get(item_url(person, 1)))


def test_a_machine_translated_practice_pair_gives_no_words_as_the_truth(client):
    study = marks_study()
    person = started(client, study)
    answer(client, person, 0, holistic=3, order=3, marks_asked="1", marks_none="1", go="next")
    page = text_of(client.get(item_url(person, 0) + "?feedback=1"))
    assert "Mark the words that you find out of place in the first sentence" in page
    assert "out of place in the first sentence are" not in page


@pytest.mark.parametrize("page", ["instructions/", "information/", None])
def test_the_task_mentions_the_words_only_where_asked(client, page):
    """The instructions and the information sheet (on the study link and from every page)."""
    sentence = "you will also mark the words of the first sentence that are out of place"
    for study, shown in ((marks_study(), True), (make_study(items=2), False)):
        if page is None:
            address = f"/s/{study.slug}/"
        else:
            address = f"/p/{started(client, study).token}/{page}"
        assert (sentence in text_of(Client().get(address))) is shown


def test_an_expired_page_shows_the_words_that_were_sent(client):
    from django.test import Client

    study = marks_study()
    person = started(client, study)
    item = entry_item(person, 1)
    data = {"item": item.pk, "marks_asked": "1", "marks": ["2"]}
    response = Client(enforce_csrf_checks=True).post(item_url(person, 1), data)
    assert response.status_code == 403
    shown = boxes(response.content.decode())
    assert [value for value, _, ticked in shown if ticked] == ["2"]
    assert marks_of(person, 1) is None


def participation_of(study):
    from survey.models import Participant

    return Participant(questionnaire=study.questionnaires.first())


def test_the_marks_times_are_iso_times_of_the_server(client):
    study = marks_study()
    person = started(client, study)
    answer(client, person, 1, marks_asked="1", marks="0")
    ((_, _, when),) = marks_of(person, 1)
    assert abs(timezone.datetime.fromisoformat(when) - timezone.now()) < timedelta(minutes=1)


def test_a_preview_shows_the_words_question_read_only(client):
    study = make_study(items=2, platform="mturk", word_marks=True)
    page = client.get(f"/s/{study.slug}/", {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE"})
    html = page.content.decode()
    assert QUESTION in text_of(page)
    words = study.sample_item.text.split()
    assert boxes(html) == [(str(n), word, False) for n, word in enumerate(words)]
    # Within the disabled questions, as the scales are: their fieldset closes after the words.
    sample = html.index('<fieldset class="sample" disabled>')
    assert sample < html.index("data-marks-words") < html.rindex("</fieldset>\n\n  </fieldset>")
    # Without the setting, nothing of it.
    plain = make_study(items=2, platform="mturk")
    page = client.get(f"/s/{plain.slug}/", {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE"})
    assert QUESTION not in text_of(page)
