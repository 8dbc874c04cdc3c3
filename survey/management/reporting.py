"""What every WOJ-DB command shares: clear errors and a readable report."""

from __future__ import annotations

from contextlib import contextmanager

from django.core.management.base import CommandError

from survey.importers import PoolError
from survey.wmt import InputError


@contextmanager
def clear_errors():
    """Turn input problems into a one-line error and a non-zero exit, with nothing written."""
    try:
        yield
    except (InputError, PoolError, FileNotFoundError, IsADirectoryError) as e:
        raise CommandError(f"{e}\nNothing was written.") from None


def print_report(command, report, verbosity: int = 1) -> None:
    for line in report.lines() if verbosity else ():
        command.stdout.write(line)
