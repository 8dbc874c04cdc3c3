"""What a crowd platform tells the rest of the application, and what one that tells nothing
more does: reads no link parameter, identifies no one, hands nothing in, is never framed.

A platform reads only the objects it is given (a study, the request's parameters, a
participant's stored ids as a dict of PlatformIdentity fields) and imports no model, so the
study's data, its file, the participant pages and the releases can all ask it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from django.utils.translation import gettext

#: The parts of the participant pages a platform may word its own way, each a template
#: fragment: survey/platforms/NAME/PART.html, else the common survey/platforms/PART.html.
#: `stopping`: the footer's note before the end; `leaving`: after declining or withdrawing;
#: `end`: the hand-in on the last page; `again`: to someone who has already taken part;
#: `preview`: a preview's note, which a platform with previews writes itself (there is no
#: common one).
PARTS = ("stopping", "leaving", "end", "again", "preview")
#: What a platform's id may hold: a template left unfilled (`{{%PROLIFIC_PID%}}`) or anything
#: that needs escaping is refused.
ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def plain_id(parameter: str, value: str) -> None:
    """The check of most ids: ValueError, in the participant's language, naming the parameter."""
    if not ID.fullmatch(value):
        raise ValueError(gettext("%(parameter)s is not a valid id") % {"parameter": parameter})


@dataclass(frozen=True)
class Parameter:
    """A parameter of the study link: its `name` there, the PlatformIdentity `field` that keeps
    it, and its `check` (ValueError naming the parameter)."""

    name: str
    field: str
    check: Callable[[str, str], None] = plain_id


@dataclass(frozen=True)
class Setting:
    """A key of the platform's table in a study's `platform_settings`: what it holds (`help`),
    its `check` (the value, normalised, or ValueError saying what is wrong, in English: the
    researcher reads it), and whether the study link stays closed without it."""

    help: str
    check: Callable[[str], str]
    required: bool = False


@dataclass(frozen=True)
class HandIn:
    """What a finished participant who earned a code is given: a `link` to follow, or a form
    posting `fields` to `action`."""

    link: str = ""
    action: str = ""
    fields: tuple[tuple[str, str], ...] = ()


class Platform:
    """A crowd platform. `name` is the study's `platform` (at most 8 characters), `label` what
    the admin and the dashboard show; one not `selectable` is no study's choice (paper).

    `codes`: whether a finished participant gets a completion code (paper answers come in with
    none). `person` is the identity field that names one person: with it, a person takes part
    once per study whatever else their link says (unless the study allows repeats). `session`:
    the fields that name one participation, never started twice even where repeats are
    allowed. `left_out`: the study fields a release leaves out, as they run the live study or
    are secret.
    """

    name = ""
    label = ""
    selectable = True
    codes = True
    person = ""
    session: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()
    settings: Mapping[str, Setting] = MappingProxyType({})

    def __init__(self):
        self.parts = {
            part: (f"survey/platforms/{self.name}/{part}.html", f"survey/platforms/{part}.html")
            for part in PARTS
        }

    def __repr__(self):
        return f"<platform {self.name}>"

    def parameters(self, study) -> tuple[Parameter, ...]:
        """The study link's parameters this platform sends."""
        return ()

    def read(self, study, params) -> dict[str, str]:
        """The ids among a request's parameters (a QueryDict), as PlatformIdentity fields;
        ValueError, naming the parameter, on one given twice or malformed. Parameters the
        platform does not send are no concern of it."""
        ids = {}
        for parameter in self.parameters(study):
            values = params.getlist(parameter.name)
            if len(values) > 1:  # which one the platform meant is not for us to guess
                message = gettext("%(parameter)s is given twice")
                raise ValueError(message % {"parameter": parameter.name})
            if values and values[0]:
                parameter.check(parameter.name, values[0])
                ids[parameter.field] = values[0]
        return ids

    def kept(self, study) -> dict[str, str]:
        """What is stored with a participant's ids besides them (PlatformIdentity fields)."""
        return {}

    def previewing(self, ids: Mapping[str, str]) -> bool:
        """Whether the link is the platform's preview of the study, in which no one takes part."""
        return False

    def hand_in(self, study, ids: Mapping[str, str], code: str) -> HandIn | None:
        """What a finished participant with these ids, who earned `code`, hands in; None: the
        code alone (or, for a platform that wants none, nothing)."""
        return None

    def leaving_url(self, study) -> str:
        """Where someone who declines or withdraws is sent back to; "" for nowhere."""
        return ""

    def framed_by(self) -> tuple[str, ...]:
        """The origins that may show the study's pages in a frame and receive their forms."""
        return ()

    def setting(self, study, key: str) -> str:
        """The study's value of one of this platform's settings ("" when unset)."""
        return ((study.platform_settings or {}).get(self.name) or {}).get(key, "")

    def missing(self, study) -> list[str]:
        """What keeps the study link closed on this platform: required settings unset."""
        return [
            f"platform_settings.{self.name}.{key} ({setting.help})"
            for key, setting in self.settings.items()
            if setting.required and not self.setting(study, key)
        ]
