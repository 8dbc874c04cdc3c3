from pathlib import Path

from django.core.management.base import BaseCommand

from survey.management.reporting import clear_errors, print_report, refused
from survey.sources import parses


class Command(BaseCommand):
    help = (
        "Store dependency parses made by an outside parser (UDPipe, Stanza, Trankit …) for a "
        "target language without a spaCy pipeline: a CoNLL-U file with one sentence per line "
        "of the test set, in order, of its references or (with --system) of a system's "
        "hypotheses. Stored parses of those sentences are replaced. Permuted references: "
        "--write-permutations PERMS.txt writes the texts of the permutations questionnaire "
        "items show, one per line (words separated by spaces), and their ids to PERMS.ids; "
        "parse PERMS.txt and import the CoNLL-U with --permutations PERMS.ids, after which "
        "compute_metrics uses these parses instead of a pipeline's."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", nargs="?", type=Path, metavar="FILE.conllu")
        parser.add_argument("--testset", help="e.g. newstest2021")
        parser.add_argument(
            "--lp",
            help="language pair, e.g. en-cs (with --write-permutations: only its permutations)",
        )
        parser.add_argument("--system", help="the system whose hypotheses these parse")
        parser.add_argument(
            "--parser",
            default="conllu",
            help="the parser's name and version, recorded with each parse unless the file "
            "names it in a '# parser = …' comment (default: conllu)",
        )
        parser.add_argument(
            "--write-permutations",
            type=Path,
            metavar="PERMS.txt",
            help="instead of importing, write the permutations' texts to PERMS.txt and their "
            "ids to PERMS.ids beside it",
        )
        parser.add_argument(
            "--permutations",
            type=Path,
            metavar="PERMS.ids",
            help="FILE.conllu parses the permutations this ids file names, one sentence per "
            "line, as --write-permutations wrote it",
        )

    def handle(
        self,
        file,
        testset,
        lp,
        system,
        parser,
        write_permutations,
        permutations,
        verbosity,
        **options,
    ):
        if write_permutations is not None:
            if file or testset or system or permutations:
                raise refused("--write-permutations takes no other argument but --lp")
            try:
                written = parses.write_permutations(write_permutations, lp)
            except (ValueError, OSError) as error:
                raise refused(str(error)) from None
            if verbosity:
                self.stdout.write(
                    f"Wrote {written:,} permutation(s) to {write_permutations} and their ids "
                    f"to {parses.ids_path(write_permutations)}"
                )
            return
        if file is None:
            raise refused("give FILE.conllu (or --write-permutations PERMS.txt to start)")
        if permutations is not None:
            if testset or lp or system:
                raise refused("--permutations takes no --testset, --lp or --system")
            with clear_errors():
                report = parses.import_permutation_parses(file, permutations, parser)
        else:
            if not testset or not lp:
                raise refused("give --testset and --lp (or --permutations PERMS.ids)")
            with clear_errors():
                report = parses.import_parses(
                    file, testset=testset, lp=lp, system=system, parser=parser
                )
        print_report(self, report, verbosity)
