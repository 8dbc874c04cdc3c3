"""Participant variation: the mixed models, what they can estimate, and the adjustment (§7.2.3)."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from wojdb.core.report import summaries
from wojdb.core.report.model import Section, Table
from wojdb.core.stats import columns as C
from wojdb.core.stats import estimability, mixed, ordinal
from wojdb.core.stats.estimability import NotEstimable
from wojdb.core.stats.ordinal import ClmmFit
from wojdb.core.stats.reml import LmmFit


def _fit_note(fit: LmmFit | ClmmFit | NotEstimable, what: str) -> str | None:
    if isinstance(fit, NotEstimable):
        return f"The {what} is not estimable: {fit.describe()}."
    if not fit.state.converged or fit.state.singular:
        return f"The {what} {fit.state.message}."
    return None


TTEST_CAPTION = (
    "Shown to reproduce the thesis (p = 0.118), but it cannot find anything: subtracting the "
    "participants' predicted effects moves the mean of the scores to the model's intercept, "
    "which in a balanced study is the mean of the original scores, so t is zero by "
    "construction there (and near zero otherwise), whatever the participants did."
)


def variation_section(
    adjusted: pd.DataFrame,
    fits: Mapping[str, LmmFit | NotEstimable],
    ordinal_fits: Mapping[str, ClmmFit | NotEstimable],
    min_groups: int,
) -> Section:
    section = Section(
        "variation",
        "Participant variation",
        [
            "As in §7.2.3, each judgment's 0–1 scores were fitted with a linear mixed model with "
            "a random intercept per participant (REML); each participant's predicted effect was "
            "subtracted from their scores to give adjusted scores, which the correlations use. "
            "The crossed model, with item intercepts and a fixed effect per sentence group, is "
            "shown for comparison.",
            "The answers are ordinal, not interval, so each model is also fitted as a "
            "cumulative link mixed model (logit link, flexible thresholds, Laplace "
            "approximation, as R's ordinal::clmm) on the 1–5 answers. Its participant-adjusted "
            "score of an answer is the mean latent logit over the answer's interval with the "
            "participant's shift taken out; Table 7.4 is decided under both adjustments.",
            "A model is fitted only where its data can estimate it: every random factor needs "
            f"at least {min_groups} groups (participants, items) for its variance, the answers "
            "must vary, and in an ordinal model no sentence group may have all its answers at "
            "one end of the scale (its coefficient would be infinite). After the fit, a model "
            "that did not converge, or left an estimate without a finite standard error (or, "
            "on the logit scale, one above "
            f"{estimability.MAX_LOGIT_SE:g}), is not estimable either. Such a model is "
            "reported with its reasons and none of its numbers; every estimate shown has a "
            "95% interval.",
        ],
    )
    # Per fit: judgment, model as titles name it, as notes name it, formula, method, fit.
    shown: list[tuple[str, str, str, str, str, LmmFit | ClmmFit | NotEstimable]] = []
    for judgment, fit in fits.items():
        unit = C.unit(judgment)
        crossed = "~ group + (1 | participant) + (1 | item)"
        shown += [
            (
                judgment,
                "the thesis's model",
                "participant model",
                f"{unit} ~ 1 + (1 | participant)",
                summaries.REML,
                fit,
            ),
            (
                judgment,
                "crossed model",
                "crossed model",
                f"{unit} {crossed}",
                summaries.REML,
                mixed.crossed_model(adjusted, judgment, min_groups),
            ),
        ]
        if judgment in ordinal_fits:
            shown += [
                (
                    judgment,
                    "the thesis's model, ordinal",
                    "ordinal participant model",
                    f"{judgment} ~ 1 + (1 | participant)",
                    summaries.LAPLACE,
                    ordinal_fits[judgment],
                ),
                (
                    judgment,
                    "crossed model, ordinal",
                    "ordinal crossed model",
                    f"{judgment} {crossed}",
                    summaries.LAPLACE,
                    ordinal.crossed_model(adjusted, judgment, min_groups),
                ),
            ]
    models, coefficients, variances = [], [], []
    for judgment, model, what, formula, method, fit in shown:
        section.summaries.append((f"{judgment}: {model}", summaries.summary(fit, formula, method)))
        if note := _fit_note(fit, f"{judgment} {what}"):
            section.notes.append(note)
        estimable = not isinstance(fit, NotEstimable)
        models.append(
            {
                "judgment": judgment,
                "model": formula,
                "estimable": estimable,
                "outcome": fit.state.message if estimable else fit.describe(),
            }
        )
        if estimable:
            key = {"judgment": judgment, "model": formula}
            coefficients.append(fit.coefficient_table().assign(**key))
            variances.append(fit.variance_table().assign(**key))
    section.tables.append(
        Table(
            "models",
            "Mixed models: what the data can estimate",
            pd.DataFrame(models),
            "A model that is not estimable says why; its numbers are not given anywhere.",
        )
    )
    ttests = mixed.adjustment_ttests(adjusted, list(fits))
    if len(ttests):
        section.tables.append(
            Table(
                "adjustment_ttest",
                "Original vs adjusted scores: Student's t-test",
                ttests,
                TTEST_CAPTION,
            )
        )
    effects = mixed.participant_effects(dict(fits))
    if len(effects.columns) > 1:  # some participant model is estimable
        section.tables.append(
            Table(
                "participant_effects",
                "Participants' random effects",
                effects,
                "Predicted random intercepts (BLUPs) subtracted to adjust each participant's "
                "scores.",
                show=False,
            )
        )
    if coefficients:
        section.tables += [
            Table(
                "model_coefficients",
                "Mixed models: coefficients",
                _keyed(coefficients),
                show=False,
            ),
            Table("model_variances", "Mixed models: variances", _keyed(variances), show=False),
        ]
    return section


def missing_adjustment(fits: Mapping[str, LmmFit | ClmmFit | NotEstimable], what: str) -> str:
    """Why there are no adjusted scores of this kind ("" when there are)."""
    for judgment, fit in fits.items():
        if isinstance(fit, NotEstimable):
            return (
                f"there are no {what} adjusted scores: the {what} participant model of the "
                f"{judgment} answers is not estimable ({fit.describe()})"
            )
    return ""


def _keyed(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The fits' frames as one, their judgment and model formula first."""
    table = pd.concat(frames, ignore_index=True)
    return table[
        ["judgment", "model", *(c for c in table.columns if c not in ("judgment", "model"))]
    ]
