"""The report runs chapter 7 on tidy frames: its sections, tables, figures and notes, and what it
says where the data cannot carry a model or a hypothesis (tests/report_frames.py makes the
frames)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from tests.figure_bars import category_names, collected_bars
from tests.report_frames import CONFIGS, PERM_TYPES, study_frames, study_report
from wojdb.core.report.build import build_report
from wojdb.core.report.model import Report
from wojdb.core.report.sources import source_label
from wojdb.core.stats import columns as C
from wojdb.core.stats import ordinal
from wojdb.core.stats.estimability import NotEstimable


@pytest.fixture(scope="module")
def frames():
    return study_frames()


@pytest.fixture(scope="module")
def built(frames):
    return study_report(frames)


def table(report: Report, name: str) -> pd.DataFrame:
    return next(t.frame for t in report.tables if t.name == name)


def figure(report: Report, name: str):
    return next(f.make() for f in report.figures if f.name == name)


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
    labels = category_names(ax, "y")
    bars = dict(zip(labels, [b.width for b in collected_bars(ax)], strict=True))
    assert labels == ["BLEU", "'c' DTED", "'fc' DTED", "DERP"]
    best_c = chosen[(chosen[C.METRIC] == "DTED") & (chosen[C.VARIANT] == "c")]["r"].max()
    assert bars["'c' DTED"] == pytest.approx(best_c)
    # Figure 7.3 shows baselines only; its two panels are order then holistic judgments.
    fig_7_3 = figure(report, "figure_7_3")
    assert [ax.get_title(loc="left") for ax in fig_7_3.axes] == [
        "Word-order adequacy",
        "Holistic adequacy",
    ]
    assert category_names(fig_7_3.axes[0], "y") == ["Kendall", "WMT", "BLEU"]
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
    assert source_label("DTED", "fc") == "'fc' DTED"
    assert source_label("Meteor", "chnk") == "Meteor (chnk)"


def test_hypotheses_and_subsets(built):
    report = built[0]
    hypotheses = table(report, "table_7_4")
    assert list(hypotheses["hypothesis"])[:3] == ["EVAL", "STRUC", "ORD"]
    assert list(hypotheses.columns[:4]) == [
        "adjustment",
        "hypothesis",
        "H₀ rejected: thesis's rule",
        "H₀ rejected: 95% interval clears",
    ]
    # Decided again on the ordinal model's adjustment, with its own configuration threshold.
    assert list(hypotheses["adjustment"].unique()) == ["linear", "ordinal"]
    conf = hypotheses[hypotheses["hypothesis"] == "CONF EVAL"].set_index("adjustment")
    assert conf.loc["linear", "result"] != conf.loc["ordinal", "result"]
    assert conf.loc["linear", "threshold"] != conf.loc["ordinal", "threshold"]
    subsets = table(report, "subsets")
    assert any(c.startswith("over-30s (") and c.endswith("): order") for c in subsets.columns)
    assert any(c.startswith("women (9): ") for c in subsets.columns)


def test_without_scores_the_correlations_are_left_out_with_a_note(frames):
    report = build_report(frames[0], None, figures=False, n_boot=0)
    assert [s.key for s in report.sections] == ["participants", "responses", "quality", "variation"]
    assert report.figures == []
    assert "No scores were given: correlations are left out." in report.notes


def test_nothing_to_analyse_is_an_error(frames):
    blank = frames[0].assign(**{C.HOLISTIC: np.nan, C.ORDER: np.nan})
    with pytest.raises(ValueError, match="no answered ratings"):
        build_report(blank, None)


def test_an_ordinal_model_that_is_not_estimable_leaves_the_linear_analysis(frames, monkeypatch):
    def not_estimable(ratings, judgment, min_groups):
        return NotEstimable(("the answers say nothing",), 700, {"participant": 18})

    monkeypatch.setattr(ordinal, "participant_model", not_estimable)
    ratings, scores, _ = frames
    report = build_report(ratings, scores, n_boot=0, figures=False, subsets={})
    variation = next(s for s in report.sections if s.key == "variation")
    summaries = dict(variation.summaries)
    text = summaries["order: the thesis's model, ordinal"]
    assert "NOT ESTIMABLE" in text and "the answers say nothing" in text
    assert "Threshold" not in text and "log-likelihood" not in text
    assert "The order ordinal participant model is not estimable: the answers say nothing." in (
        variation.notes
    )
    decided = table(report, "table_7_4")
    ordinal_rows = decided[decided["adjustment"] == "ordinal"]
    assert (ordinal_rows["H₀ rejected: thesis's rule"] == "not testable").all()
    assert ordinal_rows["result"].str.contains("there are no ordinal adjusted scores").all()
    assert ordinal_rows["margin"].isna().all()
    linear_rows = decided[decided["adjustment"] == "linear"]
    assert (linear_rows["H₀ rejected: thesis's rule"] != "not testable").any()


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
        group: build_report(both[both[C.SIMULATED] == simulated], scores, **GROUP_OPTIONS)
        for group, simulated in (("real", False), ("simulated", True))
    }
    return both, build_report(both, scores, **GROUP_OPTIONS), alone


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


# --- What the data cannot carry: not estimable, not testable, never printed as a result -------


def numbers_as_results(report: Report) -> list[float]:
    """Every standard error any table of the report gives."""
    return [
        float(value)
        for t in report.tables
        for column in t.frame.columns
        if column in ("se", "std. error")
        for value in t.frame[column].dropna()
    ]


def test_one_participant_makes_every_model_and_hypothesis_say_why_not(frames):
    ratings, scores, _ = frames
    one = ratings[ratings[C.PARTICIPANT] == 1]
    report = build_report(one, scores, n_boot=50, figures=False, subsets={})
    variation = next(s for s in report.sections if s.key == "variation")
    assert len(variation.summaries) == 8
    for title, text in variation.summaries:
        assert "NOT ESTIMABLE, so no estimates are shown:" in text, title
        assert "only 1 participant: a participant variance needs at least 5" in text
        assert "std. error" not in text and not re.search(r"\d\.\d", text)  # no estimates
    models = table(report, "models")
    assert not models["estimable"].any() and len(models) == 8
    names = {t.name for t in report.tables}
    assert not names & {
        "adjustment_ttest",
        "model_coefficients",
        "model_variances",
        "participant_effects",
    }
    decided = table(report, "table_7_4")
    assert len(decided) == 18
    for column in ("H₀ rejected: thesis's rule", "H₀ rejected: 95% interval clears"):
        assert (decided[column] == "not testable").all()
    assert decided["result"].str.startswith("not testable: there are no ").all()
    assert decided["result"].str.contains("only 1 participant").all()
    assert decided[["margin", "margin 2.5%", "margin 97.5%"]].isna().all().all()
    assert numbers_as_results(report) == []
    # Correlations over items still stand, on unadjusted scores, and say so.
    corr = table(report, "correlations")
    assert not corr["adjusted"].any() and len(corr)
    assert any("Correlations use unadjusted scores only" in note for note in report.notes)
    assert not any(c.endswith("ρ adjusted") for c in table(report, "correlations_hypothesis"))


def test_one_configuration_and_a_separated_ordinal_cell_are_named_with_their_reasons(frames):
    ratings, scores, _ = frames
    # Every 'swap' permutation answered 5 for order; every tool run in one configuration.
    swap = ratings[C.PERM_TYPE] == "swap"
    ratings = ratings.assign(
        **{
            C.ORDER: ratings[C.ORDER].mask(swap & ratings[C.ORDER].notna(), 5),
            C.unit(C.ORDER): ratings[C.unit(C.ORDER)].mask(swap & ratings[C.ORDER].notna(), 1.0),
        }
    )
    single = scores[scores[C.CONFIG].isin(["", CONFIGS[0]])].assign(**{C.CONFIG: ""})
    report = build_report(ratings, single, n_boot=50, figures=False, subsets={})
    variation = next(s for s in report.sections if s.key == "variation")
    summaries = dict(variation.summaries)
    separated = summaries["order: crossed model, ordinal"]
    answers = int((swap & ratings[C.ORDER].notna()).sum())
    assert "NOT ESTIMABLE" in separated and "z value" not in separated
    assert (
        f"all {answers} answers of group 'swap' are 5, the highest answer given: its "
        "coefficient is infinite (complete separation)"
    ) in separated
    # The other models are estimated, with intervals.
    for title in ("order: crossed model", "order: the thesis's model, ordinal"):
        assert "NOT ESTIMABLE" not in summaries[title] and "97.5%" in summaries[title]
    coefficients = table(report, "model_coefficients")
    assert (coefficients["ci_low"] < coefficients["estimate"]).all()
    assert (coefficients["estimate"] < coefficients["ci_high"]).all()
    assert "order ~ group + (1 | participant) + (1 | item)" not in set(coefficients["model"])
    assert max(numbers_as_results(report)) < 1000
    decided = table(report, "table_7_4").set_index(["adjustment", "hypothesis"])
    for adjustment in ("linear", "ordinal"):
        conf = decided.loc[(adjustment, "CONF EVAL")]
        assert conf["H₀ rejected: thesis's rule"] == "not testable"
        assert conf["result"] == (
            "not testable: every DTED or DERP variant ran in one configuration: nothing to compare"
        )
        assert np.isnan(conf["margin"])


def test_the_t_test_says_it_is_zero_by_construction(built):
    ttest = next(t for t in built[0].tables if t.name == "adjustment_ttest")
    # The study is balanced: the adjusted scores keep the original mean exactly.
    assert ttest.frame["t"].abs().max() < 1e-9
    assert "zero by construction" in ttest.caption
