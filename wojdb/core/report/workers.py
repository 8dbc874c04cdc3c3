"""Worker processes that build and draw a report's figures while the analysis goes on."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from wojdb.core.report import figures as F
from wojdb.core.report.model import FigureEntry

#: Most processes drawing figures at once.
MAX_FIGURE_WORKERS = 3


class FigureWorkers:
    """Processes that build and draw figures while the analysis goes on.

    Call it with each figure as soon as it is made: the figure's recipe (its function and
    data) goes to a worker, so this process neither builds nor draws it. The workers come from
    a fork server, which is safe from a web server's threads; the figures they draw are the
    ones this process would draw. Like any spawned process they import the main module again,
    so a script that runs an analysis needs the ``if __name__ == "__main__"`` guard; should
    the workers fail, the figures are drawn here.
    """

    def __init__(self, workers: int):
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["wojdb.core.report.figures"])
        self.pool = ProcessPoolExecutor(workers, mp_context=context)

    def __call__(self, entry: FigureEntry) -> None:
        try:
            entry.drawing = self.pool.submit(F.made_and_drawn, entry.make)
        except BrokenProcessPool:  # the workers could not start or died: drawn here instead
            entry.drawing = None

    def __enter__(self) -> FigureWorkers:
        return self

    def __exit__(self, kind, error, trace) -> None:
        self.pool.shutdown(wait=True, cancel_futures=kind is not None)
