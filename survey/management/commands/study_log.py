import csv
import io
import json

from django.core.management.base import BaseCommand

from survey import record
from survey.management.reporting import refused
from wojdb.arguments import output_file

COLUMNS = ("at", "study", "actor", "action", "details")


class Command(BaseCommand):
    help = (
        "Export a study's record: every change to it, who made it (a researcher, or a command "
        "and the server account that ran it) and when, oldest first, as CSV (the default) or "
        "JSON Lines. The record is kept when the study is deleted, under its slug."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", metavar="SLUG", help="the study's slug")
        parser.add_argument("--format", choices=("csv", "jsonl"), default="csv")
        parser.add_argument(
            "--out", type=output_file, help="file to write (default: standard output)"
        )

    def handle(self, slug, format, out, **_):
        entries = record.entries(slug)
        if not entries.exists():
            raise refused(f"no record of a study {slug!r}")
        rows = (
            {
                "at": e.at.isoformat(),
                "study": e.study_slug,
                "actor": e.actor,
                "action": e.action,
                "details": e.details,
            }
            for e in entries
        )
        from wojdb.core.spreadsheet import escape_cell  # pandas loads on use

        text = io.StringIO()
        if format == "jsonl":
            for row in rows:
                text.write(json.dumps(row, ensure_ascii=False) + "\n")
        else:
            writer = csv.DictWriter(text, COLUMNS, lineterminator="\n")
            writer.writeheader()
            for row in rows:
                row["details"] = json.dumps(row["details"], ensure_ascii=False)
                # A spreadsheet opening the file must not run what a name or detail holds.
                writer.writerow({key: escape_cell(value) for key, value in row.items()})
        if out is None:
            self.stdout.write(text.getvalue(), ending="")
            return
        try:
            out.write_text(text.getvalue(), encoding="utf-8")
        except OSError as e:
            raise refused(f"{out}: {e.strerror}") from None
