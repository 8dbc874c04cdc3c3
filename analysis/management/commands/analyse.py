"""Run the study's analysis and write its report: HTML, CSV tables and figures."""

from __future__ import annotations

import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from analysis import analysing, frames, report
from analysis import release as dataset
from analysis.stats import columns as C
from analysis.stats import correlation, system
from survey.management.arguments import COUNT, SEED
from survey.management.reporting import find_study
from survey.wmt import canonical_system


class Command(BaseCommand):
    help = (
        "Analyse a study as chapter 7 of the thesis does and write DIR/report.html (self-"
        "contained: figures inline, no scripts or external files), DIR/tables/*.csv, "
        "DIR/figures/*.png and *.svg, and DIR/report.json. The report covers the participants "
        "(Figs 6.4-6.7), response trends (Figs 7.1-7.2), the participant-effect mixed models "
        "and t-test, correlations with every score source (Figs 7.3-7.8, Table 7.1) and the "
        "Appendix B participant subsets. Files of the same name in DIR are overwritten. Reads "
        "the database, or with --release an exported WOJ-DB release folder."
    )

    def add_arguments(self, parser):
        parser.add_argument("--out", type=Path, required=True, help="folder to write the report")
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
        parser.add_argument("--pilot", help="slug of a pilot study, for Figure 6.4")
        parser.add_argument(
            "--no-simulated", action="store_true", help="leave out simulated participants"
        )
        parser.add_argument("--no-figures", action="store_true", help="tables only, faster")
        parser.add_argument(
            "--no-subsets", action="store_true", help="skip the participant-subset correlations"
        )
        parser.add_argument(
            "--bootstrap",
            type=COUNT,
            default=correlation.N_BOOT,
            help="bootstrap resamples for the 95%% intervals, 0 for none (%(type)s; default "
            "%(default)s)",
        )
        parser.add_argument(
            "--seed", type=SEED, default=0, help="bootstrap seed (%(type)s; default %(default)s)"
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

    def handle(self, out, study, release, pilot, verbosity, **options):
        started = time.monotonic()
        if options["corpus"]:
            return self.corpus(out, options["lp"], options["testset"], options["no_figures"])
        say = self.stdout.write if verbosity else (lambda _: None)
        settings = {
            "include_simulated": not options["no_simulated"],
            "figures": not options["no_figures"],
            "pilot": find_study(pilot) if pilot else None,
            "n_boot": options["bootstrap"],
            "seed": options["seed"],
            "subsets": not options["no_subsets"],
            "progress": lambda step: say(f"- {step} …"),
        }
        try:
            if release is not None:
                done = self.release(release, out, options["allow_extra_files"], **settings)
            else:
                done = analysing.run_analysis(find_study(study), out, **settings)
        except analysing.NothingToAnalyse as e:
            raise CommandError(str(e)) from None
        for note in done.notes:
            say(self.style.WARNING(f"Note: {note}"))
        if verbosity:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Wrote {len(done.written)} files to {out} in "
                    f"{time.monotonic() - started:.0f} s; open {out / 'report.html'}"
                )
            )

    @staticmethod
    def release(
        folder: Path, out: Path, allow_extra_files: bool, *, include_simulated, pilot, **settings
    ) -> analysing.Analysis:
        """The release's analysis: a release holds answers only, so no study settings."""
        try:
            ratings, scores = dataset.load_release(
                folder, include_simulated=include_simulated, allow_extra_files=allow_extra_files
            )
            languages = dataset.read_release(folder, allow_extra_files=allow_extra_files).tables[
                "participant_languages"
            ]
        except (dataset.ReleaseError, OSError) as e:
            raise CommandError(f"cannot read the release in {folder}: {e}") from None
        if ratings.empty:
            raise analysing.NothingToAnalyse(
                "No ratings to analyse"
                + ("" if include_simulated else " from people (simulated ones left out)")
                + ". Nothing was written."
            )
        progress = settings.pop("progress")
        subsets = settings.pop("subsets")
        if pilot is not None:
            pilot = frames.ratings_frame(pilot, include_simulated=False)
        try:
            built = report.build_report(
                ratings,
                scores,
                title=f"WOJ-DB analysis of the release in {folder.name}",
                generated=analysing.stamp(),
                languages=languages,
                pilot=None
                if pilot is None
                else frames.ratings_frame(pilot, include_simulated=False),
                subsets=correlation.THESIS_SUBSETS if subsets else {},
                progress=progress,
                **settings,
            )
        except ValueError as e:
            raise analysing.NothingToAnalyse(f"{e}. Nothing was written.") from None
        progress("writing files")
        return analysing.Analysis(report.write_report(built, out), built.notes)

    def corpus(self, out: Path, lps, testset, no_figures: bool) -> None:
        segments = frames.corpus_segments_frame(testset, lps)
        scores = frames.scores_frame(segments["item"], builtin=False)
        mqm = scores[scores[C.METRIC] == "MQM"].set_index(C.ITEM)[C.SCORE]
        if len(mqm):
            segments = segments.assign(mqm=segments["item"].map(mqm))
        judgments = frames.da_judgments_frame(testset)
        judgments = judgments[judgments[system.LP].isin(set(segments[system.LP]))]
        # Judgment files number their systems (UF.15); the corpus names them as imported (UF).
        judgments = judgments.assign(system=judgments[system.SYSTEM].map(canonical_system))
        try:
            built = report.build_corpus_report(
                segments,
                system.system_scores(judgments),
                scores,
                generated=analysing.stamp(),
                figures=not no_figures,
            )
        except ValueError as e:
            raise CommandError(
                f"{e}. Import a corpus (import_wmt, import_da) and its metric scores "
                "(import_scores) first. Nothing was written."
            ) from None
        written = report.write_report(built, out)
        self.stdout.write(f"Wrote {len(written)} files to {out}; open {out / 'report.html'}")
