"""Django glue for ``analyse``: a study's (or a release's, or the corpus's) analysis, built and
written to a folder. The command only parses its options; the report page calls the same
function."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import pandas as pd
from django.db.models import Count, Max, Q
from django.utils import timezone
from django.utils.dateparse import parse_datetime

import wojdb
from analysis import frames
from analysis.report import write_report
from survey.management.reporting import find_study
from survey.models import Rating, Study
from wojdb.core import release as dataset
from wojdb.core.language.codes import LANGUAGE_NAMES
from wojdb.core.report.build import build_corpus_report, build_report
from wojdb.core.stats import columns as C
from wojdb.core.stats import correlation, system
from wojdb.core.stats.estimability import MIN_GROUPS
from wojdb.serving import COLLECTOR_THRESHOLDS


class AnalysisError(ValueError):
    """Nothing to analyse, or an unreadable release; nothing was written."""


@dataclass(frozen=True)
class Analysis:
    written: list[Path]
    notes: list[str]


@contextlib.contextmanager
def _collected_as_served() -> Iterator[None]:
    """Python's garbage collector as the app server runs it (wojdb.serving) while a report is
    made, whatever process makes it: matplotlib's artists and pandas' frames live in reference
    cycles, and at Python's default thresholds enough of them outlive a few collections of the
    young generation to bring on full ones, each walking every object of a process that has
    loaded pandas, scipy and matplotlib (some 300,000: 0.15-0.4 s apiece, one or two a
    report)."""
    before = gc.get_threshold()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


@_collected_as_served()
def run_analysis(
    out: Path,
    *,
    study: Study | str | None = None,
    release: Path | None = None,
    allow_extra_files: bool = False,
    pilot: str | None = None,
    no_simulated: bool = False,
    no_figures: bool = False,
    no_subsets: bool = False,
    bootstrap: int = correlation.N_BOOT,
    seed: int = 0,
    min_groups: int = MIN_GROUPS,
    corpus: bool = False,
    lp: list[str] | None = None,
    testset: str | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> Analysis:
    """Analyse as ``analyse`` does with these options (``study`` a Study or its slug) and write
    the report files to ``out``."""
    if corpus:
        return _corpus(out, lp, testset, no_figures)
    include_simulated = not no_simulated
    if release is not None:
        title, scale_ends = f"WOJ-DB analysis of the release in {release.name}", None
        ratings, scores, languages, marks = _from_release(
            release, include_simulated, allow_extra_files
        )
        systems = None  # a release's items do not name their systems
    else:
        chosen = study if isinstance(study, Study) else find_study(study)
        title, scale_ends = f"WOJ-DB analysis: {chosen.name}", _scale_ends(chosen)
        # Taken before reading, so an answer given while the data is read counts as newer.
        as_of = timezone.now()
        last = Rating.objects.filter(participant__study=chosen).aggregate(last=Max("pk"))["last"]
        ratings, scores, languages, marks, items = _from_database(chosen, include_simulated)
        systems = partial(study_systems, items=items)
    if ratings.empty:
        raise AnalysisError(
            "No ratings to analyse"
            + ("" if include_simulated else " from people (simulated ones left out)")
            + ". Participants must answer first (pilot participants, who came before the "
            "study's launch, are left out); for a demonstration, add simulated ones "
            "with simulate_responses. Nothing was written."
        )
    pilot_ratings = None
    if pilot:
        pilot_ratings = frames.ratings_frame(
            find_study(pilot), include_simulated=False, include_pilot=True
        )
    try:
        built = build_report(
            ratings,
            scores,
            title=title,
            generated=_generated(),
            languages=languages,
            pilot=pilot_ratings,
            scale_ends=scale_ends,
            figures=not no_figures,
            n_boot=bootstrap,
            seed=seed,
            subsets={} if no_subsets else subsets(ratings),
            systems=systems,
            departures=None if release is not None else departures(chosen),
            min_groups=min_groups,
            marks=marks,
            progress=lambda step: progress(f"{step} …"),
        )
    except ValueError as e:
        raise AnalysisError(f"{e}. Nothing was written.") from None
    if release is None:
        built.source = {
            "study": chosen.slug,
            "as_of": as_of.isoformat(),
            "last_rating": last or 0,
            "include_simulated": include_simulated,
            "figures": not no_figures,
        }
    # Figures are drawn here, as the files are written.
    progress("writing files …")
    return Analysis(write_report(built, out), list(built.notes))


def subsets(ratings: pd.DataFrame) -> dict[str, str]:
    """Appendix B's subsets, and the native and non-native speakers of the items' language
    when they have one."""
    languages = ratings[C.TARGET_LANG].unique()
    if len(languages) != 1:
        return correlation.THESIS_SUBSETS
    name = LANGUAGE_NAMES.get(languages[0], languages[0])
    return {**correlation.THESIS_SUBSETS, **correlation.first_language_subsets(name)}


def departures(study: Study) -> dict[str, int]:
    """Who left the study, as counts only: their data is deleted. The pilot's are left out,
    as its participants are."""
    withdrawn = dict(
        study.withdrawals.filter(pilot=False)
        .values_list("simulated")
        .annotate(n=Count("pk"))
        .values_list("simulated", "n")
    )
    return {
        "declined": study.declines.filter(pilot=False).count(),
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


def _generated() -> str:
    return f"{timezone.now():%Y-%m-%d %H:%M} UTC by WOJ-DB {wojdb.__version__}"


def _scale_ends(study: Study) -> dict[str, tuple[str, str]]:
    return {
        "holistic": (study.holistic_low, study.holistic_high),
        "order": (study.order_low, study.order_high),
    }


def _from_database(study: Study, include_simulated: bool):
    people = frames.select_participants(study, include_simulated=include_simulated)
    items = frames.rated_items_frame(people)  # read once, for every frame below
    ratings = frames.ratings_frame(study, include_simulated=include_simulated, items=items)
    scores = frames.scores_frame(ratings["item"].unique(), item_frame=items)
    marks = frames.marks_frames(people, items) if study.word_marks else None
    return ratings, scores, frames.participant_languages_table(people), marks, items


def _corpus(out: Path, lps, testset, no_figures: bool) -> Analysis:
    segments = frames.corpus_segments_frame(testset, lps)
    scores = frames.scores_frame(segments["item"], builtin=False)
    mqm = scores[scores[C.METRIC] == "MQM"].set_index(C.ITEM)[C.SCORE]
    if len(mqm):
        segments = segments.assign(mqm=segments["item"].map(mqm))
    systems = frames.external_system_table("da", testset, set(segments[system.LP]))
    try:
        built = build_corpus_report(
            segments,
            systems,
            scores,
            generated=_generated(),
            figures=not no_figures,
        )
    except ValueError as e:
        raise AnalysisError(
            f"{e}. Import a corpus (import_wmt, import_da) and its metric scores "
            "(import_scores) first. Nothing was written."
        ) from None
    return Analysis(write_report(built, out), list(built.notes))


def study_systems(ratings: pd.DataFrame, items: pd.DataFrame | None = None) -> pd.DataFrame | None:
    """System-level scores from these ratings (the report passes one group of participants at
    a time; ``items``: an items frame holding their items, if already read) and the imported
    DA and MQM of their language pairs (`frames.external_system_table`)."""
    study = frames.study_judgments_frame(ratings, items=items)
    if study.empty:
        return None
    parts = [system.system_scores(study).assign(source="study")]
    lps = set(study[system.LP])
    for source in ("da", "mqm"):
        table = frames.external_system_table(source, lps=lps)
        if not table.empty:
            parts.append(table.assign(source=source))
    return pd.concat(parts, ignore_index=True)


def _from_release(folder: Path, include_simulated: bool, allow_extra_files: bool):
    try:
        ratings, scores, answers, truths = dataset.load_release(
            folder,
            include_simulated=include_simulated,
            allow_extra_files=allow_extra_files,
            marks=True,
        )
        languages = dataset.read_release(folder, allow_extra_files=allow_extra_files).tables[
            "participant_languages"
        ]
    except (dataset.ReleaseError, OSError) as e:
        raise AnalysisError(f"cannot read the release in {folder}: {e}") from None
    return ratings, scores, languages, None if answers.empty else (answers, truths)
