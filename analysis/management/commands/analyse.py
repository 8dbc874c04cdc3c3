"""Run the study's analysis and write its report: HTML, CSV tables and figures."""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils import timezone

from analysis.report_store import report_dir, write_report
from survey import record
from survey.management.reporting import find_study, refused
from wojdb.arguments import SEED, add_output, int_range, output_folder
from wojdb.core.stats.defaults import MIN_GROUPS, N_BOOT


class Command(BaseCommand):
    help = (
        "Analyse a study as chapter 7 of the thesis does and write DIR/report.html (self-"
        "contained: figures inline, no scripts or external files), DIR/tables/*.csv, "
        "DIR/figures/*.png and *.svg, and DIR/report.json. The report covers the participants "
        "(Figs 6.4-6.7), response trends (Figs 7.1-7.2), the participant-effect mixed models "
        "and t-test, correlations with every score source (Figs 7.3-7.8, Table 7.1) and the "
        "Appendix B participant subsets. An existing DIR is replaced only with --force. Reads "
        "the database, or with --release an exported WOJ-DB release folder. Without --out, a "
        "study's report replaces its latest one, which its dashboard's Report page shows."
    )

    def add_arguments(self, parser):
        add_output(
            parser,
            output_folder,
            "folder to write the report (default for a study of the database: the study's "
            "own report, shown on its dashboard; needed with --release and --corpus)",
            required=False,
            holds="report.json",
        )
        parser.add_argument("--study", help="the study's slug (needed if there are several)")
        parser.add_argument(
            "--release", type=Path, help="analyse this exported release folder, not the database"
        )
        parser.add_argument(
            "--allow-extra-files",
            action="store_true",
            help="with --release: read it even if it holds files its datapackage.json does not "
            "name",
        )
        parser.add_argument(
            "--pilot",
            help="slug of a pilot study, for Figure 6.4: its pilot and real participants "
            "(a study's own pilot participants with its own slug)",
        )
        parser.add_argument(
            "--no-simulated", action="store_true", help="leave out simulated participants"
        )
        parser.add_argument("--no-figures", action="store_true", help="tables only, faster")
        parser.add_argument(
            "--no-subsets", action="store_true", help="skip the participant-subset correlations"
        )
        parser.add_argument(
            "--bootstrap",
            # Each resample's draws are held at once: 10**11 asked numpy for 54.6 TiB.
            type=int_range(0, 100_000),
            default=N_BOOT,
            help="bootstrap resamples for the 95%% intervals, 0 for none (%(type)s; default "
            "%(default)s)",
        )
        parser.add_argument(
            "--seed", type=SEED, default=0, help="bootstrap seed (%(type)s; default %(default)s)"
        )
        parser.add_argument(
            "--min-groups",
            type=int_range(2),
            default=MIN_GROUPS,
            help="fewest groups (participants, items) a mixed model's random factor needs; a "
            "model with fewer is reported as not estimable, and so are the hypotheses decided "
            "on its adjusted scores (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--corpus",
            action="store_true",
            help="no study: correlate every score source with the imported WMT human "
            "judgments (DA segment z and raw; system z from the per-rater judgments), at "
            "segment and system level, per language pair",
        )
        parser.add_argument("--lp", nargs="+", help="with --corpus: these language pairs only")
        parser.add_argument("--testset", help="with --corpus: this test set only")

    def handle(self, out, force, verbosity, **options):
        from analysis.analysing import AnalysisError, run_analysis

        if out is not None:
            out.claim(force)
        if options["release"] is not None and options["study"] is not None:
            # The release holds one study, its own: --study was ignored without a word.
            raise refused(
                "--study names a study of the database, --release a release's own study: "
                "give one of them. Nothing was written."
            )
        started = time.monotonic()
        say = self.stdout.write if verbosity else (lambda _: None)
        if out is None and (options["release"] is not None or options["corpus"]):
            raise refused("--release and --corpus need --out DIR. Nothing was written.")
        chosen = None if options["release"] or options["corpus"] else find_study(options["study"])
        analysis = {
            key: options[key]
            for key in (
                *("allow_extra_files", "pilot", "no_simulated", "no_figures", "no_subsets"),
                *("bootstrap", "seed", "min_groups", "corpus", "lp", "testset"),
            )
        }
        analysis["progress"] = lambda step: say(f"- {step}")
        try:
            if out is None:  # the study's own report, where its dashboard finds it
                now = timezone.now().isoformat()
                done = write_report(chosen, now, record.operator(), **analysis)
                target = report_dir(chosen.slug)
            else:
                with out.writing(force) as folder:
                    done = run_analysis(
                        folder, study=chosen, release=options["release"], **analysis
                    )
                target = out.path
        except AnalysisError as e:
            raise refused(str(e)) from None
        for note in done.notes:
            say(self.style.WARNING(f"Note: {note}"))
        if verbosity:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Wrote {len(done.written)} files to {target} in "
                    f"{time.monotonic() - started:.0f} s; open {target / 'report.html'}"
                )
            )
