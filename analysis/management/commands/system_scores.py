"""Per-system human scores with significance clusters, by a WMT year's protocol, written as CSV."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from survey.management.reporting import find_study, refused
from wojdb.arguments import add_output, output_file
from wojdb.core.stats.defaults import PROTOCOLS
from wojdb.core.vocabulary import EXTERNAL_SOURCES

SOURCES = ("study", *EXTERNAL_SOURCES)


class Command(BaseCommand):
    help = (
        "Write one row per system and language pair, as a WMT year's findings computed it "
        "(--protocol; by default the protocol of the judgments' test-set year, printed): "
        "system, lp, z (the system's score), raw, n (segments), judgments, rank (position), "
        "cluster, ranks (WMT24's rank range), reference (a human translation judged as a "
        "system) and protocol. wmt22 (WMT19-23 years, and the study): a segment's score the "
        "mean of its judgments, z the mean over segments, a cluster ending where every system "
        "above beats every system below by a one-sided Wilcoxon rank-sum test on segment "
        "scores, p < 0.05. --source da (default) uses the imported WMT direct-assessment "
        "segment scores as WMT computes its tables (z and raw the means of Z.SCR and RAW.SCR, "
        "n the segments, judgments the sum of N, human references included); a pair without "
        "them its per-rater judgments (SYSTEM and REPEAT items count; no raw); a pair with "
        "neither WMT's published system-level results in the published order (WMT21's "
        "clusters file, by z; WMT23's results, by raw). --source mqm "
        "and esa use the imported MQM error files and Appraise ESA judgments as mt-metrics-eval "
        "scores them (a segment's score the mean over its raters on its own scale: MQM's minus "
        "error weights, or ESA's 0-100); mqm falls back to imported avg_seg_scores. wmt24 "
        "(ESA and MQM ratings): tutorial, quality-control, #incomplete and #dup items and the "
        "canary left out, of a rater's ratings of an output in one file the latest kept, a "
        "pair ranked where its systems have 100 ratings on average; z the mean over domains of "
        "the per-domain means; clusters and rank ranges from a two-sided Wilcoxon signed-rank "
        "test per domain combined by Stouffer's method, p < 0.05 (with --micro: the mean over "
        "ratings and one signed-rank test). --source study uses the study's own ratings of WMT "
        "hypotheses (each participant's answers standardised). A source with nothing to score "
        "is an error."
    )

    def add_arguments(self, parser):
        add_output(parser, output_file, "CSV file to write")
        parser.add_argument("--source", choices=SOURCES, default="da", help="default: da")
        parser.add_argument("--testset", help="only judgments of this test set's segments")
        parser.add_argument("--lp", nargs="+", help="language pairs, e.g. de-en cs-en")
        parser.add_argument(
            "--protocol",
            choices=PROTOCOLS,
            help="the WMT year whose computation to follow (default: the test set's year)",
        )
        parser.add_argument(
            "--micro",
            action="store_true",
            help="wmt24: the mean over all ratings instead of over domains (the per-item mean)",
        )
        parser.add_argument("--study", help="the study's slug, for --source study")
        parser.add_argument(
            "--judgment",
            choices=("holistic", "order"),
            default="holistic",
            help="which answer of the study's ratings (default holistic)",
        )

    def handle(self, out, force, source, testset, lp, protocol, micro, study, judgment, **options):
        from analysis import frames
        from wojdb.core.spreadsheet import escape_frame
        from wojdb.core.stats import protocols, system

        out.claim(force)
        notes = []
        if source == "study":
            if protocol not in (None, "wmt22"):
                raise refused("--source study is ranked by the wmt22 protocol only")
            protocol, why = "wmt22", "the study's ratings"
            ratings = frames.ratings_frame(find_study(study))
            judgments = frames.study_judgments_frame(ratings, testset, judgment)
            if lp:
                judgments = judgments[judgments[system.LP].isin(lp)]
            table = protocols.finish(system.system_scores(judgments), protocols.describe(protocol))
        else:
            years = frames.judgment_years(source, testset, lp)
            protocol, why = protocols.choose(protocol, set(years.values()))
            try:
                result = frames.protocol_table(source, protocol, testset, lp, micro)
            except ValueError as error:
                raise refused(f"{error}. Nothing was written.") from None
            table, notes = result.rows, result.notes
        published = sorted(set(table.loc[table["protocol"] == frames.PUBLISHED, "lp"]))
        computed = table.loc[table["protocol"] != frames.PUBLISHED, "protocol"]
        if len(computed) or not published:
            self.stdout.write(f"protocol {computed.iat[0] if len(computed) else protocol} ({why})")
        if published:  # pairs with neither segment scores nor judgments: not computed here
            self.stdout.write(f"{frames.PUBLISHED}, as imported: {', '.join(published)}")
        for note in notes:
            self.stdout.write(f"  {note}")
        if table.empty:
            raise refused(
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
