"""Generating the permutations of the pool (thesis §6.2.3, Algorithms 3-5) into the database:
parses made once and kept, only missing permutations inserted, a batch at a time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce
from operator import or_

from django.db import transaction
from django.db.models import Q, QuerySet

from survey.bulk import insert_rows
from survey.models import Permutation, Segment, Triple
from survey.sources.parses import Bars, no_bars, stored_parses, target_rules
from wojdb.core.language.rules import LanguageRules, NoPipelineError
from wojdb.core.permutations import (
    PERMUTATION_TYPES,
    VERSION,
    SentencePair,
    Truecaser,
    generate_many,
    quality,
)
from wojdb.core.permutations.truth import truths

SAVE_BATCH = 2000
#: Types built on the hypothesis as well as the reference.
HYPOTHESIS_TYPES = {"choice", "both"}


class GenerationError(ValueError):
    """Nothing to permute, or a permutation that cannot be made; says what was saved."""


@dataclass
class GenerationReport:
    added: int
    triples: int
    existing: int
    #: stored permutations made with another seed, maximum degree or version (kept)
    other_runs: int


def generate_permutations(
    triples: QuerySet[Triple],
    types: Sequence[str],
    max_degree: int,
    seed: int,
    jobs: int,
    bars: Bars = no_bars,
) -> GenerationReport:
    """The permutations of `triples` (a study's pool) missing from the database.

    A permutation depends on its reference, type, degree and seed, and on the truecaser learnt
    from the references of the triples' own test sets — not on whatever else is imported — so
    a study's permutations are the same in any database holding its sources."""
    unknown = sorted(set(types) - set(PERMUTATION_TYPES))
    if unknown or not types:
        raise GenerationError(f"--types must name some of {', '.join(PERMUTATION_TYPES)}")
    chosen = triples
    triples = list(triples.distinct().select_related("segment").order_by("pk"))
    if not triples:
        raise GenerationError("the pool is empty: sample it first (sample_pool)")
    uses_hypothesis = bool(HYPOTHESIS_TYPES & set(types))
    try:
        references = stored_parses({t.segment_id: t.segment for t in triples}.values(), bars)
        hypotheses = stored_parses(triples, bars) if uses_hypothesis else {}
    except NoPipelineError as error:
        raise GenerationError(str(error)) from None
    existing, other_runs = set(), 0
    stored = Permutation.objects.filter(triple__in=chosen, perm_type__in=types).values_list(
        "triple_id", "perm_type", "degree", "seed", "software_version", "quality"
    )
    for triple_id, perm_type, degree, stored_seed, version, score in stored:
        existing.add((triple_id, perm_type, degree))
        # eq. 6.2's score tells the maximum degree the permutation was made with
        rescored = score != quality(degree, max_degree)
        other_runs += rescored or (stored_seed, version) != (seed, VERSION)
    # Each target language's triples with its own rules, truecased from the references of
    # their own test sets.
    languages = sorted({triple.segment.target_lang for triple in triples})
    triples = [t for code in languages for t in triples if t.segment.target_lang == code]
    results = (
        permutations
        for code in languages
        for permutations in _generate_language(
            [t for t in triples if t.segment.target_lang == code],
            references,
            hypotheses,
            code,
            types,
            max_degree,
            seed,
            jobs,
        )
    )
    added = _save_missing(triples, results, existing, bars)
    return GenerationReport(added, len(triples), len(existing), other_runs)


def _generate_language(triples, references, hypotheses, code, types, max_degree, seed, jobs):
    rules = target_rules(code)
    pairs = (
        SentencePair(
            triple.segment.reference,
            references[triple.segment_id],
            triple.hypothesis,
            hypotheses.get(triple.pk),
        )
        for triple in triples
    )
    truecaser = None
    if rules.cased:
        testsets = sorted({(t.segment.testset, t.segment.source_lang) for t in triples})
        corpus = Segment.objects.filter(
            reduce(or_, (Q(testset=ts, source_lang=src) for ts, src in testsets)),
            target_lang=code,
        ).values_list("reference", flat=True)
        truecaser = Truecaser.from_corpus(reference.split() for reference in corpus.iterator())
    return generate_many(
        pairs,
        seed,
        types=types,
        degrees=range(1, max_degree + 1),
        max_degree=max_degree,
        truecaser=truecaser,
        rules=rules,
        jobs=jobs,
    )


def _save_missing(triples, results, existing, bars: Bars) -> int:
    """Insert the permutations not yet stored, a batch at a time, as results arrive."""
    added, batch = 0, []
    rules = {}
    with bars(total=len(triples), desc="permuting", unit=" triples") as bar:
        try:
            for triple, permutations in zip(triples, results, strict=True):
                code = triple.segment.target_lang
                if code not in rules:
                    rules[code] = target_rules(code)
                batch += [
                    _row(triple, p, rules[code])
                    for p in permutations
                    if (triple.pk, p.perm_type, p.degree) not in existing
                ]
                bar.update(1)
                if len(batch) >= SAVE_BATCH:
                    added += _insert(batch)
                    batch = []
        except ValueError as error:
            _insert(batch)
            raise GenerationError(
                f"{error}\nPermutations generated before it were saved."
            ) from None
    return added + _insert(batch)


def _row(triple: Triple, permutation, rules: LanguageRules) -> dict:
    displaced, minimal = truths(permutation.tokens, permutation.mapping, permutation.moved, rules)
    return {
        "triple_id": triple.pk,
        "perm_type": permutation.perm_type,
        "degree": permutation.degree,
        "seed": permutation.seed,
        "text": permutation.text,
        "tokens": list(permutation.tokens),
        "moved": list(permutation.moved),
        "mapping": list(permutation.mapping),
        "displaced": list(displaced),
        "minimal_moves": list(minimal),
        "quality": permutation.quality,
        "software_version": VERSION,
    }


def _insert(batch: list[dict]) -> int:
    with transaction.atomic():
        insert_rows(Permutation, batch)
    return len(batch)
