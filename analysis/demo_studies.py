"""The demos: a real WMT21 slice and a study file per target language, built as any study is
(`create_study FILE`), then given simulated participants, scores and a report; a finished step
is skipped on a re-run. Both demos live in one database, each with its own pool.

Django glue for `manage.py demo` (and `wojdb demo`), which parses its arguments, prints and
serves; tests call these functions directly.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from analysis import report_store
from analysis.report_store import write_report
from survey import record
from survey.design.build import build_study
from survey.design.plan import StudyFileError, read_study_file
from survey.models import Study
from wojdb.core.io import ImportReport
from wojdb.core.stats.defaults import SimulationModel


@dataclass(frozen=True)
class DemoData:
    """A demo into one target language: a slice of real WMT21 data and the study file of a
    Prolific study with every fact its texts name written for the demo (no thesis leftovers)."""

    language: str
    ready: str
    slice: Path
    study_file: Path
    slug: str


FIXTURES = Path(settings.FIXTURES_DIR)
DEMOS = {
    "en": DemoData(
        "en", "The WOJ-DB demo is ready.", FIXTURES / "wmt21-slice",
        FIXTURES / "demo-study.toml", "demo",
    ),
    "fr": DemoData(
        "fr", "The French WOJ-DB demo is ready.", FIXTURES / "wmt21-defr-slice",
        FIXTURES / "demo-study-fr.toml", "demo-fr",
    ),
}  # fmt: skip
PARTICIPANTS = 36


def demo_errors() -> tuple[type[Exception], ...]:
    """What the steps raise on bad input, as their commands report it: one line, not a
    traceback. (The analysis's modules load here and in `build_demo`, not with the demos' list,
    which `demo --help` reads.)"""
    from analysis.analysing import AnalysisError
    from analysis.scoring import ScoringError
    from analysis.simulation import SimulationError

    return (StudyFileError, SimulationError, ScoringError, AnalysisError)


def _quiet(_: object) -> None:
    pass


def build_demo(
    demo: DemoData,
    seed: int = 1,
    *,
    metrics: Sequence | None = None,
    step: Callable[[str], None] = _quiet,
    report: Callable[[ImportReport], None] = _quiet,
) -> Study:
    """Each step of the demo, `step` told what starts and `report` given each import's report;
    the items scored by `metrics` (default: every built-in metric). Returns the study."""
    from analysis.scoring import score_rated_items
    from analysis.simulation import add_simulated_participants
    from wojdb.core.metrics.registry import select

    jobs = os.cpu_count() or 1
    study = demo_study(demo, step=step, report=report)
    if not study.participants.filter(simulated=True).exists():
        step(f"Simulating {PARTICIPANTS} participants")
        add_simulated_participants(study, PARTICIPANTS, seed, SimulationModel())
    step("Scoring the rated items with the built-in metrics")
    score_rated_items(select() if metrics is None else metrics, jobs, aligner=None)
    if report_store.manifest(study.slug) is None:
        step("Analysing the simulated answers")
        write_report(study, timezone.now().isoformat(), record.operator())
    return study


def demo_study(
    demo: DemoData,
    *,
    step: Callable[[str], None] = _quiet,
    report: Callable[[ImportReport], None] = _quiet,
) -> Study:
    """The study of the demo's study file, built (or kept, when it is built already) with its
    pool, permutations, practice pair and questionnaires."""
    build = build_study(read_study_file(demo.study_file), jobs=os.cpu_count() or 1, step=step)
    for _, done in build.imports:
        report(done)
    return build.study


def researcher_login() -> str:
    """A staff account `researcher` for the dashboard; a fresh password each run, returned
    to be printed once."""
    user, _ = get_user_model().objects.get_or_create(
        username="researcher", defaults={"is_staff": True, "is_superuser": True}
    )
    password = secrets.token_urlsafe(9)
    user.set_password(password)
    user.save()
    return password
