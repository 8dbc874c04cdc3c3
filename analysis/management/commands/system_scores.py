"""Per-system human scores with WMT's significance clusters, written as CSV."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from analysis import frames
from wojdb.arguments import add_output, output_file
from wojdb.core.spreadsheet import escape_frame
from wojdb.core.stats import system
from wojdb.reporting import find_study

SOURCES = ("study", *frames.EXTERNAL_SOURCES)


class Command(BaseCommand):
    help = (
        "Write one row per system and language pair: system, lp, z (mean over segments of the "
        "segment's score), raw (the same on 0-100, where known), n (segments), judgments, rank "
        "and cluster (a cluster ends where every system above beats every system below by a "
        "one-sided Wilcoxon rank-sum test on segment scores, p < 0.05, as WMT's findings). "
        "--source da (default) uses the imported WMT direct-assessment segment scores as WMT "
        "computes its tables (z and raw the means of Z.SCR and RAW.SCR, n the segments, "
        "judgments the sum of N, human references included); a pair without them its per-rater "
        "judgments (SYSTEM and REPEAT items count; no raw); a pair with neither WMT's published "
        "system-level results (WMT21's clusters file: z, raw, annotations as judgments, no n, "
        "WMT's own clusters). --source mqm and esa use the imported MQM error files and "
        "Appraise ESA judgments as mt-metrics-eval scores them (a segment's score the mean over "
        "its raters, z the mean over segments of that score on its own scale: MQM's minus "
        "error weights, higher is better, or ESA's 0-100); mqm falls back to imported "
        "avg_seg_scores (import_scores). --source study uses the study's own ratings of WMT "
        "hypotheses (each participant's answers standardised). A source with nothing to "
        "score is an error."
    )

    def add_arguments(self, parser):
        add_output(parser, output_file, "CSV file to write")
        parser.add_argument("--source", choices=SOURCES, default="da", help="default: da")
        parser.add_argument("--testset", help="only judgments of this test set's segments")
        parser.add_argument("--lp", nargs="+", help="language pairs, e.g. de-en cs-en")
        parser.add_argument("--study", help="the study's slug, for --source study")
        parser.add_argument(
            "--judgment",
            choices=("holistic", "order"),
            default="holistic",
            help="which answer of the study's ratings (default holistic)",
        )

    def handle(self, out, force, source, testset, lp, study, judgment, **options):
        out.claim(force)
        if source == "study":
            ratings = frames.ratings_frame(find_study(study))
            judgments = frames.study_judgments_frame(ratings, testset, judgment)
            if lp:
                judgments = judgments[judgments[system.LP].isin(lp)]
            table = system.system_scores(judgments)
        else:
            table = frames.external_system_table(source, testset, lp)
        if table.empty:
            raise CommandError(
                f"No {source} judgments"
                + (f" of test set {testset!r}" if testset else "")
                + (f" for {', '.join(lp)}" if lp else "")
                + ". Nothing was written."
            )
        with out.writing(force) as temporary:
            escape_frame(table).to_csv(temporary, index=False, float_format="%.6g")
        self.stdout.write(
            f"{len(table)} systems in {table['lp'].nunique()} language pair(s) written to {out}"
        )
