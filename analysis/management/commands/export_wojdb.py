from django.core.management.base import BaseCommand
from tqdm import tqdm

from survey import record
from survey.management.reporting import find_study, refused
from wojdb.arguments import add_output, output_path
from wojdb.core.vocabulary import DEFAULT_RELEASE_VERSION


class Command(BaseCommand):
    help = (
        "Export a study as a WOJ-DB release: ratings, participants, participant languages, "
        "items, questionnaires, metrics and metric scores as CSV with Parquet copies, a "
        "README.md codebook and a Frictionless datapackage.json with the study's settings and "
        "texts (without contact details or crowd-platform codes). Only participants who "
        "consented to data sharing are exported; withdrawn participants never, simulated ones "
        "only with --include-simulated (datapackage.json says which). Fails, writing nothing, "
        "when there is nothing to export, the target exists (unless --force) or is a symbolic "
        "link."
    )

    def add_arguments(self, parser):
        add_output(parser, output_path, "release folder to create (with --zip, OUT.zip)")
        parser.add_argument(
            "--zip", action="store_true", help="write the archive OUT.zip instead of a folder"
        )
        parser.add_argument("--study", help="study slug (needed when there are several)")
        parser.add_argument(
            "--release-version",
            default=DEFAULT_RELEASE_VERSION,
            help="version of this release (default: %(default)s)",
        )
        parser.add_argument("--license", help="licence of the data, e.g. CC-BY-4.0")
        parser.add_argument(
            "--include-simulated",
            action="store_true",
            help="also export simulated participants (simulate_responses), marked as such",
        )

    def handle(
        self, out, force, zip, study, release_version, license, include_simulated, verbosity, **_
    ):
        from analysis import releases

        releases.release_output(out, zip).claim(force)  # before anything is computed
        chosen = find_study(study)
        with tqdm(total=releases.EXPORT_STEPS, unit="step", disable=verbosity == 0) as bar:
            try:
                path = releases.export_release(
                    chosen,
                    out,
                    as_zip=zip,
                    force=force,
                    release_version=release_version,
                    license=license,
                    include_simulated=include_simulated,
                    progress=bar.update,
                )
            except releases.ExportError as e:
                raise refused(str(e)) from None
        record.note(
            chosen, "release written", version=release_version, to=str(path),
            simulated_included=include_simulated,
        )  # fmt: skip
        if verbosity:
            self.stdout.write(f"Wrote release {release_version} of {chosen.slug!r} to {path}")
