"""The PostgreSQL backend's health check (wojdb/postgresql/base.py): a kept connection is used
without a `SELECT 1` first, and one the server has ended is opened again before a query fails.

Run with DATABASE_URL=postgres://postgres@127.0.0.1:5432/wojdb; skipped on SQLite."""

import time

import psycopg
import pytest
from django.conf import settings
from django.db import connection, connections

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        settings.DATABASES["default"]["ENGINE"] != "wojdb.postgresql",
        reason="needs PostgreSQL (set DATABASE_URL=postgres://…)",
    ),
]


@pytest.fixture
def round_trips(monkeypatch):
    """The health checks' `SELECT 1`s, counted."""
    sent = []
    wrapper = type(connections["default"])
    usable = wrapper.is_usable

    def counted(self):
        sent.append(self.connection.info.backend_pid)
        return usable(self)

    monkeypatch.setattr(wrapper, "is_usable", counted)
    return sent


def query() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def new_request() -> None:
    # What Django does when a request starts (the test client leaves it out).
    connection.close_if_unusable_or_obsolete()


@pytest.mark.django_db(transaction=True)
def test_a_kept_connection_is_used_without_a_round_trip_first(round_trips):
    assert settings.DATABASES["default"]["CONN_HEALTH_CHECKS"]
    backend = query()
    for _ in range(3):
        new_request()
        assert query() == backend
    assert round_trips == []


@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_ended_is_opened_again_before_the_query(round_trips):
    backend = query()
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [backend])
        for _ in range(100):  # until the backend is gone
            if not other.execute(
                "SELECT 1 FROM pg_stat_activity WHERE pid = %s", [backend]
            ).fetchone():
                break
            time.sleep(0.05)
    new_request()
    again = query()  # with Django's check left out, this fails: the connection is closed
    assert again != backend
    assert round_trips == [backend]
