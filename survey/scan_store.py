"""The scanned files kept in scans/ of the media folder (WOJDB_MEDIA_ROOT, which several app
servers share), each named by its SHA-256, so that every paper answer can be traced to the scan
itself; each stored page names its file in `ScanPage.source`.

One file may hold the pages of several copies (a batch scan): a withdrawal deletes the files
of the person's pages that no other stored page names.
"""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
from pathlib import Path

from django.conf import settings

from survey.models import ScanPage
from wojdb.core import budgets
from wojdb.core.io import open_input

logger = logging.getLogger(__name__)
FOLDER = "scans"
KEPT_AS = "; kept as "
SUFFIX = re.compile(r"\.[a-z0-9]{1,8}")  # a kept file keeps its suffix if it is one of these
KEPT_NAME = re.compile(rf"{re.escape(KEPT_AS)}({FOLDER}/[0-9a-f]{{64}}(?:{SUFFIX.pattern})?)$")
SOURCE_LENGTH = ScanPage._meta.get_field("source").max_length


def keep(paths: set[Path]) -> tuple[dict[Path, str], list[Path]]:
    """Copy each scanned file into the folder, named by its SHA-256 and its own suffix:
    (path -> kept name, files this call created)."""
    folder = Path(settings.MEDIA_ROOT) / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    kept, created = {}, []
    limits = budgets.current()
    for path in sorted(paths):
        # Read in chunks: a scan file may be large.
        with open_input(path, limits.scan_bytes, limits.variable("scan_bytes")) as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
        suffix = path.suffix.lower() if SUFFIX.fullmatch(path.suffix.lower()) else ""
        name = f"{FOLDER}/{digest}{suffix}"
        target = Path(settings.MEDIA_ROOT) / name
        if not target.exists():
            shutil.copyfile(path, target)
            created.append(target)
        kept[path] = name
    return kept, created


def source(label: str, kept_name: str) -> str:
    """A page's `source`: where it was read from, and its kept file (never cut off)."""
    tail = KEPT_AS + kept_name
    return label[: SOURCE_LENGTH - len(tail)] + tail


def kept_names(pages) -> set[str]:
    """The kept files that pages (ScanPage rows) were read from."""
    names = (KEPT_NAME.search(text) for text in pages.values_list("source", flat=True))
    return {found.group(1) for found in names if found}


def forget_unshared(names: set[str]) -> int:
    """Delete the kept files no stored page names any more (call once the pages that named
    them are deleted); how many were deleted. A file that cannot be deleted is logged: the
    withdrawal it follows is stored and must stand."""
    deleted = 0
    for name in sorted(names):
        if ScanPage.objects.filter(source__endswith=KEPT_AS + name).exists():
            continue
        try:
            (Path(settings.MEDIA_ROOT) / name).unlink(missing_ok=True)
            deleted += 1
        except OSError:
            logger.exception("a withdrawn participant's scan %s could not be deleted", name)
    return deleted
