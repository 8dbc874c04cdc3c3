"""Stored report files that name a participant: a withdrawal takes the person out of them.

A report written before someone withdrew keeps one row per participant in some of its tables
(tables/participants.csv and others with a `participant` column), and report.html shows some of
those tables. The person's rows are removed from both at withdrawal, so the stored report serves
nothing of a withdrawn person; figures and summaries, which name no one, stay until the report
is generated again.
"""

from __future__ import annotations

import csv
import html
import logging
import re
from pathlib import Path

from analysis.report_store import report_dir
from wojdb.core.stats import columns as C

logger = logging.getLogger(__name__)

_ROW = re.compile(r"<tr>(.*?)</tr>\n?", re.S)
_CELL = re.compile(r"<t[dh](?:\s[^>]*)?>(.*?)</t[dh]>", re.S)


def forget_participant(participant_id: int, folder: Path) -> int:
    """Remove the participant's rows from every stored report table in `folder` and from the
    tables of its report.html; the number of CSV rows removed."""
    tables = folder / "tables"
    removed, changed = 0, []
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
        changed.append(path.stem)
        _replace(path, lambda file, kept=kept: csv.writer(file).writerows(kept))
    page = folder / "report.html"
    if changed and page.is_file():
        text = page.read_text(encoding="utf-8")
        for name in changed:
            text = _without_rows(text, name, str(participant_id))
        _replace(page, lambda file: file.write(text))
    return removed


def _without_rows(page: str, table: str, participant: str) -> str:
    """report.html with the table `table`'s rows of `participant` left out."""
    start = page.find(f'<h3 id="{table}">')
    end = page.find("</table>", start)
    if start < 0 or end < 0:
        return page
    part = page[start:end]
    header = part.find("</thead>")
    columns = [html.unescape(c) for c in _CELL.findall(part[:header])]
    if C.PARTICIPANT not in columns:
        return page
    column = columns.index(C.PARTICIPANT)

    def keep(row: re.Match) -> str:
        cells = [html.unescape(c).strip() for c in _CELL.findall(row.group(1))]
        return "" if len(cells) > column and cells[column] == participant else row.group(0)

    body = part[header:]
    return page[:start] + part[:header] + _ROW.sub(keep, body) + page[end:]


def _replace(path: Path, write) -> None:
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", newline="", encoding="utf-8") as file:
        write(file)
    temporary.replace(path)


def forget_withdrawn(sender, pk: int, study: str, **kwargs) -> None:
    """`participant_withdrawn`'s receiver: the person leaves their study's stored report. The
    withdrawal is stored, so a report file that cannot be rewritten is logged, not raised."""
    try:
        forget_participant(pk, report_dir(study))
    except OSError:
        logger.exception("participant %s withdrew but the stored report still names them", pk)
