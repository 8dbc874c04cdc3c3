"""A study's analysis report in the researcher's dashboard, for its owners and analysts.

Each study's latest report lives in its own folder (analysis/report_store.py) as ``analyse
--study SLUG`` writes it. The page shows what the latest report holds, when and by whom it was
made, and serves it with its tables and figures; a button generates a new one. Generating takes
longer than a web request may (minutes on a large study), so it runs in a background thread of
the serving process, and the status file says how the run is going. The page says when answers
newer than the report exist.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from django import forms
from django.contrib import messages
from django.db import close_old_connections, connection
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_POST

from analysis import report_store
from survey import access, record
from survey.access import DATA, staff_only

FIGURE_TYPES = {"png": "image/png", "svg": "image/svg+xml"}
#: The report has inline styles and data: images, and nothing else may load or run.
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"


def run_in_background(job) -> None:
    def target():
        close_old_connections()
        try:
            job()
        finally:
            # The thread's own database connection would otherwise stay open.
            connection.close()

    threading.Thread(target=target, name="wojdb-report", daemon=True).start()


class GenerateForm(forms.Form):
    include_simulated = forms.BooleanField(
        required=False, initial=True, label="Include simulated participants"
    )
    figures = forms.BooleanField(required=False, initial=True, label="Draw the figures")


@staff_only
def index(request, slug):
    from analysis import analysing  # the statistics load on use

    study = access.study_for(request, slug, DATA)
    status = report_store.read_status(slug)
    manifest = report_store.manifest(slug)
    context = {
        "study": study,
        "manifest": manifest,
        "newer": analysing.newer_answers(manifest.get("source", {})) if manifest else 0,
        "status": status,
        "started": parse_datetime(status["started"]) if status else None,
        "finished": parse_datetime(status.get("finished", "")) if status else None,
        "running": bool(status and status["state"] == "running"),
        "form": GenerateForm(),
    }
    return render(request, "analysis/report_index.html", context)


@staff_only
@require_POST
def start(request, slug):
    study = access.study_for(request, slug, DATA)
    form = GenerateForm(request.POST)
    form.is_valid()  # two check boxes: anything unticked is False
    claim = report_store.claim(slug)
    if claim is None:
        messages.error(request, "A report is being started already; try again in a moment.")
        return redirect("report:index", slug)
    by = record.current()
    try:
        status = report_store.read_status(slug)
        if status and status["state"] == "running":
            messages.error(request, "A report is being generated already; wait for it to finish.")
            return redirect("report:index", slug)
        started = timezone.now().isoformat()
        report_store.write_status(slug, state="running", study=slug, started=started, by=by.name)
    finally:
        claim.unlink()
    options = {
        "no_simulated": not form.cleaned_data.get("include_simulated", False),
        "no_figures": not form.cleaned_data.get("figures", False),
    }
    run_in_background(lambda: _generate(study, started, by, **options))
    messages.success(
        request, f"Generating the report of {slug!r}; this page shows when it is done."
    )
    return redirect("report:index", slug)


def _generate(study, started, by, **options) -> None:
    # A failure is in the status file (`write_report` writes it), which the page shows.
    with contextlib.suppress(Exception):
        report_store.write_report(study, started, by, **options)


def _served(response):
    response["Content-Security-Policy"] = REPORT_CSP
    response["Cache-Control"] = "private, no-cache"
    return response


@staff_only
def latest(request, slug):
    study = access.study_for(request, slug, DATA)
    path = report_store.report_dir(slug) / "report.html"
    if not path.exists():
        raise Http404("no report has been generated yet")
    record.note(study, "report opened")
    content = HttpResponse(path.read_bytes(), content_type="text/html; charset=utf-8")
    return _served(content)


def _file(path: Path, content_type: str, **options) -> FileResponse:
    if not path.is_file():
        raise Http404("no such file in the report")
    return _served(FileResponse(path.open("rb"), content_type=content_type, **options))


@staff_only
def table(request, slug, name):
    study = access.study_for(request, slug, DATA)
    response = _file(
        report_store.report_dir(slug) / "tables" / f"{name}.csv",
        "text/csv; charset=utf-8",
        as_attachment=True,
        filename=f"{name}.csv",
    )
    record.note(study, "report table downloaded", table=name)
    return response


@staff_only
def figure(request, slug, name, fmt):
    access.study_for(request, slug, DATA)
    if fmt not in FIGURE_TYPES:
        raise Http404("figures are PNG or SVG")
    return _file(report_store.report_dir(slug) / "figures" / f"{name}.{fmt}", FIGURE_TYPES[fmt])
