"""Server time of the participant's item page and answer save, and the item page's weight.

Runs the full Django stack in-process (middleware, database, templates) on a fresh SQLite
database in a temporary directory, with one participant working through a 50-pair
questionnaire. Prints medians (targets: under 20 ms each) and the page weight with its assets
(target: under 60 KB).

    .venv/bin/python bench/survey_page_bench.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import gzip
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def setup_django(var_dir: str) -> None:
    sys.path.insert(0, str(ROOT))
    os.environ["WOJDB_HOME"] = var_dir
    os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
    import django
    from django.conf import settings

    django.setup()
    # Static files straight from the app folders, without a collectstatic manifest.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()  # lets the test client's host in
    call_command("migrate", verbosity=0)


def timed(call) -> tuple[tuple[float, float], object]:
    """Wall-clock and CPU milliseconds of one call (CPU time is steadier on a busy machine)."""
    wall, cpu = time.perf_counter(), time.thread_time()
    result = call()
    return ((time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000), result


def run(rounds: int) -> dict[str, list[tuple[float, float]]]:
    from django.test import Client

    from survey.models import Participant, QuestionnaireEntry
    from tests.factories import make_study

    study = make_study(questionnaires=1, items=50)
    client = Client()
    start = client.post(f"/s/{study.slug}/")
    token = start["Location"].split("/")[2]
    client.post(f"/p/{token}/consent/", {"statement_1": "yes", "statement_2": "yes"})
    client.post(
        f"/p/{token}/about/", {"languages-TOTAL_FORMS": "0", "languages-INITIAL_FORMS": "0"}
    )
    participant = Participant.objects.get(token=token)
    items = dict(
        QuestionnaireEntry.objects.filter(questionnaire=participant.questionnaire).values_list(
            "position", "item_id"
        )
    )
    times: dict[str, list[tuple[float, float]]] = {"first": [], "revisit": [], "save": []}
    for round_number in range(rounds):
        for position, item in sorted(items.items()):
            url = f"/p/{token}/item/{position}/"
            ms, response = timed(lambda url=url: client.get(url))
            assert response.status_code == 200, response.status_code
            times["first" if round_number == 0 else "revisit"].append(ms)
            value = str((position + round_number) % 5 + 1)
            data = {"item": item, "holistic": value, "order": value, "client_ms": "1500"}
            ms, response = timed(
                lambda url=url, data=data: client.post(url, data, HTTP_ACCEPT="application/json")
            )
            assert response.json()["saved"], response.content
            times["save"].append(ms)
    return times


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="passes over the 50 pairs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="wojdb-bench-") as var_dir:
        setup_django(var_dir)
        times = run(max(args.rounds, 2))
        raw, compressed = page_weight()
    from django.db import connection

    def median(name: str) -> str:
        wall = statistics.median(t[0] for t in times[name])
        cpu = statistics.median(t[1] for t in times[name])
        return f"median {wall:.2f} ms (CPU {cpu:.2f} ms)"

    print(f"database: {connection.vendor}, 50 pairs, {len(times['save'])} saves")
    print(f"item page, first showing: {median('first')}")
    print(f"item page, revisit:       {median('revisit')}")
    print(f"save an answer:           {median('save')}")
    print(f"page weight with assets:  {raw / 1024:.1f} KB ({compressed / 1024:.1f} KB gzipped)")


if __name__ == "__main__":
    main()
