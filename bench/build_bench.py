"""Building the demo study from its file, beside the demo minus its analysis step.

Each figure comes from a fresh data folder (a new SQLite database in a temporary WOJDB_HOME,
migrated first, untimed), in a process of its own; wall time, and the CPU time of the process
and its finished worker processes:

- `demo` minus its analysis: the demo's steps as `manage.py demo` runs them — the study built
  from `fixtures/demo-study.toml` (its sources imported, pool drawn, permutations generated,
  practice pair chosen, 36 questionnaires composed), 36 simulated participants, the rated items
  scored by the built-in metrics — each step timed, the analysis report left out;
- `create_study fixtures/demo-study.toml` with its sources already imported (by `import_wmt`,
  `import_documents` and `import_judgments`, untimed): the study built from its file alone.

    .venv/bin/python bench/build_bench.py [--demo-from DIR]

`--demo-from DIR` also times the demo minus its analysis in another checkout DIR (e.g. one of
the commit before study files), as it ran there.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SETUP = """
import json, os, resource, sys, time
import django
django.setup()
from django.core.management import call_command
call_command("migrate", verbosity=0)

def clock():  # CPU of the process and of its finished children (permutation workers)
    cpu = sum(
        u.ru_utime + u.ru_stime
        for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    )
    return time.perf_counter(), cpu
"""

DEMO = (
    SETUP
    + """
import analysis.demo_studies
from analysis.demo_studies import DEMOS, build_demo
analysis.demo_studies.write_report = lambda *args, **kwargs: None  # the one step left out
marks = [("start", *clock())]
build_demo(DEMOS["en"], step=lambda text: marks.append((text, *clock())))
marks.append(("end", *clock()))
print(json.dumps(marks))
"""
)

BUILD = (
    SETUP
    + """
from pathlib import Path
from analysis.demo_studies import DEMOS
from survey.sources.documents import import_documents
from survey.sources.human_judgments import import_judgments
from survey.sources.testsets import import_wmt
data = DEMOS["en"].slice
import_wmt(data / "txt")
import_documents(sorted((data / "documents").glob("*.docids")))
import_judgments(sorted((data / "humaneval").glob("*.csv")))
marks = [("start", *clock())]
call_command("create_study", str(DEMOS["en"].study_file), verbosity=0)
marks.append(("end", *clock()))
print(json.dumps(marks))
"""
)


def run(script: str, tree: Path = REPO) -> list[tuple[str, float, float]]:
    with tempfile.TemporaryDirectory(prefix="wojdb-build-bench-") as home:
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env |= {"WOJDB_HOME": home, "DJANGO_SETTINGS_MODULE": "wojdb.settings"}
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=tree, env=env, capture_output=True, text=True
        )
        if done.returncode:
            sys.exit(done.stderr)
        return json.loads(done.stdout.strip().splitlines()[-1])


def total(marks) -> tuple[float, float]:
    return marks[-1][1] - marks[0][1], marks[-1][2] - marks[0][2]


def show_demo(title: str, marks) -> float:
    print(f"\n{title}, step by step (wall, CPU):")
    for (name, wall, cpu), (_, next_wall, next_cpu) in itertools.pairwise(marks):
        label = "(setting up)" if name == "start" else name
        label += " (left out)" if name.startswith("Analysing") else ""
        print(f"  {label:58} {next_wall - wall:7.1f} s  {next_cpu - cpu:7.1f} s")
    wall, cpu = total(marks)
    print(f"  {'in all':58} {wall:7.1f} s  {cpu:7.1f} s")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--demo-from", type=Path, help="another checkout to time the demo in")
    other = parser.parse_args().demo_from
    print(__doc__.split("\n\n")[0])
    if other:
        show_demo(f"`demo` minus its analysis in {other}", run(DEMO, other.resolve()))
    wall = show_demo("`demo` minus its analysis", run(DEMO))
    wall_b, cpu_b = total(run(BUILD))
    print("\n`create_study fixtures/demo-study.toml`, its sources imported already:")
    print(f"  {'in all':58} {wall_b:7.1f} s  {cpu_b:7.1f} s")
    verdict = "no longer" if wall_b <= wall else "LONGER"
    print(f"\nBuilding the demo from its file takes {wall_b / wall:.0%} of the demo minus its "
          f"analysis ({verdict}).")  # fmt: skip


if __name__ == "__main__":
    main()
