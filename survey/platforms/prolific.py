"""Prolific: its link sends PROLIFIC_PID, STUDY_ID and SESSION_ID; a finished participant
completes on Prolific's completion address with the study's fixed code (set on Prolific), and
someone who declines or withdraws goes back with the study's code for that, where it has one."""

from __future__ import annotations

from urllib.parse import quote

from survey.platforms.interface import HandIn, Parameter, Platform

COMPLETE = "https://app.prolific.com/submissions/complete?cc="


class Prolific(Platform):
    name = "prolific"
    label = "Prolific"
    person = "prolific_pid"
    session = ("prolific_pid", "session_id")
    left_out = ("completion_code", "decline_code")
    PARAMETERS = (
        Parameter("PROLIFIC_PID", "prolific_pid"),
        Parameter("STUDY_ID", "study_id"),
        Parameter("SESSION_ID", "session_id"),
    )

    def parameters(self, study):
        return self.PARAMETERS

    def hand_in(self, study, ids, code):
        # Only people who came from Prolific are sent there; others just see their code.
        return HandIn(link=COMPLETE + quote(code)) if ids.get("prolific_pid") else None

    def leaving_url(self, study):
        return COMPLETE + quote(study.decline_code) if study.decline_code else ""

    def missing(self, study):
        # Prolific accepts only its own code; releases leave it out.
        return [] if study.completion_code else ["completion_code (set on Prolific)"]


PLATFORM = Prolific()
