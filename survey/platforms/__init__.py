"""The crowd platforms a study runs on, one module each behind `interface.Platform`, and their
registry, which the participant pages, the study's data and file, the admin and the releases
ask: none of them names a platform.

Adding a platform is a module here with its line in PLATFORMS, its template fragments in
survey/templates/survey/platforms/NAME/, its messages in the catalogues, and its case in
tests/survey/test_platforms.py. A study keeps the platform's settings in `platform_settings`,
under the platform's name.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError

from survey.platforms import generic, mturk, paper, prolific, sona
from survey.platforms.interface import HandIn, Parameter, Platform, Setting
from wojdb.core.vocabulary import PAPER

__all__ = ["PLATFORMS", "HandIn", "Parameter", "Platform", "Setting"]

#: Every platform by name, in the order the admin offers them.
PLATFORMS: dict[str, Platform] = {
    p.name: p
    for p in (
        generic.NONE,
        prolific.PLATFORM,
        mturk.PLATFORM,
        sona.PLATFORM,
        generic.GENERIC,
        paper.PLATFORM,
    )
}


def of(study) -> Platform:
    """The study's platform; a name no longer registered is taken as none."""
    return PLATFORMS.get(study.platform) or PLATFORMS["none"]


def serving(participant) -> Platform:
    """The platform a participant came by: their study's, or paper for a paper participant."""
    return PLATFORMS["paper"] if participant.mode == PAPER else of(participant.study)


def choices() -> list[tuple[str, str]]:
    """Study.platform's choices (a callable, so that a new platform needs no migration)."""
    return [(p.name, p.label) for p in PLATFORMS.values() if p.selectable]


def left_out() -> tuple[str, ...]:
    """The study fields any platform has a release leave out."""
    return tuple(dict.fromkeys(name for p in PLATFORMS.values() for name in p.left_out))


def setting_problems(value) -> list[tuple[tuple[str, ...], str]]:
    """What is wrong with a study's `platform_settings`, as (key path, problem) pairs: a table of
    platform names, each a table of that platform's settings, each a text its check takes."""
    if not isinstance(value, dict):
        return [((), "must be a table of platforms' settings")]
    problems = []
    for name, table in value.items():
        platform = PLATFORMS.get(name)
        if platform is None or not platform.settings:
            known = ", ".join(p.name for p in PLATFORMS.values() if p.settings) or "none"
            problem = f"no platform {name!r} has settings (those that do: {known})"
            problems.append(((name,), problem))
            continue
        if not isinstance(table, dict):
            problems.append(((name,), "must be a table of the platform's settings"))
            continue
        for key, text in table.items():
            setting = platform.settings.get(key)
            if setting is None:
                known = ", ".join(platform.settings)
                problems.append(((name, key), f"unknown key {key!r}; {name} has {known}"))
            elif not isinstance(text, str):
                problems.append(((name, key), "must be a text"))
            else:
                try:
                    setting.check(text)
                except ValueError as error:
                    problems.append(((name, key), str(error)))
    return problems


def check_settings(value) -> None:
    """Study.platform_settings' validator: a ValidationError naming each key that is wrong."""
    problems = setting_problems(value)
    if problems:
        raise ValidationError(
            [".".join(("platform_settings", *path)) + f": {problem}" for path, problem in problems]
        )
