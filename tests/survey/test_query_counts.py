"""The queries of each participant request, held to what they are now.

Every page of the participant's path and every answer save is served from a handful of queries
(bench/survey_page_bench.py measures their cost); these tests fail when a change adds one. Counts
are those of a process that has served the study before, as an app server has: the study, its
questionnaire and, for a real participant, its items' sentences are then kept in memory
(survey/participants/study_cache.py). They are counted on
SQLite, where a write transaction's BEGIN and COMMIT (in tests, a savepoint and its release) are
queries; on PostgreSQL they are not, so there are fewer.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from survey.models import Participant
from survey.participants import study_cache
from tests.factories import make_study

JSON = {"HTTP_ACCEPT": "application/json"}
ABOUT = {"languages-TOTAL_FORMS": "0", "languages-INITIAL_FORMS": "0"}


def answer(position: int, value: str, go: str = "stay"):
    def post(client, path):
        item = path["items"][position]
        data = {"item": item, "holistic": value, "order": value, "go": go}
        return client.post(f"{path['p']}/item/{position}/", data, **JSON)

    return post


# (request, most queries, the request); `path` holds the participant's link and items.
# The study link counts the address's requests (the rate limit), then reads the study's
# revision and whether it has a questionnaire to hand out. Joining adds a transaction that
# locks the study, reads each questionnaire's kept count of participants, raises the one chosen
# and adds the new one; counting them afresh is three more, and marking idle participants
# abandoned one, once a minute (here it was done already).
STEPS = [
    ("study link", 2, lambda client, path: client.get(path["s"])),
    ("joining from the study link", 8, lambda client, path: client.post(path["s"])),
    ("information sheet", 1, lambda client, path: client.get(f"{path['p']}/information/")),
    ("consent form", 2, lambda client, path: client.get(f"{path['p']}/consent/")),
    (
        "consenting",
        4,
        lambda client, path: client.post(
            f"{path['p']}/consent/", {"statement_1": "yes", "statement_2": "yes"}
        ),
    ),
    ("about you", 2, lambda client, path: client.get(f"{path['p']}/about/")),
    ("about you, sent", 5, lambda client, path: client.post(f"{path['p']}/about/", ABOUT)),
    ("instructions", 1, lambda client, path: client.get(f"{path['p']}/instructions/")),
    ("practice pair", 3, lambda client, path: client.get(f"{path['p']}/item/0/")),
    # The practice pair checked: the reply brings its page with the feedback (its rating read
    # again as an item page reads it; the page's GET is then not made).
    ("practice answer", 4, answer(0, "3", go="next")),
    ("item page, first showing", 3, lambda client, path: client.get(f"{path['p']}/item/1/")),
    ("answer save", 2, answer(1, "4")),
    # Changed and moving on: the reply brings the next pair's page, whose rating is made and
    # where the participant is recorded (the page's GET, three queries, is then not made).
    ("answer changed, moving on", 4, answer(1, "5", go="next")),
    ("item page, next pair", 3, lambda client, path: client.get(f"{path['p']}/item/2/")),
    ("item page, revisit", 3, lambda client, path: client.get(f"{path['p']}/item/1/")),
    ("review", 3, lambda client, path: client.get(f"{path['p']}/review/")),
    ("finishing", 3, lambda client, path: client.post(f"{path['p']}/review/")),
    ("done", 2, lambda client, path: client.get(f"{path['p']}/done/")),
]


# The steps before the pairs as the page's script posts them: each reply brings the next step's
# page, whose GET (the participant read, and what the page shows) is then not made
# (views.moved_on): joining reads the consent text, consenting the languages given before.
SCRIPT_STEPS = [
    STEPS[0],
    ("joining, the consent form with it", 9, lambda client, path: client.post(path["s"], **JSON)),
    (
        "consenting, about you with it",
        5,
        lambda client, path: client.post(
            f"{path['p']}/consent/", {"statement_1": "yes", "statement_2": "yes"}, **JSON
        ),
    ),
    (
        "about you sent, the instructions with it",
        5,
        lambda client, path: client.post(f"{path['p']}/about/", ABOUT, **JSON),
    ),
]
# The rest of the way as the page's script takes it: the last pair's answer brings the final
# check (its progress read and the participant's position recorded, where the save and the
# page's GET made 2 + 3), and finishing brings the debriefing (where the redirect made 3 + 2).
SCRIPT_STEPS += [
    *STEPS[7:15],
    ("item page, last pair", 3, lambda client, path: client.get(f"{path['p']}/item/3/")),
    ("last answer, the final check with it", 4, answer(3, "2", go="next")),
    (
        "finishing, the debriefing with it",
        4,
        lambda client, path: client.post(f"{path['p']}/review/", **JSON),
    ),
]
JOINING = ("joining from the study link", "joining, the consent form with it")


def walk(study, checked: str = "", assert_queries=None, steps=STEPS) -> None:
    """One participant through every step; the step `checked` within its number of queries."""
    client, path = Client(), {"s": f"/s/{study.slug}/"}
    for name, most, request in steps:
        if name == checked:
            with assert_queries(most):
                response = request(client, path)
        else:
            response = request(client, path)
        assert response.status_code in (200, 302), (name, response.status_code)
        if name in JOINING:
            led_to = response.json()["next"] if name == JOINING[1] else response["Location"]
            token = led_to.split("/")[2]
            questionnaire = Participant.objects.get(token=token).questionnaire
            entries = questionnaire.entries.values_list("position", "item_id")
            path |= {"p": f"/p/{token}", "items": dict(entries) | {0: study.sample_item_id}}


@pytest.mark.parametrize("step", [name for name, _, _ in STEPS])
def test_each_participant_request_keeps_to_its_queries(db, step, django_assert_max_num_queries):
    study = make_study(questionnaires=1, items=3)
    walk(study)  # an earlier participant: the process has served the study
    walk(study, step, django_assert_max_num_queries)


@pytest.mark.parametrize("step", [name for name, _, _ in SCRIPT_STEPS[1:]])
def test_each_step_posted_by_the_script_keeps_to_its_queries(
    db, step, django_assert_max_num_queries
):
    study = make_study(questionnaires=1, items=3)
    walk(study, steps=SCRIPT_STEPS)
    walk(study, step, django_assert_max_num_queries, steps=SCRIPT_STEPS)


def queries_of_a_walk(study) -> int:
    with CaptureQueriesContext(connection) as queries:
        walk(study)
    return len(queries)


def test_a_process_new_to_the_study_reads_it_its_questionnaire_and_its_items_once(db):
    study = make_study(questionnaires=1, items=3)
    walk(study)
    served = queries_of_a_walk(study)
    study_cache.clear()  # as in another process, or after a restart
    # The study, its questionnaire, and the three items the walk shows (the practice pair's,
    # pairs 1 and 2).
    assert queries_of_a_walk(study) == served + 2 + 3


def marked(position: int, words: list[str], go: str = "stay"):
    """An answer of a study with word marks: both scales and the words (or "none")."""

    def post(client, path):
        item = path["items"][position]
        data = {"item": item, "holistic": "3", "order": "3", "go": go, "marks_asked": "1"}
        data |= {"marks_none": "1"} if words == ["none"] else {"marks": words}
        return client.post(f"{path['p']}/item/{position}/", data, **JSON)

    return post


# A study with word marks: its pages are read as the others; a save that marks a new word checks
# it against the item's first sentence, which the process keeps since the pair was shown.
MARKS_STEPS = {
    "practice answer": (4, marked(0, ["none"], go="next")),
    "item page, first showing": (3, None),
    "answer save": (2, marked(1, ["0", "2"])),
    "answer changed, moving on": (4, marked(1, ["0", "2"], go="next")),
    "item page, next pair": (3, None),
    "item page, revisit": (3, None),
}


def with_marks(name, most, request):
    """A step of STEPS as a study with word marks takes it."""
    most, posted = MARKS_STEPS.get(name, (most, None))
    return name, most, posted or request


@pytest.mark.parametrize("step", list(MARKS_STEPS))
def test_a_study_with_word_marks_keeps_to_its_queries(db, step, django_assert_max_num_queries):
    study = make_study(questionnaires=1, items=3, word_marks=True)
    steps = [with_marks(*step) for step in STEPS]
    walk(study, steps=steps)
    walk(study, step, django_assert_max_num_queries, steps=steps)
