"""Benchmark of the demo's report: `analysis.analysing.run_analysis` on the demo study (1,800
ratings from 36 simulated participants; build it first with
`.venv/bin/python manage.py demo --no-serve`, which writes var/), three times, with the CPU of the
process building it, figures drawn, and of any process it starts (none: the column shows that
nothing is left out). Target: 5 s of CPU in total, all processes counted; printed beside the
figure before the report was reworked.

Run: .venv/bin/python bench/report_bench.py (or bench/analysis_bench.py demo)
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


#: The demo's report before it was reworked (commit 9cfc075: scipy called per correlation,
#: each figure drawn three times in this process), measured as demo_report() measures, the
#: best of three runs on the same shared 2-core machine (load average about 10).
BEFORE = ("9cfc075", 14.95)
DEMO_TARGET = 5.0


class DescendantsCPU:
    """CPU seconds of the processes this one starts while it runs: those it waited for, from
    os.times(), and those still running at the end with the children they waited for, read
    from /proc (Linux). Nothing polls meanwhile, so the measure costs the process measured
    nothing (a thread polling /proc every 0.1 s cost it 0.18 s in 5 s)."""

    TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    @staticmethod
    def _waited() -> float:
        times = os.times()
        return times.children_user + times.children_system

    @staticmethod
    def _running() -> dict[int, float]:
        """pid -> CPU seconds (its own and its waited-for children's) of every descendant."""
        stats = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue  # ended meanwhile
            fields = text[text.rindex(")") + 2 :].split()
            cpu = sum(int(field) for field in fields[11:15]) / DescendantsCPU.TICK
            stats[int(entry)] = (int(fields[1]), cpu)
        mine, grown = {os.getpid()}, True
        while grown:
            found = {pid for pid, (parent, _) in stats.items() if parent in mine} - mine
            mine |= found
            grown = bool(found)
        return {pid: stats[pid][1] for pid in mine - {os.getpid()}}

    def __enter__(self):
        self.start = self._waited(), self._running()
        return self

    def __exit__(self, *exc) -> None:
        waited, running = self._waited(), self._running()
        before = self.start[1]
        self.seconds = (waited - self.start[0]) + sum(
            cpu - before.get(pid, 0.0) for pid, cpu in running.items()
        )


def demo_report(runs: int = 3) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
    import django

    django.setup()
    from analysis.analysing import run_analysis
    from survey.models import Rating, Study

    study = Study.objects.filter(slug="demo").first()
    if study is None:
        print("Demo report: no demo study (build it: .venv/bin/python manage.py demo --no-serve)")
        return
    rated = Rating.objects.filter(participant__study=study, practice=False)
    print(
        f"Demo report: run_analysis on the demo study ({rated.count():,} ratings, "
        f"{rated.values('participant').distinct().count()} participants); "
        "its figures drawn in the process building it"
    )
    print(
        f"  {'run':<5}{'wall':>9}{'CPU here':>12}{'CPU others':>14}{'CPU total':>12}{'target':>9}"
    )
    for run in range(1, runs + 1):
        with tempfile.TemporaryDirectory() as out, DescendantsCPU() as others:
            started, cpu = time.perf_counter(), time.process_time()
            run_analysis(Path(out), study=study)
            wall, here = time.perf_counter() - started, time.process_time() - cpu
        print(
            f"  {run:<5}{wall:7.2f} s{here:10.2f} s{others.seconds:12.2f} s"
            f"{here + others.seconds:10.2f} s{DEMO_TARGET:7.2f} s"
        )
    commit, seconds = BEFORE
    print(
        f"  target: {DEMO_TARGET:g} s of CPU in total (CPU total); before (commit {commit}): "
        f"{seconds:g} s of CPU, all in the process building the report"
    )


if __name__ == "__main__":
    import argparse

    # No options: --help prints what the benchmark measures.
    argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    ).parse_args()
    demo_report()
