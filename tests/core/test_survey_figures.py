"""Balance figures (wojdb.core.design.balance_figures): PNG and SVG bytes from entries tables."""

import struct
import xml.etree.ElementTree as ET

import pandas as pd
import pytest

from tests.core.test_balance import BALANCED
from wojdb.core.design import balance_figures
from wojdb.core.design.balance import ENTRY_COLUMNS

EMPTY = pd.DataFrame(columns=ENTRY_COLUMNS)
DRAW = {
    "quality": balance_figures.quality_figure,
    "lengths": balance_figures.length_figure,
    "languages": balance_figures.language_figure,
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
    assert balance_figures.length_figure(BALANCED, fmt="svg") == balance_figures.length_figure(
        BALANCED, fmt="svg"
    )


@pytest.mark.parametrize("name", DRAW)
def test_an_empty_study_still_gets_a_figure(name):
    png_size(DRAW[name](EMPTY, fmt="png"))


def test_judgments_join_the_quality_figure():
    judgments = pd.DataFrame(
        {"questionnaire": [1, 1, 2], "holistic": [0.25, 0.75, 1.0], "order": [0.5, None, 0.0]}
    )
    svg = balance_figures.quality_figure(BALANCED, judgments, fmt="svg").decode()
    assert "holistic judgments" in svg and "order judgments" in svg
    assert "holistic judgments" not in balance_figures.quality_figure(BALANCED, fmt="svg").decode()


def test_an_unknown_format_is_refused():
    with pytest.raises(ValueError, match="unknown figure format 'gif'"):
        balance_figures.length_figure(BALANCED, fmt="gif")


def test_the_length_figure_names_its_units_as_the_lengths_were_counted():
    """Chinese and Japanese lengths are characters (wojdb.core.io.text_length), not words."""
    svg = balance_figures.length_figure(BALANCED, fmt="svg").decode()
    assert "length (words)" in svg and "characters" not in svg
    into_chinese = balance_figures.length_figure(BALANCED, fmt="svg", target_lang="zh").decode()
    assert "reference length (characters)" in into_chinese
    assert "hypothesis length (characters)" in into_chinese
    assert "reference (characters)" in into_chinese and "source (words)" in into_chinese
    from_chinese = BALANCED.assign(source_lang="zh")
    svg = balance_figures.length_figure(from_chinese, fmt="svg", target_lang="en").decode()
    assert "source (characters)" in svg and "reference length (words)" in svg
