"""Scoring the rated items with the built-in metrics (`compute_metrics`), stored as MetricScore.

A stored metric's identity is its name, variant and config; the config names the parser and
aligner its input came from, the sacreBLEU tokeniser of the target language for BLEU, chrF and
TER, and the metric's software version, as sacrebleu's signatures do, so scores of two versions
are never stored, or analysed, under one identity. Each item is parsed and tokenised by the
rules of its target language (`wojdb.core.language.rules`). A permuted reference is parsed afresh
by its language's pipeline, as the thesis parsed them with the parser of the references, unless
an outside parser's parse is stored with it (`import_parses --permutations`).

Each rated hypothesis also keeps the units whose alignment links cross (Triple.crossing_words),
from the alignment its metrics use: the truth participants' word marks are compared with.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from analysis.models import Alignment, Metric, MetricScore
from survey.bulk import insert_rows
from survey.models import Item, Triple
from survey.sources.parses import Bars, no_bars, stored_parses, target_pipeline, target_rules
from wojdb.core.language.nlp import Parse, load_pipeline, parse_texts, parse_tokenised, parser_name
from wojdb.core.language.rules import NoPipelineError, metric_tokens
from wojdb.core.marks import in_units
from wojdb.core.metrics.alignment import (
    DEFAULT_STAGES,
    WordAlignment,
    align,
    aligner_name,
    alignment_from_word_mapping,
)
from wojdb.core.metrics.compute import PairInput, compute_many
from wojdb.core.metrics.registry import BY_KEY, BuiltinMetric, combined_parser
from wojdb.core.permutations.sentence import align_words
from wojdb.core.permutations.truth import crossing_words


class ScoringError(ValueError):
    """Scores that cannot be computed as asked; nothing was stored."""


@dataclass
class ScoringReport:
    added: int
    metrics: int
    pending: int
    items: int


def configuration(metric: BuiltinMetric, parser: str, aligner: str, tokenizer: str = "") -> str:
    """The stored config: the parser, aligner and tokeniser the metric's input comes from, if
    any, and the metric's version."""
    parts = [f"parser={parser}"] if metric.uses_parser else []
    parts += [f"aligner={aligner}"] if metric.uses_aligner else []
    parts += [f"tokenize={tokenizer}"] if metric.uses_tokenizer and tokenizer else []
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
    label = aligner or aligner_name(DEFAULT_STAGES)
    try:
        references, hypotheses = item_parses(items, bars)
        pipelines = _permutation_pipelines(items)
        configs = _configs(items, chosen, references, hypotheses, pipelines, label)
    except NoPipelineError as error:
        raise ScoringError(f"{error}; nothing was computed.") from None
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
    pairs = _pairs(pending, references, hypotheses, pipelines, stored, aligner, bars)
    names = [f"{m.name}:{m.variant}" for m in chosen]
    with bars(total=len(pairs), desc="scoring", unit=" items") as bar:
        rows = compute_many(pairs, names, jobs=jobs, progress=bar.update)
    added = _save(rows, configs, done, label)
    _store_crossing(items, references, hypotheses, stored, aligner, label)
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


def _language(item: Item) -> str:
    return item.triple.segment.target_lang


def _permutation_pipelines(items) -> dict[str, str]:
    """The pipeline of each language with rated permutations that have no stored parse; a
    language without one is a NoPipelineError saying how to bring their parses instead."""
    unparsed = [item for item in items if item.permutation and item.permutation.parse is None]
    pipelines = {}
    for code in sorted({_language(item) for item in unparsed}):
        try:
            pipelines[code] = target_pipeline(code)
        except NoPipelineError:
            count = sum(_language(item) == code for item in unparsed)
            raise NoPipelineError(
                f"{count} rated permutation(s) into {code!r} have no stored parse, and no "
                "spaCy pipeline parses the language: write their texts with import_parses "
                "--write-permutations PERMS.txt, parse PERMS.txt with an outside parser "
                "(UDPipe, Stanza, Trankit) and import its CoNLL-U with import_parses "
                f"PERMS.conllu --permutations PERMS.ids, or set WOJDB_SPACY_PIPELINES={code}="
                "PIPELINE for an installed pipeline"
            ) from None
    return pipelines


def _permutation_parses(items, pipelines: dict[str, str], bars: Bars) -> dict[int, Parse]:
    """The stored parse of each permuted reference, or else a fresh parse by its language's
    pipeline (not stored). Their words are given, so a language written without spaces keeps
    them."""
    permuted = [item for item in items if item.permutation]
    result = {
        item.pk: Parse.from_dict(item.permutation.parse)
        for item in permuted
        if item.permutation.parse is not None
    }
    unparsed = [item for item in permuted if item.pk not in result]
    with bars(total=len(unparsed), desc="parsing permutations") as bar:
        for code in sorted({_language(item) for item in unparsed}):
            chunk = [item for item in unparsed if _language(item) == code]
            if target_rules(code).spaced:
                parses = parse_texts((i.permutation.text for i in chunk), pipelines[code])
            else:
                parses = parse_tokenised((i.permutation.tokens for i in chunk), pipelines[code])
            for item, parse in zip(chunk, parses, strict=True):
                result[item.pk] = parse
                bar.update(1)
    return result


def _configs(items, chosen, references, hypotheses, pipelines, label: str) -> dict:
    """(item pk, metric key) -> the config its score is stored under."""
    pipeline_parsers = {
        code: parser_name(load_pipeline(pipeline)) for code, pipeline in pipelines.items()
    }
    configs = {}
    for item in items:
        if item.permutation is None:
            hyp_parser = hypotheses[item.triple_id].parser
        elif item.permutation.parse is None:
            hyp_parser = pipeline_parsers[_language(item)]
        else:
            hyp_parser = item.permutation.parser
        parser = combined_parser(hyp_parser, references[item.triple.segment_id].parser)
        tokenizer = target_rules(_language(item)).bleu_tokenizer
        for metric in chosen:
            configs[item.pk, metric.key] = configuration(metric, parser, label, tokenizer)
    longest = max(configs.values(), key=len, default="")
    if len(longest) > Metric._meta.get_field("config").max_length:
        raise ScoringError(f"the configuration name is too long to store: {longest!r}")
    return configs


def _pairs(
    items, references, hypotheses, pipelines, stored, aligner, bars: Bars
) -> list[PairInput]:
    permuted = _permutation_parses(items, pipelines, bars)
    pairs = []
    for item in items:
        ref = references[item.triple.segment_id]
        rules = target_rules(_language(item))
        reference = item.triple.segment.reference
        try:
            if item.permutation:
                hyp = permuted[item.pk]
                hyp_text = item.permutation.text
                alignment = alignment_from_word_mapping(
                    item.permutation.tokens,
                    hyp.tokens,
                    reference.split() if rules.spaced else ref.tokens,
                    ref.tokens,
                    item.permutation.mapping,
                )
            else:
                hyp = hypotheses[item.triple_id]
                hyp_text = item.triple.hypothesis
                alignment = _stored_alignment(item, hyp, ref, stored, aligner)
        except ValueError as error:
            raise ScoringError(f"item {item.pk}: {error}; nothing was computed.") from None
        words = (metric_tokens(hyp_text, rules), metric_tokens(reference, rules))
        pairs.append(PairInput(item.pk, hyp, ref, alignment, words))
    return pairs


def _stored_alignment(item, hyp, ref, stored, aligner: str | None) -> WordAlignment | None:
    """The hypothesis's stored `aligner` alignment; None for the built-in aligner."""
    if aligner is None:
        return None
    links = tuple(tuple(link) for link in stored[item.triple_id])
    return WordAlignment(links, len(hyp), len(ref), aligner)


@transaction.atomic
def _store_crossing(items, references, hypotheses, stored, aligner, label: str) -> None:
    """Triple.crossing_words of the rated hypotheses not yet aligned by `label`, from the
    alignment the metrics use. A hypothesis whose parse's tokens do not spell its words (an
    outside parse) keeps none: its units cannot be told from the alignment's."""
    changed = []
    for item in items:
        triple = item.triple
        if item.permutation_id is not None or triple.crossing_aligner == label:
            continue
        hyp, ref = hypotheses[item.triple_id], references[triple.segment_id]
        alignment = _stored_alignment(item, hyp, ref, stored, aligner) or align(
            hyp.tokens, ref.tokens
        )
        rules = target_rules(_language(item))
        try:
            if rules.spaced:
                spans = align_words(triple.hypothesis.split(), hyp.tokens)
                units = crossing_words(alignment, spans)
            else:
                units = tuple(in_units(crossing_words(alignment), hyp.tokens, rules))
        except ValueError:
            continue
        triple.crossing_words, triple.crossing_aligner = list(units), label
        changed.append(triple)
    Triple.objects.bulk_update(changed, ["crossing_words", "crossing_aligner"], batch_size=500)


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
        scores.append({"metric_id": metrics[source].pk, "item_id": row.key, "score": row.score})
    insert_rows(MetricScore, scores)
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
