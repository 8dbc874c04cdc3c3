import os
from functools import partial

from django.core.management.base import BaseCommand
from tqdm import tqdm

from survey.management.reporting import refused
from wojdb.arguments import JOBS


class Command(BaseCommand):
    help = (
        "Score every rated item with the built-in metrics (or those named) and store the "
        "scores. Hypotheses are aligned to their references by the built-in aligner, or by the "
        "stored alignments named by --aligner; permuted references by their known word "
        "mapping. References and hypotheses without a stored parse are parsed (by the pipeline "
        "of their target language) and the parses kept; permuted references are parsed afresh "
        "unless an outside parser's parse is stored with them (import_parses --permutations); "
        "BLEU, chrF and TER count the language's sacreBLEU tokens. A "
        "metric whose input comes from a parser or an aligner is stored once per configuration, "
        "its config naming both and the metric's version ('parser=...; aligner=...; version=...'), "
        "so scores of two versions are never stored under one identity. Scores already stored "
        "are kept, so the command can be run again after an interruption or with more metrics."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--metrics",
            nargs="+",
            metavar="NAME[:VARIANT]",
            help="metrics to compute, e.g. dted derp:f bleu (default: every built-in metric)",
        )
        parser.add_argument(
            "--jobs",
            type=JOBS,
            default=os.cpu_count() or 1,
            help="processes (%(type)s; default: all cores)",
        )
        parser.add_argument(
            "--aligner",
            help="aligner name of stored alignments (imported i-j files) to use for hypotheses "
            "instead of the built-in aligner",
        )

    def handle(self, metrics, jobs, aligner, verbosity, **options):
        from analysis.scoring import ScoringError, score_rated_items
        from wojdb.core.metrics.registry import select

        try:
            report = score_rated_items(
                select(metrics), jobs, aligner, partial(tqdm, disable=verbosity < 1)
            )
        except (ValueError, ScoringError) as error:
            raise refused(str(error)) from None
        self.stdout.write(
            self.style.SUCCESS(
                f"Stored {report.added} score(s) of {report.metrics} metric(s) for "
                f"{report.pending} of {report.items} rated item(s); the others were stored "
                "already."
            )
        )
