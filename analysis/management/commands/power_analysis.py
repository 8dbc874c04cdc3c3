"""How many participants a study needs to tell two metrics apart, by simulation."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from analysis.stats import columns as C
from analysis.stats import correlation, simulate


def _sizes(text: str) -> list[int]:
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise CommandError(
            f"--participants takes whole numbers separated by commas: {text!r}"
        ) from None
    if not sizes or sizes[0] < 2:
        raise CommandError("--participants needs sizes of at least 2")
    return sizes


class Command(BaseCommand):
    help = (
        "Power analysis before recruiting: for each number of participants, simulate the study "
        "many times (WMT hypotheses laid out as in Table 6.3, answers from the generative model "
        "of analysis.stats.simulate) with two metrics whose correlations with the items' quality "
        "are R_A and R_A - DIFFERENCE, and report how often Williams's test tells the better "
        "one apart (p < alpha, better one ahead). Prints a table and the fewest participants "
        "reaching the target power. Reads and writes no database."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--difference",
            type=float,
            required=True,
            help="how much better metric A correlates than metric B, e.g. 0.1",
        )
        parser.add_argument(
            "--r-a",
            type=float,
            default=0.5,
            help="metric A's correlation with the items' quality (default %(default)s)",
        )
        parser.add_argument(
            "--participants",
            default="12,24,36,48,72,96",
            help="numbers of participants to try, comma-separated (default %(default)s)",
        )
        parser.add_argument(
            "--simulations",
            type=int,
            default=200,
            help="simulated studies per number of participants (default %(default)s)",
        )
        parser.add_argument("--alpha", type=float, default=0.05, help="default %(default)s")
        parser.add_argument(
            "--target", type=float, default=0.8, help="power wanted (default %(default)s)"
        )
        parser.add_argument(
            "--judgment", choices=C.JUDGMENTS, default=C.ORDER, help="default %(default)s"
        )
        parser.add_argument(
            "--method", choices=correlation.METHODS, default="spearman", help="default %(default)s"
        )
        parser.add_argument(
            "--items-per-participant",
            type=int,
            default=25,
            help="WMT hypotheses each participant rates (default %(default)s: half of 50)",
        )
        parser.add_argument(
            "--shared-items",
            type=int,
            default=10,
            help="of which shared by everyone (default %(default)s: 40%% of 25)",
        )
        defaults = simulate.SimulationModel()
        parser.add_argument(
            "--participant-sd", type=float, default=defaults.participant_sd, help="judge leniency"
        )
        parser.add_argument("--item-sd", type=float, default=defaults.item_sd, help="item effect")
        parser.add_argument(
            "--noise-sd", type=float, default=defaults.noise_sd, help="noise of each answer"
        )
        parser.add_argument("--seed", type=int, default=0, help="default %(default)s")

    def handle(self, difference, r_a, **options):
        r_b = r_a - difference
        if difference <= 0:
            raise CommandError("--difference must be positive")
        if not (-1 < r_b < r_a < 1):
            raise CommandError("--r-a and --r-a minus --difference must lie strictly in (-1, 1)")
        if options["simulations"] < 1:
            raise CommandError("--simulations must be at least 1")
        if not 0 < options["alpha"] < 1 or not 0 < options["target"] <= 1:
            raise CommandError("--alpha must be in (0, 1) and --target in (0, 1]")
        if not 0 <= options["shared_items"] < options["items_per_participant"]:
            raise CommandError("--shared-items must be fewer than --items-per-participant")
        sizes = _sizes(options["participants"])
        model = simulate.SimulationModel(
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
