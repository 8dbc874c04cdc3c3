from functools import partial
from pathlib import Path

from django.core.management.base import BaseCommand
from tqdm import tqdm

from survey.management.reporting import clear_errors, print_report, refused
from wojdb.core.io import read_lines


class Command(BaseCommand):
    help = (
        "Import word alignments of hypotheses to their references from an external aligner "
        "(fast_align, GIZA++, cdec), for compute_metrics --aligner NAME. First write the pairs "
        "to align with --write-pairs PAIRS: a tab-separated file with a header 'item_id "
        "hypothesis reference' and one row per hypothesis item, the tokens of the stored "
        "parses joined by spaces (missing parses are made and kept). Align the hypothesis "
        "(source side) to the reference, e.g. awk -F'\\t' 'NR > 1 {print $2 \" ||| \" $3}' "
        "PAIRS > pairs.fa; fast_align -i pairs.fa -d -o -v > forward.align. Then import "
        "the Pharaoh file, one line per row of PAIRS, 0-based 'i-j' links with the hypothesis "
        "index first: import_alignments forward.align --pairs PAIRS --aligner NAME (.gz "
        "accepted). Both files are checked against the stored parses before anything is "
        "written; a re-import replaces the alignments of NAME for the items it names; lines "
        "whose item is not in the database are reported with counts."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "alignments",
            nargs="?",
            type=Path,
            metavar="ALIGNMENTS",
            help="the aligner's output: one line of 0-based i-j links (hypothesis index first) "
            "per row of --pairs",
        )
        parser.add_argument(
            "--pairs",
            type=Path,
            metavar="PAIRS",
            help="the tab-separated file naming the item of each line, as --write-pairs wrote "
            "it (the column item_id is needed; hypothesis and reference tokens, if present, "
            "must match the stored parses)",
        )
        parser.add_argument(
            "--aligner",
            metavar="NAME",
            help="name to store the alignments under, e.g. fast_align or giza++",
        )
        parser.add_argument(
            "--write-pairs",
            type=Path,
            metavar="PAIRS",
            help="instead of importing, write the tokenised pairs of every hypothesis item",
        )

    def handle(self, alignments, pairs, aligner, write_pairs, verbosity, **options):
        from analysis import alignments_import

        if write_pairs is not None:
            if alignments or pairs or aligner:
                raise refused("--write-pairs takes no other argument")
            try:
                written = alignments_import.write_pairs(
                    write_pairs, partial(tqdm, disable=verbosity < 1)
                )
            except (ValueError, OSError) as error:
                raise refused(str(error)) from None
            if verbosity:
                self.stdout.write(f"Wrote {written:,} pair(s) to {write_pairs}")
            return
        if alignments is None or pairs is None or aligner is None:
            raise refused(
                "give the alignment file, --pairs and --aligner (or --write-pairs to start)"
            )
        try:
            alignments_import.check_aligner(aligner)
        except ValueError as error:
            raise refused(f"--aligner: {error}") from None
        with clear_errors():
            total = len(read_lines(alignments))
            with tqdm(total=total, unit="line", disable=verbosity == 0) as bar:
                report = alignments_import.import_alignments(
                    alignments, pairs, aligner, progress=bar.update
                )
        print_report(self, report, verbosity)
