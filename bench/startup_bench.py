"""Start-up cost of the commands and the web app, beside bare Django.

Each command runs as a fresh process several times; the figure is its CPU time (user + system,
the child's own), median and minimum, which a busy machine inflates less than wall time.
Target: every `manage.py --help` and light command under 1 s on a quiet machine.

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
URLCONF = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'wojdb.settings'; django.setup();"
    "from django.urls import get_resolver; get_resolver().url_patterns; import sys;"
    "heavy = ['scipy', 'matplotlib', 'spacy', 'numba', 'statsmodels', 'cv2', 'reportlab'];"
    "loaded = [m for m in heavy if m in sys.modules]; assert not loaded, loaded"
)
COMMANDS = {
    "django-admin --version (bare Django)": [PYTHON, "-m", "django", "--version"],
    "manage.py --help": [PYTHON, "manage.py", "--help"],
    "manage.py study_config --help": [PYTHON, "manage.py", "study_config", "--help"],
    "manage.py create_study --help": [PYTHON, "manage.py", "create_study", "--help"],
    "manage.py import_wmt --help": [PYTHON, "manage.py", "import_wmt", "--help"],
    "manage.py check": [PYTHON, "manage.py", "check"],
    "web app start (setup + URLconf)": [PYTHON, "-c", URLCONF],
}


def cpu_seconds(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=REPO, check=True, capture_output=True, env=os.environ)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    runs = parser.parse_args().runs
    print(f"start-up CPU time, {runs} runs each (target: < 1 s; median, min)")
    for name, command in COMMANDS.items():
        times = [cpu_seconds(command) for _ in range(runs)]
        verdict = (
            ""
            if name.startswith("django-admin")
            else ("  ok" if statistics.median(times) < 1 else "  OVER")
        )
        print(f"  {name:40} {statistics.median(times):5.2f} s  {min(times):5.2f} s{verdict}")


if __name__ == "__main__":
    main()
