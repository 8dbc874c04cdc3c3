"""How many participants a study needs to tell two metrics apart, by simulation."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from survey.management.reporting import refused
from wojdb.arguments import POSITIVE, SEED, SPREAD, IntList, float_range, int_range
from wojdb.core.stats import columns as C
from wojdb.core.stats.defaults import METHODS, SimulationModel

CORRELATION = float_range(-1, 1, low_open=True, high_open=True)


class Command(BaseCommand):
    help = (
        "Power analysis before recruiting: for each number of participants, simulate the study "
        "many times (WMT hypotheses laid out as in Table 6.3, answers from the generative model "
        "of wojdb.core.stats.simulate) with two metrics whose correlations with the items' quality "
        "are R_A and R_A - DIFFERENCE, and report how often Williams's test tells the better "
        "one apart (p < alpha, better one ahead). Prints a table and the fewest participants "
        "reaching the target power. Reads and writes no database."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--difference",
            type=float_range(0, 2, low_open=True, high_open=True),
            required=True,
            help="how much better metric A correlates than metric B, e.g. 0.1 (%(type)s)",
        )
        parser.add_argument(
            "--r-a",
            type=CORRELATION,
            default=0.5,
            help="metric A's correlation with the items' quality (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--participants",
            type=IntList(int_range(2)),
            default="12,24,36,48,72,96",
            help="numbers of participants to try (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--simulations",
            type=POSITIVE,
            default=200,
            help="simulated studies per number of participants (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--alpha",
            type=float_range(0, 1, low_open=True, high_open=True),
            default=0.05,
            help="%(type)s; default %(default)s",
        )
        parser.add_argument(
            "--target",
            type=float_range(0, 1, low_open=True),
            default=0.8,
            help="power wanted (%(type)s; default %(default)s)",
        )
        parser.add_argument(
            "--judgment", choices=C.JUDGMENTS, default=C.ORDER, help="default %(default)s"
        )
        parser.add_argument(
            "--method", choices=METHODS, default="spearman", help="default %(default)s"
        )
        parser.add_argument(
            "--items-per-participant",
            type=POSITIVE,
            default=25,
            help="WMT hypotheses each participant rates (%(type)s; default %(default)s: half "
            "of 50)",
        )
        parser.add_argument(
            "--shared-items",
            type=int_range(0),
            default=10,
            help="of which shared by everyone (%(type)s; default %(default)s: 40%% of 25)",
        )
        defaults = SimulationModel()
        for name, what in (
            ("participant_sd", "judge leniency"),
            ("item_sd", "item effect"),
            ("noise_sd", "noise of each answer"),
        ):
            parser.add_argument(
                "--" + name.replace("_", "-"),
                type=SPREAD,
                default=getattr(defaults, name),
                help=f"{what} (%(type)s; default %(default)s)",
            )
        parser.add_argument("--seed", type=SEED, default=0, help="%(type)s; default %(default)s")

    def handle(self, difference, r_a, **options):
        from wojdb.core.stats import simulate

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
        if result.required is None:
            self.stdout.write(
                self.style.WARNING(
                    f"No size tried reached power {options['target']:g}: try more participants."
                )
            )
        else:
            self.stdout.write(
                self.style.SUCCESS(
                    f"Fewest participants reaching power {options['target']:g}: {result.required}"
                )
            )
