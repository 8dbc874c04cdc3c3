"""The figures draw what their input says: bars, counts, labels and marks are checked on the
matplotlib artists, and the saved files are real PNG and SVG documents."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from matplotlib import rc_context
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle
from PIL import Image

from tests.figure_bars import category_names, collected_bars
from wojdb.core.report import figures as F
from wojdb.core.report import png
from wojdb.core.scales import answer_to_unit
from wojdb.core.stats import columns as C


def ratings_frame(answers: dict, demographics: dict | None = None) -> pd.DataFrame:
    """A ratings frame from {participant: [(holistic, order), ...]} with 1-5 answers."""
    rows = []
    for participant, pairs in answers.items():
        for i, (holistic, order) in enumerate(pairs):
            rows.append(
                {
                    C.PARTICIPANT: participant,
                    C.ITEM: i,
                    C.QUESTIONNAIRE: 1,
                    C.POSITION: i + 1,
                    C.KIND: C.HYPOTHESIS,
                    C.PERM_TYPE: None,
                    C.DEGREE: np.nan,
                    C.QUALITY: 0.5,
                    C.WMT_SCORE: 0.5,
                    C.HOLISTIC: holistic,
                    C.ORDER: order,
                    C.SECONDS: 10.0,
                    C.PRACTICE: False,
                    C.SHARED: False,
                    C.SIMULATED: False,
                    **(demographics or {}).get(participant, {}),
                }
            )
    frame = pd.DataFrame(rows)
    for judgment in C.JUDGMENTS:
        frame[C.unit(judgment)] = answer_to_unit(frame[judgment].astype(float))
    return frame


def bars_of(ax) -> list[Rectangle]:
    return [p for p in ax.patches if isinstance(p, Rectangle)]


def tick_texts(ticks) -> list[str]:
    return [t.get_text() for t in ticks]


PARTICIPANTS = pd.DataFrame(
    {
        C.PARTICIPANT: [1, 2, 3, 4],
        C.AGE: [19, 23, 24, 71],
        C.GENDER: ["female", "female", "male", ""],
        F.NATIONALITY: ["British", "Scottish", "British", None],
        C.EDUCATION: ["school", "masters", "masters", "phd"],
        F.GRAMMAR_ATTENTION: [3, 5, 5, 4],
        C.LANGUAGES_SCORE: [7, 12, 11, 12],
        F.LANGUAGES_COUNT: [1, 3, 2, 3],
    }
)


def test_basic_demographics_counts_age_bands_nationality_and_gender():
    fig = F.basic_demographics(PARTICIPANTS, title="Pilot participants")
    age, nationality, gender = fig.axes
    bands = {bar.get_x(): bar.get_height() for bar in bars_of(age)}
    assert bands == {15: 1, 20: 2, 70: 1}
    assert tick_texts(age.get_xticklabels()) == ["10", "20", "30", "40", "50", "60", "70", "80"]
    assert dict(
        zip(
            category_names(nationality, "y"),
            [b.get_width() for b in bars_of(nationality)],
            strict=True,
        )
    ) == {
        "British": 2,
        "Not given": 1,
        "Scottish": 1,
    }
    gender_counts = dict(
        zip(
            category_names(gender, "y"),
            [b.get_width() for b in bars_of(gender)],
            strict=True,
        )
    )
    assert gender_counts == {
        "Male": 1,
        "Female": 2,
        "Other": 0,
        "Prefer not to say": 0,
        "Not given": 1,
    }
    assert fig.get_suptitle() == "Pilot participants (n = 4)"


def test_missing_demographics_are_said_not_recorded():
    fig = F.basic_demographics(PARTICIPANTS[[C.PARTICIPANT, C.AGE]])
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert "Nationality: not recorded" in texts and "Gender: not recorded" in texts


def test_education_levels_in_order_and_grammar_attention_on_five_points():
    fig = F.education_and_grammar(PARTICIPANTS)
    education, grammar = fig.axes
    assert category_names(education, "y") == [
        "School or none",
        "College diploma",
        "Undergraduate",
        "Masters degree",
        "Ph.D. or higher",
    ]
    assert [b.get_width() for b in bars_of(education)] == [1, 0, 0, 2, 1]
    assert [b.get_height() for b in bars_of(grammar)] == [0, 0, 1, 1, 2]
    assert "Correct use of language is important" in grammar.get_xlabel()


def test_language_knowledge_counts_languages_and_points():
    fig = F.language_knowledge(PARTICIPANTS)
    languages, points = fig.axes
    assert [b.get_height() for b in bars_of(languages)] == [1, 1, 2]
    assert tick_texts(points.get_xticklabels()) == ["7", "8", "9", "10", "11", "12"]
    assert [b.get_height() for b in bars_of(points)] == [1, 0, 0, 0, 1, 2]
    assert "4 participants" in fig.get_suptitle()


def test_score_distributions_stack_each_participants_shares_of_the_five_levels():
    ratings = ratings_frame({"p1": [(1, 5), (1, 5), (5, 5), (3, None)], "p2": [(2, 4)]})
    fig = F.score_distributions(ratings, {C.ORDER: ("Enormously", "Not at all")})
    holistic, order = fig.axes[:2]
    # Five stacked segments per participant; p1's holistic shares are 2/4 at 0, 1/4 at .5 and 1.
    segments = collected_bars(holistic)
    assert len(segments) == 5 * 2
    p1 = sorted((s.y, s.height) for s in segments if s.x < 0.5)
    assert [h for _, h in p1] == pytest.approx([0.5, 0, 0.25, 0, 0.25])
    assert [y for y, _ in p1] == pytest.approx([0, 0.5, 0.5, 0.75, 0.75])
    # Blank answers are left out: p1 answered the order question three times, all with 5.
    p1_order = [s.height for s in collected_bars(order) if s.x < 0.5]
    assert p1_order == pytest.approx([0, 0, 0, 0, 1])
    assert category_names(order, "x") == ["p1", "p2"]
    assert "Not at all" in order.get_title(loc="left")


def test_score_distributions_leave_out_the_practice_sample():
    ratings = ratings_frame({1: [(1, 1), (5, 5)]})
    ratings.loc[0, C.PRACTICE] = True
    holistic = F.score_distributions(ratings).axes[0]
    assert [s.height for s in collected_bars(holistic)] == pytest.approx([0, 0, 0, 0, 1])


def test_holistic_vs_order_bubbles_count_each_pair_of_answers():
    ratings = ratings_frame({1: [(5, 5), (5, 5), (1, 1)], 2: [(5, 5), (1, 4), (2, None)]})
    ax = F.holistic_vs_order(ratings).axes[0]
    offsets = ax.collections[0].get_offsets()
    labels = {(t.xy[0], t.xy[1]): t.get_text() for t in ax.texts}
    assert len(offsets) == 3
    assert labels == {(1.0, 1.0): "3", (0.0, 0.0): "1", (0.0, 0.75): "1"}
    sizes = dict(zip(map(tuple, offsets), ax.collections[0].get_sizes(), strict=True))
    assert sizes[(1.0, 1.0)] == pytest.approx(3 * sizes[(0.0, 0.0)])
    assert "5 ratings" in ax.get_title(loc="left")


def bar_rows(panel="order"):
    return [
        # Kendall's tau under two aligners: bar to the higher, both marked, both significant.
        dict(
            panel=panel,
            label="Kendall's τ",
            category="other",
            config="GIZA++",
            rho=0.30,
            significant=True,
        ),
        dict(
            panel=panel,
            label="Kendall's τ",
            category="other",
            config="cdec",
            rho=0.25,
            significant=True,
        ),
        dict(panel=panel, label="BEER", category="partial", config="", rho=0.32, significant=True),
        dict(
            panel=panel, label="chrF", category="partial", config="", rho=-0.05, significant=False
        ),
        # One configuration of 'c' DTED is not significant: no asterisk.
        dict(
            panel=panel,
            label="'c' DTED",
            category="dted",
            config="GIZA++",
            rho=0.40,
            significant=True,
        ),
        dict(
            panel=panel,
            label="'c' DTED",
            category="dted",
            config="cdec",
            rho=0.35,
            significant=False,
        ),
    ]


def test_correlation_bars_reach_the_best_configuration_and_mark_significance():
    bars = pd.DataFrame(bar_rows("order") + bar_rows("holistic"))
    fig = F.correlation_bars(bars, panel_titles={"order": "Word-order adequacy"})
    order, holistic = fig.axes
    assert category_names(order, "y") == ["Kendall's τ", "BEER", "chrF", "'c' DTED"]
    drawn = collected_bars(order)
    assert [b.width for b in drawn] == pytest.approx([0.30, 0.32, -0.05, 0.40])
    assert [b.y + b.height / 2 for b in drawn] == pytest.approx([0, 1, 2, 3])
    colours = [b.facecolor[:3] for b in drawn]
    expected = [F.PURPLE, F.BLUE, F.BLUE, F.YELLOW]
    assert colours == [pytest.approx(to_rgb(c)) for c in expected]
    # Asterisks (one line of markers per side of the axis) beside sources 0 and 1 only.
    stars = [line for line in order.lines if line.get_label() == "_significant"]
    assert sorted(y for line in stars for y in line.get_ydata()) == [0, 1]
    # Configuration markers only where a source has several configurations: 2 + 2 points, in
    # one collection per configuration, beside one collection of the two range lines (after
    # the bars').
    _, ranges, *marks = order.collections
    assert len(ranges.get_segments()) == 2 and len(marks) == 2
    assert sorted(len(m.get_offsets()) for m in marks) == [2, 2]
    assert order.get_title(loc="left") == "Word-order adequacy"
    assert holistic.get_title(loc="left") == "holistic"
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "DTED variants" in legend and "GIZA++" in legend and "cdec" in legend


def test_correlation_bars_reject_a_table_without_the_needed_columns():
    with pytest.raises(ValueError, match="rho"):
        F.correlation_bars(pd.DataFrame({"panel": [], "label": []}))


def test_save_writes_png_and_svg_with_text_kept_as_text(tmp_path):
    paths = F.save(F.language_knowledge(PARTICIPANTS), tmp_path / "figures", "fig6_7")
    assert [p.name for p in paths] == ["fig6_7.png", "fig6_7.svg"]
    assert paths[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = paths[1].read_text()
    assert "Language points" in svg and "<svg" in svg
    inline = F.svg_text(F.language_knowledge(PARTICIPANTS))
    assert "<svg" in inline and "Language points" in inline


def test_png_holds_the_pixels_drawn_and_their_resolution():
    fig = F.language_knowledge(PARTICIPANTS)
    drawn = Image.open(io.BytesIO(F.draw(fig).png))
    assert drawn.mode == "RGBA" and drawn.size == (round(F.WIDTH * 200), round(2.4 * 200))
    assert drawn.info["dpi"] == pytest.approx((200, 200), abs=0.01)
    # The pixels savefig draws.
    raw = io.BytesIO()
    with rc_context(F.STYLE):
        fig.savefig(raw, format="rgba", dpi=200)
    assert np.asarray(drawn).tobytes() == raw.getvalue()


def test_png_encodes_any_rgba_image_losslessly():
    pixels = np.random.default_rng(0).integers(0, 256, size=(7, 5, 4), dtype=np.uint8)
    decoded = Image.open(io.BytesIO(png.encode(pixels, 96)))
    assert np.array_equal(np.asarray(decoded), pixels)
    with pytest.raises(ValueError, match="RGBA"):
        png.encode(pixels[:, :, :3], 96)


def test_participant_table_has_one_row_per_participant():
    ratings = ratings_frame(
        {1: [(1, 1), (2, 2)], 2: [(3, 3)]},
        {1: {C.AGE: 30, F.NATIONALITY: "Irish"}, 2: {C.AGE: 40, F.NATIONALITY: "British"}},
    )
    table = F.participant_table(ratings)
    assert table[C.PARTICIPANT].tolist() == [1, 2]
    assert table[C.AGE].tolist() == [30, 40]
    assert F.NATIONALITY in table.columns and C.HOLISTIC not in table.columns
