"""Reading the environment variables of :mod:`wojdb.settings`, each checked as it is read.

A bad value stops the settings from loading with an error naming the variable, instead of
passing `check --deploy` and failing later on every request (e.g. ``WOJDB_ENTRY_RATE=5/0``).
Numbers are read by the program's one rule (wojdb.core.numbers). Imports nothing from Django
(the language table is pure), so the rules are tested on their own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from wojdb.core.numbers import read_number

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off", ""}


class SettingsError(ValueError):
    """An environment variable whose value cannot be used; the message names it."""


def _bad(name: str, value: str, expected: str) -> SettingsError:
    return SettingsError(f"environment variable {name}={value!r}: expected {expected}")


class Environment:
    """The variables of one process (``os.environ`` by default), read through typed getters."""

    def __init__(self, variables: Mapping[str, str] | None = None):
        self.variables = os.environ if variables is None else variables

    def text(self, name: str, default: str) -> str:
        value = self.variables.get(name, default)
        if not value.strip():
            raise _bad(name, value, "a non-empty value")
        return value

    def optional(self, name: str) -> str | None:
        """The value, or None when the variable is unset or empty."""
        return self.variables.get(name) or None

    def folder(self, name: str, default: Path) -> Path:
        """A folder this process writes to, created if missing: the variable's value, or
        `default` when it is unset. One that cannot be created or written to is refused here,
        before anything fails on it."""
        value = self.variables.get(name)
        path = Path(value) if value else default
        shown = (
            f"environment variable {name}={value!r}"
            if value
            else f"{path} (the default of environment variable {name}, which is unset)"
        )
        try:
            path.mkdir(parents=True, exist_ok=True)
        except FileExistsError:
            raise SettingsError(f"{shown}: is a file, not a folder") from None
        except OSError as e:  # permission denied, a file in the way above it, a read-only disk
            problem = e.strerror or str(e)
            if e.filename and Path(e.filename) != path:
                problem += f" ({e.filename})"
            raise SettingsError(f"{shown}: the folder cannot be created: {problem}") from None
        if not os.access(path, os.W_OK | os.X_OK):
            raise SettingsError(f"{shown}: the folder cannot be written to")
        return path

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.variables.get(name)
        if value is None:
            return default
        if value.strip().lower() in TRUE:
            return True
        if value.strip().lower() in FALSE:
            return False
        raise _bad(name, value, "1/0, true/false, yes/no or on/off")

    def integer(self, name: str, default: int, minimum: int = 0, maximum: int | None = None) -> int:
        value = self.variables.get(name)
        if value is None:
            return default
        try:
            return read_number(value, int, minimum, maximum)
        except ValueError as problem:
            raise SettingsError(f"environment variable {name}={value!r}: {problem}") from None

    def choice(self, name: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.variables.get(name, default)
        if value not in choices:
            raise _bad(name, value, "one of " + ", ".join(choices))
        return value

    def hosts(self, name: str, default: str) -> list[str]:
        value = self.variables.get(name, default)
        hosts = [h.strip() for h in value.split(",")]
        if not all(hosts):
            raise _bad(name, value, "comma-separated host names, none empty")
        return hosts

    def origins(self, name: str) -> list[str]:
        """Comma-separated origins, each a scheme and a host (and port), a trailing slash
        dropped: an address with a path, a query or a user name matches no origin a browser
        sends, so it is refused here rather than silently never matching."""
        value = self.variables.get(name, "")
        origins = [o.strip() for o in value.split(",") if o.strip()]
        for origin in origins:
            parts = urlsplit(origin)
            if (
                parts.scheme not in {"http", "https"}
                or not parts.netloc
                or "@" in parts.netloc
                or parts.path not in {"", "/"}
                or parts.query
                or parts.fragment
            ):
                raise _bad(name, value, "comma-separated origins such as https://example.org")
        return [origin.rstrip("/") for origin in origins]

    def pipelines(self, name: str) -> tuple[tuple[str, str], ...]:
        """``LANGUAGE=PIPELINE,…`` (e.g. ``fr=fr_core_news_md``) as (code, pipeline) pairs."""
        value = self.variables.get(name, "")
        if not value:
            return ()
        # langcodes' tables load here, only when the variable is set.
        from wojdb.core.language.rules import parse_pipelines

        try:
            return parse_pipelines(value)
        except ValueError as error:
            expected = f"LANGUAGE=PIPELINE pairs separated by commas ({error})"
            raise _bad(name, value, expected) from None

    def rate(self, name: str, default: str) -> tuple[int, int] | None:
        """``COUNT/SECONDS``, both positive whole numbers, or ``off``/``0``/empty for no limit."""
        value = self.variables.get(name, default)
        if value.strip().lower() in {"off", "0", ""}:
            return None
        count, slash, seconds = value.partition("/")
        expected = 'COUNT/SECONDS with both numbers ≥ 1 (e.g. 60/600), or "off"'
        try:
            rate = read_number(count, int, 1), read_number(seconds, int, 1)
        except ValueError as problem:
            raise _bad(name, value, f"{expected}: {problem}") from None
        if not slash:
            raise _bad(name, value, expected)
        return rate
