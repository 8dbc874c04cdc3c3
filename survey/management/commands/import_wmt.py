from pathlib import Path

from django.core.management.base import BaseCommand

from survey.management.reporting import clear_errors, print_report
from wojdb.arguments import YEAR


class Command(BaseCommand):
    help = (
        "Import WMT sources, references and system outputs from DIR, in whichever layout it "
        "holds: WMT plain text (newstestYYYY.LP.src.XX, .ref.A.YY, .hyp.SYSTEM.YY, optional "
        ".docids/.docs), mt-metrics-eval (sources/, references/, system-outputs/, documents/), "
        "WMT XML (*.LP.all.xml) or SGML (.sgm). Says which layout it found and lists the files "
        "it did not read. Validates every file before writing; re-running adds nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("dir", type=Path, help="folder holding the WMT test sets")
        parser.add_argument("--year", type=YEAR, help="only this year's test set (%(type)s)")
        parser.add_argument(
            "--lp", nargs="+", metavar="LP", help="language pairs, e.g. cs-en de-en"
        )
        parser.add_argument(
            "--ref",
            nargs="+",
            metavar="REF",
            help="references in order of preference, e.g. A refA B (default: the first present)",
        )
        parser.add_argument("--systems", nargs="+", metavar="SYSTEM", help="only these systems")
        parser.add_argument(
            "--testset",
            help="test-set name where the folder names do not give one (mt-metrics-eval)",
        )

    def handle(self, dir, year, lp, ref, systems, testset, verbosity, **options):
        # The import's modules load when it runs, not for --help.
        from tqdm import tqdm

        from survey.sources.testsets import prepare_wmt, write_wmt

        with clear_errors():
            plan = prepare_wmt(dir, year=year, lps=lp, refs=ref, systems=systems, testset=testset)
            with tqdm(total=plan.triples, unit="line", disable=verbosity == 0) as bar:
                report = write_wmt(plan, progress=bar.update)
        print_report(self, report, verbosity)
