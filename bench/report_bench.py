"""Benchmark of the demo's report: `analysis.analysing.run_analysis` on the demo study (1,800
ratings from 36 simulated participants; build it first with
`.venv/bin/python manage.py demo --no-serve`, which writes var/), three times, with the CPU of the
process building it and of the worker processes drawing its figures. Target: 5 s of CPU in
total, all processes counted (the first run also starts the workers' fork server); printed
beside the figure before the report was reworked.

The workers import this script again, as every child of a fork server imports the main module,
so it imports nothing heavy itself.

Run: .venv/bin/python bench/report_bench.py (or bench/analysis_bench.py demo)
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


#: The demo's report before it was reworked (commit 9cfc075: scipy called per correlation,
#: each figure drawn three times in this process), measured as demo_report() measures, the
#: best of three runs on the same shared 2-core machine (load average about 10).
BEFORE = ("9cfc075", 14.95)
DEMO_TARGET = 5.0


class DescendantsCPU:
    """CPU seconds of this process's descendants while it runs, read from /proc (Linux): the
    workers of a fork server are not our children, so os.times() never counts them."""

    TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def __init__(self, every: float = 0.1):
        self.every, self.start, self.last = every, {}, {}
        self.stop = threading.Event()

    @staticmethod
    def _stats() -> dict[int, tuple[int, float]]:
        """pid -> (parent, CPU seconds) of every process."""
        out = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                text = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue  # ended meanwhile
            fields = text[text.rindex(")") + 2 :].split()
            cpu = (int(fields[11]) + int(fields[12])) / DescendantsCPU.TICK
            out[int(entry)] = (int(fields[1]), cpu)
        return out

    def _sample(self, into: dict[int, float]) -> None:
        stats, mine, grown = self._stats(), {os.getpid()}, True
        while grown:
            found = {pid for pid, (parent, _) in stats.items() if parent in mine} - mine
            mine |= found
            grown = bool(found)
        for pid in mine - {os.getpid()}:
            into[pid] = max(into.get(pid, 0.0), stats[pid][1])

    def _poll(self) -> None:
        while not self.stop.wait(self.every):
            self._sample(self.last)

    def __enter__(self):
        self._sample(self.start)
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()
        self._sample(self.last)

    @property
    def seconds(self) -> float:
        return sum(cpu - self.start.get(pid, 0.0) for pid, cpu in self.last.items())


def demo_report(runs: int = 3) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
    import django

    django.setup()
    from analysis.analysing import figure_workers, run_analysis
    from survey.models import Rating, Study

    study = Study.objects.filter(slug="demo").first()
    if study is None:
        print("Demo report: no demo study (build it: .venv/bin/python manage.py demo --no-serve)")
        return
    rated = Rating.objects.filter(participant__study=study, practice=False)
    print(
        f"Demo report: run_analysis on the demo study ({rated.count():,} ratings, "
        f"{rated.values('participant').distinct().count()} participants); "
        f"{figure_workers(True)} worker processes draw the figures"
    )
    print(
        f"  {'run':<5}{'wall':>9}{'CPU here':>12}{'CPU workers':>14}{'CPU total':>12}{'target':>9}"
    )
    for run in range(1, runs + 1):
        with tempfile.TemporaryDirectory() as out, DescendantsCPU() as workers:
            started, cpu = time.perf_counter(), time.process_time()
            run_analysis(Path(out), study=study)
            wall, here = time.perf_counter() - started, time.process_time() - cpu
        note = "   (starts the fork server)" if run == 1 else ""
        print(
            f"  {run:<5}{wall:7.2f} s{here:10.2f} s{workers.seconds:12.2f} s"
            f"{here + workers.seconds:10.2f} s{DEMO_TARGET:7.2f} s{note}"
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
