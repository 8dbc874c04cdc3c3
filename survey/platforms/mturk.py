"""Amazon Mechanical Turk, as an external question: MTurk shows the study link in a frame with
workerId, assignmentId, hitId and turkSubmitTo, and the worker hands the HIT in by posting the
assignment's id (with the completion code) to turkSubmitTo's externalSubmit.

In a preview (assignmentId ASSIGNMENT_ID_NOT_AVAILABLE) no one takes part: the worker reads the
information sheet and a sample pair, and accepts the HIT to begin. The origins MTurk frames
from and takes the hand-in on are the setting WOJDB_MTURK_HOSTS (MTurk's own, and those the
environment variable of that name adds for a sandbox or a local trial); no other turkSubmitTo
is taken."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext

from survey.platforms.interface import HandIn, Parameter, Platform

PREVIEW = "ASSIGNMENT_ID_NOT_AVAILABLE"


def mturk_host(parameter: str, value: str) -> None:
    if value.rstrip("/") not in settings.WOJDB_MTURK_HOSTS:
        message = gettext("%(parameter)s is not an MTurk address")
        raise ValueError(message % {"parameter": parameter})


class MTurk(Platform):
    name = "mturk"
    label = "Amazon Mechanical Turk (external question)"
    person = "worker_id"
    session = ("worker_id", "assignment_id")
    PARAMETERS = (
        Parameter("workerId", "worker_id"),
        Parameter("assignmentId", "assignment_id"),
        Parameter("hitId", "hit_id"),
        Parameter("turkSubmitTo", "submit_to", mturk_host),
    )

    def parameters(self, study):
        return self.PARAMETERS

    def previewing(self, ids):
        return ids.get("assignment_id") == PREVIEW

    def hand_in(self, study, ids, code):
        host = ids.get("submit_to", "").rstrip("/")
        assignment = ids.get("assignment_id", "")
        if assignment in ("", PREVIEW) or host not in settings.WOJDB_MTURK_HOSTS:
            return None
        fields = (("assignmentId", assignment), ("completion_code", code))
        return HandIn(action=f"{host}/mturk/externalSubmit", fields=fields)

    def framed_by(self):
        return tuple(settings.WOJDB_MTURK_HOSTS)


PLATFORM = MTurk()
