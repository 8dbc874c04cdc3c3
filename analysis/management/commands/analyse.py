"""Run the study's analysis and write its report: HTML, CSV tables and figures."""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

import wojdb
from analysis import frames, report
from analysis import release as dataset
from analysis.stats import columns as C
from analysis.stats import correlation, system
from survey.management.arguments import COUNT, SEED
from survey.management.reporting import find_study
from survey.models import Study
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
        include_simulated = not options["no_simulated"]
        if release is not None:
            title, scale_ends = f"WOJ-DB analysis of the release in {release.name}", None
            ratings, scores, languages = self.from_release(
                release, include_simulated, options["allow_extra_files"]
            )
            systems = None  # a release's items do not name their systems
        else:
            chosen = find_study(study)
            title, scale_ends = f"WOJ-DB analysis: {chosen.name}", self.scale_ends(chosen)
            ratings, scores, languages = self.from_database(chosen, include_simulated)
            systems = self.systems(ratings)
        if ratings.empty:
            raise CommandError(
                "No ratings to analyse"
                + ("" if include_simulated else " from people (simulated ones left out)")
                + ". Participants must answer first; for a demonstration, add simulated ones "
                "with simulate_responses. Nothing was written."
            )
        pilot_ratings = None
        if pilot:
            pilot_ratings = frames.ratings_frame(find_study(pilot), include_simulated=False)
        say = self.stdout.write if verbosity else (lambda _: None)
        try:
            built = report.build_report(
                ratings,
                scores,
                title=title,
                generated=f"{timezone.now():%Y-%m-%d %H:%M} UTC by WOJ-DB {wojdb.__version__}",
                languages=languages,
                pilot=pilot_ratings,
                scale_ends=scale_ends,
                figures=not options["no_figures"],
                n_boot=options["bootstrap"],
                seed=options["seed"],
                subsets={} if options["no_subsets"] else correlation.THESIS_SUBSETS,
                systems=systems,
                progress=lambda step: say(f"- {step} …"),
            )
        except ValueError as e:
            raise CommandError(f"{e}. Nothing was written.") from None
        say("- writing files …")
        written = report.write_report(built, out)
        for note in built.notes:
            say(self.style.WARNING(f"Note: {note}"))
        if verbosity:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Wrote {len(written)} files to {out} in {time.monotonic() - started:.0f} s; "
                    f"open {out / 'report.html'}"
                )
            )

    @staticmethod
    def scale_ends(study: Study) -> dict[str, tuple[str, str]]:
        return {
            "holistic": (study.holistic_low, study.holistic_high),
            "order": (study.order_low, study.order_high),
        }

    @staticmethod
    def from_database(study: Study, include_simulated: bool):
        ratings = frames.ratings_frame(study, include_simulated=include_simulated)
        scores = frames.scores_frame(ratings["item"].unique())
        people = frames.select_participants(study, include_simulated=include_simulated)
        return ratings, scores, frames.participant_languages_table(people)

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
                generated=f"{timezone.now():%Y-%m-%d %H:%M} UTC by WOJ-DB {wojdb.__version__}",
                figures=not no_figures,
            )
        except ValueError as e:
            raise CommandError(
                f"{e}. Import a corpus (import_wmt, import_da) and its metric scores "
                "(import_scores) first. Nothing was written."
            ) from None
        written = report.write_report(built, out)
        self.stdout.write(f"Wrote {len(written)} files to {out}; open {out / 'report.html'}")

    @staticmethod
    def systems(ratings: pd.DataFrame) -> pd.DataFrame | None:
        """System-level scores from the study's ratings and the imported DA and MQM of its
        language pairs."""
        study = frames.study_judgments_frame(ratings)
        if study.empty:
            return None
        parts = [system.system_scores(study).assign(source="study")]
        for source, external in (
            ("da", frames.da_judgments_frame()),
            ("mqm", frames.mqm_judgments_frame()),
        ):
            external = external[external[system.LP].isin(set(study[system.LP]))]
            if not external.empty:
                table = system.system_scores(external)
                if source == "da":
                    table = system.fill_raw(table, frames.da_system_raw())
                parts.append(table.assign(source=source))
        return pd.concat(parts, ignore_index=True)

    @staticmethod
    def from_release(folder: Path, include_simulated: bool, allow_extra_files: bool):
        try:
            ratings, scores = dataset.load_release(
                folder, include_simulated=include_simulated, allow_extra_files=allow_extra_files
            )
            languages = dataset.read_release(folder, allow_extra_files=allow_extra_files).tables[
                "participant_languages"
            ]
        except (dataset.ReleaseError, OSError) as e:
            raise CommandError(f"cannot read the release in {folder}: {e}") from None
        return ratings, scores, languages
