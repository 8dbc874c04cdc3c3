"""A study's analysis from the database, written as a report folder.

The ``analyse`` command and the researcher's report page both call :func:`run_analysis`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

import wojdb
from analysis import frames, report
from analysis.stats import correlation, system
from survey.models import Rating, Study


class NothingToAnalyse(ValueError):
    """The study has no answers to analyse (or the options leave none)."""


@dataclass
class Analysis:
    written: list[Path]
    notes: list[str]


def stamp() -> str:
    return f"{timezone.now():%Y-%m-%d %H:%M} UTC by WOJ-DB {wojdb.__version__}"


def scale_ends(study: Study) -> dict[str, tuple[str, str]]:
    return {
        "holistic": (study.holistic_low, study.holistic_high),
        "order": (study.order_low, study.order_high),
    }


def from_database(study: Study, include_simulated: bool):
    ratings = frames.ratings_frame(study, include_simulated=include_simulated)
    scores = frames.scores_frame(ratings["item"].unique())
    people = frames.select_participants(study, include_simulated=include_simulated)
    return ratings, scores, frames.participant_languages_table(people)


def departures(study: Study) -> dict[str, int]:
    """Who left the study, as counts only: their data is deleted."""
    withdrawn = dict(
        study.withdrawals.values_list("simulated")
        .annotate(n=Count("pk"))
        .values_list("simulated", "n")
    )
    return {
        "declined": study.declines.count(),
        "withdrawn_real": withdrawn.get(False, 0),
        "withdrawn_simulated": withdrawn.get(True, 0),
    }


def newer_answers(source: dict) -> int:
    """How many answers in the source's study are newer than the analysis made from it.

    New rows count as well as later answer times: simulated answers are back-dated.
    """
    as_of = parse_datetime(source.get("as_of", ""))
    if not source.get("study") or as_of is None:
        return 0
    answered = Rating.objects.filter(
        participant__study__slug=source["study"], answered_at__isnull=False
    )
    return answered.filter(
        Q(answered_at__gt=as_of) | Q(pk__gt=source.get("last_rating", 0))
    ).count()


def systems(ratings: pd.DataFrame) -> pd.DataFrame | None:
    """System-level scores from the study's ratings and the imported DA and MQM of its
    language pairs."""
    study = frames.study_judgments_frame(ratings)
    if study.empty:
        return None
    parts = [system.system_scores(study).assign(source="study")]
    for source, external in (
        ("da", frames.da_judgments_frame()),
        ("mqm", frames.mqm_judgments_frame()),
    ):
        external = external[external[system.LP].isin(set(study[system.LP]))]
        if not external.empty:
            table = system.system_scores(external)
            if source == "da":
                table = system.fill_raw(table, frames.da_system_raw())
            parts.append(table.assign(source=source))
    return pd.concat(parts, ignore_index=True)


def run_analysis(
    study: Study,
    out: Path,
    *,
    include_simulated: bool = True,
    figures: bool = True,
    pilot: Study | None = None,
    n_boot: int = correlation.N_BOOT,
    seed: int = 0,
    subsets: bool = True,
    progress: Callable[[str], None] | None = None,
) -> Analysis:
    """Analyse ``study``'s answers and write the report into ``out``.

    Raises NothingToAnalyse (nothing written) when there are no answers to analyse.
    """
    # Taken before reading, so an answer given while the data is read counts as newer.
    as_of = timezone.now()
    last_rating = Rating.objects.filter(participant__study=study).aggregate(last=Max("pk"))["last"]
    ratings, scores, languages = from_database(study, include_simulated)
    if ratings.empty:
        raise NothingToAnalyse(
            "No ratings to analyse"
            + ("" if include_simulated else " from people (simulated ones left out)")
            + ". Participants must answer first; for a demonstration, add simulated ones "
            "with simulate_responses. Nothing was written."
        )
    pilot_ratings = None
    if pilot is not None:
        pilot_ratings = frames.ratings_frame(pilot, include_simulated=False)
    try:
        built = report.build_report(
            ratings,
            scores,
            title=f"WOJ-DB analysis: {study.name}",
            generated=stamp(),
            languages=languages,
            pilot=pilot_ratings,
            scale_ends=scale_ends(study),
            figures=figures,
            n_boot=n_boot,
            seed=seed,
            subsets=correlation.THESIS_SUBSETS if subsets else {},
            systems=systems(ratings),
            departures=departures(study),
            progress=progress,
        )
    except ValueError as e:
        raise NothingToAnalyse(f"{e}. Nothing was written.") from None
    built.source = {
        "study": study.slug,
        "as_of": as_of.isoformat(),
        "last_rating": last_rating or 0,
        "include_simulated": include_simulated,
        "figures": figures,
    }
    if progress:
        progress("writing files")
    return Analysis(report.write_report(built, out), built.notes)
