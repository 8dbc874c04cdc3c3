from django.core.management.base import BaseCommand

from survey.design import lifecycle
from survey.management.reporting import find_study, refused
from survey.models import Study


class Command(BaseCommand):
    help = (
        "Launch a study: its questionnaires are frozen and everyone who arrives from now on is "
        "a real participant. Before the launch, arrivals are pilot participants: kept apart "
        "from the study's data (as simulated ones are), they freeze nothing, so the design can "
        "still be changed and rebuilt. A study that is not ready (an empty setting its texts "
        "name, no practice pair, no questionnaire) is refused with the reasons, and nothing "
        "changes. --clear-pilot first deletes the pilot and simulated participants with their "
        "answers (real ones never), after asking; with --keep-piloting it only deletes them."
    )

    def add_arguments(self, parser):
        parser.add_argument("--study", help="the study's slug (needed if there are several)")
        parser.add_argument(
            "--clear-pilot",
            action="store_true",
            help="delete the study's pilot and simulated participants and their answers first",
        )
        parser.add_argument(
            "--keep-piloting",
            action="store_true",
            help="with --clear-pilot: delete the pilot data but do not launch",
        )
        parser.add_argument(
            "--no-input",
            action="store_false",
            dest="interactive",
            help="do not ask before deleting the pilot data",
        )

    def handle(self, study, clear_pilot, keep_piloting, interactive, verbosity, **_):
        if keep_piloting and not clear_pilot:
            raise refused("--keep-piloting goes with --clear-pilot")
        study = find_study(study)
        # A launched study's pilot data can still be cleared.
        launching = not (keep_piloting or study.launched and clear_pilot)
        if launching and (problem := lifecycle.refusal(study)):
            raise refused(f"{problem}. Nothing was changed.")
        pilot, simulated = lifecycle.pilot_counts(study)
        asking = clear_pilot and (pilot or simulated) and interactive
        if asking and not self.confirm(study, pilot, simulated):
            raise refused("Nothing was deleted or launched.")
        if launching:
            try:
                cleared = lifecycle.launch(study, clear=clear_pilot)
            except lifecycle.LaunchError as e:
                raise refused(str(e)) from None
        else:
            cleared = lifecycle.clear_pilot(study)
        if not verbosity:
            return
        if launching:
            frozen = study.questionnaires.filter(frozen=True).count()
            self.stdout.write(
                self.style.SUCCESS(
                    f"Launched study {study.slug!r}: {frozen} questionnaire(s) frozen; "
                    "everyone who arrives from now on is a real participant."
                )
            )
        if cleared is not None:
            self.stdout.write(
                f"Deleted {cleared.pilot} pilot and {cleared.simulated} simulated "
                f"participant(s) with their answers, and {cleared.left} decline(s) and "
                "withdrawal(s) counted among them."
            )
        elif pilot or simulated:
            self.stdout.write(
                f"It holds {pilot} pilot and {simulated} simulated participant(s), kept apart "
                "from its data; --clear-pilot deletes them."
            )
        status = lifecycle.study_status(Study.objects.get(pk=study.pk))
        self.stdout.write(f"Status: {status.label} ({'; '.join(status.reasons)}).")

    def confirm(self, study, pilot: int, simulated: int) -> bool:
        question = (
            f"Delete {pilot} pilot and {simulated} simulated participant(s) of study "
            f"{study.slug!r} with all their answers? This cannot be undone. [y/N] "
        )
        try:
            return input(question).strip().lower() in ("y", "yes")
        except EOFError:  # no one to ask
            return False
