"""`manage.py check` names every study whose participant texts need an empty setting, and every
study whose language's message catalogue is not compiled; the dashboard shows the same."""

from __future__ import annotations

from pathlib import Path

from django.apps import apps
from django.core import checks
from django.db import DatabaseError


def locale_folders() -> list[Path]:
    """The catalogues of the apps whose messages the participant pages show."""
    return [Path(apps.get_app_config("survey").path) / "locale"]


def catalogue_problem(language: str) -> tuple[str, str] | None:
    """Why the participant pages' own words (buttons, headings, messages) would not be in
    `language`: ("error", why) where its catalogue is there but not compiled (the pages fall
    back to English without a word), ("warning", why) where WOJ-DB has none; None if fine."""
    if language.split("-")[0] == "en":  # the messages are written in English
        return None
    folders = [root / language / "LC_MESSAGES" for root in locale_folders()]
    sources = [po for folder in folders for po in sorted(folder.glob("*.po"))]
    if not sources:
        return "warning", (
            f"WOJ-DB has no catalogue in {language!r}: the pages' own words (buttons, "
            "headings, error messages) are shown in English, the study's texts as written"
        )
    if missing := [po.with_suffix(".mo") for po in sources if not po.with_suffix(".mo").is_file()]:
        return "error", (
            f"the {language!r} catalogue is not compiled ({', '.join(map(str, missing))} "
            "missing): the pages' own words would be shown in English; run "
            "`python -m wojdb.catalogues` (bin/setup does), then restart the server"
        )
    return None


def _studies():
    from survey.models import Study

    try:
        return list(Study.objects.order_by("slug"))
    except DatabaseError:  # not migrated yet: no study to check
        return []


@checks.register("survey")
def unfilled_study_texts(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    return [
        checks.Warning(
            f"study {study.slug!r} cannot be opened to participants: its texts need "
            + ", ".join(missing),
            hint="Fill these in on the study's admin page (or its study file).",
            obj=study,
            id="survey.W001",
        )
        for study in _studies()
        if (missing := study.unfilled())
    ]


@checks.register("survey")
def uncompiled_catalogues(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    found = []
    for study in _studies():
        if problem := catalogue_problem(study.language):
            level, why = problem
            kind, code = (checks.Error, "E001") if level == "error" else (checks.Warning, "W002")
            found.append(kind(f"study {study.slug!r}: {why}", obj=study, id=f"survey.{code}"))
    return found
