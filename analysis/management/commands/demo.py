import argparse
import os
import sys
from functools import partial

from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.urls import reverse

from analysis.demo_studies import DEMOS, build_demo, demo_errors, researcher_login
from survey.management.reporting import print_report, refused
from wojdb.arguments import PORT, SEED
from wojdb.gunicorn_conf import COMMAND


class Command(BaseCommand):
    help = (
        "Build a ready demo study from the real WMT21 slice in fixtures/: migrate the database, "
        "build the study of fixtures/demo-study.toml as `create_study` does (import texts, "
        "document ids and DA judgments, draw the pool, generate permutations, choose the "
        "practice pair, build 36 questionnaires), add simulated participants, score the rated "
        "items with the built-in metrics, analyse them into the dashboard's report, and create a "
        "researcher login; with --serve, then serve it with gunicorn. Safe to re-run: finished "
        "steps are skipped. --language fr builds the French demo (German to French, "
        "fixtures/demo-study-fr.toml), in the same database or another."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--language",
            choices=sorted(DEMOS),
            default="en",
            help="the target language: en, English from German, Icelandic, Japanese and Russian "
            "(the default); fr, French from German. Both demos can live in one database",
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
            "--seed",
            type=SEED,
            default=1,
            help="seed of the simulated participants (%(type)s; default %(default)s; the study "
            "file gives the build's seeds)",
        )

    def handle(self, language, serve, port, url, seed, verbosity, **options):
        url = url or f"http://127.0.0.1:{port}"
        demo = DEMOS[language]
        call_command("migrate", interactive=False, verbosity=0 if verbosity < 2 else verbosity)
        try:
            study = build_demo(
                demo,
                seed,
                step=lambda text: self.stdout.write(f"- {text} …"),
                report=partial(print_report, self, verbosity=int(verbosity >= 2)),
            )
        except demo_errors() as e:
            raise refused(str(e)) from None
        password = researcher_login()
        self.stdout.write(self.style.SUCCESS(f"\n{demo.ready}"))
        link = url + reverse("survey:entry", args=[study.slug])
        self.stdout.write(f"  Participant link:  {link}")
        self.stdout.write(
            f"  As from Prolific:  {link}?PROLIFIC_PID=demo-pid&STUDY_ID=demo"
            f"&SESSION_ID=demo-session  (completion code {study.completion_code})"
        )
        researcher, admin = url + reverse("dashboard:index"), url + reverse("admin:index")
        self.stdout.write(f"  Researcher pages:  {researcher}  (admin: {admin})")
        report = url + reverse("report:index", args=[study.slug])
        self.stdout.write(f"  Analysis report:   {report}")
        # Every participant of a demo is simulated: its release is theirs, marked as such.
        self.stdout.write(
            f"  Release:           {url}{reverse('analysis:download_release', args=[study.slug])}"
            "?simulated=include"
        )
        self.stdout.write(f"  Researcher login:  user 'researcher', password '{password}'")
        if serve:
            self.serve(port)

    def serve(self, port: int):
        """Serve as bin/demo does: static files collected, two sync gunicorn workers."""
        call_command("collectstatic", interactive=False, verbosity=0)
        self.stdout.write(f"  Serving on http://127.0.0.1:{port}/ (Ctrl-C stops)")
        self.stdout.flush()
        gunicorn = [sys.executable, "-m", *COMMAND, "--bind", f"127.0.0.1:{port}", "--workers", "2"]
        os.execv(sys.executable, [*gunicorn, "--access-logfile", "-"])
