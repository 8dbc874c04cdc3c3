from django.core.management.base import BaseCommand

from survey.pool import sample_pool
from wojdb.arguments import POSITIVE, SEED
from wojdb.reporting import clear_errors, print_report


class Command(BaseCommand):
    help = (
        "Draw the study's sentence pool at random: the same number of triples from every corpus "
        "(system x language pair x year), as the thesis did (450 each). The same seed gives the "
        "same pool. The new pool replaces the whole earlier one (corpora outside --lp included): "
        "a language pair no imported corpus has is refused, the report says what was replaced, "
        "and once questionnaires use the pool it cannot be redrawn."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--per-corpus",
            type=POSITIVE,
            default=450,
            help="triples per corpus (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--seed", type=SEED, default=1, help="random seed (%(type)s; default %(default)s)"
        )
        parser.add_argument("--lp", nargs="+", metavar="LP", help="only these language pairs")

    def handle(self, per_corpus, seed, lp, verbosity, **options):
        with clear_errors():
            report = sample_pool(per_corpus, seed, lps=lp)
        print_report(self, report, verbosity)
