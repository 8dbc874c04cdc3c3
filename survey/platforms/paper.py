"""Paper: printed questionnaires, read back from their scans (survey/paper/). No link, no
platform id (a paper participant is their copy, whose code is printed on every page), nothing
to hand in; no study names it, a paper participant is served by it whatever their study's
platform."""

from __future__ import annotations

from survey.platforms.interface import Platform


class Paper(Platform):
    name = "paper"
    label = "Paper (printed questionnaires)"
    selectable = False
    codes = False


PLATFORM = Paper()
