"""What every WOJ-DB command shares: clear errors and a readable report."""

from __future__ import annotations

from contextlib import contextmanager

from django.core.management.base import CommandError

from survey.models import Study
from wojdb.core.io import InputError


def refused(message: str) -> CommandError:
    """A command's refusal of what it was given: exit status 2, as a bad argument or setting
    gets (argparse, wojdb.environment); 1 is left to a crash. Every command refuses with it."""
    return CommandError(message, returncode=2)


@contextmanager
def clear_errors():
    """Turn input problems into a one-line error and exit status 2, with nothing written."""
    from survey.design.sentence_pool import PoolError  # loaded by the commands that run

    try:
        yield
    except (InputError, PoolError, FileNotFoundError, IsADirectoryError) as e:
        raise refused(f"{e}\nNothing was written.") from None


def print_report(command, report, verbosity: int = 1) -> None:
    for line in report.lines() if verbosity else ():
        command.stdout.write(line)


def find_study(slug: str | None) -> Study:
    """The study named by --study, or the only one there is when none is named. An empty name
    is a name no study has: `launch --study "$SLUG"` with SLUG unset must not pick one."""
    if slug is not None:
        try:
            return Study.objects.get(slug=slug)
        except Study.DoesNotExist:
            raise refused(f"no study with slug {slug!r}") from None
    studies = list(Study.objects.order_by("slug"))
    if len(studies) == 1:
        return studies[0]
    if not studies:
        raise refused("there is no study yet; create one with `create_study FILE` first")
    raise refused(
        f"several studies exist; choose one with --study ({', '.join(s.slug for s in studies)})"
    )
