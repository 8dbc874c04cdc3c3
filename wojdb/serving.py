"""What an app server process does once, before its first request.

Loading the URL patterns imports every view and what the views import (pandas, matplotlib,
OpenCV for the researcher's pages): some 250,000 objects that live as long as the process.
Python's garbage collector would otherwise walk them all on each full collection, which the
participant pages' allocations trigger every few requests: measured, 2 ms of a 5 ms item page.
Frozen, they are set aside from every collection (gc.freeze, meant for long-lived servers).
A request's own objects are nearly all freed by reference counting when it ends, so the
collector also runs less often than Python's default (every 700 allocations): a few percent
of a request (bench/survey_page_bench.py).

It also refuses to serve without the collected static files: every page would be a bare
"Server Error (500)", with nothing in the log to say why.
"""

from __future__ import annotations

import gc

#: The collector's thresholds: the youngest generation collected every 50,000 allocations.
COLLECTOR_THRESHOLDS = (50_000, 20, 20)


def prepare() -> None:
    from django.core.exceptions import ImproperlyConfigured
    from django.urls import get_resolver

    if problem := static_files_problem():
        raise ImproperlyConfigured(problem)
    get_resolver().url_patterns  # noqa: B018 - imports the views now rather than on a request
    gc.unfreeze()  # with the start-up's garbage, frozen unexamined (survey/apps.py)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def static_files_problem() -> str | None:
    """Why the pages cannot be served, if the static files they link to were not collected:
    without DEBUG, the hashed names come from the manifest `collectstatic` writes."""
    from django.conf import settings
    from django.contrib.staticfiles.storage import ManifestFilesMixin, staticfiles_storage

    if settings.DEBUG or not isinstance(staticfiles_storage, ManifestFilesMixin):
        return None
    if staticfiles_storage.manifest_storage.exists(staticfiles_storage.manifest_name):
        return None
    return (
        f"the static files are not collected ({settings.STATIC_ROOT} has no "
        f"{staticfiles_storage.manifest_name}): every page would fail. Run "
        "`manage.py collectstatic --noinput`, then start the server again."
    )
