from django.core.management.base import BaseCommand
from tqdm import tqdm

from survey.design.plan import record_plan
from survey.design.questionnaires import (
    QuestionnaireError,
    build_questionnaires,
    extend_questionnaires,
)
from survey.management.reporting import find_study, refused
from wojdb.arguments import SEED, int_range
from wojdb.core.design import MAX_QUESTIONNAIRES
from wojdb.core.design.composition import CompositionError, ConfigurationError


class Command(BaseCommand):
    help = (
        "Compose a study's questionnaires from the sentence pool by Table 6.3 (thesis §6.3.4): "
        "shared items identical in all, unique items never repeated, every permutation next to "
        "its hypothesis, positions shuffled. The same pool and seed give the same "
        "questionnaires. With --extend, add questionnaires to a study without touching its "
        "existing ones."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--count",
            type=int_range(1, MAX_QUESTIONNAIRES),
            required=True,
            help="questionnaires to add (%(type)s)",
        )
        parser.add_argument(
            "--seed", type=SEED, required=True, help="seed of every random choice (%(type)s)"
        )
        parser.add_argument("--study", help="the study's slug (needed if there are several)")
        parser.add_argument(
            "--extend", action="store_true", help="add to a study that has questionnaires already"
        )

    def handle(self, count, seed, study, extend, verbosity, **options):
        study = find_study(study)
        build = extend_questionnaires if extend else build_questionnaires
        with tqdm(total=count, desc="questionnaires", unit="", disable=verbosity < 1) as bar:
            try:
                saved = build(study, count, seed, progress=bar.update)
            except (CompositionError, ConfigurationError, QuestionnaireError) as e:
                raise refused(f"{e}\nNothing was written.") from None
        if not extend:  # a study file re-creates a build, not a build and its extensions
            record_plan(study, questionnaires={"count": count, "seed": seed})
        self.stdout.write(
            self.style.SUCCESS(
                f"{'Added' if extend else 'Built'} {len(saved)} questionnaire(s), numbers "
                f"{saved[0].number}–{saved[-1].number}, for study {study.slug!r} with seed {seed}."
            )
        )
