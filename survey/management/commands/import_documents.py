from pathlib import Path

from django.core.management.base import BaseCommand

from survey.management.reporting import clear_errors, print_report
from survey.sources.documents import import_documents


class Command(BaseCommand):
    help = (
        "Give a test set's sentences their document ids: TESTSET.XX-YY.docids files with one "
        "document id per line of the text files (the line count must equal the test set's). "
        "WMT direct-assessment segment ids are mapped to sentences through them."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        parser.add_argument("--testset", help="test set to give them to (default: the file name's)")

    def handle(self, files, testset, verbosity, **options):
        with clear_errors():
            report = import_documents(files, testset=testset)
        print_report(self, report, verbosity)
