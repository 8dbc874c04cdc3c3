from pathlib import Path

from django.core.management.base import BaseCommand

from survey.importers import import_da
from survey.management.reporting import clear_errors, print_report


class Command(BaseCommand):
    help = (
        "Import WMT direct-assessment files: segment scores (ad-seg-scores-LP.csv: mean raw "
        "score, mean z-score, judgment count per system and segment) and per-rater judgments "
        "(ad-XXen-good-stnd.csv, kept with rater ids and types SYSTEM/REPEAT/BAD_REF/REF). "
        "System names are matched to imported corpora by dropping the submission number "
        "(UF.15 -> UF) and by a documented alias table (Nemo -> NVIDIA-NeMo); unmatched rows "
        "are reported with counts."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        parser.add_argument(
            "--testset", help="test set to join to (needed only when several hold the pair)"
        )

    def handle(self, files, testset, verbosity, **options):
        with clear_errors():
            report = import_da(files, testset=testset)
        print_report(self, report, verbosity)
