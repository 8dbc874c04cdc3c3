"""The report runs chapter 7 on tidy frames and writes it as self-contained HTML, CSV and figures.

Frames are built here from the stated generative model (wojdb.core.stats.simulate) and a scores
frame whose sources are noisy copies of the items' true quality, so every section has content.
"""

from __future__ import annotations

import base64
import re

import numpy as np
import pandas as pd
import pytest
from django.utils.html import escape
from matplotlib.patches import Rectangle

from analysis import report as R
from wojdb.core.stats import columns as C
from wojdb.core.stats import simulate

PERM_TYPES = ("order", "swap", "phrase", "choice")
CONFIGS = ("GIZA++", "cdec")


def design(participants: int = 18, questionnaires: int = 6, seed: int = 0) -> pd.DataFrame:
    """Each questionnaire: 20 shared items (10 hypotheses, 10 permutations) and 20 unique."""
    rng = np.random.default_rng(seed)
    items = []
    for item in range(20 + 20 * questionnaires):
        hypothesis = item % 2 == 0
        degree = int(rng.integers(1, 11))
        items.append(
            {
                C.ITEM: item,
                C.KIND: C.HYPOTHESIS if hypothesis else C.PERMUTATION,
                C.PERM_TYPE: None if hypothesis else PERM_TYPES[(item // 2) % 4],
                C.DEGREE: np.nan if hypothesis else degree,
                C.WMT_SCORE: rng.uniform() if hypothesis else np.nan,
                C.QUALITY: np.nan if hypothesis else 1 - (degree - 1) / 9,
                C.SHARED: item < 20,
            }
        )
    items = pd.DataFrame(items)
    items[C.QUALITY] = items[C.QUALITY].fillna(items[C.WMT_SCORE])
    rows = []
    for person in range(participants):
        q = person % questionnaires
        chosen = items[(items[C.ITEM] < 20) | (items[C.ITEM] // 20 - 1 == q)]
        rows.append(
            chosen.assign(
                **{
                    C.PARTICIPANT: person + 1,
                    C.QUESTIONNAIRE: q + 1,
                    C.POSITION: range(1, len(chosen) + 1),
                    C.PRACTICE: False,
                }
            )
        )
    frame = pd.concat(rows, ignore_index=True)
    people = pd.DataFrame(
        {
            C.PARTICIPANT: range(1, participants + 1),
            C.AGE: [22 + 5 * (p % 9) for p in range(participants)],
            C.GENDER: ["female", "male"] * (participants // 2),
            "nationality": "British",
            C.EDUCATION: [C.EDUCATION_LEVELS[p % 5] for p in range(participants)],
            "grammar_attention": [3 + p % 3 for p in range(participants)],
            C.LANGUAGES_SCORE: [7 + 2 * (p % 5) for p in range(participants)],
            C.TARGET_FIRST: True,
        }
    )
    return frame.merge(people, on=C.PARTICIPANT)


def scores_for(ratings: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    """Noisy copies of each item's quality; BEER scores only half the hypotheses."""
    rng = np.random.default_rng(seed)
    items = ratings.drop_duplicates(C.ITEM).set_index(C.ITEM)
    rows = []

    def add(metric, variant, config, noise, subset=items):
        for item, quality in subset[C.QUALITY].items():
            rows.append((item, metric, variant, config, quality + rng.normal(0, noise)))

    add("BLEU", "", "", 0.3)
    for config in CONFIGS:
        add("Kendall", "", config, 0.25)
        add("DTED", "c", config, 0.15)
        add("DTED", "fc", config, 0.2)
        add("DERP", "", config, 0.25)
    hypotheses = items[items[C.KIND] == C.HYPOTHESIS]
    add("BEER", "", "", 0.2, hypotheses.iloc[::2])
    add("WMT", "", "", 0.0, hypotheses)
    return pd.DataFrame(rows, columns=[C.ITEM, C.METRIC, C.VARIANT, C.CONFIG, C.SCORE])


@pytest.fixture(scope="module")
def frames():
    # A study into French: the items' target language, as the database and a release give it.
    ratings = simulate.simulate_responses(design(), seed=3).assign(target_lang="fr")
    languages = pd.DataFrame(
        {C.PARTICIPANT: [1, 1, 2], "language": ["English", "French", "English"]}
    )
    return ratings, scores_for(ratings), languages


@pytest.fixture(scope="module")
def built(frames):
    ratings, scores, languages = frames
    steps = []
    report = R.build_report(
        ratings,
        scores,
        title="Test study",
        generated="2024-01-01 12:00 UTC",
        languages=languages,
        pilot=ratings[ratings[C.PARTICIPANT] <= 3],
        n_boot=50,
        subsets={"over-30s": "age >= 30", "women": "gender == 'female'"},
        progress=steps.append,
    )
    return report, steps


@pytest.fixture(scope="module")
def written(built, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    return out, R.write_report(built[0], out)


def table(report: R.Report, name: str) -> pd.DataFrame:
    return next(t.frame for t in report.tables if t.name == name)


def figure(report: R.Report, name: str):
    return next(f.figure for f in report.figures if f.name == name)


def test_the_report_has_every_section_figure_and_table(built):
    report, steps = built
    assert [s.key for s in report.sections] == [
        "participants",
        "responses",
        "quality",
        "variation",
        "correlations",
        "hypotheses",
        "subsets",
    ]
    assert [f.name for f in report.figures] == [
        "figure_6_4",
        *(f"figure_6_{n}" for n in (5, 6, 7)),
        *(f"figure_7_{n}" for n in range(1, 9)),
    ]
    names = {t.name for t in report.tables}
    assert {
        "levels",
        "holistic_order_pearson",
        "agreement",
        "participant_checks",
        "adjustment_ttest",
        "correlations",
        "table_7_1",
        "table_7_4",
        "williams",
        "subsets",
    } <= names
    assert steps[0] == "participants" and "correlations" in steps
    assert report.simulated_participants == 18
    assert ("Participants analysed: real", "0") in report.facts
    assert ("Participants analysed: simulated", "18") in report.facts
    assert ("Target language", "French (fr)") in report.facts


def test_level_counts_add_up_to_the_answers(built, frames):
    ratings = frames[0]
    levels = table(built[0], "levels")
    for judgment in C.JUDGMENTS:
        rows = levels[levels["judgment"] == judgment]
        assert rows[["0", "0.25", "0.5", "0.75", "1"]].to_numpy().sum() == len(ratings)
        answered_ones = (ratings[C.unit(judgment)] == 1).sum()
        assert rows["1"].sum() == answered_ones


def test_holistic_order_agreement_is_pearson_per_kind(built, frames):
    ratings = frames[0]
    agreement = table(built[0], "holistic_order_pearson").set_index(C.KIND)
    hypotheses = ratings[ratings[C.KIND] == C.HYPOTHESIS]
    expected = np.corrcoef(hypotheses[C.unit(C.HOLISTIC)], hypotheses[C.unit(C.ORDER)])[0, 1]
    assert agreement.loc[C.HYPOTHESIS, "r"] == pytest.approx(expected)
    assert agreement.loc[C.HYPOTHESIS, "ci_low"] < expected < agreement.loc[C.HYPOTHESIS, "ci_high"]


def test_mixed_model_summaries_and_convergence_are_reported(built):
    variation = next(s for s in built[0].sections if s.key == "variation")
    titles = [title for title, _ in variation.summaries]
    assert titles == [
        "holistic: the thesis's model",
        "holistic: crossed model",
        "holistic: the thesis's model, ordinal",
        "holistic: crossed model, ordinal",
        "order: the thesis's model",
        "order: crossed model",
        "order: the thesis's model, ordinal",
        "order: crossed model, ordinal",
    ]
    text = variation.summaries[0][1]
    assert (
        "holistic01 ~ 1 + (1 | participant)" in text and "number of groups: participant 18" in text
    )
    assert "Optimiser:" in text
    ordinal_text = variation.summaries[3][1]
    assert "holistic ~ group + (1 | participant) + (1 | item)" in ordinal_text
    assert "Threshold coefficients:" in ordinal_text and "4|5" in ordinal_text
    ttest = table(built[0], "adjustment_ttest")
    assert list(ttest["judgment"]) == ["holistic", "order"] and ttest["p"].between(0, 1).all()


def test_table_7_1_lists_the_partial_metric_with_its_coverage(built):
    coverage = table(built[0], "table_7_1")
    assert list(coverage[C.METRIC]) == ["BEER"]
    assert coverage["percent"].iloc[0] == pytest.approx(50, abs=1)


def test_correlation_bars_reach_each_tools_best_configuration(built):
    report = built[0]
    corr = table(report, "correlations")
    chosen = corr[
        (corr["judgment"] == C.ORDER) & (corr[C.GROUP] == C.HYPOTHESIS) & corr["adjusted"]
    ]
    ax = figure(report, "figure_7_6").axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    widths = [p.get_width() for p in ax.patches if isinstance(p, Rectangle)]
    bars = dict(zip(labels, widths, strict=True))
    assert labels == ["BLEU", "'c' DTED", "'fc' DTED", "DERP"]
    best_c = chosen[(chosen[C.METRIC] == "DTED") & (chosen[C.VARIANT] == "c")]["r"].max()
    assert bars["'c' DTED"] == pytest.approx(best_c)
    # Figure 7.3 shows baselines only; its two panels are order then holistic judgments.
    fig_7_3 = figure(report, "figure_7_3")
    assert [ax.get_title(loc="left") for ax in fig_7_3.axes] == [
        "Word-order adequacy",
        "Holistic adequacy",
    ]
    assert [t.get_text() for t in fig_7_3.axes[0].get_yticklabels()] == ["Kendall", "WMT", "BLEU"]
    fig_7_7 = figure(report, "figure_7_7")
    assert [ax.get_title(loc="left") for ax in fig_7_7.axes] == [f"'{t}'" for t in PERM_TYPES]
    assert fig_7_7.get_suptitle() == "Permutation type"


def test_source_kinds_follow_table_7_2(built):
    corr = table(built[0], "correlations")
    kinds = corr.drop_duplicates(C.METRIC).set_index(C.METRIC)["category"].to_dict()
    assert kinds == {
        "BEER": "partial",
        "BLEU": "full",
        "DERP": "derp",
        "DTED": "dted",
        "Kendall": "other",
        "WMT": "other",
    }
    assert R.source_label("DTED", "fc") == "'fc' DTED"
    assert R.source_label("Meteor", "chnk") == "Meteor (chnk)"


def test_hypotheses_and_subsets(built):
    report = built[0]
    hypotheses = table(report, "table_7_4")
    assert list(hypotheses["hypothesis"])[:3] == ["EVAL", "STRUC", "ORD"]
    assert list(hypotheses.columns[:3]) == ["adjustment", "hypothesis", "H₀ rejected"]
    # Decided again on the ordinal model's adjustment, with its own configuration threshold.
    assert list(hypotheses["adjustment"].unique()) == ["linear", "ordinal"]
    conf = hypotheses[hypotheses["hypothesis"] == "CONF EVAL"].set_index("adjustment")
    assert conf.loc["linear", "result"] != conf.loc["ordinal", "result"]
    assert conf.loc["linear", "threshold"] != conf.loc["ordinal", "threshold"]
    subsets = table(report, "subsets")
    assert any(c.startswith("over-30s (") and c.endswith("): order") for c in subsets.columns)
    assert any(c.startswith("women (9): ") for c in subsets.columns)


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
    assert len(images) == len(report.figures)
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


def test_without_scores_the_correlations_are_left_out_with_a_note(frames):
    report = R.build_report(frames[0], None, figures=False, n_boot=0)
    assert [s.key for s in report.sections] == ["participants", "responses", "quality", "variation"]
    assert report.figures == []
    assert "No scores were given: correlations are left out." in report.notes


def test_nothing_to_analyse_is_an_error(frames):
    blank = frames[0].assign(**{C.HOLISTIC: np.nan, C.ORDER: np.nan})
    with pytest.raises(ValueError, match="no answered ratings"):
        R.build_report(blank, None)


def test_cells_are_formatted_for_reading():
    assert [R.format_cell(v) for v in (0.123456, 3, True, np.nan, None, "x")] == [
        "0.123",
        "3",
        "yes",
        "–",
        "–",
        "x",
    ]


def test_an_ordinal_fit_that_fails_leaves_the_linear_analysis_with_a_note(frames, monkeypatch):
    def refuse(*args, **kwargs):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(R.ordinal, "adjust_scores", refuse)
    ratings, scores, _ = frames
    report = R.build_report(ratings, scores, n_boot=0, figures=False, subsets={})
    variation = next(s for s in report.sections if s.key == "variation")
    assert not any("ordinal" in title for title, _ in variation.summaries)
    assert any("ordinal models were not fitted (Singular matrix)" in n for n in variation.notes)
    assert set(table(report, "table_7_4")["adjustment"]) == {"linear"}


def test_a_value_that_rounds_to_zero_prints_without_a_sign():
    assert [R.format_cell(v) for v in (-0.0001, -0.0004, -0.0006)] == ["0.000", "0.000", "-0.001"]
    assert R.fixed(-0.004, 2) == "0.00" and R.fixed(-1.5, 2) == "-1.50"


def test_correlation_tables_put_the_key_columns_first(built):
    columns = list(table(built[0], "correlations_hypothesis").columns)
    assert columns[:6] == [
        "source",
        "config",  # with source, it names the row
        "order ρ adjusted",
        "order significant",
        "holistic ρ adjusted",
        "holistic significant",
    ]
    assert {"category", "n", "order ρ unadjusted"} <= set(columns[6:])


def test_per_participant_checks_say_who_is_simulated(built):
    checks = table(built[0], "participant_checks")
    assert list(checks.columns[:2]) == [C.PARTICIPANT, C.SIMULATED]
    assert checks[C.SIMULATED].all()  # the fixture's participants are all simulated
    assert C.SIMULATED in table(built[0], "flagged_participants").columns


# --- Real and simulated participants, never pooled -----------------------------------------

GROUP_OPTIONS = dict(n_boot=20, figures=False, subsets={"over-30s": "age >= 30"})


@pytest.fixture(scope="module")
def both_groups(frames):
    """The first six participants are people, the other twelve simulated: the report of both,
    and the report of each group analysed alone."""
    ratings, scores, _ = frames
    both = ratings.assign(**{C.SIMULATED: ratings[C.PARTICIPANT] > 6})
    alone = {
        group: R.build_report(both[both[C.SIMULATED] == simulated], scores, **GROUP_OPTIONS)
        for group, simulated in (("real", False), ("simulated", True))
    }
    return both, R.build_report(both, scores, **GROUP_OPTIONS), alone


def test_each_group_gets_the_results_it_gets_when_analysed_alone(both_groups):
    _, report, alone = both_groups
    for group, own in alone.items():
        assert own.tables and own.sections
        for t in own.tables:
            apart = table(report, f"{t.name}_{group}")
            pd.testing.assert_frame_equal(apart, t.frame)
        for section in own.sections:
            same = next(s for s in report.sections if s.key == f"{section.key}_{group}")
            assert same.summaries == section.summaries
    # Real first, every section saying whom it is about.
    keys = [s.key for s in report.sections]
    assert keys[0] == "participants_real" and keys.index("hypotheses_real") < keys.index(
        "participants_simulated"
    )
    for section in report.sections:
        group = section.key.rsplit("_", 1)[1]
        assert section.title.endswith(f"({group} participants)")


def test_no_table_mixes_real_and_simulated_participants(both_groups):
    both, report, _ = both_groups
    simulated = both.drop_duplicates(C.PARTICIPANT).set_index(C.PARTICIPANT)[C.SIMULATED]
    for t in report.tables:
        group = t.name.rsplit("_", 1)[1]
        assert group in ("real", "simulated") and t.title.endswith(f"({group} participants)")
        if C.PARTICIPANT in t.frame.columns:
            assert (t.frame[C.PARTICIPANT].map(simulated) == (group == "simulated")).all()
    # Counted from the frame: the real group's level counts hold the six people's answers only.
    real = both[~both[C.SIMULATED]]
    levels = table(report, "levels_real")
    for judgment in C.JUDGMENTS:
        counts = levels.loc[levels["judgment"] == judgment, ["0", "0.25", "0.5", "0.75", "1"]]
        assert counts.to_numpy().sum() == real[judgment].notna().sum()
    assert ("Ratings (practice sample excluded)", f"{len(both)} (240 real, 480 simulated)") in (
        report.facts
    )


def test_one_group_says_which_it_is(built):
    report = built[0]
    assert all(s.title.endswith("(simulated participants)") for s in report.sections)
    assert "levels" in {t.name for t in report.tables}
