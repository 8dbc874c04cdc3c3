"""`manage.py check` names every study whose participant texts need an empty setting."""

from __future__ import annotations

from django.core import checks
from django.db import DatabaseError


@checks.register("survey")
def unfilled_study_texts(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    from survey.models import Study

    try:
        studies = list(Study.objects.order_by("slug"))
    except DatabaseError:  # not migrated yet: no study to check
        return []
    return [
        checks.Warning(
            f"study {study.slug!r} cannot be opened to participants: its texts need "
            + ", ".join(missing),
            hint="Fill these in on the study's admin page (or its study file).",
            obj=study,
            id="survey.W001",
        )
        for study in studies
        if (missing := study.unfilled())
    ]
