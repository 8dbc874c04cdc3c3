import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand
from tqdm import tqdm

from survey.management.reporting import refused
from wojdb.core.io import InputError


class Command(BaseCommand):
    help = (
        "Load a WOJ-DB release (a folder or its .zip) into an empty database. Every file is "
        "validated against the release's datapackage.json first (columns, types, required "
        "values, keys between files), then against the rules the live database keeps between "
        "tables (each rating is of an item at its position in the participant's own "
        "questionnaire, or of the study's practice item at position 0; positions run 1..n); "
        "errors name the file, line and field. A zip holding more than one release, a release "
        "of a later format than this WOJ-DB reads, and files the datapackage.json does not "
        "name are refused. Then everything is written in one transaction, keeping the "
        "release's item, questionnaire, participant and metric ids. The study is created "
        "closed: a release holds no contact details or crowd-platform codes, and the import "
        "names those the study needs before it opens."
    )

    def add_arguments(self, parser):
        parser.add_argument("release", type=Path, metavar="DIR", help="release folder or .zip")
        parser.add_argument(
            "--check", action="store_true", help="only validate the release; write nothing"
        )
        parser.add_argument(
            "--allow-extra-files",
            action="store_true",
            help="import even if the release holds files its datapackage.json does not name "
            "(they are listed, and not read)",
        )

    def handle(self, release, check, allow_extra_files, verbosity, **_):
        from analysis import releases
        from wojdb.core.release import read

        with tempfile.TemporaryDirectory() as unpacked:
            try:
                if not check:
                    releases.refuse_non_empty()  # before a long validation
                folder = read.read_source(
                    release, Path(unpacked), allow_extra_files=allow_extra_files
                )
                loaded = read.read_release(folder, allow_extra_files=allow_extra_files)
                if check:
                    self.stdout.write(f"{release} is a valid release.")
                    if note := read.newer_software_note(loaded.package):
                        self.stdout.write(note)
                    return
                total = releases.import_steps(loaded)
                with tqdm(total=total, unit="row", disable=verbosity == 0) as bar:
                    report = releases.import_release(loaded, progress=bar.update)
            except (read.ReleaseError, InputError, FileNotFoundError) as e:
                raise refused(f"{e}\nNothing was written.") from None
            except releases.ImportRefused as e:
                raise refused(str(e)) from None
        for line in report.lines() if verbosity else ():
            self.stdout.write(line)
