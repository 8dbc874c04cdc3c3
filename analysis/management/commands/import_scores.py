from pathlib import Path

from django.core.management.base import BaseCommand

from analysis.scores_import import import_scores
from survey.management.reporting import clear_errors, print_report


class Command(BaseCommand):
    help = (
        "Import automatic metric scores for hypotheses and items: WMT metrics-task segment files "
        "(tab-separated 'metric lp testset refset system [doc] seg score', .gz accepted; the "
        "refset becomes the metric's variant) or CSV files with a header 'lp,system,segment,"
        "metric,score' (optional testset, variant) or 'item_id,metric,score' (optional variant). "
        "A re-import replaces the scores it names; rows for unknown items are reported."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")

    def handle(self, files, verbosity, **options):
        with clear_errors():
            report = import_scores(files)
        print_report(self, report, verbosity)
