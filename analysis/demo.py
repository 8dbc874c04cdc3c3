"""The demos: a real WMT21 slice and a study file per target language, built step by step
through the functions the commands call; a finished step is skipped on a re-run.

Django glue for `manage.py demo` (and `wojdb demo`), which parses its arguments, prints and
serves; tests call these functions directly.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model

from analysis.analysing import AnalysisError, run_analysis
from analysis.scoring import ScoringError, score_rated_items
from analysis.simulation import SimulationError, add_simulated_participants
from survey.documents import import_documents
from survey.generation import GenerationError, generate_permutations
from survey.judgments import import_judgments
from survey.models import Item, Permutation, Segment, Study, Triple
from survey.pool import PoolError, sample_pool
from survey.questionnaires import QuestionnaireError, build_questionnaires
from survey.study_file import StudyFileError, apply_study_file, read_study_file
from survey.testsets import import_wmt
from wojdb.core.design.composition import CompositionError, ConfigurationError
from wojdb.core.io import ImportReport, InputError
from wojdb.core.metrics.registry import select
from wojdb.core.permutations import MAX_DEGREE
from wojdb.core.stats.simulate import SimulationModel
from wojdb.core.vocabulary import MAIN_TYPES


@dataclass(frozen=True)
class DemoData:
    """A demo into one target language: a slice of real WMT21 data and a Prolific study with
    every fact its texts name written for the demo (no thesis leftovers)."""

    language: str
    ready: str
    slice: Path
    study_file: Path
    slug: str
    per_corpus: int  # pool triples a corpus: 640 in all, enough for 36 questionnaires


FIXTURES = Path(settings.FIXTURES_DIR)
DEMOS = {
    "en": DemoData(
        "en", "The WOJ-DB demo is ready.", FIXTURES / "wmt21-slice",
        FIXTURES / "demo-study.toml", "demo", 40,
    ),
    "fr": DemoData(
        "fr", "The French WOJ-DB demo is ready.", FIXTURES / "wmt21-defr-slice",
        FIXTURES / "demo-study-fr.toml", "demo-fr", 160,
    ),
}  # fmt: skip
QUESTIONNAIRES = PARTICIPANTS = 36


class DemoError(Exception):
    """The database cannot hold this demo."""


# What the steps raise on bad input, as their commands report it: one line, not a traceback.
DEMO_ERRORS = (
    DemoError,
    InputError,
    PoolError,
    GenerationError,
    CompositionError,
    ConfigurationError,
    QuestionnaireError,
    SimulationError,
    ScoringError,
    AnalysisError,
    StudyFileError,
)


def _quiet(_: object) -> None:
    pass


def check_database(demo: DemoData) -> None:
    """The pool is drawn from every imported corpus, so a demo's database may hold test sets
    into its own target language only."""
    others = Segment.objects.exclude(target_lang=demo.language)
    others = sorted(set(others.values_list("target_lang", flat=True)))
    if others:
        raise DemoError(
            f"this database holds test sets into {', '.join(others)}; the "
            f"--language {demo.language} demo needs a database of its own: set "
            "WOJDB_HOME (or DATABASE_URL) to a new one"
        )


def build_demo(
    demo: DemoData,
    per_corpus: int | None = None,
    seed: int = 1,
    *,
    step: Callable[[str], None] = _quiet,
    report: Callable[[ImportReport], None] = _quiet,
) -> Study:
    """Each step of the demo, `step` told what starts and `report` given each import's report;
    returns the study."""
    check_database(demo)
    jobs = os.cpu_count() or 1
    step("Importing the WMT21 slice")
    for done in import_slice(demo):
        report(done)
    if not Triple.objects.filter(in_pool=True).exists():
        step("Drawing the pool")
        report(sample_pool(per_corpus or demo.per_corpus, seed))
    step("Parsing references and generating permutations")
    generate_permutations(MAIN_TYPES, MAX_DEGREE, seed, jobs)
    study = demo_study(demo)
    if not study.questionnaires.exists():
        step(f"Building {QUESTIONNAIRES} questionnaires")
        build_questionnaires(study, QUESTIONNAIRES, seed)
    if study.sample_item is None:
        study.sample_item = practice_item(study)
        study.save(update_fields=["sample_item"])
    if not study.participants.filter(simulated=True).exists():
        step(f"Simulating {PARTICIPANTS} participants")
        add_simulated_participants(study, PARTICIPANTS, seed, SimulationModel())
    step("Scoring the rated items with the built-in metrics")
    score_rated_items(select(), jobs, aligner=None)
    if not Path(settings.WOJDB_REPORT_DIR, "report.html").exists():
        step("Analysing the simulated answers")
        run_analysis(Path(settings.WOJDB_REPORT_DIR), study=study)
    return study


def import_slice(demo: DemoData) -> list[ImportReport]:
    """The slice's texts, document ids and human judgments; the reports of each import."""
    data = demo.slice
    reports = [
        import_wmt(data / "txt"),
        import_documents(sorted((data / "documents").glob("*.docids"))),
    ]
    # The French slice holds WMT21's system-level de-fr results only (a .txt): WMT21 published
    # the per-rater judgments in one all-pairs file, not in the slice.
    if judgments := sorted((data / "humaneval").glob("*.*")):
        reports.append(import_judgments(judgments))
    return reports


def demo_study(demo: DemoData) -> Study:
    """The study of the demo's study file, created on the first run; its practice pair is
    chosen once the questionnaires exist (`practice_item`)."""
    return (
        Study.objects.filter(slug=demo.slug).first()
        or apply_study_file(read_study_file(demo.study_file))[0]
    )


def practice_item(study: Study) -> Item:
    """A short reference with two words swapped, which no questionnaire of the study holds, as
    the practice pair."""
    used = study.questionnaires.filter(entries__item__permutation__isnull=False).values(
        "entries__item__permutation"
    )
    permutation = (
        Permutation.objects.filter(
            perm_type="swap", degree=2, triple__segment__reference_length__range=(10, 20)
        )
        .exclude(pk__in=used)
        .order_by("triple__segment__reference_length", "pk")
        .first()
    )
    item, _ = Item.objects.get_or_create(triple=permutation.triple, permutation=permutation)
    return item


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
