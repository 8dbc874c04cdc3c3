"""A study's status, its launch and its pilot data.

A study is built and tried before it is launched: whoever arrives by the study link before the
launch is a pilot participant, kept apart from the study's data like a simulated one, and
neither freezes a questionnaire, so the design stays editable. `launch` freezes the design and
makes every later arrival a real participant; `clear_pilot` deletes the pilot and simulated
participants with their answers.

`study_status` is the one answer to "does the study take participants, and why (not)": the
dashboard's study list and study page and the study link all ask it.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from survey import record
from survey.models import (
    DeclinedConsent,
    Participant,
    Questionnaire,
    QuestionnaireLoad,
    Study,
    Withdrawal,
)

CLOSED, NOT_READY, PILOT, LIVE = "closed", "not ready", "pilot", "open"
LABELS = {
    CLOSED: "Closed",
    NOT_READY: "Not ready",
    PILOT: "Piloting",
    LIVE: "Open",
}


@dataclass(frozen=True)
class Status:
    state: str
    reasons: tuple[str, ...]

    @property
    def label(self) -> str:
        return LABELS[self.state]

    @property
    def takes_newcomers(self) -> bool:
        """Whether the study link gives a questionnaire to someone new."""
        return self.state in (PILOT, LIVE)


class LaunchError(Exception):
    """A study that cannot be launched; nothing was changed."""


@dataclass(frozen=True)
class Cleared:
    pilot: int
    simulated: int
    left: int  # declines and withdrawals counted during the pilot


def readiness(study: Study, has_active: bool | None = None) -> list[str]:
    """What keeps the study from taking anyone: empty settings its texts name, no practice
    pair, no questionnaire to hand out. `has_active` spares the query where it is known."""
    if has_active is None:
        has_active = study.questionnaires.filter(active=True).exists()
    missing = [f"needs {name}" for name in study.unfilled()]
    if not has_active:
        missing.append("has no questionnaire to hand out: build them first")
    return missing


def study_status(study: Study, has_active: bool | None = None) -> Status:
    """The study's one status with its reasons."""
    missing = readiness(study, has_active)
    if not study.is_open:
        return Status(CLOSED, ("closed by the researcher (is_open is off)", *missing))
    if missing:
        return Status(NOT_READY, tuple(missing))
    if not study.launched:
        return Status(
            PILOT,
            (
                "not launched yet: whoever comes by the study link is a pilot participant, "
                "kept apart from the data, and the questionnaires stay editable",
            ),
        )
    when = timezone.localtime(study.launched_at)
    return Status(LIVE, (f"launched on {when:%Y-%m-%d %H:%M}: taking participants",))


def pilot_counts(study: Study) -> tuple[int, int]:
    """How many pilot and simulated participants the study holds."""
    people = Participant.objects.filter(study=study)
    return people.filter(pilot=True).count(), people.filter(simulated=True).count()


def clear_pilot(study: Study) -> Cleared:
    """Delete the study's pilot and simulated participants with their answers, languages and
    platform ids, and the declines and withdrawals counted during the pilot. Real participants
    are never touched."""
    with transaction.atomic():
        pilot, simulated = pilot_counts(study)
        Participant.objects.filter(study=study).exclude(simulated=False, pilot=False).delete()
        QuestionnaireLoad.forget(study)
        declined, _ = DeclinedConsent.objects.filter(study=study, pilot=True).delete()
        withdrawals = Withdrawal.objects.filter(study=study).exclude(simulated=False, pilot=False)
        withdrawn, _ = withdrawals.delete()
        if pilot or simulated or declined or withdrawn:
            record.note(
                study,
                "pilot data cleared",
                pilot=pilot,
                simulated=simulated,
                declines_and_withdrawals=declined + withdrawn,
            )
    return Cleared(pilot, simulated, declined + withdrawn)


def refusal(study: Study) -> str | None:
    """Why the study cannot be launched (launched already, or not ready); None if it can."""
    if study.launched:
        return f"study {study.slug!r} was launched already"
    missing = readiness(study)
    if missing:
        return f"study {study.slug!r} cannot be launched: it {'; it '.join(missing)}"
    return None


def launch(study: Study, *, clear: bool = False, now=None) -> Cleared | None:
    """Launch the study: freeze every questionnaire and take real participants from now on.
    With `clear`, its pilot data is deleted first (see `clear_pilot`). Raises LaunchError,
    changing nothing, when the study cannot be launched (`refusal`)."""
    with transaction.atomic():
        study = Study.objects.select_for_update().get(pk=study.pk)
        problem = refusal(study)
        if problem:
            raise LaunchError(f"{problem}. Nothing was changed.")
        cleared = clear_pilot(study) if clear else None
        Questionnaire.objects.filter(study=study).update(frozen=True)
        study.launched_at = now or timezone.now()
        study.save(update_fields=["launched_at"])
        record.note(study, "launched", frozen_questionnaires=study.questionnaires.count())
    return cleared
