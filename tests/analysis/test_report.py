"""The report written as self-contained HTML, CSV and figures (tests/core/test_report_build.py
tests what it says)."""

from __future__ import annotations

import base64
import re

import numpy as np
import pandas as pd
import pytest
from django.utils.html import escape

from analysis.report import format_cell, write_report
from tests.report_frames import study_frames, study_report
from wojdb.core.report.model import Report, Section, Table
from wojdb.core.report.text import fixed

pytestmark = pytest.mark.engine_independent


@pytest.fixture(scope="module")
def frames():
    return study_frames()


@pytest.fixture(scope="module")
def built(frames):
    return study_report(frames)


@pytest.fixture(scope="module")
def written(built, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    return out, write_report(built[0], out)


def test_written_report_is_self_contained_html_with_csv_and_figures(written, built):
    out, paths = written
    report = built[0]
    html = (out / "report.html").read_text()
    assert paths[-1] == out / "report.html"
    assert "<script" not in html.lower()
    assert not re.search(r'(src|href)="(https?:)?//', html)  # nothing fetched from elsewhere
    assert "18 simulated participants" in html
    for entry in report.figures:
        assert escape(entry.title) in html
        assert (out / "figures" / f"{entry.name}.png").read_bytes()[:4] == b"\x89PNG"
        assert "<svg" in (out / "figures" / f"{entry.name}.svg").read_text()
    images = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)
    # The page shows the SVG files written.
    assert [base64.b64decode(image).decode() for image in images] == [
        (out / "figures" / f"{entry.name}.svg").read_text() for entry in report.figures
    ]
    assert "Spearman" in base64.b64decode(images[-1]).decode()
    for t in report.tables:
        csv = pd.read_csv(out / "tables" / f"{t.name}.csv")
        assert list(csv.columns) == [str(c) for c in t.frame.columns]
        assert len(csv) == len(t.frame)
        assert escape(t.title) in html
    assert "Table 7.4: hypotheses" in html and "<pre>" in html
    assert 'width="847"' in html  # 6.3-inch figures shown at 1.4 times print size
    assert '<td class="num">' in html
    manifest = (out / "report.json").read_text()
    assert '"simulated_participants": 18' in manifest


def test_cells_are_formatted_for_reading():
    assert [format_cell(v) for v in (0.123456, 3, True, np.nan, None, "x")] == [
        "0.123",
        "3",
        "yes",
        "–",
        "–",
        "x",
    ]


def test_a_value_that_rounds_to_zero_prints_without_a_sign():
    assert [format_cell(v) for v in (-0.0001, -0.0004, -0.0006)] == ["0.000", "0.000", "-0.001"]
    assert fixed(-0.004, 2) == "0.00" and fixed(-1.5, 2) == "-1.50"


def test_report_tables_keep_text_that_looks_like_a_formula_from_running(tmp_path):
    """A system or a participant's answer such as `=HYPERLINK(…)` is written to the CSV tables
    with a leading apostrophe (a spreadsheet shows it as text); numbers stay numbers."""
    formula = '=HYPERLINK("http://example.org/x","click")'
    frame = pd.DataFrame({"system": [formula, "-2+3+cmd|' /C calc'!A0", "UEdin"],
                          "z": [-0.5, 0.25, 1.0]})  # fmt: skip
    report = Report(
        "Formulas", "2024-01-01 12:00 UTC", [],
        [Section("systems", "Systems", tables=[Table("systems", "Systems", frame)])],
    )  # fmt: skip
    write_report(report, tmp_path)
    written = pd.read_csv(tmp_path / "tables" / "systems.csv")
    assert list(written["system"]) == ["'" + formula, "'-2+3+cmd|' /C calc'!A0", "UEdin"]
    assert list(written["z"]) == [-0.5, 0.25, 1.0]
    assert formula in (tmp_path / "report.html").read_text().replace("&quot;", '"')
