"""Read scanned paper questionnaires back into the study."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand
from tqdm import tqdm

from survey.management.reporting import find_study, refused
from wojdb.arguments import float_range, int_range
from wojdb.core.paper.thresholds import Thresholds

SHARE = float_range(0, 1)


class Command(BaseCommand):
    help = (
        "Import scanned pages (PDF, PNG, TIFF, JPEG; 150-600 dpi; colour, grey or black and "
        "white; in any order, rotated or upside down). Each page is identified by its QR code "
        "and registered by its corner markers; each box is classified by the share of its "
        "inside that is inked. A question with exactly one checked box takes its value; none "
        "leaves it unanswered; several, or a box between the thresholds, is flagged for the "
        "review page. Pages are stored once (re-importing adds nothing; a page read again with "
        "other marks, in one run or against the stored page, is refused); a copy becomes a paper "
        "participant when all its pages are in. Pages of a copy whose participant withdrew are "
        "left out and named. Any unreadable page or file refuses the whole import, writing "
        "nothing, unless --skip-bad."
    )

    def add_arguments(self, parser):
        t = Thresholds()
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        parser.add_argument("--study", help="accept only pages of this study (slug)")
        parser.add_argument(
            "--dpi",
            type=int_range(72, 1200),
            default=200,
            help="resolution to rasterise PDFs at, a %(type)s (default 200)",
        )
        parser.add_argument("--skip-bad", action="store_true", help="import the good pages only")
        parser.add_argument(
            "--ink",
            type=SHARE,
            default=t.ink,
            help="a pixel is ink when darker than this share of paper white "
            "(%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--faint",
            type=SHARE,
            default=t.faint,
            help="an empty box with --checked-min of pixels darker than this share of paper "
            "white holds a faint mark and is flagged (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--empty-max",
            type=SHARE,
            default=t.empty_max,
            help="inked share below which a box is empty (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--checked-min",
            type=SHARE,
            default=t.checked_min,
            help="inked share from which a box is checked (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--checked-max",
            type=SHARE,
            default=t.checked_max,
            help="inked share up to which a box is checked (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--filled-min",
            type=SHARE,
            default=t.filled_min,
            help="inked share from which a box is filled, i.e. cancelled "
            "(%(type)s; default %(default)s)",
        )

    def handle(self, files, study, dpi, skip_bad, verbosity, **options):
        from survey.paper import scan_import

        try:
            thresholds = Thresholds(
                ink=options["ink"],
                faint=options["faint"],
                empty_max=options["empty_max"],
                checked_min=options["checked_min"],
                checked_max=options["checked_max"],
                filled_min=options["filled_min"],
            )
        except ValueError as e:
            raise refused(str(e)) from None
        study = find_study(study) if study else None
        bar = tqdm(desc="pages", unit="page", disable=verbosity < 1, file=self.stderr)
        try:
            result = scan_import.import_scans(
                files, study, dpi, thresholds, skip_bad, progress=lambda: bar.update()
            )
        except scan_import.PaperError as e:
            raise refused(str(e)) from None
        finally:
            bar.close()
        for line in result.skipped:
            self.stderr.write(f"skipped: {line}")
        for line in result.withdrawn:
            self.stdout.write(f"left out: {line}")
        for line in result.duplicates:
            self.stdout.write(f"already stored: {line}")
        for code, missing in result.waiting.items():
            self.stdout.write(f"copy {code} waits for page(s) {', '.join(map(str, missing))}")
        self.stdout.write(
            self.style.SUCCESS(
                f"Stored {result.pages} page(s); {len(result.completed)} cop"
                f"{'y' if len(result.completed) == 1 else 'ies'} complete and imported as "
                f"paper participants; {result.flagged} flagged answer(s) and {result.texts} "
                "write-in area(s) to review at /researcher/paper/."
            )
        )
