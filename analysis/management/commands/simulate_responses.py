"""Simulated participants with answers from wojdb.core.stats.simulate's generative model."""

from django.core.management.base import BaseCommand

from survey.management.reporting import find_study, refused
from wojdb.arguments import SEED, SPREAD, float_range, int_range
from wojdb.core.stats.defaults import SimulationModel

#: One run's participants and answers are held in memory until its one transaction commits:
#: a run of billions was refused by nothing and ran until it was killed.
PARTICIPANTS = int_range(1, 10_000)


class Command(BaseCommand):
    help = (
        "Add simulated participants to a study: each is assigned a questionnaire as a real "
        "arrival would be (balanced), gets about-you answers resembling the thesis's "
        "participants, and answers the practice sample and every pair with ratings drawn from "
        "the generative model of wojdb.core.stats.simulate (answer = round(1 + 4 x quality + item "
        "effect + participant bias + noise), clipped to 1-5). Every one is marked "
        "simulated=True, completed and consenting to data sharing; like pilot participants, "
        "they freeze no questionnaire, so a dry run leaves the design editable (see `launch`). "
        "The run is additive: each run adds "
        "--participants more (the same --seed gives the same draws); --replace first deletes "
        "the study's earlier simulated participants (never real ones), so a repeated run with "
        "--replace leaves the same result. All is written in one transaction. In a study with "
        "word marks (word_marks) each pair also gets marks, unit by unit and independently: a "
        "unit in the truth (for a permutation the units it displaced, for a hypothesis the "
        "units whose alignment links cross, where compute_metrics stored them) is marked with "
        "probability --mark-recall, any other unit with probability --mark-false; a pair with "
        "nothing marked is answered 'no word is out of place'. A hypothesis never aligned gets "
        "only false marks. For how many participants a study needs, see the power_analysis "
        "command."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--participants", type=PARTICIPANTS, required=True, help="how many to add (%(type)s)"
        )
        parser.add_argument(
            "--seed", type=SEED, default=1, help="seed of every draw (%(type)s; default 1)"
        )
        parser.add_argument("--study", help="the study's slug (needed if there are several)")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="delete the study's simulated participants first (real ones are kept)",
        )
        defaults = SimulationModel()
        parser.add_argument(
            "--participant-sd",
            type=SPREAD,
            default=defaults.participant_sd,
            help="spread of judges' leniency on the 1-5 scale (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--item-sd",
            type=SPREAD,
            default=defaults.item_sd,
            help="spread of items' quality beyond their score (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--noise-sd",
            type=SPREAD,
            default=defaults.noise_sd,
            help="spread of each answer's noise (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--blank-rate",
            type=float_range(0, 1, high_open=True),
            default=defaults.blank_rate,
            help="share of answers left blank (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--mark-recall",
            type=float_range(0, 1),
            default=defaults.mark_recall,
            help="word marks: the chance a unit of the truth is marked (%(type)s; default "
            "%(default)s)",
        )
        parser.add_argument(
            "--mark-false",
            type=float_range(0, 1),
            default=defaults.mark_false,
            help="word marks: the chance any other unit is marked (%(type)s; default %(default)s)",
        )

    def handle(self, participants, seed, study, replace, verbosity, **options):
        from analysis.simulation import SimulationError, add_simulated_participants

        model = SimulationModel(
            participant_sd=options["participant_sd"],
            item_sd=options["item_sd"],
            noise_sd=options["noise_sd"],
            blank_rate=options["blank_rate"],
            mark_recall=options["mark_recall"],
            mark_false=options["mark_false"],
        )
        study = find_study(study)
        try:
            report = add_simulated_participants(study, participants, seed, model, replace=replace)
        except SimulationError as e:
            raise refused(str(e)) from None
        if report.removed:
            self.stdout.write(f"Removed {report.removed} earlier simulated participant(s).")
        self.stdout.write(
            self.style.SUCCESS(
                f"Added {report.added} simulated participant(s) with {report.ratings} ratings "
                f"to study {study.slug!r} (seed {seed})."
            )
        )
