from pathlib import Path

from django.core.management.base import BaseCommand

from survey.management.reporting import clear_errors, print_report
from survey.parsing import import_parses


class Command(BaseCommand):
    help = (
        "Store dependency parses made by an outside parser (UDPipe, Stanza, Trankit …) for a "
        "target language without a spaCy pipeline: a CoNLL-U file with one sentence per line "
        "of the test set, in order, of its references or (with --system) of a system's "
        "hypotheses. Stored parses of those sentences are replaced."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, metavar="FILE.conllu")
        parser.add_argument("--testset", required=True, help="e.g. newstest2021")
        parser.add_argument("--lp", required=True, help="language pair, e.g. en-cs")
        parser.add_argument("--system", help="the system whose hypotheses these parse")
        parser.add_argument(
            "--parser",
            default="conllu",
            help="the parser's name and version, recorded with each parse unless the file "
            "names it in a '# parser = …' comment (default: conllu)",
        )

    def handle(self, file, testset, lp, system, parser, verbosity, **options):
        with clear_errors():
            report = import_parses(file, testset=testset, lp=lp, system=system, parser=parser)
        print_report(self, report, verbosity)
