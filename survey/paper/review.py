"""The researcher's review of paper answers: flagged box questions and write-in areas.

Keyboard-first: each answer opens with its scan crop and one focused field; typing the value
and pressing Enter stores it and opens the next answer to review.
"""

from __future__ import annotations

from django.db.models import Case, When
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from survey import access
from survey.access import MANAGE, staff_only
from survey.models import PaperAnswer


def _answers(user):
    """The paper answers of the studies the user runs (manages)."""
    return PaperAnswer.objects.filter(copy__layout__study__in=access.studies_for(user, MANAGE))


def _next_pending(user, after: int | None = None):
    pending = _answers(user).filter(status="pending").order_by("copy_id", "page", "id")
    if after is not None:
        later = pending.filter(id__gt=after).first()
        if later:
            return later
    return pending.first()


@staff_only
def index(request):
    from survey.paper import scan_import  # scans and printing load on use

    # Those to review first, each group in the order of the copies' pages.
    to_review_first = Case(When(status="pending", then=0), default=1)
    answers = (
        _answers(request.user)
        .select_related("copy")
        .order_by(to_review_first, "copy_id", "page", "id")
    )
    return render(
        request,
        "survey/dashboard/paper.html",
        {
            "answers": answers,
            "pending": answers.filter(status="pending").count(),
            "waiting": scan_import.waiting_copies(access.studies_for(request.user, MANAGE)),
            "next": _next_pending(request.user),
        },
    )


@staff_only
@require_http_methods(["GET", "POST"])
def answer(request, pk):
    from survey.paper import scan_import  # scans and printing load on use

    answer = get_object_or_404(_answers(request.user).select_related("copy__layout"), pk=pk)
    error = ""
    if request.method == "POST":
        try:
            scan_import.resolve(answer, request.POST.get("value", ""), request.user.get_username())
        except ValueError as e:
            error = str(e)
        else:
            following = _next_pending(request.user, answer.pk)
            if following:
                return redirect("dashboard:paper_answer", following.pk)
            return redirect("dashboard:paper")
    choices = scan_import.box_choices(answer) if answer.kind == "box" else []
    return render(
        request,
        "survey/dashboard/paper_answer.html",
        {
            "answer": answer,
            "choices": choices,
            "error": error,
            "value": request.POST.get("value", answer.value),
            "multiline": answer.field == "about.languages",
        },
        status=400 if error else 200,
    )


@staff_only
def crop(request, pk):
    answer = get_object_or_404(_answers(request.user), pk=pk)
    response = HttpResponse(bytes(answer.crop), content_type="image/png")
    response["Cache-Control"] = "private, max-age=3600"
    return response
