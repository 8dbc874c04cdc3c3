from pathlib import Path

from django.core.management.base import BaseCommand
from tqdm import tqdm

from survey.management.reporting import clear_errors, print_report
from survey.sources.human_judgments import SID_MAPPINGS, import_judgments
from wojdb.core.formats.judgments import JUDGMENT_FORMATS


class Command(BaseCommand):
    help = (
        "Import human judgments, each file recognised by its content: "
        + ", ".join(name for name, _, _ in JUDGMENT_FORMATS)
        + ". WMT segment ids are mapped to sentences by the test set's document ids "
        "(import_documents) and the mapping is checked by content (z-scores against sentence "
        "chrF within systems, at a threshold for direct assessment and a lower one for error "
        "annotations (MQM, ESA); hypotheses identical to the reference); an import failing the "
        "check is refused. Without document ids, segment scores and judgments are kept without "
        "a link to a sentence. A system is named as imported where a corpus has its name, "
        "else after one normalisation (wojdb.core.formats.wmt.imported_system); the report "
        "names every mapped and every unmatched system."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        parser.add_argument(
            "--testset", help="test set to join to (needed only when several hold the pair)"
        )
        parser.add_argument(
            "--lp", help="language pair, e.g. de-en, for files whose name does not end with it"
        )
        parser.add_argument(
            "--sid-mapping",
            choices=SID_MAPPINGS,
            default="documents",
            help="segment id = position after sorting the documents by id (default), or the "
            "line number of the text files",
        )
        parser.add_argument(
            "--accept-unverified-alignment",
            action="store_true",
            help="import even when the alignment check fails (recorded with the import)",
        )

    def handle(self, files, testset, lp, sid_mapping, accept_unverified_alignment, **options):
        with clear_errors(), tqdm(disable=options["verbosity"] == 0, leave=False) as bar:

            def progress(step: str, done: int, total: int) -> None:
                bar.set_description(step, refresh=False)
                bar.total, bar.n = total, done
                bar.refresh()

            report = import_judgments(
                files,
                testset=testset,
                lp=lp,
                sid_mapping=sid_mapping,
                accept_unverified_alignment=accept_unverified_alignment,
                progress=progress,
            )
        print_report(self, report, options["verbosity"])
