from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from survey.study_file import write_study_file
from wojdb.reporting import find_study


class Command(BaseCommand):
    help = (
        "Write a study as its TOML file, which `create_study` reads back into the same study "
        "(in this database or another holding the same texts)."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", metavar="SLUG", help="the study's slug")
        parser.add_argument("--out", type=Path, help="file to write (default: standard output)")

    def handle(self, slug, out, **_):
        text = write_study_file(find_study(slug))
        if out is None:
            self.stdout.write(text, ending="")
        else:
            try:
                out.write_text(text, encoding="utf-8")
            except OSError as e:
                raise CommandError(f"{out}: {e.strerror}") from None
