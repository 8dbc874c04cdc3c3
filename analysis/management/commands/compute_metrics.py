import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from tqdm import tqdm

from analysis.metrics.alignment import (
    DEFAULT_STAGES,
    aligner_name,
    alignment_from_word_mapping,
)
from analysis.metrics.alignment import Alignment as WordAlignment
from analysis.metrics.compute import PairInput, compute_many
from analysis.metrics.registry import BY_KEY, BuiltinMetric, combined_parser, select
from analysis.models import Alignment, Metric, MetricScore
from survey.management.arguments import POSITIVE
from survey.models import Item
from survey.nlp import Parse, load_pipeline, parse_texts, parser_name

PARSE_CHUNK = 500  # parses are saved in chunks, so an interrupted run keeps its work


def configuration(metric: BuiltinMetric, parser: str, aligner: str) -> str:
    """The stored config: the parser and the aligner the metric's input comes from, if any."""
    parts = [f"parser={parser}"] if metric.uses_parser else []
    parts += [f"aligner={aligner}"] if metric.uses_aligner else []
    return "; ".join(parts)


class Command(BaseCommand):
    help = (
        "Score every rated item with the built-in metrics (or those named) and store the "
        "scores. Hypotheses are aligned to their references by the built-in aligner, or by the "
        "stored alignments named by --aligner; permuted references by their known word "
        "mapping. References and hypotheses without a stored parse are parsed (pipeline "
        "WOJDB_SPACY_PIPELINE) and the parses kept; permuted references are parsed afresh. A "
        "metric whose input comes from a parser or an aligner is stored once per configuration, "
        "its config naming both ('parser=...; aligner=...'). Scores already stored "
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
            type=POSITIVE,
            default=os.cpu_count() or 1,
            help="processes (%(type)s; default: all cores)",
        )
        parser.add_argument(
            "--aligner",
            help="aligner name of stored alignments (imported i-j files) to use for hypotheses "
            "instead of the built-in aligner",
        )

    def handle(self, metrics, jobs, aligner, verbosity, **options):
        try:
            chosen = select(metrics)
        except ValueError as error:
            raise CommandError(str(error)) from None
        show = verbosity >= 1
        rated = Item.objects.filter(ratings__isnull=False).distinct()
        items = list(rated.select_related("triple__segment", "permutation").order_by("pk"))
        stored = self.stored_alignments(rated, aligner)
        references, hypotheses = self.parse_missing(items, show)
        label = aligner or aligner_name(DEFAULT_STAGES)
        configs = self.configs(items, chosen, references, hypotheses, label)
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
        pairs = self.pairs(pending, references, hypotheses, stored, aligner, show)
        names = [f"{m.name}:{m.variant}" for m in chosen]
        with tqdm(total=len(pairs), desc="scoring", unit=" items", disable=not show) as bar:
            rows = compute_many(pairs, names, jobs=jobs, progress=bar.update)
        added = self.save(rows, configs, done, label)
        self.stdout.write(
            self.style.SUCCESS(
                f"Stored {added} score(s) of {len(chosen)} metric(s) for {len(pending)} of "
                f"{len(items)} rated item(s); the others were stored already."
            )
        )

    def stored_alignments(self, rated, aligner: str | None) -> dict[int, list]:
        """The --aligner alignments of the rated hypotheses, by triple; every one must exist."""
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
            raise CommandError(
                f"{missing} rated hypothesis(es) have no stored alignment from {aligner!r}; "
                "nothing was computed."
            )
        return found

    def parse_missing(self, items, show: bool) -> tuple[dict[int, Parse], dict[int, Parse]]:
        """The parses of the references (by segment) and hypotheses (by triple) of these items,
        parsing and saving those not stored."""
        owners = {
            "reference": {item.triple.segment_id: item.triple.segment for item in items},
            "hypothesis": {item.triple_id: item.triple for item in items if not item.permutation},
        }
        for field, by_pk in owners.items():
            missing = [owner for owner in by_pk.values() if owner.parse is None]
            with tqdm(total=len(missing), desc=f"parsing {field}s", disable=not show) as bar:
                for start in range(0, len(missing), PARSE_CHUNK):
                    chunk = missing[start : start + PARSE_CHUNK]
                    texts = [getattr(owner, field) for owner in chunk]
                    parses = parse_texts(texts, settings.WOJDB_SPACY_PIPELINE)
                    for owner, parse in zip(chunk, parses, strict=True):
                        owner.parse, owner.parser = parse.to_dict(), parse.parser
                    type(chunk[0]).objects.bulk_update(chunk, ["parse", "parser"])
                    bar.update(len(chunk))
        return tuple(
            {pk: Parse.from_dict(owner.parse) for pk, owner in owners[field].items()}
            for field in ("reference", "hypothesis")
        )

    def permutation_parses(self, items, show: bool) -> dict[int, Parse]:
        permuted = [item for item in items if item.permutation]
        texts = (item.permutation.text for item in permuted)
        parses = parse_texts(texts, settings.WOJDB_SPACY_PIPELINE)
        with tqdm(total=len(permuted), desc="parsing permutations", disable=not show) as bar:
            result = {}
            for item, parse in zip(permuted, parses, strict=True):
                result[item.pk] = parse
                bar.update(1)
        return result

    def configs(self, items, chosen, references, hypotheses, label: str) -> dict:
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
            raise CommandError(f"the configuration name is too long to store: {longest!r}")
        return configs

    def pairs(self, items, references, hypotheses, stored, aligner, show) -> list[PairInput]:
        permuted = self.permutation_parses(items, show)
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
                raise CommandError(f"item {item.pk}: {error}; nothing was computed.") from None
            pairs.append(PairInput(item.pk, hyp, ref, alignment))
        return pairs

    @transaction.atomic
    def save(self, rows, configs, done, label: str) -> int:
        metrics: dict[tuple[str, str, str], Metric] = {}
        scores = []
        for row in rows:
            builtin = BY_KEY[row.name, row.variant]
            source = (*builtin.key, configs[row.key, builtin.key])
            if (row.key, *source) in done:
                continue
            if source not in metrics:
                metrics[source] = self.metric(builtin, source[2], label)
            scores.append(MetricScore(metric=metrics[source], item_id=row.key, score=row.score))
        MetricScore.objects.bulk_create(scores, batch_size=2000)
        return len(scores)

    @staticmethod
    def metric(builtin: BuiltinMetric, config: str, label: str) -> Metric:
        description = builtin.description
        if builtin.uses_aligner:
            description += f"; hypotheses aligned by {label}, permuted references by word mapping"
        metric, _ = Metric.objects.update_or_create(
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
