from django.core.management.base import BaseCommand

from survey import platforms
from survey.management.reporting import find_study, refused
from wojdb.arguments import add_output, output_file


class Command(BaseCommand):
    help = (
        "Write a study as its TOML file, which `create_study` builds back into the same study, "
        "with the same questionnaires, in this database or another: its settings, sources, "
        "pool, permutations, questionnaires, practice pair (by key), shared items and consent "
        "texts. Source paths are absolute, or relative to the folder of --out."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", metavar="SLUG", help="the study's slug")
        add_output(parser, output_file, "file to write (default: standard output)", required=False)

    def handle(self, slug, out, force, **_):
        from survey.design.plan import write_study_file  # loaded when it runs, not for --help

        if out is not None:
            out.claim(force)
        study = find_study(slug)
        # A file that create_study would refuse is not written: say what to correct first.
        for path, problem in platforms.setting_problems(study.platform_settings):
            key = ".".join(("platform_settings", *path))
            raise refused(f"study {slug!r}: {key}: {problem}. Correct it in the admin first.")
        if out is None:
            self.stdout.write(write_study_file(study), ending="")
            return
        text = write_study_file(study, out.path.resolve().parent)
        with out.writing(force) as temporary:
            try:
                temporary.write_text(text, encoding="utf-8")
            except OSError as e:
                raise refused(f"{out}: {e.strerror}") from None
