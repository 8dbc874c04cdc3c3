"""Start-up cost of the commands and the web app, beside bare Django.

Each command runs as a fresh process several times, after one run that is not counted, with
byte-code caching on (as a user's second start: PYTHONDONTWRITEBYTECODE is dropped); the figure
is its CPU time (user + system, the child's own), median and minimum, which a busy machine
inflates less than wall time, and the median's ratio to bare Django's (`django-admin
--version`), which a faster or slower machine leaves alike. Target: every row at most 3 times
bare Django. For comparison, not a target: Django's own apps alone (admin, auth, sessions...,
none of WOJ-DB's) on SQLite, set up and listing their commands.

    .venv/bin/python bench/startup_bench.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
TARGET = 3.0  # times bare Django
URLCONF = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'wojdb.settings'; django.setup();"
    "from django.urls import get_resolver; get_resolver().url_patterns"
)
DJANGO_APPS = (
    "import django; from django.conf import settings; settings.configure(INSTALLED_APPS=["
    "'django.contrib.admin', 'django.contrib.auth', 'django.contrib.contenttypes',"
    "'django.contrib.sessions', 'django.contrib.messages', 'django.contrib.staticfiles'],"
    "DATABASES={'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': ':memory:'}});"
    "django.setup(); from django.core.management import ManagementUtility;"
    "ManagementUtility(['django-admin', 'help']).execute()"
)
BARE = "django-admin --version (bare Django)"
REFERENCE = "Django's own apps only: help"
COMMANDS = {
    BARE: [PYTHON, "-m", "django", "--version"],
    REFERENCE: [PYTHON, "-c", DJANGO_APPS],
    "manage.py --help": [PYTHON, "manage.py", "--help"],
    "manage.py study_config --help": [PYTHON, "manage.py", "study_config", "--help"],
    "manage.py create_study --help": [PYTHON, "manage.py", "create_study", "--help"],
    "manage.py import_wmt --help": [PYTHON, "manage.py", "import_wmt", "--help"],
    "manage.py analyse --help": [PYTHON, "manage.py", "analyse", "--help"],
    "manage.py check": [PYTHON, "manage.py", "check"],
    "web app start (setup + URLconf)": [PYTHON, "-c", URLCONF],
}


ENV = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def cpu_seconds(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=REPO, check=True, capture_output=True, env=ENV)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    runs = parser.parse_args().runs
    print(f"start-up CPU time, {runs} runs each (target: ≤ {TARGET:g}x bare Django)")
    print(f"  {'':40} {'median':>7}  {'min':>6}  {'ratio':>6}")
    bare = None
    for name, command in COMMANDS.items():
        cpu_seconds(command)  # writes the byte-code caches
        times = [cpu_seconds(command) for _ in range(runs)]
        median = statistics.median(times)
        bare = bare or median
        ratio = median / bare
        verdict = "" if name in (BARE, REFERENCE) else ("  ok" if ratio <= TARGET else "  OVER")
        print(f"  {name:40} {median:5.2f} s  {min(times):4.2f} s  {ratio:5.1f}x{verdict}")


if __name__ == "__main__":
    main()
