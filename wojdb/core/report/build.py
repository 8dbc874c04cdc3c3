"""Chapter 7 run on the tidy frames, gathered as a Report: a study's (build_report) or an imported
corpus's (build_corpus_report)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

import pandas as pd

from wojdb.core.report import figures as F
from wojdb.core.report.facts import report_facts
from wojdb.core.report.model import FigureEntry, Report, Section, Table
from wojdb.core.report.sections.correlations import correlation_section
from wojdb.core.report.sections.hypotheses import hypotheses_section
from wojdb.core.report.sections.marks import marks_section
from wojdb.core.report.sections.participants import participants_section
from wojdb.core.report.sections.quality import quality_section
from wojdb.core.report.sections.responses import responses_section
from wojdb.core.report.sections.subsets import subsets_section
from wojdb.core.report.sections.systems import systems_section
from wojdb.core.report.sections.variation import missing_adjustment, variation_section
from wojdb.core.stats import columns as C
from wojdb.core.stats import corpus, correlation, hypotheses, mixed, ordinal
from wojdb.core.stats.estimability import MIN_GROUPS

Progress = Callable[[str], None]


def build_report(
    ratings: pd.DataFrame,
    scores: pd.DataFrame | None = None,
    *,
    title: str = "WOJ-DB analysis",
    generated: str = "",
    languages: pd.DataFrame | None = None,
    pilot: pd.DataFrame | None = None,
    scale_ends: Mapping[str, tuple[str, str]] | None = None,
    figures: bool = True,
    n_boot: int = correlation.N_BOOT,
    seed: int = 0,
    subsets: Mapping[str, str] = correlation.THESIS_SUBSETS,
    systems: Callable[[pd.DataFrame], pd.DataFrame | None] | None = None,
    departures: Mapping[str, int] | None = None,
    min_groups: int = MIN_GROUPS,
    marks: tuple[pd.DataFrame, pd.DataFrame] | None = None,
    progress: Progress | None = None,
) -> Report:
    """Run the analysis of chapter 7 on the frames and gather it as a :class:`Report`.

    ``ratings`` is the ratings frame (practice answers are dropped here), ``scores`` the scores
    frame (None: no correlations). ``languages`` (participant, language, fluency rows) counts
    languages for Figure 6.7; ``pilot`` is a pilot's ratings frame for Figure 6.4.
    ``generated`` is the time stamp shown (the caller's clock keeps this function pure).
    ``systems`` gives a group's system-level table from its ratings
    (`wojdb.core.stats.system.system_scores` rows with a ``source`` column, or None), shown with
    its figure. Real and simulated participants are never pooled: each group present gets its
    own sections, real first (:func:`wojdb.core.stats.columns.participant_groups`), each saying
    whom it is about.
    ``departures`` counts who declined and who withdrew (keys declined, withdrawn_real,
    withdrawn_simulated). ``min_groups`` is the fewest groups (participants, items) a mixed
    model's random factor needs (`wojdb.core.stats.estimability`); a model with fewer is
    reported as not estimable, and so are the hypotheses decided on its adjusted scores.
    ``marks`` are the word marks' answers and truths frames (`wojdb.core.stats.marks`) of a
    study that asked for them: a group with marks gets the section on them.
    Figures are built and drawn when first wanted (when the report is written).
    Raises ValueError when there is nothing to analyse.
    """
    say = progress or (lambda _: None)
    C.check_ratings(ratings)
    scored = C.scored(ratings)
    answered = scored.dropna(subset=list(C.JUDGMENTS), how="all")
    if answered.empty:
        raise ValueError("no answered ratings to analyse")
    people = answered[C.PARTICIPANT].nunique()
    simulated = int(answered.drop_duplicates(C.PARTICIPANT)[C.SIMULATED].astype(bool).sum())
    # The scores' sources are found once for every table that correlates them.
    sources = None if scores is None or scores.empty else correlation.Sources.of(scores)
    overview = report_facts(answered, sources, departures)
    report = Report(title, generated, overview, [], simulated, people - simulated)
    groups = C.participant_groups(answered)
    for group, part in groups.items():
        apart = len(groups) > 1
        tell = (lambda step, group=group: say(f"{step} ({group} participants)")) if apart else say
        sections = _analysis(
            part,
            sources,
            languages=languages,
            scale_ends=scale_ends,
            figures=figures,
            n_boot=n_boot,
            seed=seed,
            subsets=subsets,
            systems=systems,
            min_groups=min_groups,
            marks=marks,
            say=tell,
        )
        report.sections += _about(sections, group, apart)
    if figures and pilot is not None and not pilot.empty:
        entry = FigureEntry(
            "figure_6_4",
            "Figure 6.4: basic demographic details about pilot participants",
            partial(F.basic_demographics, F.participant_table(pilot), "Pilot participants"),
        )
        report.sections[0].figures.insert(0, entry)
    return report


def _about(sections: list[Section], group: str, apart: bool) -> list[Section]:
    """Sections that say which participants they are about. Beside the other group, their
    keys, tables and figures are named by the group too, so no two files share a name."""
    who = f"{group} participants"
    for section in sections:
        section.title = f"{section.title} ({who})"
        if not apart:
            continue
        section.key = f"{section.key}_{group}"
        section.notes = [f"{who.capitalize()}: {note}" for note in section.notes]
        for entry in [*section.tables, *section.figures]:
            entry.name = f"{entry.name}_{group}"
            entry.title = f"{entry.title} ({who})"
    return sections


def _analysis(
    answered: pd.DataFrame,
    scores: correlation.Sources | None,
    *,
    languages: pd.DataFrame | None,
    scale_ends: Mapping[str, tuple[str, str]] | None,
    figures: bool,
    n_boot: int,
    seed: int,
    subsets: Mapping[str, str],
    systems: Callable[[pd.DataFrame], pd.DataFrame | None] | None,
    min_groups: int,
    marks: tuple[pd.DataFrame, pd.DataFrame] | None,
    say: Progress,
) -> list[Section]:
    """The sections of one group of participants' answered ratings."""
    sections = []

    say("participants")
    sections.append(participants_section(answered, languages, figures))
    say("response trends")
    sections.append(responses_section(answered, scale_ends, figures, n_boot, seed))
    say("judgment quality")
    sections.append(quality_section(answered))
    if marks is not None:
        answers, truths = marks
        ours = answers[answers[C.PARTICIPANT].isin(answered[C.PARTICIPANT])]
        if not ours.empty:
            say("word marks")
            sections.append(marks_section(ours, truths, answered, figures, n_boot, seed))
    say("mixed models")
    adjusted, fits = mixed.adjust_scores(answered, min_groups=min_groups)
    ordinal_adjusted, ordinal_fits = ordinal.adjust_scores(answered, min_groups=min_groups)
    sections.append(variation_section(adjusted, fits, ordinal_fits, min_groups))
    missing = {
        "linear": missing_adjustment(fits, "linear"),
        "ordinal": missing_adjustment(ordinal_fits, "ordinal"),
    }
    table = systems(answered) if systems is not None else None
    if table is not None and not table.empty:
        say("system level")
        sections.append(systems_section(table, figures))
    if scores is None:
        sections[-1].notes.append("No scores were given: correlations are left out.")
        return sections
    say("correlations")
    use_adjusted = not missing["linear"]
    replicates = correlation.Replicates()
    section, corr = correlation_section(
        adjusted, scores, figures, n_boot, seed, use_adjusted, replicates
    )
    if not use_adjusted:
        section.notes.append(f"Correlations use unadjusted scores only: {missing['linear']}.")
    sections.append(section)
    if not corr.empty:
        say("hypotheses")
        linear = (
            hypotheses.Adjustment(corr, replicates)
            if use_adjusted
            else hypotheses.Adjustment(missing=missing["linear"])
        )
        ordinal_adjustment = hypotheses.Adjustment(missing=missing["ordinal"])
        if not missing["ordinal"]:
            ordinal_replicates = correlation.Replicates()
            ordinal_corr = correlation.correlation_table(
                ordinal_adjusted,
                scores,
                adjusted=(True,),
                groups=(C.HYPOTHESIS,),
                n_boot=n_boot,
                seed=seed,
                replicates=ordinal_replicates,
            )
            ordinal_adjustment = hypotheses.Adjustment(ordinal_corr, ordinal_replicates)
        adjustments = {"linear": linear, "ordinal": ordinal_adjustment}
        sections.append(hypotheses_section(corr, adjusted, scores, adjustments, use_adjusted))
    if subsets and answered[C.PARTICIPANT].nunique() > 1 and not corr.empty:
        say("participant subsets")
        sections.append(subsets_section(adjusted, scores, subsets, seed, use_adjusted))
    return sections


def build_corpus_report(
    segments: pd.DataFrame,
    systems: pd.DataFrame,
    scores: pd.DataFrame,
    *,
    title: str = "WOJ-DB corpus analysis",
    generated: str = "",
    figures: bool = True,
) -> Report:
    """Which score source tracks WMT's human judgments on an imported corpus, without a study.

    ``segments`` is `wojdb.core.stats.corpus`'s segments frame, ``systems`` the corpus's
    system-level human scores (`system.system_scores`, names as in ``segments``), ``scores``
    the scores frame of the segments' items. Raises ValueError when nothing can be compared.
    """
    if segments.empty or scores.empty:
        raise ValueError("no imported hypotheses with metric scores to compare")
    facts = [
        ("Language pairs", ", ".join(sorted(segments["lp"].unique()))),
        ("Hypotheses", f"{len(segments):,} ({segments['da_z'].notna().sum():,} with DA)"),
        ("Score sources", str(len(correlation.score_sources(scores)))),
    ]
    report = Report(title, generated, facts, [])
    if not systems.empty:
        report.sections.append(systems_section(systems.assign(source="da"), figures))
    seg = corpus.segment_correlations(segments, scores)
    sys_table = corpus.system_correlations(segments, systems, scores)
    section = Section(
        "corpus_correlations",
        "Score sources against WMT's human judgments",
        [
            "Segment level: each hypothesis's score against its segment's mean WMT direct "
            "assessment (z, and raw 0–100), per language pair. System level: each system's "
            "mean score over its hypotheses against its WMT system z, with Kocmi et al.'s "
            "pairwise accuracy (share of system pairs ordered as the humans order them). "
            "Coefficients keep their sign; 'higher_is_better' says which way a source points "
            "and the '_oriented' columns flip the sign of lower-is-better sources such as TER."
        ],
    )
    if seg.empty and sys_table.empty:
        section.notes.append(
            f"Nothing to correlate: no score source scores {corpus.MIN_SEGMENTS} or more "
            "hypotheses with DA, or three systems."
        )
    section.tables += [
        Table("segment_correlations", "Segment level", seg),
        Table("system_correlations", "System level", sys_table),
        Table(
            "system_permutation_tests",
            "System level: is the better source significantly better?",
            corpus.system_permutation_tests(segments, systems, scores),
            "PERM-BOTH permutation test of the difference in Pearson's r with the WMT system "
            "z (1,000 resamples, as mt-metrics-eval), scores oriented; p for 'better "
            "correlates better than worse'.",
        ),
    ]
    report.sections.append(section)
    return report
