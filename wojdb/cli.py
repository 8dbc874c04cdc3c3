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


def run(argv: list[str]) -> None:
    """Run a management command; settings that cannot be used (wojdb.environment) stop it with
    one line naming the variable. Every refusal exits with status 2, as a bad argument does:
    WOJ-DB's commands refuse with 2 themselves (survey.management.reporting.refused), and a 1
    from Django's own (migrate, an unknown command) is made a 2 here; 1 is left to a crash."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "wojdb.settings")
    from django.core.management import execute_from_command_line

    from wojdb.environment import SettingsError

    try:
        execute_from_command_line(argv)
    except SettingsError as error:
        print(f"{os.path.basename(argv[0])}: error: {error}", file=sys.stderr)
        sys.exit(2)
    except SystemExit as stop:
        if stop.code == 1:
            sys.exit(2)
        raise


def main() -> None:
    run(command_line(sys.argv))


if __name__ == "__main__":  # `python -m wojdb.cli` ran nothing and exited 0, whatever it was told
    sys.argv[0] = "wojdb"
    main()
