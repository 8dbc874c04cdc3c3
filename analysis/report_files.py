"""Stored report files that name a participant: a withdrawal takes the person out of them.

A report written before someone withdrew keeps one row per participant in some of its
tables (tables/participants.csv and others with a `participant` column). Those rows are
removed at withdrawal, so the stored report serves nothing of a withdrawn person.
"""

from __future__ import annotations

import csv
from pathlib import Path

from django.conf import settings

from analysis.stats import columns as C


def forget_participant(participant_id: int, report_dir: Path | str | None = None) -> int:
    """Remove the participant's rows from every stored report table; the rows removed."""
    tables = Path(report_dir or settings.WOJDB_REPORT_DIR) / "tables"
    removed = 0
    for path in sorted(tables.glob("*.csv")) if tables.is_dir() else []:
        with path.open(newline="", encoding="utf-8") as file:
            rows = list(csv.reader(file))
        if not rows or C.PARTICIPANT not in rows[0]:
            continue
        column = rows[0].index(C.PARTICIPANT)
        kept = [rows[0]] + [row for row in rows[1:] if row[column] != str(participant_id)]
        if len(kept) == len(rows):
            continue
        removed += len(rows) - len(kept)
        temporary = path.with_suffix(".tmp")
        with temporary.open("w", newline="", encoding="utf-8") as file:
            csv.writer(file).writerows(kept)
        temporary.replace(path)
    return removed
