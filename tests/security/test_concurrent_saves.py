"""Answers posted at the same moment, as after a double click, a retry racing its original, or
two open tabs: one stored rating, never a lost update, never a spurious revision. Runs on
SQLite and, in CI, on PostgreSQL, each thread on its own database connection."""

from __future__ import annotations

import sys
import threading
import time

import pytest
from django.db import connection
from django.test import Client

from survey.models import EntryCount, Rating
from tests.factories import make_study
from tests.security.flow import JSON, item_id, item_url, started

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:No directory at:UserWarning"),
]

SENDERS = 12


def at_once(posts: list[dict], url: str) -> list:
    """Send each post from its own thread and connection, all released together."""
    start = threading.Barrier(len(posts))
    replies: list = [None] * len(posts)
    spans: list[tuple[float, float]] = []

    def send(n: int) -> None:
        try:
            # Each client's handler loads the middleware on its first request: done before the
            # start, so that the posts themselves are what runs at once.
            client = Client()
            client.handler.load_middleware()
            start.wait()
            began = time.monotonic()
            replies[n] = client.post(url, posts[n], **JSON)
            spans.append((began, time.monotonic()))
        except Exception as error:  # kept: an exception in a thread would be lost
            replies[n] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(n,)) for n in range(len(posts))]
    # Python hands its lock between threads every 5 ms by default, long enough for one post to
    # finish before the next begins on a busy machine: a short interval makes them interleave.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        sys.setswitchinterval(interval)
    assert not any(thread.is_alive() for thread in threads)
    errors = [r for r in replies if isinstance(r, Exception)]
    assert not errors, errors
    first_end = min(end for _, end in spans)
    assert sum(began < first_end for began, _ in spans) > 1, "the posts did not overlap"
    return replies


def test_the_same_answer_sent_many_times_at_once_is_stored_once():
    participant = started(Client(), make_study())
    item = item_id(participant, 1)
    assert not Rating.objects.filter(participant=participant, item_id=item).exists()
    post = {"item": item, "holistic": "4", "was_holistic": "", "order": "2", "was_order": ""}
    replies = at_once([post] * SENDERS, item_url(participant, 1))
    assert [r.status_code for r in replies] == [200] * SENDERS
    assert all(r.json()["saved"] and r.json()["revisions"] == 0 for r in replies)
    rating = Rating.objects.get(participant=participant, item_id=item)
    assert (rating.holistic, rating.order, rating.revisions) == (4, 2, 0)


def test_different_answers_from_stale_pages_at_once_keep_exactly_one():
    """Every sender saw the question unanswered; the first save wins, the others are told of
    the conflict and change nothing."""
    participant = started(Client(), make_study())
    item = item_id(participant, 1)
    posts = [{"item": item, "holistic": str(1 + n % 5), "was_holistic": ""} for n in range(SENDERS)]
    replies = at_once(posts, item_url(participant, 1))
    saved = [r.json() for r in replies if r.status_code == 200]
    conflicts = [r.json() for r in replies if r.status_code == 409]
    assert len(saved) + len(conflicts) == SENDERS
    rating = Rating.objects.get(participant=participant, item_id=item)
    assert {s["holistic"] for s in saved} == {rating.holistic}
    assert all(c["reason"] == "conflict" and c["holistic"] == rating.holistic for c in conflicts)
    assert rating.revisions == 0
    winners = [p for p in posts if p["holistic"] == str(rating.holistic)]
    assert len(saved) == len(winners)  # only identical posts could also succeed


def test_study_link_requests_at_once_are_each_counted_once(settings):
    # The rate limit's count is shared by every worker and app server: simultaneous requests
    # from one address, each on its own connection, neither lose a count nor share one.
    settings.WOJDB_ENTRY_RATE = (SENDERS - 1, 600)
    study = make_study()
    start = threading.Barrier(SENDERS)
    statuses: list = []

    def visit() -> None:
        try:
            start.wait()
            statuses.append(Client().get(f"/s/{study.slug}/").status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=visit) for _ in range(SENDERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(statuses) == [200] * (SENDERS - 1) + [429]
    assert EntryCount.objects.get().count == SENDERS
