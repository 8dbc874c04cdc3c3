"""The message catalogues: the apps' gettext .po files compiled into the .mo files Django reads.

The .po files are the source (survey/locale/LANG/LC_MESSAGES/django.po); the .mo files are built,
never committed, by pure Python (polib), so no system gettext is needed: by bin/setup, by the
test session when missing, and by setup.py into the wheel. Run `python -m wojdb.catalogues` after
editing a catalogue. Imports nothing from Django, so the build can use it.
"""

from __future__ import annotations

from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parent.parent


def catalogues(root: Path = ROOT) -> list[Path]:
    """Every .po file of the apps under `root`."""
    return sorted(root.glob("*/locale/*/LC_MESSAGES/*.po"))


def compile_catalogues(root: Path = ROOT, only_outdated: bool = False) -> list[Path]:
    """Write each catalogue's .mo beside it (only those missing or older than their .po, with
    `only_outdated`); returns the files written."""
    written = []
    for po in catalogues(root):
        mo = po.with_suffix(".mo")
        if only_outdated and mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        polib.pofile(str(po)).save_as_mofile(str(mo))
        written.append(mo)
    return written


if __name__ == "__main__":
    for path in compile_catalogues():
        print(path.relative_to(ROOT))
