from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from survey.study_file import StudyFileError, apply_study_file, read_study_file


class Command(BaseCommand):
    help = (
        "Create a study from its TOML file (every Study field by name, consent_texts, and the "
        "practice_item and shared_items by key; see `study_config`), or update the study with "
        "its slug. An update that would alter a frozen questionnaire (its composition, "
        "questions, practice or shared items) or an existing consent version is refused, "
        "naming them; nothing is written then."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, metavar="FILE", help="the study's TOML file")

    def handle(self, file, verbosity, **_):
        try:
            study, created = apply_study_file(read_study_file(file))
        except StudyFileError as e:
            raise CommandError(str(e)) from None
        if verbosity:
            self.stdout.write(f"{'Created' if created else 'Updated'} study {study.slug!r}.")
