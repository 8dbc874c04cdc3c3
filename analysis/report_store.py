"""Each study's latest report, kept in its own folder of settings.WOJDB_REPORTS_DIR (in the
media folder, which several app servers share), with a small status file beside it saying how
the latest run went, when, and by whom.

A run writes into a fresh folder beside the report, which then replaces the old one, so a
reader never sees half a report. `analyse --study SLUG` and the dashboard's "Generate" both run
`write_report`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from survey import record
from survey.models import Study

#: A run still "running" after this long died with its process.
STALE_AFTER = timedelta(hours=2)
#: Who made the report in its folder, and when it was done.
MADE = "made.json"
#: A claim on starting a run older than this was left by a process that died holding it.
CLAIM_STALE_SECONDS = 60


def report_dir(slug: str) -> Path:
    return Path(settings.WOJDB_REPORTS_DIR) / slug


def _beside(slug: str, suffix: str) -> Path:
    folder = report_dir(slug)
    return folder.with_name(f"{folder.name}.{suffix}")


def read_status(slug: str) -> dict | None:
    """The latest run's status; a run that stopped reporting long ago counts as failed."""
    try:
        status = json.loads(_beside(slug, "status.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    started = parse_datetime(status.get("started", ""))
    if status.get("state") == "running" and started and timezone.now() - started > STALE_AFTER:
        status.update(state="failed", message="the run stopped without finishing")
    return status


def write_status(slug: str, **status) -> None:
    path = _beside(slug, "status.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(status))
    temporary.replace(path)


def claim(slug: str) -> Path | None:
    """The claim on starting a run of the study's report, held by one process at a time on every
    app server that shares the media folder: creating a file that must not exist is atomic on a
    local disk and on NFS. None if another process holds it for longer than a few seconds."""
    path = _beside(slug, "claim")
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


def _replace_report(slug: str, new: Path) -> None:
    """Put a freshly written report in place of the old one."""
    target = report_dir(slug)
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-old-"))
        target.replace(old / "report")
    new.replace(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def write_report(study: Study, started: str, by: record.Actor, **options):
    """Analyse the study (`run_analysis`'s options) into a new folder, swap it in and record the
    outcome, in the status file and on the study's record. Returns the analysis; raises what
    `run_analysis` raises, after recording the failure."""
    from analysis import analysing  # the statistics load on use

    target = report_dir(study.slug)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}-new-"))
    common = {"study": study.slug, "started": started, "by": by.name}
    try:
        done = analysing.run_analysis(staging, study=study, **options)
        finished = timezone.now().isoformat()
        (staging / MADE).write_text(json.dumps({"by": by.name, "finished": finished}))
        _replace_report(study.slug, staging)
    except BaseException as e:
        shutil.rmtree(staging, ignore_errors=True)
        message = str(e) if isinstance(e, analysing.AnalysisError) else f"{type(e).__name__}: {e}"
        write_status(
            study.slug,
            state="failed",
            message=message,
            finished=timezone.now().isoformat(),
            **common,
        )
        raise
    write_status(study.slug, state="done", finished=finished, **common)
    record.note(
        study, "report generated", actor=by, simulated=not options.get("no_simulated", False)
    )
    return done


def manifest(slug: str) -> dict | None:
    """The latest report's report.json, with who made it and when (`made`), if there is one."""
    folder = report_dir(slug)
    if not (folder / "report.html").exists():
        return None
    try:
        found = json.loads((folder / "report.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None
    with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
        found["made"] = json.loads((folder / MADE).read_text())
    return found
