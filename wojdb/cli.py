"""The `wojdb` console command: `manage.py` for an installed WOJ-DB.

`wojdb COMMAND ...` runs the management command with the settings of `wojdb.settings`, e.g.
`wojdb demo`, `wojdb import_wmt DIR`, `wojdb export_wojdb --out DIR`.
"""

import os
import sys


def command_line(argv: list[str]) -> list[str]:
    """`wojdb demo` is the installed bin/demo: it builds the demo, then serves it, unless told
    `--no-serve`. (`manage.py demo` only builds: bin/demo serves afterwards.)"""
    if argv[1:2] == ["demo"] and not {"--serve", "--no-serve"} & set(argv):
        return [*argv[:2], "--serve", *argv[2:]]
    return list(argv)


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(command_line(sys.argv))
