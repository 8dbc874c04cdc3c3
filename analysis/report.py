"""The study's analysis report: chapter 7 of the thesis run on the tidy frames.

:func:`build_report` takes the ratings frame (and optionally the scores frame, the participants'
languages and a pilot's ratings), runs the statistics of :mod:`wojdb.core.stats` and returns a
:class:`Report`: sections of text, tables (DataFrames), figures (matplotlib) and notes on what
could not be computed or did not converge. :func:`write_report` writes it as a self-contained
``report.html`` (figures inline, no scripts, no external assets), ``tables/*.csv`` and
``figures/*.png|svg``. Nothing here touches the database.
"""

from __future__ import annotations

import base64
import functools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from django.template import Context, Engine
from matplotlib.figure import Figure

from wojdb.core.language.codes import LANGUAGE_NAMES
from wojdb.core.report import figures as F
from wojdb.core.stats import columns as C
from wojdb.core.stats import corpus, correlation, hypotheses, mixed, ordinal, quality, responses
from wojdb.core.stats.ordinal import ClmmFit
from wojdb.core.stats.reml import LmmFit
from wojdb.core.vocabulary import PERMUTATION_TYPES

TEMPLATES = Path(__file__).resolve().parent / "templates"
#: Sources the thesis calls "other evaluation methods" (purple in Table 7.2), by metric name.
OTHER_METHODS = ("wmt", "permutation degree", "aligned", "kendall")
STRUCTURED_TOOLS = {"dted": "dted", "derp": "derp"}
ALPHA = 0.05

Progress = Callable[[str], None]


@dataclass
class Table:
    name: str  # file stem of the CSV
    title: str
    frame: pd.DataFrame
    caption: str = ""
    show: bool = True  # shown in the HTML (always written as CSV)


@dataclass
class FigureEntry:
    name: str  # file stem of the PNG and SVG
    title: str
    figure: Figure
    caption: str = ""

    @functools.cached_property
    def svg(self) -> str:
        """Drawn once, for both the SVG file and the HTML."""
        return F.svg_text(self.figure)


@dataclass
class Section:
    key: str
    title: str
    paragraphs: list[str] = field(default_factory=list)
    figures: list[FigureEntry] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    summaries: list[tuple[str, str]] = field(default_factory=list)  # (title, preformatted text)
    notes: list[str] = field(default_factory=list)


@dataclass
class Report:
    title: str
    generated: str
    facts: list[tuple[str, str]]
    sections: list[Section]
    simulated_participants: int = 0
    real_participants: int = 0
    #: Where the data came from (study, when it was read), for spotting newer answers.
    source: dict = field(default_factory=dict)

    @property
    def notes(self) -> list[str]:
        return [note for section in self.sections for note in section.notes]

    @property
    def tables(self) -> list[Table]:
        return [t for section in self.sections for t in section.tables]

    @property
    def figures(self) -> list[FigureEntry]:
        return [f for section in self.sections for f in section.figures]


# --- Score sources: names, kinds (Table 7.2 colours) ---------------------------------------


#: How the thesis writes the names of the built-in metrics (wojdb.core.metrics.registry).
DISPLAY_NAMES = {
    "dted": "DTED",
    "derp": "DERP",
    "bleu": "BLEU",
    "chrf": "chrF",
    "ter": "TER",
    "meteor": "Meteor",
    "meteor_chunk": "Meteor (chnk)",
    "kendall_tau": "Kendall's τ",
    "aligned_pct": "Aligned %",
    "lepor": "LEPOR",
    "hlepor": "hLEPOR",
}
#: DERP's variant with structure is the thesis's plain "DERP".
DEFAULT_VARIANTS = ("", "structured")


def source_label(metric: str, variant: str) -> str:
    """How the thesis names a source: ``'c' DTED`` for flags, ``Meteor (chnk)`` otherwise."""
    name = DISPLAY_NAMES.get(metric.lower(), metric)
    if metric.lower() in STRUCTURED_TOOLS:
        return name if variant in DEFAULT_VARIANTS else f"'{variant}' {name}"
    if not variant:
        return name
    if name.endswith(")"):
        return f"{name[:-1]}, {variant})"
    return f"{name} ({variant})"


def source_categories(corr: pd.DataFrame) -> pd.Series:
    """Kind of each (metric, variant, config) source of a correlation table, per row.

    DTED and DERP are their own kinds; WMT scores, permutation degree, aligned share and
    Kendall's tau are "other evaluation methods"; any other tool is a third-party metric, "full"
    if it scores every judged item wherever it is correlated, else "partial" (Table 7.1's).
    """
    metric = corr[C.METRIC].astype(str).str.lower()
    keys = [corr[c] for c in correlation.SOURCE]
    complete = corr["coverage"].groupby(keys).transform("min") >= 1 - 1e-9
    kinds = np.where(complete, "full", "partial").astype(object)
    kinds[metric.str.startswith(OTHER_METHODS).to_numpy()] = "other"
    for name, kind in STRUCTURED_TOOLS.items():
        kinds[(metric == name).to_numpy()] = kind
    return pd.Series(kinds, index=corr.index, name="category")


def bar_table(
    corr: pd.DataFrame,
    *,
    panel: str,
    categories: Iterable[str],
    judgments: Sequence[str] = (C.ORDER,),
    groups: Sequence[str] = (C.HYPOTHESIS,),
    adjusted: bool = True,
) -> pd.DataFrame:
    """The rows of a correlation table one bar chart shows, in :data:`figures.BAR_COLUMNS`.

    ``panel`` is the column splitting panels (``judgment`` or ``group``). Adjusted rows show
    adjusted correlations with significance judged on unadjusted scores, as in the thesis.
    """
    if corr.empty:
        return pd.DataFrame(columns=list(F.BAR_COLUMNS))
    chosen = corr[
        corr["judgment"].isin(judgments)
        & corr[C.GROUP].isin(groups)
        & (corr["adjusted"] == adjusted)
        & corr["category"].isin(list(categories))
    ]
    return pd.DataFrame(
        {
            "panel": chosen[panel],
            "label": [
                source_label(m, v) for m, v in zip(chosen[C.METRIC], chosen[C.VARIANT], strict=True)
            ],
            "category": chosen["category"],
            "config": chosen[C.CONFIG],
            # Bars compare agreement with the participants: a lower-is-better source's sign
            # is flipped (the tables keep the raw sign).
            "rho": chosen[hypotheses.compared(chosen)],
            "significant": chosen["significant"].astype(bool),
        }
    ).reset_index(drop=True)


# --- Sections ----------------------------------------------------------------------------


def _language_names(codes: pd.Series) -> str:
    """The items' languages, by name with the code: "French (fr)"."""
    return ", ".join(f"{LANGUAGE_NAMES.get(c, c)} ({c})" for c in sorted(codes.unique())) or "none"


def _overview(
    ratings: pd.DataFrame, scores: pd.DataFrame | None, departures: Mapping[str, int] | None
) -> list[tuple[str, str]]:
    people = ratings.drop_duplicates(C.PARTICIPANT)
    simulated = int(people[C.SIMULATED].astype(bool).sum())
    groups = ratings.drop_duplicates(C.ITEM)[C.GROUP].value_counts()
    blanks = {j: int(ratings[j].isna().sum()) for j in C.JUDGMENTS}
    facts = [
        ("Participants analysed: real", str(len(people) - simulated)),
        ("Participants analysed: simulated", str(simulated)),
    ]
    if departures is not None:
        # Counts only: the data of people who declined or withdrew is deleted.
        facts += [
            ("Declined consent", str(departures["declined"])),
            (
                "Withdrew",
                f"{departures['withdrawn_real']} real, "
                f"{departures['withdrawn_simulated']} simulated",
            ),
        ]
    if C.TARGET_LANG in ratings:
        facts.append(("Target language", _language_names(ratings[C.TARGET_LANG])))
    facts += [
        ("Questionnaires", str(ratings[C.QUESTIONNAIRE].nunique())),
        ("Ratings (practice sample excluded)", _per_group(ratings)),
        ("Blank answers", f"holistic {blanks[C.HOLISTIC]}, order {blanks[C.ORDER]}"),
        (
            "Items rated",
            ", ".join(f"{n} {F.GROUP_TITLES.get(g, g)}" for g, n in groups.items()) or "none",
        ),
    ]
    if scores is not None:
        sources = correlation.score_sources(scores)
        facts.append(("Score sources", str(len(sources))))
    return facts


def _per_group(ratings: pd.DataFrame) -> str:
    """How many rows, and how many of each group when both are there."""
    counts = {group: len(part) for group, part in C.participant_groups(ratings).items()}
    if len(counts) < 2:
        return str(len(ratings))
    return f"{len(ratings)} ({', '.join(f'{n} {group}' for group, n in counts.items())})"


def _participants_section(
    ratings: pd.DataFrame, languages: pd.DataFrame | None, draw: bool
) -> Section:
    people = F.participant_table(ratings, languages)
    section = Section(
        "participants",
        "Demographics",
        [
            "Demographics of the participants who rated at least one item, as in §6.5.2 "
            "(Figures 6.5–6.7); a pilot's participants as in §6.4 (Figure 6.4)."
        ],
    )
    section.tables.append(
        Table("participants", "Participants", people, "One row per participant.", show=False)
    )
    if not draw:
        return section
    section.figures += [
        FigureEntry(
            "figure_6_5",
            "Figure 6.5: basic demographic details about participants",
            F.basic_demographics(people, "Participants"),
        ),
        FigureEntry(
            "figure_6_6",
            "Figure 6.6: education level and grammatical focus of participants",
            F.education_and_grammar(people),
        ),
        FigureEntry(
            "figure_6_7",
            f"Figure 6.7: language knowledge of all {len(people)} participants",
            F.language_knowledge(people),
            "Language points per language known: native 7 … a few words 1, summed.",
        ),
    ]
    if languages is None:
        section.notes.append("Languages per participant were not given: Figure 6.7 lacks them.")
    return section


def _responses_section(
    ratings: pd.DataFrame, scale_ends, draw: bool, n_boot: int, seed: int
) -> Section:
    section = Section(
        "responses",
        "Response trends",
        [
            "How participants used the five levels of both questions (§7.2.1). The thesis found "
            "Pearson's r between the two questions of 0.605 for hypotheses and 0.699 for "
            "permutations."
        ],
    )
    section.tables += [
        Table("levels", "Answers at each level", responses.level_counts(ratings)),
        Table(
            "holistic_order_pearson",
            "Holistic vs order answers: Pearson's r",
            responses.holistic_order_agreement(ratings, n_boot, seed),
            "Per rating; 95% percentile bootstrap interval.",
        ),
    ]
    if draw:
        section.figures += [
            FigureEntry(
                "figure_7_1",
                "Figure 7.1: distribution across participants of different score levels",
                F.score_distributions(ratings, scale_ends),
            ),
            FigureEntry(
                "figure_7_2",
                "Figure 7.2: similarity between holistic and order-focused adequacy scores",
                F.holistic_vs_order(ratings),
                "Marker area is proportional to how often the pair of scores was given.",
            ),
        ]
    return section


def _quality_section(ratings: pd.DataFrame) -> Section:
    section = Section(
        "quality",
        "Agreement and judgment quality",
        [
            "Krippendorff's α (ordinal, raw 1–5 answers) over the shared items every "
            "questionnaire holds, and checks on each participant that use the permutations as "
            "an instrument (§6.2.3): order answers should fall as the permutation degree rises, "
            "and 'choice' permutations, which keep the reference's order, should score high. "
            "Checks only flag; nobody is left out of the analysis because of them."
        ],
    )
    checks = quality.participant_checks(ratings)
    # Simulated participants are kept apart from real ones in every per-participant table.
    simulated = ratings.drop_duplicates(C.PARTICIPANT).set_index(C.PARTICIPANT)[C.SIMULATED]
    checks.insert(1, C.SIMULATED, checks[C.PARTICIPANT].map(simulated).astype(bool))
    flagged = checks[checks["flags"] != ""]
    section.tables += [
        Table(
            "agreement",
            "Agreement on shared items",
            quality.agreement(ratings),
            "Participants as coders, items as units; blanks are missing values.",
        ),
        Table("participant_checks", "Checks on every participant", checks, show=False),
        Table(
            "flagged_participants",
            f"Flagged participants ({len(flagged)} of {len(checks)})",
            flagged,
            "Flags: degree (order answers do not fall with permutation degree), choice (low "
            "order scores on 'choice' permutations), time (median under 5 s per item), "
            "straightlining (long runs or one dominant answer pair).",
        ),
    ]
    return section


def _random_effects(fit: LmmFit | ClmmFit) -> list[str]:
    """The random-effects block both summaries print, as lme4 and ordinal do."""
    table = fit.variance_table()
    lines = ["Random effects:"]
    for row in table.itertuples():
        lines.append(f"  {row.factor:<14} variance {row.variance:.5f}   std. dev. {row.sd:.4f}")
    grouped = table.dropna(subset=["groups"])
    counts = ", ".join(f"{row.factor} {row.groups:.0f}" for row in grouped.itertuples())
    return [*lines, f"  number of groups: {counts}"]


def _coefficients(table: pd.DataFrame) -> list[str]:
    """Rows of a fit's coefficient table as lme4 and ordinal print them."""
    heading = f"{table['statistic_name'].iloc[0]} value"
    lines = [f"  {'':<22}{'estimate':>10}{'std. error':>12}{heading:>9}"]
    for row in table.itertuples():
        lines.append(
            f"  {row.term:<22}{row.estimate:>10.4f}{row.se:>12.4f}{fixed(row.statistic, 2):>9}"
        )
    return lines


def model_summary(fit: LmmFit, formula: str) -> str:
    """A fit as lme4's summary() prints its essentials, plus how the optimiser ended."""
    lines = [f"{formula}    (REML, {fit.n_obs} observations)"]
    lines.append(f"REML criterion at convergence: {fit.reml_criterion:.2f}")
    lines += _random_effects(fit)
    lines.append("Fixed effects:")
    lines += _coefficients(fit.coefficient_table())
    state = fit.state
    verdict = "converged" if state.converged else "DID NOT CONVERGE"
    lines.append(
        f"Optimiser: {state.optimizer}, {state.starts} start(s), {state.evaluations} "
        f"evaluations: {verdict}{'; singular fit' if state.singular else ''}"
    )
    lines.append(f"  {state.message}")
    return "\n".join(lines)


def clmm_summary(fit: ClmmFit, formula: str) -> str:
    """An ordinal fit as ordinal's summary.clmm() prints its essentials."""
    lines = [f"{formula}    (cumulative logit, Laplace, {fit.n_obs} observations)"]
    lines.append(f"log-likelihood: {fit.loglik:.2f}   AIC: {fit.aic:.2f}")
    lines += _random_effects(fit)
    coefficients = fit.coefficient_table()
    for part, title in (("fixed", "Coefficients:"), ("threshold", "Threshold coefficients:")):
        rows = coefficients[coefficients["part"] == part]
        if len(rows):
            lines += [title, *_coefficients(rows)]
    state = fit.state
    verdict = "converged" if state.converged else "DID NOT CONVERGE"
    lines.append(
        f"Optimiser: {state.optimizer}, {state.evaluations} evaluations: {verdict}"
        f"{'; a variance is zero' if state.singular else ''}"
    )
    return "\n".join(lines)


def _fit_note(fit: LmmFit | ClmmFit, what: str) -> str | None:
    if not fit.state.converged or fit.state.singular:
        return f"The {what} {fit.state.message}."
    return None


def _variation_section(
    adjusted: pd.DataFrame,
    fits: Mapping[str, LmmFit],
    ordinal_fits: Mapping[str, ClmmFit],
) -> Section:
    section = Section(
        "variation",
        "Participant variation",
        [
            "As in §7.2.3, each judgment's 0–1 scores were fitted with a linear mixed model with "
            "a random intercept per participant (REML); each participant's predicted effect was "
            "subtracted from their scores to give adjusted scores, which the correlations use. "
            "A two-tailed Student's t-test compares original and adjusted scores (the thesis "
            "found p = 0.118). The crossed model, with item intercepts and a fixed effect per "
            "sentence group, is shown for comparison.",
            "The answers are ordinal, not interval, so each model is also fitted as a "
            "cumulative link mixed model (logit link, flexible thresholds, Laplace "
            "approximation, as R's ordinal::clmm) on the 1–5 answers. Its participant-adjusted "
            "score of an answer is the mean latent logit over the answer's interval with the "
            "participant's shift taken out; Table 7.4 is decided under both adjustments.",
        ],
    )
    # Per fit: judgment, model as titles name it, as notes name it, formula, fit.
    shown: list[tuple[str, str, str, str, LmmFit | ClmmFit]] = []
    for judgment, fit in fits.items():
        unit = C.unit(judgment)
        shown.append(
            (
                judgment,
                "the thesis's model",
                "participant model",
                f"{unit} ~ 1 + (1 | participant)",
                fit,
            )
        )
        crossed = mixed.crossed_model(adjusted, judgment)
        formula = f"{unit} ~ group + (1 | participant) + (1 | item)"
        shown.append((judgment, "crossed model", "crossed model", formula, crossed))
        if judgment in ordinal_fits:
            formula = f"{judgment} ~ 1 + (1 | participant)"
            shown.append(
                (
                    judgment,
                    "the thesis's model, ordinal",
                    "ordinal participant model",
                    formula,
                    ordinal_fits[judgment],
                )
            )
            try:
                crossed = ordinal.crossed_model(adjusted, judgment)
            except (ValueError, np.linalg.LinAlgError) as e:
                section.notes.append(f"The {judgment} ordinal crossed model was not fitted: {e}")
            else:
                formula = f"{judgment} ~ group + (1 | participant) + (1 | item)"
                shown.append(
                    (judgment, "crossed model, ordinal", "ordinal crossed model", formula, crossed)
                )
    coefficients, variances = [], []
    for judgment, model, what, formula, fit in shown:
        summary = clmm_summary if isinstance(fit, ClmmFit) else model_summary
        section.summaries.append((f"{judgment}: {model}", summary(fit, formula)))
        if note := _fit_note(fit, f"{judgment} {what}"):
            section.notes.append(note)
        key = {"judgment": judgment, "model": formula}
        coefficients.append(fit.coefficient_table().assign(**key))
        variances.append(fit.variance_table().assign(**key))
    section.tables += [
        Table(
            "adjustment_ttest",
            "Original vs adjusted scores: Student's t-test",
            mixed.adjustment_ttests(adjusted, list(fits)),
        ),
        Table(
            "participant_effects",
            "Participants' random effects",
            mixed.participant_effects(dict(fits)),
            "Predicted random intercepts (BLUPs) subtracted to adjust each participant's scores.",
            show=False,
        ),
        Table("model_coefficients", "Mixed models: coefficients", _keyed(coefficients), show=False),
        Table("model_variances", "Mixed models: variances", _keyed(variances), show=False),
    ]
    return section


def _keyed(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The fits' frames as one, their judgment and model formula first."""
    table = pd.concat(frames, ignore_index=True)
    return table[
        ["judgment", "model", *(c for c in table.columns if c not in ("judgment", "model"))]
    ]


def _systems_section(systems: pd.DataFrame, draw: bool) -> Section:
    section = Section(
        "systems",
        "System-level human scores",
        [
            "Per system and language pair, as WMT's findings compute them: z is the mean over "
            "segments of each segment's mean rater-standardised score (raw: the same on 0–100), "
            "n the segments and judgments the judgments counted. Systems are ordered by z; a "
            "cluster ends where every system above beats every system below by a one-sided "
            "Wilcoxon rank-sum test on segment means (p < 0.05). Source 'study' is this "
            "study's ratings of WMT hypotheses (holistic answers standardised per participant), "
            "'da' the imported WMT direct-assessment judgments of the same language pairs, "
            "'mqm' their imported MQM segment scores (z is then the mean MQM score). A pair "
            "with no DA judgments but WMT's published system-level results (WMT21's clusters "
            "file) shows those as 'da': z and raw as released, judgments the annotations, n "
            "unknown, and WMT's own clusters."
        ],
    )
    section.tables.append(Table("system_scores", "System-level human scores", systems))
    if draw:
        section.figures.append(
            FigureEntry(
                "system_scores",
                "System-level z per language pair and source; dashed lines end a cluster",
                F.system_scores(systems),
            )
        )
    return section


def correlation_overview(corr: pd.DataFrame, group: str) -> pd.DataFrame:
    """One row per source for a sentence group: the key columns first (source, then adjusted
    rho and significance per judgment, order first as the thesis's figures put it), then
    category, n, orientation and the unadjusted rho, which a narrow screen scrolls to."""
    part = corr[corr[C.GROUP] == group]
    if part.empty:
        return pd.DataFrame()
    keys = [*correlation.SOURCE, "category"]
    rows = part.groupby(keys, sort=False)
    table = rows["n"].max().rename("n").to_frame()
    if "higher_is_better" in part.columns:
        table["higher is better"] = rows["higher_is_better"].first()
    for judgment in (C.ORDER, C.HOLISTIC):
        for adjusted, name in ((True, "adjusted"), (False, "unadjusted")):
            chosen = part[(part["judgment"] == judgment) & (part["adjusted"] == adjusted)]
            table[f"{judgment} ρ {name}"] = chosen.set_index(keys)["r"]
        chosen = part[(part["judgment"] == judgment) & part["adjusted"]]
        table[f"{judgment} significant"] = chosen.set_index(keys)["significant"]
    table = table.reset_index()
    labels = [source_label(m, v) for m, v in zip(table[C.METRIC], table[C.VARIANT], strict=True)]
    table.insert(0, "source", labels)
    unused = [C.CONFIG] if (table[C.CONFIG] == "").all() else []
    table = table.drop(columns=[C.METRIC, C.VARIANT, *unused])
    key = [c for c in table.columns if c in ("source", C.CONFIG)]
    key += [f"{j} {what}" for j in (C.ORDER, C.HOLISTIC) for what in ("ρ adjusted", "significant")]
    return table[key + [c for c in table.columns if c not in key]]


FIGURE_SPECS = (
    # name, title, bar_table options, panel titles
    (
        "figure_7_3",
        "Figure 7.3: correlations with baseline techniques (adjusted scores)",
        dict(panel="judgment", categories=("other", "full"), judgments=(C.ORDER, C.HOLISTIC)),
    ),
    (
        "figure_7_4",
        "Figure 7.4: correlations with baseline techniques, without adjustment for random effects",
        dict(
            panel="judgment",
            categories=("other", "full"),
            judgments=(C.ORDER, C.HOLISTIC),
            adjusted=False,
        ),
    ),
    (
        "figure_7_5",
        "Figure 7.5: word-order judgments and metrics submitted to WMT",
        dict(panel="judgment", categories=("full", "partial")),
    ),
    (
        "figure_7_6",
        "Figure 7.6: word-order judgments and variants of DTED and DERP",
        dict(panel="judgment", categories=("full", "dted", "derp")),
    ),
    (
        "figure_7_7",
        "Figure 7.7: word-order judgments across automatically permuted sentences",
        dict(panel="group", categories=tuple(F.CATEGORIES), groups=PERMUTATION_TYPES),
    ),
    (
        "figure_7_8",
        "Figure 7.8: order-focused and holistic judgments and variants of DTED and DERP",
        dict(
            panel="judgment", categories=("full", "dted", "derp"), judgments=(C.ORDER, C.HOLISTIC)
        ),
    ),
)
#: A figure of DTED/DERP variants is drawn only when some such source was scored.
NEEDS = {"figure_7_5": "partial", "figure_7_6": ("dted", "derp"), "figure_7_8": ("dted", "derp")}

BAR_CAPTION = (
    "Spearman's ρ per score source{adjusted}, with the sign of lower-is-better sources such as "
    "TER flipped. A bar reaches the highest correlation among a "
    "source's configurations, each marked; * marks sources whose correlations are all "
    "significant at the 0.05 level (tested on unadjusted scores). Colours as the thesis's "
    "Table 7.2: purple other evaluation methods, green third-party metrics scoring every "
    "sentence, blue those scoring some, yellow DTED, vermillion DERP."
)


def _correlation_figures(corr: pd.DataFrame) -> tuple[list[FigureEntry], list[str]]:
    figures, notes = [], []
    for name, title, options in FIGURE_SPECS:
        needed = NEEDS.get(name)
        if needed and not corr["category"].isin(np.atleast_1d(needed)).any():
            what = "partial-coverage WMT metric" if needed == "partial" else "DTED or DERP"
            notes.append(f"{title.split(':')[0]} not drawn: no {what} scores were correlated.")
            continue
        bars = bar_table(corr, **options)
        if bars.empty:
            notes.append(f"{title.split(':')[0]} not drawn: no correlations to show.")
            continue
        adjusted = options.get("adjusted", True)
        caption = BAR_CAPTION.format(
            adjusted=", adjusted for participants' random effects" if adjusted else ", unadjusted"
        )
        if options["panel"] == "judgment":
            panels, titles = options.get("judgments", (C.ORDER,)), F.JUDGMENT_TITLES
            caption = "WMT hypotheses. " + caption
        else:
            panels = [g for g in options["groups"] if g in set(bars["panel"])]
            titles = F.TYPE_TITLES
        heading = None if options["panel"] == "judgment" else "Permutation type"
        chart = F.correlation_bars(bars, panels=panels, panel_titles=titles, title=heading)
        figures.append(FigureEntry(name, title, chart, caption))
    return figures, notes


def _correlation_section(
    adjusted: pd.DataFrame, scores: pd.DataFrame, draw: bool, n_boot: int, seed: int
) -> tuple[Section, pd.DataFrame]:
    section = Section(
        "correlations",
        "Correlations with score sources",
        [
            "Spearman's ρ between each score source and the participants' judgments averaged per "
            "item, for WMT hypotheses and for each permutation type (§7.2.2–7.3.4). Correlations "
            "use adjusted scores; significance is tested on unadjusted ones, as in the thesis. "
            f"Sources scoring fewer than {correlation.MIN_ITEMS} judged items are left out; "
            "intervals are 95% percentile bootstraps over items. Tables keep each coefficient's "
            "sign, as in the thesis: a source where lower is better, such as TER, agrees with "
            "the participants when its ρ is negative (column 'higher is better'). Figures and "
            "Table 7.4 compare orientation-corrected coefficients, with that sign flipped."
        ],
    )
    corr = correlation.correlation_table(adjusted, scores, n_boot=n_boot, seed=seed)
    if corr.empty:
        section.notes.append(
            f"No correlations: no score source scores {correlation.MIN_ITEMS} or more judged items."
        )
        return section, corr
    corr = corr.assign(category=source_categories(corr))
    # Table 7.1 lists third-party metrics; the WMT human score and the degree are not metrics.
    partial = corr.loc[corr["category"] == "partial", C.METRIC].unique()
    coverage = correlation.coverage_table(adjusted, scores, metrics=partial)
    section.tables.append(
        Table(
            "correlations",
            "All correlations",
            corr,
            "Every judgment × adjustment × sentence group × source.",
            show=False,
        )
    )
    for group in corr[C.GROUP].unique():
        section.tables.append(
            Table(
                f"correlations_{group}",
                f"Correlations: {F.GROUP_TITLES.get(group, group)}",
                correlation_overview(corr, group),
            )
        )
    section.tables.append(
        Table(
            "table_7_1",
            "Table 7.1: score sources that score only some WMT hypotheses",
            coverage,
            "Count and share (%) of the judged hypotheses each source scores; ρ with "
            "adjusted order judgments; significance (p < 0.05) tested on unadjusted scores.",
        )
    )
    if draw:
        figures, notes = _correlation_figures(corr)
        section.figures += figures
        section.notes += notes
    return section, corr


def _hypotheses_section(
    corr: pd.DataFrame, adjusted: pd.DataFrame, scores, ordinal_adjusted: pd.DataFrame | None
) -> Section:
    section = Section(
        "hypotheses",
        "Hypotheses",
        [
            "The thesis's hypotheses (§7.1, Table 7.4), decided from the ranges of adjusted "
            "order correlations on WMT hypotheses over each tool's configurations: a tool is "
            "more reliable than another only if every configuration beats every configuration "
            "of the other. Williams's test compares pairs of sources on the same items. "
            "Each hypothesis is decided twice: on scores adjusted by the linear model, as in "
            "the thesis, and on scores adjusted by the ordinal model."
        ],
    )
    # The metric names as stored (the registry writes them in lower case).
    names = {m.lower(): m for m in corr[C.METRIC].unique()}
    dted = names.get("dted", hypotheses.DTED)
    derp = names.get("derp", hypotheses.DERP)
    if not corr[C.METRIC].isin([dted, derp]).any():
        section.notes.append("Table 7.4 not computed: no DTED or DERP scores were correlated.")
    else:
        adjustments = {"linear": corr}
        if ordinal_adjusted is not None:
            adjustments["ordinal"] = correlation.correlation_table(
                ordinal_adjusted, scores, adjusted=(True,), n_boot=0
            )
        table = hypotheses.decisions(adjustments, dted=dted, derp=derp)
        caption = (
            "Decided on the linear model's adjustment, as in the thesis"
            + (", and on the ordinal model's" if ordinal_adjusted is not None else "")
            + ". Threshold: the configuration threshold, one standard deviation of all "
            "correlations of structured DTED and DERP variants under that adjustment (0.122 in "
            "the thesis)."
        )
        table = table.rename(columns={"null_rejected": "H₀ rejected"})
        section.tables.append(Table("table_7_4", "Table 7.4: hypotheses", table, caption))
    pairs = correlation.williams_table(adjusted, scores)
    section.tables.append(
        Table(
            "williams",
            "Williams's test for every pair of sources (order, WMT hypotheses)",
            pairs,
            show=False,
        )
    )
    return section


def subset_overview(subsets: pd.DataFrame) -> pd.DataFrame:
    """Per source, adjusted order and holistic rho on hypotheses in each participant subset."""
    if subsets.empty:
        return pd.DataFrame()
    part = subsets[(subsets[C.GROUP] == C.HYPOTHESIS) & subsets["adjusted"]]
    labels = [source_label(m, v) for m, v in zip(part[C.METRIC], part[C.VARIANT], strict=True)]
    part = part.assign(
        source=[
            f"{label} [{c}]" if c else label
            for label, c in zip(labels, part[C.CONFIG], strict=True)
        ],
        column=part["subset"] + " (" + part["participants"].astype(str) + "): " + part["judgment"],
    )
    table = part.pivot_table(
        index="source", columns="column", values="r", aggfunc="first", sort=False
    )
    return table.reset_index()


def _subsets_section(
    adjusted: pd.DataFrame, scores: pd.DataFrame, subsets: Mapping[str, str], seed: int
) -> Section:
    section = Section(
        "subsets",
        "Participant subsets",
        [
            "The correlations again for subsets of participants (§7.3.5, Appendix B), on "
            "adjusted scores; the number of participants in each subset is in brackets. The "
            "thesis checked that the trends of the whole pool hold in every subset."
        ],
    )
    table = correlation.subset_correlations(
        adjusted, scores, subsets, adjusted=(True,), n_boot=0, seed=seed
    )
    section.tables += [
        Table("subset_correlations", "All subset correlations", table, show=False),
        Table("subsets", "Spearman's ρ on WMT hypotheses per subset", subset_overview(table)),
    ]
    return section


# --- The report ----------------------------------------------------------------------------


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
    withdrawn_simulated).
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
    overview = _overview(answered, scores, departures)
    report = Report(title, generated, overview, [], simulated, people - simulated)
    groups = C.participant_groups(answered)
    for group, part in groups.items():
        apart = len(groups) > 1
        tell = (lambda step, group=group: say(f"{step} ({group} participants)")) if apart else say
        sections = _analysis(
            part,
            scores,
            languages=languages,
            scale_ends=scale_ends,
            figures=figures,
            n_boot=n_boot,
            seed=seed,
            subsets=subsets,
            systems=systems,
            say=tell,
        )
        report.sections += _about(sections, group, apart)
    if figures and pilot is not None and not pilot.empty:
        report.sections[0].figures.insert(
            0,
            FigureEntry(
                "figure_6_4",
                "Figure 6.4: basic demographic details about pilot participants",
                F.basic_demographics(F.participant_table(pilot), "Pilot participants"),
            ),
        )
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
    scores: pd.DataFrame | None,
    *,
    languages: pd.DataFrame | None,
    scale_ends: Mapping[str, tuple[str, str]] | None,
    figures: bool,
    n_boot: int,
    seed: int,
    subsets: Mapping[str, str],
    systems: Callable[[pd.DataFrame], pd.DataFrame | None] | None,
    say: Progress,
) -> list[Section]:
    """The sections of one group of participants' answered ratings."""
    sections = []
    say("participants")
    sections.append(_participants_section(answered, languages, figures))
    say("response trends")
    sections.append(_responses_section(answered, scale_ends, figures, n_boot, seed))
    say("judgment quality")
    sections.append(_quality_section(answered))
    say("mixed models")
    adjusted, fits = mixed.adjust_scores(answered)
    try:
        ordinal_adjusted, ordinal_fits = ordinal.adjust_scores(answered)
        ordinal_failure = None
    except (ValueError, np.linalg.LinAlgError) as e:
        # The linear analysis stands on its own; say why the ordinal one is missing.
        ordinal_adjusted, ordinal_fits, ordinal_failure = None, {}, str(e)
    sections.append(_variation_section(adjusted, fits, ordinal_fits))
    if ordinal_failure:
        sections[-1].notes.append(
            f"The ordinal models were not fitted ({ordinal_failure}); Table 7.4 is decided on "
            "the linear model's adjustment only."
        )
    table = systems(answered) if systems is not None else None
    if table is not None and not table.empty:
        say("system level")
        sections.append(_systems_section(table, figures))
    if scores is None or scores.empty:
        sections[-1].notes.append("No scores were given: correlations are left out.")
        return sections
    say("correlations")
    section, corr = _correlation_section(adjusted, scores, figures, n_boot, seed)
    sections.append(section)
    if not corr.empty:
        say("hypotheses")
        sections.append(_hypotheses_section(corr, adjusted, scores, ordinal_adjusted))
    if subsets and answered[C.PARTICIPANT].nunique() > 1 and not corr.empty:
        say("participant subsets")
        sections.append(_subsets_section(adjusted, scores, subsets, seed))
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
        report.sections.append(_systems_section(systems.assign(source="da"), figures))
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


# --- Output --------------------------------------------------------------------------------


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


def fixed(value: float, digits: int) -> str:
    """``value`` to ``digits`` decimals, without the sign of a value that rounds to zero."""
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


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
                    "width": round(f.figure.get_figwidth() * 96 * 1.4),
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
        table.frame.to_csv(path, index=False)
        written.append(path)
    for entry in report.figures:
        written += F.save(entry.figure, out / "figures", entry.name, svg=entry.svg)
    path = out / "report.json"
    path.write_text(json.dumps(manifest(report), indent=2, ensure_ascii=False))
    written.append(path)
    # Written last: a report.html means the rest is complete.
    path = out / "report.html"
    path.write_text(render_html(report), encoding="utf-8")
    written.append(path)
    return written
