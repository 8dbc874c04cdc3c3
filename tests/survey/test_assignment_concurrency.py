"""Balanced assignment under concurrent joins, on a real PostgreSQL database.

Run with DATABASE_URL=postgres://postgres@127.0.0.1:5432/wojdb; on SQLite the test is skipped
(SQLite serialises writers by design, so there is no race to test).
"""

import math
import threading
from collections import Counter

import pytest
from django.conf import settings
from django.db import connection

from survey.models import Participant
from survey.participants.assignment import enrol
from tests.factories import make_study

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "wojdb.postgresql",
        reason="needs PostgreSQL (set DATABASE_URL=postgres://…)",
    ),
]

JOINS = 100
QUESTIONNAIRES = 36
# PostgreSQL allows 100 connections by default, shared with everything else on the server, so
# at most this many joins hold a connection at once; the others queue, as behind a pool.
CONNECTIONS = 40


@pytest.mark.django_db(transaction=True)
def test_100_concurrent_joins_leave_questionnaires_balanced():
    study = make_study(questionnaires=QUESTIONNAIRES, items=2)
    start = threading.Barrier(JOINS)
    slots = threading.BoundedSemaphore(CONNECTIONS)
    lock = threading.Lock()
    inside, peak, errors = 0, 0, []

    def join():
        nonlocal inside, peak
        start.wait()
        with slots:
            with lock:
                inside += 1
                peak = max(peak, inside)
            try:
                enrol(study)  # on this thread's own connection
            except Exception as e:  # collected: an exception in a thread would be lost
                errors.append(e)
            finally:
                with lock:
                    inside -= 1
                connection.close()

    threads = [threading.Thread(target=join) for _ in range(JOINS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert peak > 1, "the joins did overlap"

    counts = Counter(
        Participant.objects.filter(study=study).values_list("questionnaire__number", flat=True)
    )
    per_questionnaire = [counts[n] for n in range(1, QUESTIONNAIRES + 1)]
    assert sum(per_questionnaire) == JOINS
    assert max(per_questionnaire) - min(per_questionnaire) <= 1
    # 100 over 36: 28 questionnaires get 3, 8 get 2; none more than its share.
    assert max(per_questionnaire) <= math.ceil(JOINS / QUESTIONNAIRES) == 3
    assert Counter(per_questionnaire) == {3: 28, 2: 8}
