from pathlib import Path

from django.core.management.base import BaseCommand
from tqdm import tqdm

from survey import wmt
from survey.importers import import_wmt
from survey.management.arguments import YEAR
from survey.management.reporting import clear_errors, print_report


class Command(BaseCommand):
    help = (
        "Import WMT sources, references and system outputs from the plain-text layout "
        "(newstestYYYY.LP.src.XX, newstestYYYY.LP.ref.A.en, newstestYYYY.LP.hyp.SYSTEM.en) "
        "found anywhere below DIR. Validates every file before writing; re-running adds only "
        "what is missing."
    )

    def add_arguments(self, parser):
        parser.add_argument("dir", type=Path, help="folder holding the WMT text files")
        parser.add_argument("--year", type=YEAR, help="only this year's test set (%(type)s)")
        parser.add_argument(
            "--lp", nargs="+", metavar="LP", help="language pairs, e.g. cs-en de-en"
        )
        parser.add_argument("--ref", default="A", help="which reference to use (default: A)")
        parser.add_argument("--systems", nargs="+", metavar="SYSTEM", help="only these systems")

    def handle(self, dir, year, lp, ref, systems, verbosity, **options):
        with clear_errors():
            sets = wmt.find_test_sets(dir, year=year, lps=lp, ref=ref, systems=systems)
            total = sum(len(wmt.read_lines(ts.source)) * len(ts.hypotheses) for ts in sets)
            with tqdm(total=total, unit="triple", disable=verbosity == 0) as bar:
                report = import_wmt(
                    dir, year=year, lps=lp, ref=ref, systems=systems, progress=bar.update
                )
        print_report(self, report, verbosity)
