"""Server time of the participant's requests, their queries, and the item page's weight.

Runs the full Django stack in-process (middleware, database, templates) on a fresh database,
SQLite in a temporary directory or, with --database postgres, a PostgreSQL database made for
the run on the server of DATABASE_URL (else 127.0.0.1:5432), after the start-up an app server
does (wojdb/serving.py):
one participant working through a 50-pair questionnaire (the item page and the answer save),
and new participants each coming in by the study link (from an address of their own, as a
crowd arrives) and going through every request of the entry path up to the practice answer.
The test client's template instrumentation (setup_test_environment), which copies every
context it renders, is left out: the server does not do it. CPU time is the figure to compare,
the machine being shared; on a PostgreSQL server of this host the CPU its processes spent
meanwhile is printed too ("db CPU": the query's backend and the WAL writer), the other half
of what a request costs the machine. Prints each request's median beside its target and the
figures of issue 30 ("then", "before"), the queries of each kind of request, and the page
weight with its assets (target: under 60 KB).

    .venv/bin/python bench/survey_page_bench.py [--rounds 3] [--entrants 60] [--profile KIND]
    .venv/bin/python bench/survey_page_bench.py --database postgres
    .venv/bin/python bench/survey_page_bench.py --word-marks

With --word-marks the studies ask for the words out of place too, and every save marks a word
other than the last save's (the costlier case: the words are checked against the sentence).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gzip
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode, urlsplit

ROOT = Path(__file__).resolve().parents[1]
# Server CPU milliseconds, median: the target, and the figures it was set from (issue 30: "then"
# when last measured, "before" on the shared machine when the issue was written).
TARGETS = {
    "first": ("item page, first showing", 3.0, "3.5", "9.4"),
    "revisit": ("item page, revisit", 3.0, "", ""),
    "save": ("save an answer", 2.0, "2.6", "6.6"),
}
ABOUT = {"languages-TOTAL_FORMS": "0", "languages-INITIAL_FORMS": "0"}
#: Whether the studies ask for the words out of place (--word-marks).
WORD_MARKS = False
# The entry path in order: kind -> (name, the request), each held to an item page's target but
# those whose reply brings the next page (the steps' forms and the practice answer, posted as
# the page's script posts them): a save's and a page's. Each step's page is also opened alone,
# as a resumed participant or a browser without the script opens it. `path` holds the study
# link, and from joining on the personal link and the practice item.
ENTRY_TARGET = 3.0
WITH_PAGE = TARGETS["save"][1] + TARGETS["first"][1]
JSON = {"HTTP_ACCEPT": "application/json"}
ENTRY_TARGETS = dict.fromkeys(("join", "consenting", "about_sent", "practice_answer"), WITH_PAGE)
ENTRY = {
    "link": ("study link", lambda client, path: client.get(path["s"])),
    "join": ("joining + consent form", lambda client, path: client.post(path["s"], **JSON)),
    "consent": ("consent form", lambda client, path: client.get(f"{path['p']}/consent/")),
    "consenting": (
        "consenting + about you",
        lambda client, path: client.post(
            f"{path['p']}/consent/", {"statement_1": "yes", "statement_2": "yes"}, **JSON
        ),
    ),
    "about": ("about you", lambda client, path: client.get(f"{path['p']}/about/")),
    "about_sent": (
        "about you + instructions",
        lambda client, path: client.post(f"{path['p']}/about/", ABOUT, **JSON),
    ),
    "instructions": ("instructions", lambda client, path: client.get(f"{path['p']}/instructions/")),
    "practice": ("practice pair", lambda client, path: client.get(f"{path['p']}/item/0/")),
    "practice_answer": (
        "practice answer + page",
        lambda client, path: save(client, path["token"], 0, path["sample"], "3", go="next"),
    ),
}


def setup_django(var_dir: str, database_url: str | None) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["WOJDB_HOME"] = var_dir
    os.environ.pop("DATABASE_URL", None)
    if database_url:
        os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
    import django
    from django.conf import settings

    django.setup()
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]  # the test client's
    # Static files straight from the app folders, without a collectstatic manifest.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


class DatabaseServer:
    """CPU time of a PostgreSQL server's processes on this host, from /proc/PID/schedstat
    (nanoseconds; /proc/PID/stat counts in 10 ms ticks). Its processes are those listed in
    pg_stat_activity: the backends and the background writers."""

    def __init__(self):
        self.pids: list[int] = []
        self.backend = None

    def seconds(self) -> float:
        from django.db import connection

        if connection.connection is None:
            return self._total()
        backend = connection.connection.info.backend_pid
        if backend != self.backend:  # a new connection: list the server's processes again
            self.backend = backend
            with connection.cursor() as cursor:
                cursor.execute("SELECT pid FROM pg_stat_activity")
                self.pids = [pid for (pid,) in cursor.fetchall()]
        return self._total()

    def _total(self) -> float:
        total = 0
        for pid in self.pids:
            with contextlib.suppress(OSError, ValueError):  # the process has ended
                total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
        return total / 1e9


DATABASE: DatabaseServer | None = None  # set where the database server runs on this host


def timed(call, profile: cProfile.Profile | None = None) -> tuple[tuple[float, ...], object]:
    """Wall-clock, CPU and database server CPU milliseconds of one call (CPU time is steadier
    on a busy machine), with the connection's checks a server makes at the start and the end
    of each request and the test client leaves out (the health check among them)."""
    from django.db import close_old_connections

    database = DATABASE.seconds() if DATABASE else 0.0
    wall, cpu = time.perf_counter(), time.thread_time()
    if profile:
        profile.enable()
    close_old_connections()
    result = call()
    close_old_connections()
    if profile:
        profile.disable()
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    database = DATABASE.seconds() - database if DATABASE else 0.0
    return (wall * 1000, cpu * 1000, database * 1000), result


def participant(client, study=None):
    """A participant of a (new) 50-pair study past consent and about-you: (token, position ->
    item id)."""
    from survey.models import Participant, QuestionnaireEntry

    study = study or new_study(questionnaires=1, items=50)
    start = client.post(f"/s/{study.slug}/")
    token = start["Location"].split("/")[2]
    client.post(f"/p/{token}/consent/", {"statement_1": "yes", "statement_2": "yes"})
    client.post(
        f"/p/{token}/about/", {"languages-TOTAL_FORMS": "0", "languages-INITIAL_FORMS": "0"}
    )
    questionnaire = Participant.objects.get(token=token).questionnaire
    entries = QuestionnaireEntry.objects.filter(questionnaire=questionnaire)
    return token, dict(entries.values_list("position", "item_id"))


def new_study(**fields):
    from tests.factories import make_study

    return make_study(word_marks=WORD_MARKS, **fields)


def save(client, token: str, position: int, item: int, value: str, go: str = "stay"):
    # Posted as the page's script posts it (URL-encoded), asking for JSON; the word marked is
    # the value's, a position every sentence of the factories has.
    data = {"item": item, "holistic": value, "order": value, "client_ms": "1500", "go": go}
    if WORD_MARKS:
        data |= {"marks_asked": "1", "marks": str(int(value) - 1)}
    return client.post(
        f"/p/{token}/item/{position}/",
        urlencode(data),
        content_type="application/x-www-form-urlencoded",
        HTTP_ACCEPT="application/json",
    )


def run(rounds: int, profiled: str) -> tuple[dict[str, list[tuple[float, ...]]], object]:
    from django.test import Client

    from wojdb.serving import prepare

    client = Client()
    token, items = participant(client)
    prepare()  # as an app server does before its first request
    profile = cProfile.Profile()
    times: dict[str, list[tuple[float, ...]]] = {"first": [], "revisit": [], "save": []}
    for round_number in range(rounds):
        kind = "first" if round_number == 0 else "revisit"
        for position, item in sorted(items.items()):
            url = f"/p/{token}/item/{position}/"
            ms, response = timed(
                lambda url=url: client.get(url), profile if profiled == kind else None
            )
            assert response.status_code == 200, response.status_code
            times[kind].append(ms)
            value = str((position + round_number) % 5 + 1)
            ms, response = timed(
                lambda p=position, i=item, v=value: save(client, token, p, i, v),
                profile if profiled == "save" else None,
            )
            assert response.json()["saved"], response.content
            times["save"].append(ms)
    return times, profile


def entrant(number: int):
    """A browser of its own, from an address of its own (the study link's rate limit is per
    address), served by the one handler an app server has: a client's own handler loads the
    middleware again, whose static files' scan (whitenoise, once collectstatic has run) costs
    some 15 ms, once a process in a server."""
    from django.test import Client

    client = Client(REMOTE_ADDR=f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}")
    if HANDLER:
        client.handler = HANDLER[0]
    else:
        HANDLER.append(client.handler)
    return client


HANDLER: list = []  # the first entrant's, shared by the others


def enter(client, study, measure=lambda kind, call: call()) -> None:
    """One new participant through the entry path, each request sent by `measure(kind, call)`,
    which returns its response."""
    path = {"s": f"/s/{study.slug}/", "sample": study.sample_item_id}
    for kind, (_, request) in ENTRY.items():
        response = measure(kind, lambda r=request: r(client, path))
        assert response.status_code == 200, (kind, response.status_code)
        if kind == "join":
            path["token"] = response.json()["next"].split("/")[2]
            path["p"] = f"/p/{path['token']}"


def run_entry(entrants: int, profiled: str) -> tuple[dict[str, list[tuple[float, ...]]], object]:
    """`entrants` new participants of a launched study with 4 questionnaires of 50 pairs."""
    study = new_study(questionnaires=4, items=50)
    enter(entrant(0), study)  # the process has served the study before
    profile = cProfile.Profile()
    times: dict[str, list[tuple[float, ...]]] = {kind: [] for kind in ENTRY}

    def timing(kind: str, call):
        ms, response = timed(call, profile if profiled == kind else None)
        times[kind].append(ms)
        return response

    for number in range(1, entrants + 1):
        enter(entrant(number), study, timing)
    return times, profile


def queries_made() -> dict[str, list[str]]:
    """The SQL of each kind of request, for a new participant of a study the process has
    served before (tests/survey/test_query_counts.py holds their counts)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    study = new_study(questionnaires=1, items=50)
    client = Client()
    token, items = participant(client, study)
    client.get(f"/p/{token}/item/1/")  # the study and its questionnaire are kept from here on
    made = {}

    def recording(kind: str, call):
        with CaptureQueriesContext(connection) as queries:
            response = call()
        made[kind] = [query["sql"] for query in queries]
        return response

    recording("first", lambda: client.get(f"/p/{token}/item/2/"))
    recording("revisit", lambda: client.get(f"/p/{token}/item/2/"))
    recording("save", lambda: save(client, token, 2, items[2], "3"))
    enter(entrant(1), study, recording)
    return made


def page_weight() -> tuple[int, int]:
    """Bytes of a typical item page plus the assets it loads (raw and gzipped)."""
    import re

    from django.contrib.staticfiles import finders
    from django.test import Client

    from survey.models import Participant

    participant = Participant.objects.first()
    html = Client().get(f"/p/{participant.token}/item/25/").content
    assets = re.findall(rb'(?:href|src)="/static/([^"]+)"', html)
    bodies = [html] + [Path(finders.find(a.decode())).read_bytes() for a in assets]
    return sum(map(len, bodies)), sum(len(gzip.compress(b)) for b in bodies)


def main() -> None:
    global DATABASE, WORD_MARKS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the 50 pairs")
    parser.add_argument("--entrants", type=int, default=60, help="new participants timed")
    parser.add_argument(
        "--profile",
        choices=[*TARGETS, *ENTRY],
        help="profile one kind of request and print where",
    )
    parser.add_argument("--queries", action="store_true", help="print each request's SQL")
    parser.add_argument(
        "--word-marks", action="store_true", help="studies asking for the words out of place"
    )
    args = parser.parse_args()
    WORD_MARKS = args.word_marks
    server = pg_name = None
    if args.database == "postgres":
        from load_test import POSTGRES, postgres_command

        server, pg_name = POSTGRES, f"wojdb_bench_{os.getpid()}"
        postgres_command(f'CREATE DATABASE "{pg_name}"')
        local = urlsplit(server).hostname in ("127.0.0.1", "localhost", "::1")
        DATABASE = DatabaseServer() if local else None
    try:
        with tempfile.TemporaryDirectory(prefix="wojdb-bench-") as var_dir:
            setup_django(var_dir, f"{server}/{pg_name}" if pg_name else None)
            times, profile = run(max(args.rounds, 2), args.profile)
            entry_times, entry_profile = run_entry(max(args.entrants, 1), args.profile)
            queries = queries_made()
            raw, compressed = page_weight()
    finally:
        if pg_name:
            from django.db import connections

            connections.close_all()
            postgres_command(f'DROP DATABASE IF EXISTS "{pg_name}" WITH (FORCE)')
    from django.db import connection

    times |= entry_times
    rows = [(kind, *row) for kind, row in TARGETS.items()]
    rows += [
        (kind, name, ENTRY_TARGETS.get(kind, ENTRY_TARGET), "", "")
        for kind, (name, _) in ENTRY.items()
    ]
    print(
        f"database: {connection.vendor}, 50 pairs, {len(times['save'])} saves, "
        f"{len(times['join'])} entrants"
    )
    database = " db CPU " if DATABASE else ""
    print(
        f"request                   median wall   median CPU  min CPU {database} target CPU"
        "  then  before"
    )
    for kind, name, target, then, before in rows:
        wall = statistics.median(t[0] for t in times[kind])
        cpu = statistics.median(t[1] for t in times[kind])
        low = min(t[1] for t in times[kind])
        db = f"{statistics.median(t[2] for t in times[kind]):5.2f} ms " if DATABASE else ""
        verdict = "met" if cpu <= target else "NOT MET"
        print(
            f"{name:25} {wall:8.2f} ms {cpu:9.2f} ms {low:6.2f} ms {db} <= {target:.0f} ms "
            f"{then:>6} {before:>6}  {verdict}, {len(queries[kind])} queries"
        )
    if args.database == "postgres" and not DATABASE:
        print(f"db CPU: not measured, the database server ({server}) is not on this host")
    print(f"page weight with assets:  {raw / 1024:.1f} KB ({compressed / 1024:.1f} KB gzipped)")
    if args.queries:
        for kind, made in queries.items():
            print(f"\n{kind}:", *(f"  {sql}" for sql in made), sep="\n")
    if args.profile:
        chosen = entry_profile if args.profile in ENTRY else profile
        pstats.Stats(chosen).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
