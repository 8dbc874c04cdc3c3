"""Print paper questionnaires: one PDF per copy, layout.json, information sheet, debriefing."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand
from django.db import transaction
from tqdm import tqdm

from survey.management.reporting import find_study, refused
from wojdb.arguments import POSITIVE, add_output, int_range, output_folder

#: A print run is held in memory until its one transaction commits: 99,999,999 copies grew
#: past 1.5 GB in minutes without writing a page.
COPIES = int_range(1, 1000)


class Command(BaseCommand):
    help = (
        "Write printable questionnaires to --out: one PDF per copy (cover page with the marking "
        "legend, about-you questions, consent statements, the practice pair and the "
        "questionnaire's pairs in order), layout.json describing every box, and the "
        "information sheet and debriefing as information.pdf and debriefing.pdf. Each copy gets "
        "its own id, printed in a QR code on every page and recorded in the database. With "
        "several questionnaires, each goes to its own folder questionnaire-N/ under --out."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", help="the study's slug (needed if there are several)")
        parser.add_argument(
            "--questionnaire",
            type=POSITIVE,
            nargs="+",
            metavar="N",
            help="questionnaire numbers, each a %(type)s (default: every active questionnaire)",
        )
        parser.add_argument(
            "--copies", type=COPIES, default=1, help="copies of each, a %(type)s (default 1)"
        )
        parser.add_argument("--paper", choices=["a4", "letter"], default="a4")
        add_output(parser, output_folder, "folder to write", holds="information.pdf")

    def handle(self, study, questionnaire, copies, paper, out, force, verbosity, **options):
        from survey.paper import print_runs

        out.claim(force)
        study = find_study(study)
        bar = tqdm(desc="copies", unit="copy", disable=verbosity < 1, file=self.stderr)
        # The copies' codes are recorded only if their files take their place.
        try:
            with transaction.atomic(), out.writing(force) as folder:
                printed = print_runs.print_questionnaires(
                    study, questionnaire, copies, paper, folder, progress=bar.update
                )
        except print_runs.PaperError as e:
            raise refused(str(e)) from None
        finally:
            bar.close()

        def placed(path: Path) -> Path:
            return out.path / path.relative_to(folder)

        for written, layout in printed.layouts:
            self.stdout.write(
                f"Questionnaire {layout.questionnaire}: {len(layout.copies)} cop"
                f"{'y' if len(layout.copies) == 1 else 'ies'} of {layout.pages} pages "
                f"({', '.join(c['id'] for c in layout.copies)}) and "
                f"{placed(written / 'layout.json')}"
            )
        documents = ", ".join(str(placed(path)) for path in printed.documents)
        self.stdout.write(self.style.SUCCESS(f"Wrote {documents}."))
