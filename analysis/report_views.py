"""The analysis report in the researcher's dashboard (staff only).

The report lives in settings.WOJDB_REPORT_DIR as ``analyse`` writes it. The page shows what the
latest report holds and serves it with its tables and figures; a button generates a new one.
Generating takes longer than a web request may (minutes on a large study), so it runs in a
background thread of the serving process: `analysis.analysing.run_analysis` (what ``analyse``
runs) writes into a fresh folder beside the report, which then replaces the old one, and a small
status file says how the run is going. The page says when answers newer than the report exist.
All of it lives in the media folder (WOJDB_MEDIA_ROOT), which several app servers share, so any
of them serves the report and sees a run that another started.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

from django import forms
from django.conf import settings
from django.contrib import messages
from django.db import close_old_connections, connection
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_POST

from survey.access import staff_only
from survey.models import Study

#: A run still "running" after this long died with its process.
STALE_AFTER = timedelta(hours=2)
FIGURE_TYPES = {"png": "image/png", "svg": "image/svg+xml"}
#: The report has inline styles and data: images, and nothing else may load or run.
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'"

#: A claim on starting a run older than this was left by a process that died holding it.
CLAIM_STALE_SECONDS = 60


def report_dir() -> Path:
    return Path(settings.WOJDB_REPORT_DIR)


def status_path() -> Path:
    folder = report_dir()
    return folder.with_name(f"{folder.name}.status.json")


def read_status() -> dict | None:
    """The latest run's status; a run that stopped reporting long ago counts as failed."""
    try:
        status = json.loads(status_path().read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    started = parse_datetime(status.get("started", ""))
    if status.get("state") == "running" and started and timezone.now() - started > STALE_AFTER:
        status.update(state="failed", message="the run stopped without finishing")
    return status


def _claim() -> Path | None:
    """The claim on starting a run, held by one process at a time on every app server that
    shares the media folder: creating a file that must not exist is atomic on a local disk and
    on NFS. None if another process holds it for longer than a few seconds."""
    path = report_dir().with_name(f"{report_dir().name}.claim")
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(100):
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            return path
        except FileExistsError:
            with contextlib.suppress(FileNotFoundError):
                if time.time() - path.stat().st_mtime > CLAIM_STALE_SECONDS:
                    path.unlink()
            time.sleep(0.05)
    return None


def _write_status(**status) -> None:
    path = status_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(status))
    temporary.replace(path)


def _replace_report(new: Path) -> None:
    """Put a freshly written report in place of the old one."""
    target = report_dir()
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-old-"))
        target.replace(old / "report")
    new.replace(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def generate(slug: str, include_simulated: bool, figures: bool, started: str) -> None:
    """Analyse a study into a new folder and swap it in; record the outcome."""
    from analysis import analysing  # the statistics load on use

    target = report_dir()
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-new-"))
    common = {"study": slug, "started": started}
    try:
        study = Study.objects.get(slug=slug)
        analysing.run_analysis(
            staging, study=study, no_simulated=not include_simulated, no_figures=not figures
        )
        _replace_report(staging)
    except (analysing.AnalysisError, Study.DoesNotExist) as e:
        shutil.rmtree(staging, ignore_errors=True)
        _write_status(state="failed", message=str(e), finished=timezone.now().isoformat(), **common)
    except Exception as e:  # a background run must report its failure, not vanish
        shutil.rmtree(staging, ignore_errors=True)
        message = f"{type(e).__name__}: {e}"
        _write_status(
            state="failed", message=message, finished=timezone.now().isoformat(), **common
        )
    else:
        _write_status(state="done", finished=timezone.now().isoformat(), **common)


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
    study = forms.ModelChoiceField(
        queryset=Study.objects.order_by("name"), to_field_name="slug", empty_label=None
    )
    include_simulated = forms.BooleanField(
        required=False, initial=True, label="Include simulated participants"
    )
    figures = forms.BooleanField(required=False, initial=True, label="Draw the figures")


def _manifest() -> dict | None:
    try:
        return json.loads((report_dir() / "report.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


@staff_only
def index(request):
    from analysis import analysing  # the statistics load on use

    status = read_status()
    manifest = _manifest() if (report_dir() / "report.html").exists() else None
    context = {
        "manifest": manifest,
        "newer": analysing.newer_answers(manifest.get("source", {})) if manifest else 0,
        "status": status,
        "started": parse_datetime(status["started"]) if status else None,
        "running": bool(status and status["state"] == "running"),
        "form": GenerateForm(),
        "report_dir": report_dir(),
    }
    return render(request, "analysis/report_index.html", context)


@staff_only
@require_POST
def start(request):
    form = GenerateForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a study to analyse.")
        return redirect("report:index")
    claim = _claim()
    if claim is None:
        messages.error(request, "A report is being started already; try again in a moment.")
        return redirect("report:index")
    try:
        status = read_status()
        if status and status["state"] == "running":
            messages.error(request, "A report is being generated already; wait for it to finish.")
            return redirect("report:index")
        slug = form.cleaned_data["study"].slug
        started = timezone.now().isoformat()
        _write_status(state="running", study=slug, started=started)
    finally:
        claim.unlink()
    options = form.cleaned_data["include_simulated"], form.cleaned_data["figures"]
    run_in_background(lambda: generate(slug, *options, started))
    messages.success(
        request, f"Generating the report of {slug!r}; this page shows when it is done."
    )
    return redirect("report:index")


@staff_only
def latest(request):
    path = report_dir() / "report.html"
    if not path.exists():
        raise Http404("no report has been generated yet")
    response = HttpResponse(path.read_bytes(), content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = REPORT_CSP
    response["Cache-Control"] = "private, no-cache"
    return response


def _file(path: Path, content_type: str, **options) -> FileResponse:
    if not path.is_file():
        raise Http404("no such file in the report")
    response = FileResponse(path.open("rb"), content_type=content_type, **options)
    response["Content-Security-Policy"] = REPORT_CSP
    response["Cache-Control"] = "private, no-cache"
    return response


@staff_only
def table(request, name):
    return _file(
        report_dir() / "tables" / f"{name}.csv",
        "text/csv; charset=utf-8",
        as_attachment=True,
        filename=f"{name}.csv",
    )


@staff_only
def figure(request, name, fmt):
    if fmt not in FIGURE_TYPES:
        raise Http404("figures are PNG or SVG")
    return _file(report_dir() / "figures" / f"{name}.{fmt}", FIGURE_TYPES[fmt])
