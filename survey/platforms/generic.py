"""No platform (people come by the study link, and the study simply ends), and any platform
that is not one of the others: its link sends a participant id (`pid`), and a finished
participant returns to the study's return address with their completion code in it."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

from survey.platforms.interface import HandIn, Parameter, Platform


class NoPlatform(Platform):
    name = "none"
    label = "None (people come by the study link)"


class Generic(Platform):
    name = "generic"
    label = "Other platform (return address with the code)"
    person = "pid"
    left_out = ("platform_return_url",)
    PARAMETERS = (Parameter("pid", "pid"),)

    def parameters(self, study):
        return self.PARAMETERS

    def kept(self, study):
        # The address as it was when they came, whatever the study says later.
        return {"return_url": study.platform_return_url}

    def hand_in(self, study, ids, code):
        url = ids.get("return_url", "").replace("{code}", quote(code))
        parts = urlsplit(url)
        return HandIn(link=url) if parts.scheme in ("http", "https") and parts.netloc else None


NONE = NoPlatform()
GENERIC = Generic()
