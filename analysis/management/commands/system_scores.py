"""Per-system human scores with WMT's significance clusters, written as CSV."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from analysis import frames
from wojdb.core.spreadsheet import escape_frame
from wojdb.core.stats import system
from wojdb.reporting import find_study

SOURCES = ("study", "da", "mqm")


class Command(BaseCommand):
    help = (
        "Write one row per system and language pair: system, lp, z (mean over segments of the "
        "segment's mean rater-standardised score), raw (the same on 0-100, where known), n "
        "(segments), judgments, rank and cluster (a cluster ends where every system above "
        "beats every system below by a one-sided Wilcoxon rank-sum test on segment means, "
        "p < 0.05, as WMT's findings). --source da uses the imported WMT direct-assessment "
        "judgments (import_da; SYSTEM and REPEAT items count), --source study the study's "
        "own ratings of WMT hypotheses (each participant's answers standardised), --source "
        "mqm the imported MQM segment scores (import_scores; z is then the mean MQM score, "
        "negative error weights, higher is better, and the clusters test segment scores). With "
        "--source da, a pair without judgments but with WMT's published system-level results "
        "(WMT21's clusters file) gets those: its z, raw, annotations as judgments, no n, and "
        "WMT's own clusters."
    )

    def add_arguments(self, parser):
        parser.add_argument("--out", type=Path, required=True, help="CSV file to write")
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

    def handle(self, out, source, testset, lp, study, judgment, **options):
        if source == "da":
            judgments = frames.da_judgments_frame(testset)
        elif source == "mqm":
            judgments = frames.mqm_judgments_frame(testset)
        else:
            ratings = frames.ratings_frame(find_study(study))
            judgments = frames.study_judgments_frame(ratings, testset, judgment)
        published = frames.da_system_published(testset) if source == "da" else None
        if lp:
            judgments = judgments[judgments[system.LP].isin(lp)]
            if published is not None:
                published = published[published[system.LP].isin(lp)]
        if judgments.empty and (published is None or published.empty):
            raise CommandError(
                f"No {source} judgments"
                + (f" of test set {testset!r}" if testset else "")
                + (f" for {', '.join(lp)}" if lp else "")
                + ". Nothing was written."
            )
        table = system.system_scores(judgments)
        if source == "da":
            table = system.fill_raw(table, frames.da_system_raw(testset))
            table = system.add_published(table, published)
        out.parent.mkdir(parents=True, exist_ok=True)
        escape_frame(table).to_csv(out, index=False, float_format="%.6g")
        self.stdout.write(
            f"{len(table)} systems in {table['lp'].nunique()} language pair(s) written to {out}"
        )
