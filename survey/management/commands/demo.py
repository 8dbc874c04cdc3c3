import argparse
import os
import secrets
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from analysis.analysing import AnalysisError, run_analysis
from analysis.metrics.registry import select
from analysis.scoring import ScoringError, score_rated_items
from analysis.simulation import SimulationError, add_simulated_participants
from analysis.stats.simulate import SimulationModel
from survey.composition import CompositionError, ConfigurationError
from survey.generation import GenerationError, generate_permutations
from survey.importers import (
    ImportReport,
    PoolError,
    import_documents,
    import_judgments,
    import_wmt,
    sample_pool,
)
from survey.management.arguments import PORT, POSITIVE, SEED
from survey.management.reporting import print_report
from survey.models import Item, Permutation, Segment, Study, Triple
from survey.permutations import MAIN_TYPES, MAX_DEGREE
from survey.questionnaires import QuestionnaireError, build_questionnaires
from survey.study_file import StudyFileError, apply_study_file, read_study_file
from survey.wmt import InputError


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
SLICE, STUDY_FILE = DEMOS["en"].slice, DEMOS["en"].study_file
# What the steps raise on bad input, as their commands report it: one line, not a traceback.
DEMO_ERRORS = (
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


class Command(BaseCommand):
    help = (
        "Build a ready demo study from the real WMT21 slice in fixtures/: migrate the database, "
        "import texts, document ids and DA judgments, draw the pool, generate permutations, "
        "create the study, build 36 questionnaires, add simulated participants, score the rated "
        "items with the built-in metrics, analyse them into the dashboard's report, and create a "
        "researcher login; with --serve, then serve it with gunicorn. Safe to re-run: finished "
        "steps are skipped. --language fr builds the French demo (German to French) instead, "
        "in a database of its own."
    )
    demo = DEMOS["en"]

    def add_arguments(self, parser):
        parser.add_argument(
            "--language",
            choices=sorted(DEMOS),
            default="en",
            help="the target language: en, English from German, Icelandic, Japanese and Russian "
            "(the default); fr, French from German. Each demo needs a database of its own "
            "(WOJDB_HOME or DATABASE_URL)",
        )
        parser.add_argument(
            "--serve",
            action=argparse.BooleanOptionalAction,
            default=False,
            help="then serve the site on 127.0.0.1:PORT (the default of `wojdb demo`)",
        )
        parser.add_argument("--port", type=PORT, default=8000, help="port to serve on (%(type)s)")
        parser.add_argument("--url", help="site address to print (default: http://127.0.0.1:PORT)")
        parser.add_argument(
            "--per-corpus",
            type=POSITIVE,
            help="pool triples per corpus (%(type)s; default 40 for the 16 English corpora, "
            "160 for the 4 French ones)",
        )
        parser.add_argument(
            "--seed",
            type=SEED,
            default=1,
            help="seed of every random step (%(type)s; default %(default)s)",
        )

    def handle(self, language, serve, port, url, per_corpus, seed, verbosity, **options):
        url = url or f"http://127.0.0.1:{port}"
        self.demo = DEMOS[language]
        call_command("migrate", interactive=False, verbosity=0 if verbosity < 2 else verbosity)
        self.check_database()
        try:
            study = self.build(per_corpus or self.demo.per_corpus, seed, verbosity)
        except DEMO_ERRORS as e:
            raise CommandError(str(e)) from None
        password = self.researcher()
        self.stdout.write(self.style.SUCCESS(f"\n{self.demo.ready}"))
        self.stdout.write(f"  Participant link:  {url}/s/{study.slug}/")
        self.stdout.write(
            f"  As from Prolific:  {url}/s/{study.slug}/?PROLIFIC_PID=demo-pid&STUDY_ID=demo"
            f"&SESSION_ID=demo-session  (completion code {study.completion_code})"
        )
        self.stdout.write(f"  Researcher pages:  {url}/researcher/  (admin: {url}/admin/)")
        self.stdout.write(f"  Analysis report:   {url}/researcher/report/")
        self.stdout.write(f"  Researcher login:  user 'researcher', password '{password}'")
        if serve:
            self.serve(port)

    def import_slice(self) -> list[ImportReport]:
        """The slice's texts, document ids and human judgments; the reports of each import."""
        data = self.demo.slice
        reports = [
            import_wmt(data / "txt"),
            import_documents(sorted((data / "documents").glob("*.docids"))),
        ]
        # The French slice holds WMT21's system-level de-fr results only (a .txt): WMT21
        # published the per-rater judgments in one all-pairs file, not in the slice.
        if judgments := sorted((data / "humaneval").glob("*.*")):
            reports.append(import_judgments(judgments))
        return reports

    def build(self, per_corpus: int, seed: int, verbosity: int) -> Study:
        """Each step through the function its command calls; a finished step is skipped."""
        report = partial(print_report, self, verbosity=int(verbosity >= 2))
        jobs = os.cpu_count() or 1
        self.step("Importing the WMT21 slice")
        for done in self.import_slice():
            report(done)
        if not Triple.objects.filter(in_pool=True).exists():
            self.step("Drawing the pool")
            report(sample_pool(per_corpus, seed))
        self.step("Parsing references and generating permutations")
        generate_permutations(MAIN_TYPES, MAX_DEGREE, seed, jobs)
        study = self.study()
        if not study.questionnaires.exists():
            self.step("Building 36 questionnaires")
            build_questionnaires(study, 36, seed)
        if study.sample_item is None:
            study.sample_item = self.practice_item(study)
            study.save(update_fields=["sample_item"])
        if not study.participants.filter(simulated=True).exists():
            self.step("Simulating 36 participants")
            add_simulated_participants(study, 36, seed, SimulationModel())
        self.step("Scoring the rated items with the built-in metrics")
        score_rated_items(select(), jobs, aligner=None)
        if not Path(settings.WOJDB_REPORT_DIR, "report.html").exists():
            self.step("Analysing the simulated answers")
            run_analysis(Path(settings.WOJDB_REPORT_DIR), study=study)
        return study

    def serve(self, port: int):
        """Serve as bin/demo does: static files collected, two sync gunicorn workers."""
        call_command("collectstatic", interactive=False, verbosity=0)
        self.stdout.write(f"  Serving on http://127.0.0.1:{port}/ (Ctrl-C stops)")
        self.stdout.flush()
        gunicorn = [sys.executable, "-m", "gunicorn", "wojdb.wsgi", "--bind", f"127.0.0.1:{port}"]
        os.execv(sys.executable, [*gunicorn, "--workers", "2", "--access-logfile", "-"])

    def step(self, text):
        self.stdout.write(f"- {text} …")

    def check_database(self):
        """The pool is drawn from every imported corpus, so a demo's database may hold test sets
        into its own target language only."""
        others = Segment.objects.exclude(target_lang=self.demo.language)
        others = sorted(set(others.values_list("target_lang", flat=True)))
        if others:
            raise CommandError(
                f"this database holds test sets into {', '.join(others)}; the "
                f"--language {self.demo.language} demo needs a database of its own: set "
                "WOJDB_HOME (or DATABASE_URL) to a new one"
            )

    def study(self) -> Study:
        """The study of the demo's study file, created on the first run; its practice pair
        is chosen once the questionnaires exist (`practice_item`)."""
        return (
            Study.objects.filter(slug=self.demo.slug).first()
            or apply_study_file(read_study_file(self.demo.study_file))[0]
        )

    def practice_item(self, study: Study) -> Item:
        """A short reference with two words swapped, which no questionnaire of the study
        holds, as the practice pair."""
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

    def researcher(self) -> str:
        """A staff account for the dashboard; a fresh password each run, printed once."""
        user, _ = get_user_model().objects.get_or_create(
            username="researcher", defaults={"is_staff": True, "is_superuser": True}
        )
        password = secrets.token_urlsafe(9)
        user.set_password(password)
        user.save()
        return password
