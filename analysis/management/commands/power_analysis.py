"""How many participants a study needs, by simulation: to tell two metrics apart, or to know
where participants see the disorder (word marks)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from survey.management.reporting import refused
from wojdb.arguments import POSITIVE, SEED, SPREAD, IntList, float_range, int_range
from wojdb.core.stats import columns as C
from wojdb.core.stats import defaults as D
from wojdb.core.stats.defaults import METHODS, SimulationModel

CORRELATION = float_range(-1, 1, low_open=True, high_open=True)
CHANCE = float_range(0, 1)
#: The metric comparison's own options, with their defaults (None: required).
METRIC_DEFAULTS = {
    "difference": None,
    "r_a": 0.5,
    "alpha": 0.05,
    "target": 0.8,
    "judgment": C.ORDER,
    "method": "spearman",
    "items_per_participant": 25,
    "shared_items": 10,
    "participant_sd": SimulationModel.participant_sd,
    "item_sd": SimulationModel.item_sd,
    "noise_sd": SimulationModel.noise_sd,
}
#: Word marks' own options, with their defaults.
MARKS_DEFAULTS = {
    "mark_recall": SimulationModel.mark_recall,
    "mark_false": SimulationModel.mark_false,
    "half_width": D.MARKS_HALF_WIDTH,
    "bootstrap": D.MARKS_BOOT,
}
#: The options both take, with each one's default.
SHARED_DEFAULTS = {
    "participants": {False: (12, 24, 36, 48, 72, 96), True: D.MARKS_PARTICIPANTS},
    "simulations": {False: 200, True: D.MARKS_SIMULATIONS},
}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _listed(numbers) -> str:
    return ",".join(map(str, numbers))


class Command(BaseCommand):
    help = (
        "Power analysis before recruiting: for each number of participants, simulate the study "
        "many times and report how well it would answer, then the fewest participants reaching "
        "the target. Reads and writes no database. By default it plans the metric comparison: "
        "WMT hypotheses laid out as in Table 6.3, answers from the generative model of "
        "wojdb.core.stats.simulate, two metrics whose correlations with the items' quality are "
        "R_A and R_A - DIFFERENCE; it reports how often Williams's test tells the better one "
        "apart (p < alpha, better one ahead). With --word-marks it plans a study asking for word "
        "marks (wojdb.core.stats.power_marks): questionnaires composed by Table 6.3's rules "
        f"from a synthetic pool (reference lengths uniform on 5 to 32 words), {D.MARKS_DESIGNS} "
        "times per number of participants and answered by the simulated studies in turn, each "
        "participant marking every permutation's displaced units with probability "
        "--mark-recall and any other unit with probability --mark-false; per permutation type "
        "and degree, the micro recall's participant-bootstrap 95% interval as the report "
        "computes it (--bootstrap resamples, fewer than the report's for speed). It reports per "
        "number of participants the groups most studies have, the share of group figures "
        "estimable, the median group's interval half-width, the share of groups within "
        "--half-width, the widest group, and the share of intervals holding the true recall (a "
        "check of the interval), then the fewest participants whose median group, and whose "
        "every group, is within --half-width. A default --word-marks run takes about half a "
        "minute; each "
        "row is printed when done."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--word-marks",
            action="store_true",
            help="plan for word marks' recall instead of the metric comparison",
        )
        self._shared_arguments(parser)
        self._metric_arguments(parser)
        self._marks_arguments(parser)
        parser.add_argument("--seed", type=SEED, default=0, help="%(type)s; default %(default)s")

    def _shared_arguments(self, parser):
        participants, simulations = SHARED_DEFAULTS["participants"], SHARED_DEFAULTS["simulations"]
        parser.add_argument(
            "--participants",
            type=IntList(int_range(2)),
            help=f"numbers of participants to try (%(type)s; default "
            f"{_listed(participants[False])}, with --word-marks {_listed(participants[True])})",
        )
        parser.add_argument(
            "--simulations",
            type=POSITIVE,
            help=f"simulated studies per number of participants (%(type)s; default "
            f"{simulations[False]}, with --word-marks {simulations[True]})",
        )

    def _metric_arguments(self, parser):
        group = parser.add_argument_group("the metric comparison (without --word-marks)")
        group.add_argument(
            "--difference",
            type=float_range(0, 2, low_open=True, high_open=True),
            help="how much better metric A correlates than metric B, e.g. 0.1 (%(type)s; required)",
        )
        group.add_argument(
            "--r-a",
            type=CORRELATION,
            help="metric A's correlation with the items' quality (%(type)s; default 0.5)",
        )
        group.add_argument(
            "--alpha",
            type=float_range(0, 1, low_open=True, high_open=True),
            help="%(type)s; default 0.05",
        )
        group.add_argument(
            "--target",
            type=float_range(0, 1, low_open=True),
            help="power wanted (%(type)s; default 0.8)",
        )
        group.add_argument("--judgment", choices=C.JUDGMENTS, help=f"default {C.ORDER}")
        group.add_argument("--method", choices=METHODS, help="default spearman")
        group.add_argument(
            "--items-per-participant",
            type=POSITIVE,
            help="WMT hypotheses each participant rates (%(type)s; default 25: half of 50)",
        )
        group.add_argument(
            "--shared-items",
            type=int_range(0),
            help="of which shared by everyone (%(type)s; default 10: 40%% of 25)",
        )
        for name, what in (
            ("participant_sd", "judge leniency"),
            ("item_sd", "item effect"),
            ("noise_sd", "noise of each answer"),
        ):
            group.add_argument(
                _flag(name), type=SPREAD, help=f"{what} (%(type)s; default {METRIC_DEFAULTS[name]})"
            )

    def _marks_arguments(self, parser):
        group = parser.add_argument_group("word marks (with --word-marks)")
        group.add_argument(
            "--mark-recall",
            type=CHANCE,
            help=f"the chance a displaced unit is marked: the true recall (%(type)s; default "
            f"{MARKS_DEFAULTS['mark_recall']})",
        )
        group.add_argument(
            "--mark-false",
            type=CHANCE,
            help=f"the chance any other unit is marked (%(type)s; default "
            f"{MARKS_DEFAULTS['mark_false']})",
        )
        group.add_argument(
            "--half-width",
            type=float_range(0, 0.5, low_open=True),
            help="the largest half-width wanted of the 95%% interval of each type and degree's "
            f"recall (%(type)s; default {MARKS_DEFAULTS['half_width']})",
        )
        group.add_argument(
            "--bootstrap",
            type=int_range(10),
            help=f"resamples of each interval (%(type)s; default {MARKS_DEFAULTS['bootstrap']})",
        )

    def handle(self, word_marks, **options):
        mine, others = MARKS_DEFAULTS, METRIC_DEFAULTS
        if not word_marks:
            mine, others = others, mine
        stray = [_flag(name) for name in others if options[name] is not None]
        if stray:
            mode = "with --word-marks" if word_marks else "without --word-marks"
            raise refused(f"{', '.join(stray)}: not an option of the plan {mode}")
        settings = {"seed": options["seed"]}
        for name, default in mine.items():
            settings[name] = default if options[name] is None else options[name]
        for name, default in SHARED_DEFAULTS.items():
            given = options[name]
            settings[name] = given if given is not None else default[word_marks]
        if word_marks:
            self._marks(**settings)
        else:
            self._metrics(**settings)

    def _metrics(self, difference, r_a, **options):
        from wojdb.core.stats import simulate

        if difference is None:
            raise refused(
                "--difference is required to plan the metric comparison (or --word-marks to "
                "plan for word marks)"
            )
        r_b = r_a - difference
        if r_b <= -1:
            raise refused("--r-a minus --difference must be above -1")
        if not options["shared_items"] < options["items_per_participant"]:
            raise refused("--shared-items must be fewer than --items-per-participant")
        sizes = options["participants"]
        model = SimulationModel(
            participant_sd=options["participant_sd"],
            item_sd=options["item_sd"],
            noise_sd=options["noise_sd"],
        )
        result = simulate.power_analysis(
            r_a,
            r_b,
            participants=sizes,
            n_sims=options["simulations"],
            alpha=options["alpha"],
            target=options["target"],
            judgment=options["judgment"],
            method=options["method"],
            model=model,
            items_per_participant=options["items_per_participant"],
            shared_items=options["shared_items"],
            seed=options["seed"],
        )
        self.stdout.write(
            f"Metric A r = {r_a:g} vs metric B r = {r_b:g} with the items' quality; "
            f"{options['judgment']} judgments, {options['method']}, Williams's test at "
            f"alpha = {options['alpha']:g}, {options['simulations']} simulations per row."
        )
        self.stdout.write(
            f"{'participants':>12} {'items':>6} {'power':>6} {'mean r_a':>9} {'mean r_b':>9}"
        )
        for row in result.table.itertuples(index=False):
            self.stdout.write(
                f"{row.participants:>12} {row.items:>6} {row.power:>6.2f} "
                f"{row.mean_r_a:>9.3f} {row.mean_r_b:>9.3f}"
            )
        self._answer(
            result.required,
            f"Fewest participants reaching power {options['target']:g}",
            f"No size tried reached power {options['target']:g}: try more participants.",
        )

    def _answer(self, required: int | None, found: str, missing: str) -> None:
        """The fewest participants found, or why none was."""
        if required is None:
            self.stdout.write(self.style.WARNING(missing))
        else:
            self.stdout.write(self.style.SUCCESS(f"{found}: {required}"))

    def _marks(self, mark_recall, mark_false, half_width, bootstrap, **options):
        import numpy as np

        from wojdb.core.stats import marks, power_marks

        self.stdout.write(
            f"Word marks: each displaced unit marked with probability {mark_recall:g} (the true "
            f"recall), any other unit with {mark_false:g}; micro recall per permutation type and "
            f"degree against the displaced units, its 95% interval from {bootstrap} resamples "
            f"of participants; simulated studies per row on Table 6.3's questionnaires: "
            f"{options['simulations']}; half-width wanted {half_width:g}."
        )
        self.stdout.write(
            f"{'participants':>12} {'groups':>6} {'estimable':>9} {'median hw':>9} "
            f"{'within':>6}  {'widest group (pairs)':<22} {'its hw':>6} {'coverage':>8}"
        )

        def width(value: float) -> str:
            return f"{value:.3f}" if value != float("inf") else "n/e"

        def write(row: dict) -> None:
            widest = f"{row['widest_group']} ({row['widest_pairs']:g})"
            # No interval at all where no group was ever estimable.
            coverage = "n/e" if np.isnan(row["coverage"]) else f"{row['coverage']:.3f}"
            self.stdout.write(
                f"{row['participants']:>12} {row['groups']:>6} {row['estimable']:>9.2f} "
                f"{width(row['median_half_width']):>9} {row['reached']:>6.2f}  {widest:<22} "
                f"{width(row['widest_half_width']):>6} {coverage:>8}"
            )
            self.stdout.flush()

        result = power_marks.marks_power(
            options["participants"],
            recall=mark_recall,
            false_rate=mark_false,
            half_width=half_width,
            n_sims=options["simulations"],
            n_boot=bootstrap,
            seed=options["seed"],
            on_row=write,
        )
        self.stdout.write(
            "groups: the type-and-degree groups at least half the studies have; estimable: "
            f"the share of group figures with {marks.MIN_MARKED_PAIRS} pairs or more; hw: "
            "half-width, a group's the median over studies (n/e: not estimable in most); "
            "within: the share of groups within the half-width wanted; pairs: a study's, "
            "median; coverage: the share of intervals holding the true recall (0.95 if they "
            "are right)."
        )
        wanted = f"within ±{half_width:g}"
        self._answer(
            result.required_median,
            f"Fewest participants bringing the median group {wanted}",
            f"No size tried brings the median group {wanted}: try more participants.",
        )
        missing = ""
        if result.required is None:
            last = result.table.iloc[-1]
            how = (
                "is not estimable in most studies"
                if last["widest_half_width"] == float("inf")
                else f"has ±{last['widest_half_width']:.3f}"
            )
            pairs = last["widest_pairs"]
            missing = (
                f"No size tried brings every group {wanted}: at {last['participants']} "
                f"participants the widest, {last['widest_group']} (a median of {pairs:g} "
                f"pair{'' if pairs == 1 else 's'} a study), {how}; try more participants."
            )
        self._answer(result.required, f"Fewest participants bringing every group {wanted}", missing)
