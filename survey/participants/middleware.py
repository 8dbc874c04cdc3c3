"""Security middleware: the content security policy, the rate limit on study links, and
the refusal of NUL characters in addresses.

Django 5.2 has no content security policy of its own, and the limit needs only a counter in
the database, so both are a few lines here rather than two more dependencies.
"""

from __future__ import annotations

import math
import time
from urllib.parse import unquote

from django.conf import settings
from django.db import connection
from django.http import HttpResponseBadRequest
from django.shortcuts import render

from survey.models import EntryCount
from survey.participants import study_cache
from survey.participants.views import in_language

RATE_LIMITED_VIEWS = {"survey:entry"}


def client_ip(request) -> str:
    """The client's address. Behind N trusted proxies, each appending to X-Forwarded-For, it
    is the N-th entry from the right; anything further left was written by the client."""
    proxies = settings.WOJDB_PROXIES
    if proxies:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        hops = [h for h in hops if h]
        if len(hops) >= proxies:
            return hops[-proxies]
    return request.META.get("REMOTE_ADDR", "")


class RefuseNulMiddleware:
    """A NUL character in the path or query is never legitimate, and PostgreSQL cannot compare
    text holding one: a personal-link token carrying it failed in the database with a server
    error instead of simply finding nothing."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path or "\x00" in unquote(request.META.get("QUERY_STRING", "")):
            return HttpResponseBadRequest("Bad request: the address contains a NUL character.")
        return self.get_response(request)


def content_security_policy(framed_by: tuple[str, ...] = ()) -> str:
    """The site's policy; a page `framed_by` some origins (those of its study's platform, see
    survey.participants.participation.framed_by) may be shown in their frames and post forms to
    them."""
    rules = dict(settings.CONTENT_SECURITY_POLICY)
    if framed_by:
        rules["frame-ancestors"] = " ".join(framed_by)
        rules["form-action"] = " ".join([rules["form-action"], *framed_by])
    return "; ".join(f"{k} {v}" for k, v in rules.items())


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.header = content_security_policy()

    def __call__(self, request):
        response = self.get_response(request)
        framed_by = getattr(response, "framed_by", ())
        header = content_security_policy(framed_by) if framed_by else self.header
        response.headers.setdefault("Content-Security-Policy", header)
        return response


# One statement, whether or not the address has a row in the window yet: concurrent requests
# on every worker and app server are each counted once (the row is unique to both).
COUNT = (
    'INSERT INTO survey_entrycount (address, "window", "count") VALUES (%s, %s, 1)'
    ' ON CONFLICT (address, "window") DO UPDATE SET "count" = survey_entrycount."count" + 1'
    ' RETURNING "count"'
)
_swept = 0  # the latest window before which this process deleted every row


def counted(address: str, window: int) -> int:
    """The address's requests in the window so far, this one included. The first new row of
    a window in each process deletes the windows that are over."""
    global _swept
    with connection.cursor() as cursor:
        cursor.execute(COUNT, [address[:64], window])
        (count,) = cursor.fetchone()
    if count == 1 and window > _swept:
        EntryCount.objects.filter(window__lt=window).delete()
        _swept = window
    return count


class EntryRateLimitMiddleware:
    """At most COUNT requests per client address in each window of SECONDS on a study link.

    Every new participant takes a questionnaire slot, so a script hammering the link could
    unbalance the assignment. A fixed window, counted in the database, keeps this cheap and the
    same on every worker and app server. The refusal is a participant page, in the language of
    the study linked to.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        rate = settings.WOJDB_ENTRY_RATE
        if rate is None or request.resolver_match.view_name not in RATE_LIMITED_VIEWS:
            return None
        limit, window = rate
        now = time.time()
        if counted(client_ip(request), int(now // window) * window) <= limit:
            return None
        wait = math.ceil(window - now % window)
        study = study_cache.by_slug(view_kwargs.get("slug", ""))
        context = {"retry_minutes": math.ceil(wait / 60), "study": study}
        with in_language(study):
            response = render(request, "survey/rate_limited.html", context, status=429)
        response["Retry-After"] = str(wait)
        return response
