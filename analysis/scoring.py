"""Scoring the rated items with the built-in metrics (`compute_metrics`), stored as MetricScore.

A stored metric's identity is its name, variant and config; the config names the parser and
aligner its input came from and the metric's software version, as sacrebleu's signatures do, so
scores of two versions are never stored, or analysed, under one identity.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from analysis.metrics.alignment import (
    DEFAULT_STAGES,
    aligner_name,
    alignment_from_word_mapping,
)
from analysis.metrics.alignment import Alignment as WordAlignment
from analysis.metrics.compute import PairInput, compute_many
from analysis.metrics.registry import BY_KEY, BuiltinMetric, combined_parser
from analysis.models import Alignment, Metric, MetricScore
from survey.models import Item
from survey.nlp import Parse, load_pipeline, parse_texts, parser_name
from survey.parsing import Bars, no_bars, stored_parses


class ScoringError(ValueError):
    """Scores that cannot be computed as asked; nothing was stored."""


@dataclass
class ScoringReport:
    added: int
    metrics: int
    pending: int
    items: int


def configuration(metric: BuiltinMetric, parser: str, aligner: str) -> str:
    """The stored config: the parser and aligner the metric's input comes from, if any, and
    the metric's version."""
    parts = [f"parser={parser}"] if metric.uses_parser else []
    parts += [f"aligner={aligner}"] if metric.uses_aligner else []
    parts.append(f"version={metric.version}")
    return "; ".join(parts)


def item_parses(items: list[Item], bars: Bars = no_bars) -> tuple[dict[int, Parse], dict]:
    """The stored parses of the items' references (by segment) and hypotheses (by triple),
    parsing and keeping those not stored yet."""
    references = stored_parses(
        {i.triple.segment_id: i.triple.segment for i in items}.values(), bars
    )
    hypotheses = stored_parses(
        {i.triple_id: i.triple for i in items if not i.permutation}.values(), bars
    )
    return references, hypotheses


def score_rated_items(
    chosen: list[BuiltinMetric], jobs: int, aligner: str | None, bars: Bars = no_bars
) -> ScoringReport:
    """Score every rated item with the chosen metrics, keeping the scores stored already."""
    rated = Item.objects.filter(ratings__isnull=False).distinct()
    items = list(rated.select_related("triple__segment", "triple", "permutation").order_by("pk"))
    stored = _stored_alignments(rated, aligner)
    references, hypotheses = item_parses(items, bars)
    label = aligner or aligner_name(DEFAULT_STAGES)
    configs = _configs(items, chosen, references, hypotheses, label)
    done = set(
        MetricScore.objects.filter(
            metric__name__in={m.name for m in chosen}, item__in=rated.values("pk")
        ).values_list("item_id", "metric__name", "metric__variant", "metric__config")
    )
    pending = [
        item
        for item in items
        if any((item.pk, *m.key, configs[item.pk, m.key]) not in done for m in chosen)
    ]
    pairs = _pairs(pending, references, hypotheses, stored, aligner, bars)
    names = [f"{m.name}:{m.variant}" for m in chosen]
    with bars(total=len(pairs), desc="scoring", unit=" items") as bar:
        rows = compute_many(pairs, names, jobs=jobs, progress=bar.update)
    added = _save(rows, configs, done, label)
    return ScoringReport(added, len(chosen), len(pending), len(items))


def _stored_alignments(rated, aligner: str | None) -> dict[int, list]:
    """The `aligner` alignments of the rated hypotheses, by triple; every one must exist."""
    if aligner is None:
        return {}
    triples = rated.filter(permutation__isnull=True).values("triple_id")
    found = dict(
        Alignment.objects.filter(aligner=aligner, triple_id__in=triples).values_list(
            "triple_id", "pairs"
        )
    )
    missing = len(set(triples.values_list("triple_id", flat=True)) - set(found))
    if missing:
        raise ScoringError(
            f"{missing} rated hypothesis(es) have no stored alignment from {aligner!r}; "
            "nothing was computed."
        )
    return found


def _permutation_parses(items, bars: Bars) -> dict[int, Parse]:
    """Permuted references are parsed afresh: their parse is not stored."""
    permuted = [item for item in items if item.permutation]
    parses = parse_texts((i.permutation.text for i in permuted), settings.WOJDB_SPACY_PIPELINE)
    result = {}
    with bars(total=len(permuted), desc="parsing permutations") as bar:
        for item, parse in zip(permuted, parses, strict=True):
            result[item.pk] = parse
            bar.update(1)
    return result


def _configs(items, chosen, references, hypotheses, label: str) -> dict:
    """(item pk, metric key) -> the config its score is stored under."""
    permutation_parser = ""
    if any(item.permutation for item in items):
        permutation_parser = parser_name(load_pipeline(settings.WOJDB_SPACY_PIPELINE))
    configs = {}
    for item in items:
        hyp = hypotheses.get(item.triple_id) if not item.permutation else None
        hyp_parser = permutation_parser if hyp is None else hyp.parser
        parser = combined_parser(hyp_parser, references[item.triple.segment_id].parser)
        for metric in chosen:
            configs[item.pk, metric.key] = configuration(metric, parser, label)
    longest = max(configs.values(), key=len, default="")
    if len(longest) > Metric._meta.get_field("config").max_length:
        raise ScoringError(f"the configuration name is too long to store: {longest!r}")
    return configs


def _pairs(items, references, hypotheses, stored, aligner, bars: Bars) -> list[PairInput]:
    permuted = _permutation_parses(items, bars)
    pairs = []
    for item in items:
        ref = references[item.triple.segment_id]
        try:
            if item.permutation:
                hyp = permuted[item.pk]
                alignment = alignment_from_word_mapping(
                    item.permutation.text.split(),
                    hyp.tokens,
                    item.triple.segment.reference.split(),
                    ref.tokens,
                    item.permutation.mapping,
                )
            else:
                hyp = hypotheses[item.triple_id]
                alignment = None
                if aligner is not None:
                    links = tuple(tuple(link) for link in stored[item.triple_id])
                    alignment = WordAlignment(links, len(hyp), len(ref), aligner)
        except ValueError as error:
            raise ScoringError(f"item {item.pk}: {error}; nothing was computed.") from None
        pairs.append(PairInput(item.pk, hyp, ref, alignment))
    return pairs


@transaction.atomic
def _save(rows, configs, done, label: str) -> int:
    metrics: dict[tuple[str, str, str], Metric] = {}
    scores = []
    for row in rows:
        builtin = BY_KEY[row.name, row.variant]
        source = (*builtin.key, configs[row.key, builtin.key])
        if (row.key, *source) in done:
            continue
        if source not in metrics:
            metrics[source] = _metric(builtin, source[2], label)
        scores.append(MetricScore(metric=metrics[source], item_id=row.key, score=row.score))
    MetricScore.objects.bulk_create(scores, batch_size=2000)
    return len(scores)


def _metric(builtin: BuiltinMetric, config: str, label: str) -> Metric:
    description = builtin.description
    if builtin.uses_aligner:
        description += f"; hypotheses aligned by {label}, permuted references by word mapping"
    metric, _ = Metric.objects.get_or_create(
        name=builtin.name,
        variant=builtin.variant,
        config=config,
        defaults={
            "version": builtin.version,
            "higher_is_better": builtin.higher_is_better,
            "builtin": True,
            "description": description,
        },
    )
    return metric
