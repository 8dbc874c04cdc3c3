"""A study's record: who did what to it, and when.

The functions that act on a study (launch, build, clearing pilot data, adding questionnaires,
team changes, downloads …) append one `StudyEvent` each through `note`. Who acted is the
researcher whose request is being served (`acting_as`, set by the researcher pages and the
admin), or else the command being run and the server account running it. An entry names no
participant's personal data.
"""

from __future__ import annotations

import getpass
import os
import sys
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from survey.models import Study, StudyEvent


@dataclass(frozen=True)
class Actor:
    name: str
    user: object | None = None


#: Who acts when a page does not say: a participant withdrawing on their own page.
PARTICIPANT = Actor("the participant")

_acting: ContextVar[Actor | None] = ContextVar("wojdb_acting", default=None)


@contextmanager
def acting_as(who):
    """Record what happens inside as done by `who` (a user or an `Actor`)."""
    actor = who if isinstance(who, Actor) else Actor(who.get_username(), who)
    token = _acting.set(actor)
    try:
        yield actor
    finally:
        _acting.reset(token)


def operator() -> Actor:
    """The command being run and the server account running it."""
    program = Path(sys.argv[0]).name if sys.argv else ""
    if program in ("manage.py", "wojdb", "django-admin") and len(sys.argv) > 1:
        command = f"command {sys.argv[1]}"
    else:
        command = "a command"
    try:
        account = getpass.getuser()
    except (KeyError, OSError):  # no name for the process's user id (a container)
        account = f"uid {os.getuid()}"
    return Actor(f"{command} run by {account}")


def current() -> Actor:
    return _acting.get() or operator()


def note(study: Study, action: str, *, actor: Actor | None = None, **details) -> StudyEvent:
    """Append `action` with its details (plain JSON values) to the study's record, as done by
    `actor` (by default the one acting now: a thread of its own names whom it acts for)."""
    actor = actor or current()
    return StudyEvent.objects.create(
        study=study,
        study_slug=study.slug,
        user=actor.user,
        actor=actor.name[:200],
        action=action,
        details=details,
    )


def entries(slug: str):
    """The record of the study `slug`, oldest first, with the entries of a deleted study that
    bore the slug before it."""
    return StudyEvent.objects.filter(study_slug=slug).order_by("at", "id")


def latest(slug: str, count: int) -> list[StudyEvent]:
    """The `count` newest entries of the study's record, oldest first."""
    return list(entries(slug).reverse()[:count])[::-1]
