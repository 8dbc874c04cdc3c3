"""Balance figures (wojdb.core.design.figures): PNG and SVG bytes from entries tables."""

import struct
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

from tests.core.test_balance import BALANCED
from wojdb.core.design import figures
from wojdb.core.design.balance import ENTRY_COLUMNS

EMPTY = pd.DataFrame(columns=ENTRY_COLUMNS)
DRAW = {
    "quality": figures.quality_figure,
    "lengths": figures.length_figure,
    "languages": figures.language_figure,
}


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])  # the IHDR chunk's width and height


@pytest.mark.parametrize(
    "name, text",
    [
        ("quality", "mean quality by questionnaire"),
        ("lengths", "Pearson r = "),
        ("languages", "German"),
    ],
)
def test_figures_as_png_at_print_resolution_and_as_svg(name, text):
    width, height = png_size(DRAW[name](BALANCED, fmt="png"))
    assert width == 7 * 200  # a text width of 7 inches at 200 dpi
    assert height > 200
    svg = DRAW[name](BALANCED, fmt="svg")
    assert ET.fromstring(svg).tag == "{http://www.w3.org/2000/svg}svg"
    assert text in svg.decode()


def test_the_same_data_give_the_same_svg():
    assert figures.length_figure(BALANCED, fmt="svg") == figures.length_figure(BALANCED, fmt="svg")


@pytest.mark.parametrize("name", DRAW)
def test_an_empty_study_still_gets_a_figure(name):
    png_size(DRAW[name](EMPTY, fmt="png"))


def test_judgments_join_the_quality_figure():
    judgments = pd.DataFrame(
        {"questionnaire": [1, 1, 2], "holistic": [0.25, 0.75, 1.0], "order": [0.5, None, 0.0]}
    )
    svg = figures.quality_figure(BALANCED, judgments, fmt="svg").decode()
    assert "holistic judgments" in svg and "order judgments" in svg
    assert "holistic judgments" not in figures.quality_figure(BALANCED, fmt="svg").decode()


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown figure format 'gif'"):
        figures.length_figure(BALANCED, fmt="gif")
