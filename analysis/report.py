"""The report written out: :func:`write_report` writes a :class:`~wojdb.core.report.model.Report`
(built by :mod:`wojdb.core.report.build`) as a self-contained ``report.html`` rendered by the
app's templates (figures inline, no scripts, no external assets), ``tables/*.csv``,
``figures/*.png|svg`` and ``report.json``. Nothing here touches the database.
"""

from __future__ import annotations

import base64
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
from django.template import Context, Engine

from wojdb.core.report.model import FigureEntry, Report, Table
from wojdb.core.report.text import fixed
from wojdb.core.spreadsheet import escape_frame

TEMPLATES = Path(__file__).resolve().parent / "templates"


def format_cell(value) -> str:
    """Numbers to 3 decimals, booleans as yes/no, missing as an en dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "–"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(value)
    if isinstance(value, float | np.floating):
        return fixed(value, 3)
    return str(value)


def _is_number(value) -> bool:
    return isinstance(value, int | float | np.number) and not isinstance(value, bool | np.bool_)


def _html_table(table: Table) -> dict:
    frame = table.frame
    return {
        "name": table.name,
        "title": table.title,
        "caption": table.caption,
        "columns": [str(c) for c in frame.columns],
        "rows": [
            [(format_cell(v), _is_number(v)) for v in row] for row in frame.itertuples(index=False)
        ],
    }


def _svg_data_uri(entry: FigureEntry) -> str:
    # An <img> keeps each SVG's ids apart from the page's and the other figures'.
    encoded = base64.b64encode(entry.svg.encode()).decode("ascii")
    return f"data:image/svg+xml;base64,{encoded}"


def render_html(report: Report) -> str:
    """The report as one HTML document: styles inline, figures as data URIs, no scripts.

    Tables and figures link to their CSV, PNG and SVG files beside it (see write_report).
    """
    engine = Engine(dirs=[str(TEMPLATES)], autoescape=True)
    sections = [
        {
            "key": s.key,
            "title": s.title,
            "paragraphs": s.paragraphs,
            "figures": [
                {
                    "name": f.name,
                    "title": f.title,
                    "caption": f.caption,
                    "src": _svg_data_uri(f),
                    # A little larger than print size: screens are read from further away.
                    "width": round(f.drawn.width * 96 * 1.4),
                }
                for f in s.figures
            ],
            "tables": [_html_table(t) for t in s.tables if t.show],
            "downloads": [{"name": t.name, "title": t.title} for t in s.tables if not t.show],
            "summaries": s.summaries,
            "notes": s.notes,
        }
        for s in report.sections
    ]
    context = {
        "report": report,
        "facts": report.facts,
        "sections": sections,
        "notes": report.notes,
    }
    return engine.get_template("analysis/report.html").render(Context(context))


def manifest(report: Report) -> dict:
    """What a written report holds, for the dashboard: report.json."""
    return {
        "title": report.title,
        "generated": report.generated,
        "facts": report.facts,
        "simulated_participants": report.simulated_participants,
        "real_participants": report.real_participants,
        "source": report.source,
        "tables": [{"name": t.name, "title": t.title} for t in report.tables],
        "figures": [{"name": f.name, "title": f.title} for f in report.figures],
        "notes": report.notes,
    }


def write_report(report: Report, out: Path | str) -> list[Path]:
    """Write tables/*.csv, figures/*.png|svg, report.json and report.html (last) into ``out``."""
    out = Path(out)
    written = []
    (out / "tables").mkdir(parents=True, exist_ok=True)
    for table in report.tables:
        path = out / "tables" / f"{table.name}.csv"
        escape_frame(table.frame).to_csv(path, index=False)
        written.append(path)
    for entry in report.figures:
        written += entry.drawn.write(out / "figures", entry.name)
    path = out / "report.json"
    path.write_text(json.dumps(manifest(report), indent=2, ensure_ascii=False))
    written.append(path)
    # Written last: a report.html means the rest is complete.
    path = out / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    written.append(path)
    return written
