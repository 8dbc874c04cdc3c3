import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from tqdm import tqdm

from survey.management.arguments import POSITIVE, SEED
from survey.models import Permutation, Segment, Triple
from survey.nlp import Parse, parse_texts
from survey.permutations import (
    MAIN_TYPES,
    MAX_DEGREE,
    PERMUTATION_TYPES,
    VERSION,
    SentencePair,
    Truecaser,
    generate_many,
    quality,
)

PARSE_CHUNK = 500  # parses are saved in chunks, so an interrupted run keeps its work
SAVE_BATCH = 2000


class Command(BaseCommand):
    help = (
        "Generate the automatic permutations of every pool triple's reference (thesis §6.2.3): "
        "each type at every degree from 1 to --max-degree the sentence can take. References "
        "and hypotheses without a stored parse are parsed first (pipeline WOJDB_SPACY_PIPELINE) "
        "and the parses kept. Only missing permutations are inserted, so the command can be "
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
            type=POSITIVE,
            default=MAX_DEGREE,
            help="highest degree, also eq. 6.2's maximum (%(type)s; default: %(default)s)",
        )
        parser.add_argument(
            "--seed", type=SEED, default=1, help="seed of every random choice (%(type)s)"
        )
        parser.add_argument(
            "--jobs",
            type=POSITIVE,
            default=os.cpu_count() or 1,
            help="processes (%(type)s; default: all cores)",
        )

    def handle(self, types, max_degree, seed, jobs, verbosity, **options):
        types = [t.strip() for t in types.split(",") if t.strip()]
        unknown = sorted(set(types) - set(PERMUTATION_TYPES))
        if unknown or not types:
            raise CommandError(f"--types must name some of {', '.join(PERMUTATION_TYPES)}")
        triples = list(Triple.objects.filter(in_pool=True).select_related("segment").order_by("pk"))
        if not triples:
            raise CommandError("the pool is empty: sample it first (sample_pool)")
        show = verbosity >= 1
        uses_hypothesis = bool({"choice", "both"} & set(types))

        references = self.parse_missing(
            {t.segment_id: t.segment for t in triples}.values(), "reference", show
        )
        hypotheses = self.parse_missing(triples, "hypothesis", show) if uses_hypothesis else {}
        pairs = (
            SentencePair(
                triple.segment.reference,
                Parse.from_dict(references[triple.segment_id]),
                triple.hypothesis,
                Parse.from_dict(hypotheses[triple.pk]) if uses_hypothesis else None,
            )
            for triple in triples
        )
        existing, other_runs = set(), 0
        stored = Permutation.objects.filter(triple__in_pool=True, perm_type__in=types).values_list(
            "triple_id", "perm_type", "degree", "seed", "software_version", "quality"
        )
        for triple_id, perm_type, degree, stored_seed, version, score in stored:
            existing.add((triple_id, perm_type, degree))
            # eq. 6.2's score tells the maximum degree the permutation was made with
            rescored = score != quality(degree, max_degree)
            other_runs += rescored or (stored_seed, version) != (seed, VERSION)
        corpus = Segment.objects.values_list("reference", flat=True).iterator()
        truecaser = Truecaser.from_corpus(reference.split() for reference in corpus)
        results = generate_many(
            pairs,
            seed,
            types=types,
            degrees=range(1, max_degree + 1),
            max_degree=max_degree,
            truecaser=truecaser,
            jobs=jobs,
        )
        added = self.save_missing(triples, results, existing, show)
        self.stdout.write(
            self.style.SUCCESS(
                f"Added {added} permutation(s) of {len(triples)} pool triple(s) "
                f"({', '.join(types)}, degrees 1–{max_degree}, seed {seed}); "
                f"{len(existing)} were there already."
            )
        )
        if other_runs:
            self.stdout.write(
                self.style.WARNING(
                    f"{other_runs} of the stored permutations were made with another seed, "
                    f"--max-degree or version ({VERSION} now) and were kept: delete them to make "
                    "them anew."
                )
            )

    def parse_missing(self, owners, field: str, show: bool) -> dict[int, dict]:
        """The stored parse of each segment's reference or triple's hypothesis, by primary key,
        parsing and saving those that have none."""
        owners = list(owners)
        missing = [owner for owner in owners if owner.parse is None]
        pipeline = settings.WOJDB_SPACY_PIPELINE
        with tqdm(total=len(missing), desc=f"parsing the {field} texts", disable=not show) as bar:
            for start in range(0, len(missing), PARSE_CHUNK):
                chunk = missing[start : start + PARSE_CHUNK]
                texts = [getattr(owner, field) for owner in chunk]
                for owner, parse in zip(chunk, parse_texts(texts, pipeline), strict=True):
                    owner.parse, owner.parser = parse.to_dict(), parse.parser
                type(chunk[0]).objects.bulk_update(chunk, ["parse", "parser"])
                bar.update(len(chunk))
        return {owner.pk: owner.parse for owner in owners}

    def save_missing(self, triples, results, existing, show: bool) -> int:
        """Insert the permutations not yet stored, a batch at a time, as results arrive."""
        added, batch = 0, []
        with tqdm(total=len(triples), desc="permuting", unit=" triples", disable=not show) as bar:
            try:
                for triple, permutations in zip(triples, results, strict=True):
                    batch += [
                        self.row(triple, p)
                        for p in permutations
                        if (triple.pk, p.perm_type, p.degree) not in existing
                    ]
                    bar.update(1)
                    if len(batch) >= SAVE_BATCH:
                        added += self.insert(batch)
                        batch = []
            except ValueError as error:
                self.insert(batch)
                raise CommandError(
                    f"{error}\nPermutations generated before it were saved."
                ) from None
        return added + self.insert(batch)

    @staticmethod
    def row(triple: Triple, permutation) -> Permutation:
        return Permutation(
            triple=triple,
            perm_type=permutation.perm_type,
            degree=permutation.degree,
            seed=permutation.seed,
            text=permutation.text,
            tokens=list(permutation.tokens),
            moved=list(permutation.moved),
            mapping=list(permutation.mapping),
            quality=permutation.quality,
            software_version=VERSION,
        )

    @staticmethod
    def insert(batch: list[Permutation]) -> int:
        with transaction.atomic():
            Permutation.objects.bulk_create(batch, batch_size=500)
        return len(batch)
