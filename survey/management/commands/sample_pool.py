from django.core.management.base import BaseCommand

from survey.design.sentence_pool import sample_pool
from survey.management.reporting import clear_errors, find_study, print_report
from wojdb.arguments import POSITIVE, SEED
from wojdb.core.design.pool import DEFAULT_PER_CORPUS, PoolRule


class Command(BaseCommand):
    help = (
        "Draw a study's sentence pool at random: the same number of triples from every corpus "
        "(system x language pair x test set), as the thesis did (450 each), among those that "
        "qualify: no blank text, within the length limits, one sentence only (unless "
        "--several-sentences). The same seed gives the same pool. The new pool replaces the "
        "study's earlier one (corpora outside --lp included), with the questionnaires and "
        "simulated participants built on it; a language pair no imported corpus has is "
        "refused, the report says what was replaced, and once real people have taken part in "
        "the study its pool cannot be redrawn. A study file's [pool] declares the same and more."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--study", metavar="SLUG", help="the study (needed if there are several)"
        )
        parser.add_argument(
            "--per-corpus",
            type=POSITIVE,
            default=DEFAULT_PER_CORPUS,
            help="triples per corpus (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--seed", type=SEED, default=1, help="random seed (%(type)s; default %(default)s)"
        )
        parser.add_argument("--lp", nargs="+", metavar="LP", help="only these language pairs")
        parser.add_argument(
            "--max-length",
            type=POSITIVE,
            help="longest reference or hypothesis, in words (characters in a language written "
            "without spaces) (%(type)s; default: no limit)",
        )
        parser.add_argument(
            "--several-sentences",
            action="store_true",
            help="also draw segments of several sentences, and those not ending as a sentence ends",
        )

    def handle(self, study, per_corpus, seed, lp, max_length, several_sentences, verbosity, **_):
        rule = PoolRule(
            per_corpus=per_corpus,
            seed=seed,
            language_pairs=tuple(lp or ()),
            max_length=max_length,
            single_sentence=not several_sentences,
        )
        with clear_errors():
            report = sample_pool(find_study(study), rule)
        print_report(self, report, verbosity)
