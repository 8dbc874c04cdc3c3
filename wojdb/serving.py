"""What an app server process does once, before its first request.

Loading the URL patterns imports every view and what the views import (pandas, matplotlib,
OpenCV for the researcher's pages): some 250,000 objects that live as long as the process.
Python's garbage collector would otherwise walk them all on each full collection, which the
participant pages' allocations trigger every few requests: measured, 2 ms of a 5 ms item page.
Frozen, they are set aside from every collection (gc.freeze, meant for long-lived servers).
A request's own objects are nearly all freed by reference counting when it ends, so the
collector also runs less often than Python's default (every 700 allocations): a few percent
of a request (bench/survey_page_bench.py).
"""

from __future__ import annotations

import gc

#: The collector's thresholds: the youngest generation collected every 50,000 allocations.
COLLECTOR_THRESHOLDS = (50_000, 20, 20)


def prepare() -> None:
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports the views now rather than on a request
    gc.unfreeze()  # with the start-up's garbage, frozen unexamined (survey/apps.py)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
