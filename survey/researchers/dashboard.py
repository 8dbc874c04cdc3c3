"""The researcher's dashboard, for each study's team as their roles allow: a study's status,
progress and balance of its questionnaires, the actions to build or extend them, to launch the
study, to clear its pilot data and to release abandoned slots, its team and its record."""

from __future__ import annotations

import math
import secrets
from collections import Counter
from statistics import median
from typing import TYPE_CHECKING

from django import forms
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from survey import access, record
from survey.access import DATA, MANAGE, RECORD, TEAM, VIEW, staff_only
from survey.checks import catalogue_problem
from survey.design import lifecycle as launching
from survey.models import Participant, Rating, Study, StudyMember, real_participants
from survey.participants.assignment import release_abandoned
from survey.participants.forms import WholeNumber
from wojdb.core import scales
from wojdb.core.design import MAX_QUESTIONNAIRES
from wojdb.core.io import length_units
from wojdb.core.language.rules import rules_for
from wojdb.core.marks import permutation_truths, units
from wojdb.core.vocabulary import ASSIGNED, COMPLETED, PAPER, WEB

STATUSES = [s for s, _ in Participant.STATUSES]
STATUS_LABELS = [s.replace("_", " ").capitalize() for s in STATUSES]
FIGURES = {
    "quality": "Figure 6.1",
    "lengths": "Figure 6.2",
    "languages": "Figure 6.3",
}

if TYPE_CHECKING:  # pandas, the balance checks and composing load on use, not at start-up
    import pandas as pd

    from wojdb.core.design.composition import Layout


class BuildForm(forms.Form):
    count = WholeNumber(
        label="Questionnaires", min_value=1, max_value=MAX_QUESTIONNAIRES, initial=1
    )
    seed = WholeNumber(
        label="Seed", min_value=0, max_value=2**63 - 1, help_text="the same seed, the same result"
    )


class ClearPilotForm(forms.Form):
    confirm = forms.BooleanField(
        label="Yes, delete them with all their answers; this cannot be undone", required=True
    )


class MemberForm(forms.Form):
    username = forms.CharField(label="User name", max_length=150)
    role = forms.ChoiceField(label="Role", choices=StudyMember.ROLES)


@staff_only
def index(request):
    real = real_participants("participants__")
    studies = (
        access.studies_for(request.user, VIEW)
        .annotate(
            questionnaire_count=Count("questionnaires__number", distinct=True),
            active_count=Count(
                "questionnaires", filter=Q(questionnaires__active=True), distinct=True
            ),
            participant_count=Count("participants", filter=real, distinct=True),
            completed_count=Count(
                "participants", filter=real & Q(participants__status=COMPLETED), distinct=True
            ),
            pilot_count=Count("participants", filter=Q(participants__pilot=True), distinct=True),
            simulated_count=Count(
                "participants", filter=Q(participants__simulated=True), distinct=True
            ),
            web_count=Count("participants", filter=real & Q(participants__mode=WEB), distinct=True),
            paper_count=Count(
                "participants", filter=real & Q(participants__mode=PAPER), distinct=True
            ),
        )
        .order_by("name")
    )
    for s in studies:
        s.status = launching.study_status(s, s.active_count > 0)
    uncompiled = [
        (study, why)
        for study in studies
        if (problem := catalogue_problem(study.language)) and problem[0] == "error"
        for why in problem[1:]
    ]
    reviews = access.studies_for(request.user, MANAGE).exists()
    return render(
        request,
        "survey/dashboard/index.html",
        {"studies": studies, "uncompiled": uncompiled, "paper_review": reviews},
    )


@staff_only
def study(request, slug):
    import pandas as pd

    from survey.design.questionnaires import entries_frame
    from wojdb.core.design import balance
    from wojdb.core.design.composition import ConfigurationError

    study = access.study_for(request, slug, VIEW)
    rights = access.RIGHTS[access.role_of(request.user, study)]
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
        "length_units": length_units(entries["source_lang"].unique(), study.language),
        "figures": FIGURES if not entries.empty else {},
        "form": BuildForm(initial={"seed": secrets.randbelow(10**6)}),
        "extending": not entries.empty,
        "abandon_after": study.abandon_after_minutes,
        "people": _people(study),
        "status": launching.study_status(study),
        "launch_refusal": launching.refusal(study),
        "clear_form": ClearPilotForm(),
        "catalogue": catalogue_problem(study.language),
        # What participants wrote is for those who see the data or run the study.
        "remarks": _remarks(study) if rights & {DATA, MANAGE} else None,
        "rights": rights,
        "questionnaire_count": study.questionnaires.values("number").distinct().count(),
        "members": study.members.select_related("user"),
        "member_form": MemberForm() if TEAM in rights else None,
        "entries": record.latest(study.slug, 50) if RECORD in rights else None,
        # Real participants only, as every other count on the page.
        "modes": dict(study.participants.real().values_list("mode").annotate(n=Count("pk"))),
    }
    return render(request, "survey/dashboard/study.html", context)


@staff_only
def questionnaire(request, slug, number):
    from survey.design.questionnaires import is_frozen

    study = access.study_for(request, slug, VIEW)
    versions = list(study.questionnaires.filter(number=number).order_by("-version"))
    if not versions:
        raise Http404(f"no questionnaire {number}")
    newest = versions[0]
    entries = newest.entries.select_related(
        "item__permutation", "item__triple__segment", "item__triple__corpus"
    )
    ratings = (
        Rating.objects.filter(participant__questionnaire__in=versions, practice=False)
        .filter(real_participants("participant__"))
        .exclude(holistic=None, order=None)
        .values_list("item_id", "client_ms")
    )
    answers: dict[int, list] = {}
    for item, ms in ratings:
        answers.setdefault(item, []).append(ms)
    strips = _mark_strips(study, versions, [e.item for e in entries])
    rows = [
        {
            "entry": e,
            "answers": len(answers.get(e.item_id, [])),
            "seconds": _median_seconds(answers.get(e.item_id, [])),
            "marked": strips.get(e.item_id, (0, []))[0],
            "strip": strips.get(e.item_id, (0, []))[1],
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
    from survey.design.questionnaires import entries_frame
    from wojdb.core.design import balance_figures

    study = access.study_for(request, slug, VIEW)
    if name not in FIGURES or fmt not in balance_figures.FORMATS:
        raise Http404("no such figure")
    entries = entries_frame(study)
    if name == "quality":
        image = balance_figures.quality_figure(entries, _judgments(study), fmt=fmt)
    elif name == "lengths":
        image = balance_figures.length_figure(entries, fmt=fmt, target_lang=study.language)
    else:
        image = balance_figures.language_figure(entries, fmt=fmt)
    response = HttpResponse(image, content_type=balance_figures.FORMATS[fmt])
    response["Cache-Control"] = "private, no-cache"
    return response


@staff_only
@require_POST
def build(request, slug):
    from survey.design.questionnaires import (
        QuestionnaireError,
        build_questionnaires,
        extend_questionnaires,
    )
    from wojdb.core.design.composition import CompositionError, ConfigurationError

    study = access.study_for(request, slug, MANAGE)
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
def launch(request, slug):
    """Launch the study: its questionnaires freeze and arrivals are real participants."""
    study = access.study_for(request, slug, MANAGE)
    try:
        launching.launch(study)
    except launching.LaunchError as e:
        messages.error(request, str(e))
    else:
        messages.success(
            request,
            "Launched: the questionnaires are frozen, and everyone who arrives from now on is a "
            "real participant.",
        )
    return redirect("dashboard:study", slug=slug)


@staff_only
@require_POST
def clear_pilot(request, slug):
    """Delete the pilot and simulated participants, once the researcher has confirmed it."""
    study = access.study_for(request, slug, MANAGE)
    if not ClearPilotForm(request.POST).is_valid():
        messages.error(request, "Nothing was deleted: tick the box to confirm the deletion.")
        return redirect("dashboard:study", slug=slug)
    cleared = launching.clear_pilot(study)
    messages.success(
        request,
        f"Deleted {cleared.pilot} pilot and {cleared.simulated} simulated participant(s) with "
        "their answers.",
    )
    return redirect("dashboard:study", slug=slug)


@staff_only
@require_POST
def release_slots(request, slug):
    study = access.study_for(request, slug, MANAGE)
    released = release_abandoned(study)
    record.note(study, "slots released", participants=released)
    messages.success(
        request,
        f"Released {released} slot(s) of participants idle for more than "
        f"{study.abandon_after_minutes} minutes.",
    )
    return redirect("dashboard:study", slug=slug)


@staff_only
@require_POST
def team(request, slug):
    """Add a member to the study's team, or change a member's role (owners only)."""
    study = access.study_for(request, slug, TEAM)
    form = MemberForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Nothing was changed: name a user and choose a role.")
        return redirect("dashboard:study", slug=slug)
    name, role = form.cleaned_data["username"], form.cleaned_data["role"]
    user = get_user_model().objects.filter(username=name, is_staff=True).first()
    if user is None:
        messages.error(
            request,
            f"Nothing was changed: there is no researcher account {name!r} (an account needs "
            f"staff status to sign in to the researcher pages; the server's operator makes one "
            f"with `manage.py add_researcher {name}`).",
        )
        return redirect("dashboard:study", slug=slug)
    try:
        access.set_role(study, user, role)
    except access.TeamError as e:
        messages.error(request, f"Nothing was changed: {e}.")
    else:
        messages.success(request, f"{name} is now {role} of {study.slug}.")
    return redirect("dashboard:study", slug=slug)


@staff_only
@require_POST
def team_remove(request, slug, user_id):
    study = access.study_for(request, slug, TEAM)
    member = get_object_or_404(
        StudyMember.objects.select_related("user"), study=study, user_id=user_id
    )
    try:
        access.remove_member(study, member.user)
    except access.TeamError as e:
        messages.error(request, f"Nothing was changed: {e}.")
    else:
        messages.success(request, f"{member.user.get_username()} left the team of {study.slug}.")
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
    """Real, pilot and simulated participants by status, kept apart, and those who left:
    declines and withdrawals are counts only, their data being deleted."""
    counts = {group: dict.fromkeys(STATUSES, 0) for group in ("real", "pilot", "simulated")}
    for simulated, pilot, status, n in (
        Participant.objects.filter(study=study)
        .values_list("simulated", "pilot", "status")
        .annotate(n=Count("pk"))
    ):
        group = "simulated" if simulated else "pilot" if pilot else "real"
        counts[group][status] += n
    withdrawn = {"real": 0, "pilot": 0, "simulated": 0}
    for simulated, pilot, n in study.withdrawals.values_list("simulated", "pilot").annotate(
        n=Count("pk")
    ):
        withdrawn["simulated" if simulated else "pilot" if pilot else "real"] += n
    declined = dict(study.declines.values_list("pilot").annotate(n=Count("pk")))
    return {
        **{group: [row[s] for s in STATUSES] for group, row in counts.items()},
        "declined": declined.get(False, 0),
        "declined_pilot": declined.get(True, 0),
        "withdrawn_real": withdrawn["real"],
        "withdrawn_pilot": withdrawn["pilot"],
        "withdrawn_simulated": withdrawn["simulated"],
        "pilot_total": sum(counts["pilot"].values()),
        "simulated_total": sum(counts["simulated"].values()),
    }


def _remarks(study: Study) -> list[Rating]:
    """Pairs real participants flagged or commented on, newest first."""
    return list(
        Rating.objects.filter(real_participants("participant__"), participant__study=study)
        .filter(Q(flagged=True) | ~Q(comment=""))
        .select_related("participant__questionnaire")
        .order_by("-answered_at", "-pk")[:200]
    )


def _status_counts(study: Study) -> pd.DataFrame:
    """Real participants per questionnaire number (rows) and status (columns), all versions;
    pilot and simulated ones are counted apart (`_people`)."""
    import pandas as pd

    counts = (
        Participant.objects.real()
        .filter(study=study)
        .values_list("questionnaire__number", "status")
        .annotate(n=Count("pk"))
    )
    frame = pd.DataFrame(list(counts), columns=["questionnaire", "status", "n"])
    table = frame.pivot_table(index="questionnaire", columns="status", values="n", aggfunc="sum")
    return table.reindex(columns=STATUSES).fillna(0).astype(int)


def _minutes_to_complete(study: Study) -> dict[int, float]:
    durations: dict[int, list[float]] = {}
    for number, created, consented, completed in (
        Participant.objects.real()
        .filter(study=study, status=COMPLETED, completed_at__isnull=False)
        .values_list("questionnaire__number", "created", "consented_at", "completed_at")
    ):
        started = consented or created
        durations.setdefault(number, []).append((completed - started).total_seconds() / 60)
    return {number: median(values) for number, values in durations.items()}


#: The heat strip's shades: a unit's share of the answers marking it, in this many steps.
MARK_LEVELS = 5


def _mark_strips(study: Study, versions, items) -> dict[int, tuple[int, list[dict]]]:
    """Per item whose word marks real participants answered: how many did, and each unit of
    its sentence with the share that marked it (as a percentage and a shade, 0 for none) and
    whether it is in the truth (displaced by the permutation; crossing in a hypothesis)."""
    if not study.word_marks:
        return {}
    answered = (
        Rating.objects.filter(participant__questionnaire__in=versions, practice=False)
        .filter(real_participants("participant__"), marks__isnull=False)
        .values_list("item_id", "marks")
    )
    answers, marked = Counter(), {}
    for item, marks in answered:
        answers[item] += 1
        marked.setdefault(item, Counter()).update(mark[0] for mark in marks)
    strips = {}
    for item in items:
        if not answers[item.pk]:
            continue
        rules = rules_for(item.triple.segment.target_lang)
        if item.permutation is not None:
            p = item.permutation
            truth = set(permutation_truths(p.tokens, p.mapping, p.moved, rules)[0])
        else:
            truth = set(item.triple.crossing_words or ())
        n = answers[item.pk]
        strips[item.pk] = (
            n,
            [
                {
                    "text": unit,
                    "percent": round(100 * marked[item.pk][u] / n),
                    "level": math.ceil(MARK_LEVELS * marked[item.pk][u] / n),
                    "truth": u in truth,
                }
                for u, unit in enumerate(units(item.text, rules))
            ],
        )
    return strips


def _answers_per_item(study: Study, entries: pd.DataFrame) -> dict[int, tuple[int, int]]:
    """Fewest and most answers any item of each questionnaire has had."""
    answered = (
        Rating.objects.filter(real_participants("participant__"), participant__study=study)
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
        Participant.objects.real()
        .filter(study=study)
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
        real_participants("participant__"), participant__study=study, practice=False
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
