"""SONA Systems, a university's participant pool. SONA sends a participant to the study link
with their anonymous id in a parameter the researcher names in the study URL they give SONA
(commonly `?id=%SURVEY_CODE%`), and grants the credit when the participant's browser is sent
to the study's credit address on the institution's SONA site:
https://INSTITUTION.sona-systems.com/webstudy_credit.aspx?experiment_id=…&credit_token=…&survey_code=ID

The study's settings, `[platform_settings.sona]`: `credit_url`, SONA's client-side completion
URL as SONA shows it (its survey_code left as SONA writes it), which names the institution's
host, the experiment id and the credit token; and `id_parameter`, the study link's parameter
that carries the id (`id` unless set). The token grants credit, so a release leaves the
settings out.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from survey.platforms.interface import HandIn, Parameter, Platform, Setting

HOST = re.compile(r"([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+sona-systems\.com")
CREDIT_PATH = "/webstudy_credit.aspx"
PARAMETER = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
#: The study link's own fields, which no platform's id may take.
LINK_FIELDS = {"reading", "afresh", "csrfmiddlewaretoken"}


def credit_url(value: str) -> str:
    """SONA's client-side completion URL: HTTPS, on a *.sona-systems.com host, its
    webstudy_credit.aspx with one experiment id and one credit token."""
    parts = urlsplit(value)
    try:
        port = parts.port
    except ValueError:
        port = -1
    shown = value if len(value) <= 80 else value[:77] + "…"
    if (
        parts.scheme != "https"
        or not HOST.fullmatch(parts.hostname or "")
        or parts.username is not None
        or port not in (None, 443)
    ):
        raise ValueError(
            "must be an https address on your institution's *.sona-systems.com host (SONA's "
            f"client-side completion URL), not {shown!r}"
        )
    if parts.path.lower() != CREDIT_PATH or parts.fragment:
        raise ValueError(
            f"must be SONA's {CREDIT_PATH[1:]} address (its client-side completion URL), "
            f"not {shown!r}"
        )
    query = parse_qs(parts.query)
    for key, form in (("experiment_id", r"\d{1,12}"), ("credit_token", r"[A-Za-z0-9]{1,64}")):
        values = query.get(key, [])
        if len(values) != 1 or not re.fullmatch(form, values[0]):
            raise ValueError(f"needs one {key} as SONA gives it, in {shown!r}")
    return value


def id_parameter(value: str) -> str:
    if not PARAMETER.fullmatch(value) or value in LINK_FIELDS:
        raise ValueError(
            "must be the name of the study link's parameter SONA fills in (letters, digits and "
            f"_, e.g. id for ?id=%SURVEY_CODE%), not {value!r}"
        )
    return value


class Sona(Platform):
    name = "sona"
    label = "SONA Systems (credit through the institution's SONA site)"
    person = "pid"
    left_out = ("platform_settings",)
    settings = {
        "credit_url": Setting(
            "SONA's client-side completion URL, as SONA shows it", credit_url, required=True
        ),
        "id_parameter": Setting(
            "the study link's parameter SONA fills with %SURVEY_CODE% (default id)", id_parameter
        ),
    }

    def parameters(self, study):
        return (Parameter(self.setting(study, "id_parameter") or "id", "pid"),)

    def hand_in(self, study, ids, code):
        url = self.setting(study, "credit_url")
        if not ids.get("pid") or not url:
            return None
        try:
            credit_url(url)
        except ValueError:  # stored past the checks (a shell, a copied database)
            return None
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        credit = [(key, query[key][0]) for key in ("experiment_id", "credit_token")]
        query = urlencode([*credit, ("survey_code", ids["pid"])])
        return HandIn(link=urlunsplit(("https", parts.netloc, parts.path, query, "")))


PLATFORM = Sona()
