import os
from functools import partial

from django.core.management.base import BaseCommand
from tqdm import tqdm

from survey.design.generation import GenerationError, generate_permutations
from survey.design.plan import record_plan
from survey.design.sentence_pool import pool_triples
from survey.management.reporting import find_study, refused
from survey.models import HIGHEST_DEGREE
from wojdb.arguments import JOBS, SEED, int_range
from wojdb.core.permutations import MAX_DEGREE, VERSION
from wojdb.core.vocabulary import MAIN_TYPES, PERMUTATION_TYPES


class Command(BaseCommand):
    help = (
        "Generate the automatic permutations of the references of a study's pool triples "
        "(thesis §6.2.3): "
        "each type at every degree from 1 to --max-degree the sentence can take. References "
        "and hypotheses without a stored parse are parsed first, by the spaCy pipeline of their "
        "target language, and the parses kept (import_parses brings them for a language "
        "without one). Only missing permutations are inserted, so the command can be "
        "run again after an interruption or with more types."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--types",
            default=",".join(MAIN_TYPES),
            help=f"comma-separated, from {', '.join(PERMUTATION_TYPES)} (default: %(default)s)",
        )
        parser.add_argument(
            "--max-degree",
            type=int_range(1, HIGHEST_DEGREE),
            default=MAX_DEGREE,
            help="highest degree, also eq. 6.2's maximum (%(type)s; default: %(default)s)",
        )
        parser.add_argument(
            "--seed", type=SEED, default=1, help="seed of every random choice (%(type)s)"
        )
        parser.add_argument(
            "--study", metavar="SLUG", help="the study (needed if there are several)"
        )
        parser.add_argument(
            "--jobs",
            type=JOBS,
            default=os.cpu_count() or 1,
            help="processes (%(type)s; default: all cores)",
        )

    def handle(self, types, max_degree, seed, study, jobs, verbosity, **options):
        types = [t.strip() for t in types.split(",") if t.strip()]
        bars = partial(tqdm, disable=verbosity < 1)
        study = find_study(study)
        try:
            report = generate_permutations(pool_triples(study), types, max_degree, seed, jobs, bars)
        except GenerationError as e:
            raise refused(str(e)) from None
        record_plan(study, permutations={"types": types, "seed": seed})
        self.stdout.write(
            self.style.SUCCESS(
                f"Added {report.added} permutation(s) of {report.triples} pool triple(s) "
                f"({', '.join(types)}, degrees 1–{max_degree}, seed {seed}); "
                f"{report.existing} were there already."
            )
        )
        if report.other_runs:
            self.stdout.write(
                self.style.WARNING(
                    f"{report.other_runs} of the stored permutations were made with another "
                    f"seed, --max-degree or version ({VERSION} now) and were kept: delete them "
                    "to make them anew."
                )
            )
