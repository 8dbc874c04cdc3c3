"""Every built-in metric, once: name, variant, direction, version and function.

Two kinds of metric:
* permutation metrics take a 1-based permutation; on a sentence pair they score the
  permutation its alignment induces (`alignment.alignment_permutation`);
* pair metrics take a `PairContext`: the two parses (`wojdb.core.language.nlp.Parse`) and the
alignment,
  with the intermediate results several metrics share computed once.

`score_pair` and `score_permutation` return {(name, variant): score}. A metric's `uses_parser`
and `uses_aligner` say whether the parser and the aligner that produced its input should be
recorded with its scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from wojdb.core.language.nlp import Parse
from wojdb.core.metrics import baselines, derp, dted, lepor, permutation, pets
from wojdb.core.metrics.alignment import WordAlignment, align, aligner_name, alignment_permutation

VERSION = "1"
Key = tuple[str, str]


@dataclass(frozen=True)
class BuiltinMetric:
    name: str
    variant: str
    higher_is_better: bool
    version: str
    function: Callable[..., float]
    kind: str  # "permutation" or "pair"
    description: str
    uses_parser: bool = False
    uses_aligner: bool = False
    uses_tokenizer: bool = False  # counts the target language's sacreBLEU tokens
    lower: float | None = 0.0  # the range of possible scores; None: unbounded
    upper: float | None = 1.0

    @property
    def key(self) -> Key:
        return (self.name, self.variant)


def combined_parser(hyp_parser: str, ref_parser: str) -> str:
    """One name for the parsers of a pair: the parser, or both if they differ."""
    if hyp_parser == ref_parser:
        return hyp_parser
    return f"hypothesis: {hyp_parser}; reference: {ref_parser}"


class PairContext:
    """A hypothesis/reference pair with its alignment; shared intermediate results are cached."""

    def __init__(
        self,
        hyp: Parse,
        ref: Parse,
        alignment: WordAlignment | None = None,
        words: tuple[Sequence[str], Sequence[str]] | None = None,
    ):
        if alignment is None:
            alignment = align(hyp.tokens, ref.tokens)
        elif (alignment.hyp_len, alignment.ref_len) != (len(hyp), len(ref)):
            raise ValueError(
                f"the alignment is for {alignment.hyp_len} and {alignment.ref_len} words, "
                f"the parses have {len(hyp)} and {len(ref)}"
            )
        self.hyp, self.ref, self.alignment = hyp, ref, alignment
        # What BLEU, chrF and TER count: the texts split as sacreBLEU splits the target
        # language (wojdb.core.language.rules.metric_tokens), else the parses' tokens.
        self.hyp_words, self.ref_words = words or (hyp.tokens, ref.tokens)
        self._prioritised: dict[bool, dted.PrioritisedDistance] = {}  # by flattened or not

    @property
    def parser(self) -> str:
        return combined_parser(self.hyp.parser, self.ref.parser)

    @cached_property
    def permutation(self) -> permutation.WordOrder:
        return alignment_permutation(self.alignment)

    @cached_property
    def meteor(self) -> baselines.MeteorStats:
        stages = baselines.meteor_stages()
        own = self.alignment
        if own.aligner != aligner_name(stages):
            own = align(self.hyp.tokens, self.ref.tokens, stages)
        return baselines.MeteorStats.from_alignment(own)

    @cached_property
    def lepor(self) -> lepor.LeporFactors:
        return lepor.lepor_factors(self.hyp.tokens, self.ref.tokens)

    def dted(self, flag: str) -> float:
        """The DTED score of one flag; 'co' and 'cl' share one distance computation."""
        flat, core = flag.startswith("f"), flag.removeprefix("f")
        hyp, ref = self.hyp.heads, self.ref.heads
        if flat:
            hyp, ref = dted.flattened(len(hyp)), dted.flattened(len(ref))
        if core == "b":
            return dted.score_distance(dted.basic_distance(hyp, ref), len(hyp), len(ref))
        if core == "c":
            distance = dted.counterpart_distance(hyp, ref, self.alignment)
            return dted.score_distance(distance, len(hyp), len(ref))
        if flat not in self._prioritised:
            self._prioritised[flat] = dted.prioritised_distance(hyp, ref, self.alignment)
        score = dted.score_o if core == "co" else dted.score_l
        return score(self._prioritised[flat], self.alignment)


def _permutation_metrics() -> list[BuiltinMetric]:
    beta = f"woj {VERSION}; beta={pets.BETA}"
    flat = f"woj {VERSION}"
    paper = "Stanojević & Sima'an 2014"
    beer = "the authors' released code (BEER)"
    rows = [
        ("kendall", "paper", flat, permutation.kendall, f"Kendall: share of pairs kept, {paper}"),
        ("spearman", "paper", flat, permutation.spearman, f"Spearman (ρ+1)/2, {paper}"),
        ("hamming", "paper", flat, permutation.hamming, f"Hamming: share of fixed points, {paper}"),
        ("ulam", "paper", flat, permutation.ulam, f"Ulam: longest increasing run, {paper}"),
        ("fuzzy", "paper", flat, permutation.fuzzy, f"Fuzzy reordering score, {paper}"),
        ("pef", "paper", beta, pets.pef_paper, f"PEF score over the permutation forest, {paper}"),
        ("pef", "beer", beta, pets.pef_beer, f"PEF score, mean over all PETs, rescaled, {beer}"),
        ("pef", "beer-old", beta, pets.pef_beer_old, f"Old PEF score, rescaled, {beer}"),
        ("pet", "paper", beta, pets.pet_paper, f"PET score of the canonical PET, {paper}"),
        ("pet", "beer", beta, pets.pet_beer, f"Canonical PET score, rescaled, {beer}"),
        ("pet", "beer-flat", beta, pets.pet_beer_flat, f"Flat PET score, rescaled, {beer}"),
        ("pet", "beer-viterbi", beta, pets.pet_beer_viterbi, f"Best PET's score, {beer}"),
        ("pet_count", "paper", flat, pets.pet_count_score, "#PETs, Stanojević thesis Fig. 4.2"),
        ("pet_nodes", "paper", flat, pets.pet_nodes_score, "|PET|, Stanojević thesis Fig. 4.2"),
        ("pet_max_arity", "paper", flat, pets.pet_max_arity_score, "MAX|Op|, Stanojević Fig. 4.2"),
    ]
    metrics = [
        BuiltinMetric(name, variant, True, version, function, "permutation", text, False, True)
        for name, variant, version, function, text in rows
    ]
    # The flat PET's rescaled score falls below 0: its raw score stays above 0, and the
    # inverted permutation's raw score is 1 − β.
    flat_floor = -(1 - pets.BETA) / pets.BETA
    return [
        replace(metric, lower=flat_floor) if metric.key == ("pet", "beer-flat") else metric
        for metric in metrics
    ]


def _dted_metrics() -> list[BuiltinMetric]:
    metrics = []
    for flag in dted.FLAGS:
        flat = flag.startswith("f")
        text = f"DTED flag '{flag}' (thesis Ch. 4)" + (", flattened trees" if flat else "")
        metrics.append(
            BuiltinMetric(
                "dted",
                flag,
                True,
                f"woj {VERSION}",
                lambda ctx, flag=flag: ctx.dted(flag),
                "pair",
                text,
                uses_parser=not flat,
                uses_aligner=flag not in ("b", "fb"),
            )
        )
    return metrics


def _pair_metrics() -> list[BuiltinMetric]:
    own = f"woj {VERSION}"
    meteor_version = f"woj {VERSION}; stages=" + "+".join(
        stage.name for stage in baselines.meteor_stages()
    )
    linear, cubic = baselines.METEOR_THESIS, baselines.METEOR_2005

    def metric(name, variant, higher, version, function, text, parser=False, aligner=False, **kw):
        if "tokenizer" in kw:
            kw["uses_tokenizer"] = kw.pop("tokenizer")
        return BuiltinMetric(
            name, variant, higher, version, function, "pair", text, parser, aligner, **kw
        )

    return [
        metric(
            "aligned_pct",
            "thesis",
            True,
            own,
            lambda ctx: baselines.aligned_percentage(ctx.alignment),
            "Share of aligned words, thesis Eq. 3.1",
            aligner=True,
        ),
        metric(
            "kendall_tau",
            "thesis",
            True,
            own,
            lambda ctx: baselines.thesis_kendall_tau(ctx.alignment),
            "Kendall's τ of the alignment, thesis Algorithm 1, in [−1, 1]",
            aligner=True,
            lower=-1.0,
        ),
        metric(
            "bleu",
            "sacrebleu",
            True,
            baselines.signature(baselines.bleu_metric()),
            lambda ctx: baselines.sentence_bleu(ctx.hyp_words, ctx.ref_words),
            "Sentence BLEU (sacrebleu), 0–1",
            tokenizer=True,
        ),
        metric(
            "chrf",
            "sacrebleu",
            True,
            baselines.signature(baselines.chrf_metric()),
            lambda ctx: baselines.sentence_chrf(ctx.hyp_words, ctx.ref_words),
            "Sentence chrF (sacrebleu), 0–1",
            tokenizer=True,
        ),
        metric(
            "ter",
            "sacrebleu",
            False,
            baselines.signature(baselines.ter_metric()),
            lambda ctx: baselines.sentence_ter(ctx.hyp_words, ctx.ref_words),
            "Sentence TER (sacrebleu), edits per reference word",
            tokenizer=True,
            upper=None,
        ),
        metric(
            "meteor",
            "2005",
            True,
            meteor_version,
            lambda ctx: baselines.meteor_score(ctx.meteor, cubic),
            "Meteor-style score, penalty 0.5·(chunks/matches)³ (Banerjee & Lavie 2005)",
        ),
        metric(
            "meteor",
            "thesis",
            True,
            meteor_version,
            lambda ctx: baselines.meteor_score(ctx.meteor, linear),
            "Meteor-style score, penalty 0.5·chunks/matches as in thesis Table 3.4",
        ),
        metric(
            "meteor_chunk",
            "2005",
            True,
            meteor_version,
            lambda ctx: baselines.meteor_chunk_score(ctx.meteor, cubic),
            "Meteor (chnk): 1 − fragmentation penalty, cubed as in Meteor 2005",
        ),
        metric(
            "meteor_chunk",
            "thesis",
            True,
            meteor_version,
            lambda ctx: baselines.meteor_chunk_score(ctx.meteor, linear),
            "Meteor (chnk): 1 − fragmentation penalty as printed in thesis Table 3.4",
        ),
        metric(
            "lepor",
            "default",
            True,
            f"{own}; alpha=9, beta=1, n=2",
            lambda ctx: lepor.lepor(ctx.lepor),
            "LEPOR, Han's thesis Eq. 3-7",
        ),
        metric(
            "hlepor",
            "default",
            True,
            f"{own}; HPR:LP:NPP=7:2:1, alpha=9, beta=1, n=2",
            lambda ctx: lepor.hlepor(ctx.lepor),
            "hLEPOR, Han's thesis Eq. 4-4",
        ),
        metric(
            "lepor_npos",
            "default",
            True,
            f"{own}; n=2",
            lambda ctx: ctx.lepor.npos_penalty,
            "LEPOR's word-order factor NPosPenal = exp(−NPD), Eq. 3-2",
        ),
        *_dted_metrics(),
        metric(
            "derp",
            "structured",
            True,
            own,
            lambda ctx: derp.derp(
                ctx.hyp.heads, ctx.hyp.deps, ctx.ref.heads, ctx.ref.deps, ctx.alignment
            ),
            "DERP over labelled dependency paths (thesis Ch. 5)",
            parser=True,
            aligner=True,
        ),
        metric(
            "derp",
            "f",
            True,
            own,
            lambda ctx: derp.flattened_derp(ctx.alignment),
            "Flattened DERP: surface distance and direction (thesis §5.10)",
            aligner=True,
        ),
    ]


METRICS: tuple[BuiltinMetric, ...] = (*_permutation_metrics(), *_pair_metrics())
BY_KEY: dict[Key, BuiltinMetric] = {metric.key: metric for metric in METRICS}


def select(names: Iterable[str] | None = None, kind: str | None = None) -> list[BuiltinMetric]:
    """Metrics by name ("dted": every variant) or name:variant ("dted:co"); all if None."""
    chosen = [m for m in METRICS if kind is None or m.kind == kind]
    if names is None:
        return chosen
    wanted = []
    for text in names:
        name, _, variant = text.partition(":")
        found = [m for m in chosen if m.name == name and variant in ("", m.variant)]
        if not found:
            known = ", ".join(sorted({f"{m.name}:{m.variant}" for m in chosen}))
            raise ValueError(f"unknown metric {text!r}; known metrics: {known}")
        wanted.extend(m for m in found if m not in wanted)
    return wanted


def _checked(metric: BuiltinMetric, value: float) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise ArithmeticError(f"{metric.name}:{metric.variant} gave {value}")
    return value


def score_context(context: PairContext, metrics: Sequence[BuiltinMetric]) -> dict[Key, float]:
    scores = {}
    for metric in metrics:
        argument = context.permutation if metric.kind == "permutation" else context
        scores[metric.key] = _checked(metric, metric.function(argument))
    return scores


def score_pair(
    hyp_parse: Parse,
    ref_parse: Parse,
    alignment: WordAlignment | None = None,
    metrics: Iterable[str] | None = None,
) -> dict[Key, float]:
    """Every built-in metric (or those named) for one pair; the built-in aligner if none given."""
    return score_context(PairContext(hyp_parse, ref_parse, alignment), select(metrics))


def score_permutation(
    perm: Sequence[int], metrics: Iterable[str] | None = None
) -> dict[Key, float]:
    """Every permutation metric (or those named) for a 1-based permutation."""
    values = permutation.as_permutation(perm)
    return {
        metric.key: _checked(metric, metric.function(values))
        for metric in select(metrics, "permutation")
    }
