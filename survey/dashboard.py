"""The researcher's dashboard (staff only): progress and balance of a study's questionnaires,
and the actions to build or extend them and to release abandoned slots."""

from __future__ import annotations

import secrets
from statistics import median
from typing import TYPE_CHECKING

from django import forms
from django.contrib import messages
from django.db.models import Count, Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from survey.assignment import release_abandoned
from survey.models import Participant, Rating, Study
from survey.questionnaires import (
    QuestionnaireError,
    build_questionnaires,
    entries_frame,
    extend_questionnaires,
    is_frozen,
)
from wojdb.core import scales
from wojdb.core.design.composition import CompositionError, ConfigurationError, Layout
from wojdb.core.vocabulary import ASSIGNED, COMPLETED, PAPER, WEB
from wojdb.staff import staff_only

STATUSES = [s for s, _ in Participant.STATUSES]
STATUS_LABELS = [s.replace("_", " ").capitalize() for s in STATUSES]
FIGURES = {
    "quality": "Figure 6.1",
    "lengths": "Figure 6.2",
    "languages": "Figure 6.3",
}

if TYPE_CHECKING:  # pandas and the balance checks load on use, not at start-up
    import pandas as pd


class BuildForm(forms.Form):
    count = forms.IntegerField(label="Questionnaires", min_value=1, max_value=1000, initial=36)
    seed = forms.IntegerField(
        label="Seed", min_value=0, max_value=2**63 - 1, help_text="the same seed, the same result"
    )


@staff_only
def index(request):
    studies = Study.objects.annotate(
        questionnaire_count=Count("questionnaires__number", distinct=True),
        participant_count=Count(
            "participants", filter=Q(participants__simulated=False), distinct=True
        ),
        completed_count=Count(
            "participants",
            filter=Q(participants__status=COMPLETED, participants__simulated=False),
            distinct=True,
        ),
        simulated_count=Count(
            "participants", filter=Q(participants__simulated=True), distinct=True
        ),
        web_count=Count(
            "participants",
            filter=Q(participants__mode=WEB, participants__simulated=False),
            distinct=True,
        ),
        paper_count=Count(
            "participants",
            filter=Q(participants__mode=PAPER, participants__simulated=False),
            distinct=True,
        ),
    ).order_by("name")
    return render(request, "survey/dashboard/index.html", {"studies": studies})


@staff_only
def study(request, slug):
    import pandas as pd

    from wojdb.core.design import balance

    study = get_object_or_404(Study, slug=slug)
    entries = entries_frame(study)
    try:
        layout, layout_error = study.layout(), None
    except ConfigurationError as e:
        layout, layout_error = None, str(e)
    drifts = balance.drift(entries, layout) if layout else []
    statuses = _status_counts(study)
    r, n = balance.length_correlation(entries)
    context = {
        "study": study,
        "layout_rows": _layout_rows(layout) if layout else [],
        "layout_error": layout_error,
        "rows": _questionnaire_rows(study, entries, statuses, drifts),
        "drifts": drifts,
        "status_labels": STATUS_LABELS,
        "totals": [int(n) for n in statuses.sum(axis=0)],
        "pearson": None if pd.isna(r) else r,
        "pairs": n,
        "languages": balance.language_counts(entries).to_dict() if not entries.empty else {},
        "figures": FIGURES if not entries.empty else {},
        "form": BuildForm(initial={"seed": secrets.randbelow(10**6)}),
        "extending": not entries.empty,
        "abandon_after": study.abandon_after_minutes,
        "people": _people(study),
        "unfilled": study.unfilled(),
        "remarks": _remarks(study),
        # Real participants only, as every other count on the page.
        "modes": dict(
            study.participants.filter(simulated=False).values_list("mode").annotate(n=Count("pk"))
        ),
    }
    return render(request, "survey/dashboard/study.html", context)


@staff_only
def questionnaire(request, slug, number):
    study = get_object_or_404(Study, slug=slug)
    versions = list(study.questionnaires.filter(number=number).order_by("-version"))
    if not versions:
        raise Http404(f"no questionnaire {number}")
    newest = versions[0]
    entries = newest.entries.select_related(
        "item__permutation", "item__triple__segment", "item__triple__corpus"
    )
    ratings = (
        Rating.objects.filter(participant__questionnaire__in=versions, practice=False)
        .exclude(holistic=None, order=None)
        .values_list("item_id", "client_ms")
    )
    answers: dict[int, list] = {}
    for item, ms in ratings:
        answers.setdefault(item, []).append(ms)
    rows = [
        {
            "entry": e,
            "answers": len(answers.get(e.item_id, [])),
            "seconds": _median_seconds(answers.get(e.item_id, [])),
        }
        for e in entries
    ]
    context = {
        "study": study,
        "questionnaire": newest,
        "frozen": is_frozen(newest),
        "versions": versions,
        "rows": rows,
    }
    return render(request, "survey/dashboard/questionnaire.html", context)


@staff_only
def figure(request, slug, name, fmt):
    # matplotlib takes seconds to import: only figure requests pay for it.
    from wojdb.core.design import figures

    study = get_object_or_404(Study, slug=slug)
    if name not in FIGURES or fmt not in figures.FORMATS:
        raise Http404("no such figure")
    entries = entries_frame(study)
    if name == "quality":
        image = figures.quality_figure(entries, _judgments(study), fmt=fmt)
    elif name == "lengths":
        image = figures.length_figure(entries, fmt=fmt)
    else:
        image = figures.language_figure(entries, fmt=fmt)
    response = HttpResponse(image, content_type=figures.FORMATS[fmt])
    response["Cache-Control"] = "private, no-cache"
    return response


@staff_only
@require_POST
def build(request, slug):
    study = get_object_or_404(Study, slug=slug)
    form = BuildForm(request.POST)
    if not form.is_valid():
        for field, errors in form.errors.items():
            messages.error(request, f"{form.fields[field].label}: {' '.join(errors)}")
        return redirect("dashboard:study", slug=slug)
    count, seed = form.cleaned_data["count"], form.cleaned_data["seed"]
    extend = study.questionnaires.exists()
    try:
        saved = (extend_questionnaires if extend else build_questionnaires)(study, count, seed)
    except (CompositionError, ConfigurationError, QuestionnaireError) as e:
        messages.error(request, f"Nothing was built: {e}")
    else:
        messages.success(
            request,
            f"{'Added' if extend else 'Built'} {len(saved)} questionnaire(s), numbers "
            f"{saved[0].number}–{saved[-1].number}, with seed {seed}.",
        )
    return redirect("dashboard:study", slug=slug)


@staff_only
@require_POST
def release_slots(request, slug):
    study = get_object_or_404(Study, slug=slug)
    released = release_abandoned(study)
    messages.success(
        request,
        f"Released {released} slot(s) of participants idle for more than "
        f"{study.abandon_after_minutes} minutes.",
    )
    return redirect("dashboard:study", slug=slug)


# --- the numbers behind the pages --------------------------------------------------------------


def _layout_rows(layout: Layout) -> list[dict]:
    """The study's Table 6.3: one row per group of items."""
    same = "yes" if layout.group_size == 2 else "no"
    rows = []
    for name in ("shared", "unique"):
        part = layout.part(name)
        rows.append(
            {"n": part.hypotheses, "kind": "hypotheses", "type": "", "same": "", "part": name}
        )
        rows += [
            {"n": n, "kind": "permutations", "type": t, "same": same, "part": name}
            for t, n in part.typed.items()
        ]
        if part.random:
            rows.append(
                {
                    "n": part.random,
                    "kind": "permutations",
                    "type": "random",
                    "same": "no",
                    "part": name,
                }
            )
    return rows


def _people(study: Study) -> dict:
    """Real and simulated participants by status, kept apart, and those who left: declines
    and withdrawals are counts only, their data being deleted."""
    counts = {simulated: dict.fromkeys(STATUSES, 0) for simulated in (False, True)}
    for simulated, status, n in (
        Participant.objects.filter(study=study)
        .values_list("simulated", "status")
        .annotate(n=Count("pk"))
    ):
        counts[simulated][status] += n
    withdrawn = dict(
        study.withdrawals.values_list("simulated")
        .annotate(n=Count("pk"))
        .values_list("simulated", "n")
    )
    return {
        "real": [counts[False][s] for s in STATUSES],
        "simulated": [counts[True][s] for s in STATUSES],
        "declined": study.declines.count(),
        "withdrawn_real": withdrawn.get(False, 0),
        "withdrawn_simulated": withdrawn.get(True, 0),
    }


def _remarks(study: Study) -> list[Rating]:
    """Pairs real participants flagged or commented on, newest first."""
    return list(
        Rating.objects.filter(participant__study=study, participant__simulated=False)
        .filter(Q(flagged=True) | ~Q(comment=""))
        .select_related("participant__questionnaire")
        .order_by("-answered_at", "-pk")[:200]
    )


def _status_counts(study: Study) -> pd.DataFrame:
    """Real participants per questionnaire number (rows) and status (columns), all versions;
    simulated ones are counted apart (`_people`)."""
    import pandas as pd

    counts = (
        Participant.objects.filter(study=study, simulated=False)
        .values_list("questionnaire__number", "status")
        .annotate(n=Count("pk"))
    )
    frame = pd.DataFrame(list(counts), columns=["questionnaire", "status", "n"])
    table = frame.pivot_table(index="questionnaire", columns="status", values="n", aggfunc="sum")
    return table.reindex(columns=STATUSES).fillna(0).astype(int)


def _minutes_to_complete(study: Study) -> dict[int, float]:
    durations: dict[int, list[float]] = {}
    for number, created, consented, completed in Participant.objects.filter(
        study=study, status=COMPLETED, completed_at__isnull=False, simulated=False
    ).values_list("questionnaire__number", "created", "consented_at", "completed_at"):
        started = consented or created
        durations.setdefault(number, []).append((completed - started).total_seconds() / 60)
    return {number: median(values) for number, values in durations.items()}


def _answers_per_item(study: Study, entries: pd.DataFrame) -> dict[int, tuple[int, int]]:
    """Fewest and most answers any item of each questionnaire has had."""
    answered = (
        Rating.objects.filter(participant__study=study, participant__simulated=False)
        .filter(practice=False)
        .exclude(holistic=None, order=None)
        .values_list("participant__questionnaire__number", "item_id")
        .annotate(n=Count("pk"))
    )
    counts = {(number, item): n for number, item, n in answered}
    out = {}
    for number, items in entries.groupby("questionnaire")["item"]:
        values = [counts.get((number, item), 0) for item in items]
        out[number] = (min(values), max(values))
    return out


def _questionnaire_rows(
    study: Study, entries: pd.DataFrame, statuses: pd.DataFrame, drifts
) -> list[dict]:
    from wojdb.core.design import balance

    if entries.empty:
        return []
    minutes = _minutes_to_complete(study)
    answers = _answers_per_item(study, entries)
    quality = balance.quality_by_questionnaire(entries)
    flagged = {d.questionnaire for d in drifts}
    newest = {q.number: q for q in study.questionnaires.order_by("number", "version")}
    started = set(
        Participant.objects.filter(study=study)
        .exclude(status=ASSIGNED)
        .values_list("questionnaire_id", flat=True)
    )
    rows = []
    for number, q in newest.items():
        counts = statuses.loc[number] if number in statuses.index else [0] * len(STATUSES)
        rows.append(
            {
                "questionnaire": q,
                "frozen": q.frozen or q.pk in started,
                "counts": [int(n) for n in counts],
                "answers": answers.get(number, (0, 0)),
                "minutes": minutes.get(number),
                "hypothesis_quality": _number(quality.loc[number, "hypothesis"]),
                "permutation_quality": _number(quality.loc[number, "permutation"]),
                "drift": number in flagged,
            }
        )
    return rows


def _judgments(study: Study) -> pd.DataFrame:
    """Answers on the 0-1 scale of §6.3.5 (1 → 0, 5 → 1), per questionnaire, for Figure 6.1."""
    import pandas as pd

    rows = Rating.objects.filter(
        participant__study=study, participant__simulated=False, practice=False
    ).values_list("participant__questionnaire__number", "holistic", "order")
    frame = pd.DataFrame(list(rows), columns=["questionnaire", "holistic", "order"], dtype=float)
    frame[["holistic", "order"]] = scales.answer_to_unit(frame[["holistic", "order"]])
    return frame


def _median_seconds(values: list) -> float | None:
    times = [ms / 1000 for ms in values if ms is not None]
    return median(times) if times else None


def _number(value) -> float | None:
    import pandas as pd

    return None if pd.isna(value) else float(value)
