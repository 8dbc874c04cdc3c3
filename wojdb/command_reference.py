"""docs/commands.md, the command reference, written from each command's own `--help`.

`.venv/bin/python -m wojdb.command_reference` writes it again after a command or its help
changes; the test suite fails while the committed file differs from what this writes. Every
command of the survey and analysis apps is listed, found by Django, so a new command is listed
on the next run, and the few of Django's and django-axes' that the documentation names. The
options every command shares (`--verbosity`, `--settings`, …) are listed once, at the top. The
help is laid out at a fixed width, so the file is the same whatever terminal writes it.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "commands.md"
COMMAND = ".venv/bin/python -m wojdb.command_reference"
WIDTH = 100

#: The apps whose every command is listed, with the heading of their part.
APPS = {
    "survey": "Studies, sources and participants",
    "analysis": "Scores, analysis and the dataset",
}
#: Commands of Django and django-axes that the documentation names.
OTHERS = (
    "axes_list_attempts",
    "axes_reset_ip",
    "axes_reset_username",
    "changepassword",
    "check",
    "collectstatic",
    "createsuperuser",
    "migrate",
)


def parser_of(name: str, app: str | None = None) -> argparse.ArgumentParser:
    """The command's argument parser, as `manage.py NAME` builds it."""
    from django.core.management import get_commands, load_command_class

    command = load_command_class(app or get_commands()[name], name)
    return command.create_parser("manage.py", name)


def shared_dests() -> dict[str, str]:
    """Django's options every command takes: their dest and how --help shows them."""
    from django.core.management.base import BaseCommand

    base = BaseCommand()
    base.requires_system_checks = "__all__"  # so that --skip-checks is among them
    parser = base.create_parser("manage.py", "COMMAND")
    return {
        action.dest: ", ".join(action.option_strings)
        for action in parser._actions
        if action.option_strings
    }


def help_text(name: str, app: str | None = None) -> str:
    """The command's --help at the fixed width, without the options every command shares."""
    parser = parser_of(name, app)
    shared = shared_dests()
    for action in parser._actions:
        if action.dest in shared:
            action.help = argparse.SUPPRESS
    parser.formatter_class = functools.partial(parser.formatter_class, width=WIDTH)
    return parser.format_help().rstrip() + "\n"


def commands() -> dict[str, list[tuple[str, str]]]:
    """Each part's heading and its commands with their app, sorted by name."""
    from django.core.management import get_commands

    found = get_commands()
    parts = {
        heading: sorted((name, app) for name, app in found.items() if app == label)
        for label, heading in APPS.items()
    }
    parts["Django's, as these pages use them"] = [(name, found[name]) for name in sorted(OTHERS)]
    return parts


def reference() -> str:
    parts = commands()
    shared = ", ".join(f"`{options}`" for options in shared_dests().values())
    lines = [
        "# Command reference",
        "",
        "Written from each command's `--help` by",
        f"`{COMMAND}`: run it after changing a command; the tests",
        "fail while this file differs from what it writes.",
        "",
        "Run a command as `.venv/bin/python manage.py COMMAND` in a clone, or `wojdb COMMAND` when",
        "installed with pip. The rules every command follows (checked arguments, unreadable or",
        "oversized files, refusals that write nothing) are in",
        "[data and formats](data-and-formats.md#what-every-command-does-with-its-input). Every",
        "command also takes Django's own options, left out below:",
        "",
        shared + ".",
        "",
    ]
    for heading, listed in parts.items():
        names = ", ".join(f"[`{name}`](#{name})" for name, _ in listed)
        lines += [f"- {heading}: {names}"]
    for heading, listed in parts.items():
        lines += ["", f"## {heading}"]
        for name, app in listed:
            lines += ["", f"### {name}", "", "```text", help_text(name, app).rstrip(), "```"]
    return "\n".join(lines) + "\n"


def main() -> None:
    if not REFERENCE.parent.is_dir():  # installed with pip: the documentation is the clone's
        sys.exit(f"{REFERENCE.parent} is not there: run this in a clone of WOJ-DB")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
    import django

    django.setup()
    REFERENCE.write_text(reference(), encoding="utf-8")
    print(f"Wrote {REFERENCE.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
