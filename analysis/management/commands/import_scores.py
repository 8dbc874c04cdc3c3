from pathlib import Path

from django.core.management.base import BaseCommand

from analysis.scores_import import import_scores
from survey.management.reporting import clear_errors, print_report
from wojdb.core.formats.scores import AGGREGATIONS


class Command(BaseCommand):
    help = (
        "Import automatic metric scores for hypotheses and items: WMT metrics-task segment files "
        "(tab-separated 'metric lp testset refset system [doc] seg score', .gz accepted; with "
        "a doc column, seg counts within the document and is mapped through the test set's "
        "stored document ids or, where the test set has none, its own doc column when that "
        "settles them; the refset becomes the metric's variant), mt-metrics-eval "
        "'METRIC-REF.seg.score' files in a folder named for the pair ('SYSTEM SCORE' lines), "
        "or CSV files with a header 'lp,system,segment,metric,score' (optional testset, variant) "
        "or 'item_id,metric,score' (optional variant), or Google's MQM segment scores "
        "(mqm_NAME_SRCTGT.avg_seg_scores.tsv: the test set is --testset, else the one named "
        "NAME, else the only one holding the pair). System names lose their submission "
        "number (Online-A.1570 → Online-A). A hypothesis scored twice by one metric is refused "
        "unless --aggregate says how to combine. A re-import replaces the scores it names; rows "
        "for unknown items are reported."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        parser.add_argument(
            "--aggregate",
            choices=sorted(AGGREGATIONS),
            help="combine repeated scores of one hypothesis this way instead of refusing",
        )
        parser.add_argument(
            "--testset", help="the test set MQM files score (where their name does not say)"
        )

    def handle(self, files, aggregate, testset, verbosity, **options):
        with clear_errors():
            report = import_scores(files, aggregate=aggregate, testset=testset)
        print_report(self, report, verbosity)
