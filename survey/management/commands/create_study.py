import os
from functools import partial
from pathlib import Path

from django.core.management.base import BaseCommand

from survey import access
from survey.management.commands.study_team import _researcher
from survey.management.reporting import print_report, refused
from wojdb.arguments import JOBS
from wojdb.core.vocabulary import OWNER


class Command(BaseCommand):
    help = (
        "Build a study from its TOML file, in one transaction: import its sources where they "
        "are missing, apply its settings and consent texts, draw its pool, generate the "
        "permutations, choose the practice pair and compose the questionnaires; then print the "
        "build's digest (the same file and sources give the same digest in any empty database). "
        "Run again, it changes only what the file changes; a change to the pool or the design "
        "replaces the questionnaires until real people have taken part, and is refused after. "
        "A bad file is refused with one message naming the file, line and key, and nothing is "
        "written. `study_config SLUG` writes a study's file."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path, metavar="FILE", help="the study's TOML file")
        parser.add_argument(
            "--owner",
            metavar="USER",
            help="the researcher account that owns the study (its team's first member); a new "
            "study without one is seen by superusers alone until `study_team` adds someone",
        )
        parser.add_argument(
            "--jobs",
            type=JOBS,
            default=os.cpu_count() or 1,
            help="processes generating permutations (%(type)s; default: all cores)",
        )

    def handle(self, file, jobs, owner, verbosity, **_):
        # The build's modules load when it runs, not for --help.
        from tqdm import tqdm

        from survey.design.build import build_study
        from survey.design.plan import StudyFileError, read_study_file

        step = self.stdout.write if verbosity >= 2 else (lambda _: None)
        owner = _researcher(owner) if owner else None
        try:
            build = build_study(
                read_study_file(file),
                jobs=jobs,
                bars=partial(tqdm, disable=verbosity < 2),
                step=lambda text: step(f"- {text} …"),
            )
        except StudyFileError as e:
            raise refused(str(e)) from None
        slug = build.study.slug
        if owner is not None:
            access.set_role(build.study, owner, OWNER)
        self.stdout.write(f"{'Created' if build.created else 'Updated'} study {slug!r}.")
        for source, report in build.imports if verbosity >= 2 else ():
            self.stdout.write(f"{source}:")
            print_report(self, report, verbosity)
        for line in build.lines if verbosity else ():
            self.stdout.write(f"  {line}")
        if verbosity:
            self.stdout.write(f"  digest: {build.digest}")
