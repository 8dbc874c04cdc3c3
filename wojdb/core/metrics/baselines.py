"""The thesis's baselines (§3.5): aligned percentage, Kendall's τ (Algorithm 1), BLEU and
Meteor, plus chrF and TER. BLEU, chrF and TER come from sacrebleu; the rest are written here
because they are defined on a word alignment, which sacrebleu does not have.

sacrebleu scores are divided by 100. Sentences arrive as the parser's tokens, so sacrebleu gets
them joined by spaces and BLEU does not tokenise again (its signature records `tok:none`).
Where a thesis formula divides by zero, the fraction counts as 0, the convention the thesis
states for its own measures (L1194).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import numpy as np
from sacrebleu.metrics import BLEU, CHRF, TER

from wojdb.core.metrics.alignment import EXACT, STEM, Stage, WordAlignment, align, wordnet_stage
from wojdb.core.metrics.ter import translation_edit_rate


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def aligned_percentage(alignment: WordAlignment) -> float:
    """Eq. 3.1: (H_ali + R_ali) / (H_all + R_all), the share of words with at least one link."""
    aligned = len(alignment.aligned_hyp) + len(alignment.aligned_ref)
    return _ratio(aligned, alignment.hyp_len + alignment.ref_len)


def thesis_kendall_tau(alignment: WordAlignment) -> float:
    """Kendall's τ by the thesis's Algorithm 1 (§3.5.2), in [−1, 1] and not rescaled.

    a_hyp lists the hypothesis index of every link in ascending order; a_mix lists, for each
    linked reference index in ascending order, the hypothesis indices linked to it. τ over the
    paired positions is Eq. 3.2, (C − D) / (C + D): pairs tied on either side count in neither,
    so a hypothesis word linked to several reference words (allowed, L883) adds only ties.
    """
    a_hyp = sorted(h for h, _ in alignment.links)
    a_mix = [h for _, h in sorted((r, h) for h, r in alignment.links)]
    x, y = np.asarray(a_hyp), np.asarray(a_mix)
    agreement = np.triu(np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :]), 1)
    concordant = int(np.count_nonzero(agreement > 0))
    discordant = int(np.count_nonzero(agreement < 0))
    return _ratio(concordant - discordant, concordant + discordant)


# --- sacrebleu ---------------------------------------------------------------------------------


def signature(metric) -> str:
    """sacrebleu's signature of a metric object (it is known only once the metric has run)."""
    metric.sentence_score("a", ["a"])
    return str(metric.get_signature())


@lru_cache(maxsize=8)
def bleu_metric(max_order: int = 4, smooth: str = "exp") -> BLEU:
    """Sentence BLEU on pre-tokenised text (the thesis's example uses N = 3 and no smoothing)."""
    return BLEU(
        max_ngram_order=max_order, smooth_method=smooth, tokenize="none", effective_order=True
    )


@lru_cache(maxsize=1)
def chrf_metric() -> CHRF:
    return CHRF()


@lru_cache(maxsize=1)
def ter_metric() -> TER:
    return TER()


def sentence_bleu(
    hyp: Sequence[str], ref: Sequence[str], max_order: int = 4, smooth: str = "exp"
) -> float:
    return bleu_metric(max_order, smooth).sentence_score(" ".join(hyp), [" ".join(ref)]).score / 100


def sentence_chrf(hyp: Sequence[str], ref: Sequence[str]) -> float:
    return chrf_metric().sentence_score(" ".join(hyp), [" ".join(ref)]).score / 100


def sentence_ter(hyp: Sequence[str], ref: Sequence[str]) -> float:
    """Edits per reference word; lower is better and it can exceed 1.

    sacrebleu's own preprocessing and score formula around `ter.translation_edit_rate`, a faster
    copy of its edit search, so the value equals sacrebleu's sentence_score to the last bit.
    """
    preprocess = ter_metric()._preprocess_segment
    edits, ref_len = translation_edit_rate(
        preprocess(" ".join(hyp)).split(), preprocess(" ".join(ref)).split()
    )
    score = edits / ref_len if ref_len > 0 else float(edits > 0)
    return 100 * score / 100


# --- Meteor ------------------------------------------------------------------------------------

# Exponent of the fragmentation penalty 0.5·(chunks/matches)^e: 3 in the original Meteor
# (Banerjee & Lavie 2005), 1 as printed in the thesis's Table 3.4 (Penalty 0.3 for 3/5).
METEOR_2005 = 3
METEOR_THESIS = 1


def meteor_stages() -> tuple[Stage, ...]:
    """Meteor's matching stages: exact, stem, and WordNet synonyms only if WordNet is installed."""
    synonyms = wordnet_stage()
    return (EXACT, STEM) if synonyms is None else (EXACT, STEM, synonyms)


@dataclass(frozen=True)
class MeteorStats:
    matches: int
    chunks: int
    hyp_len: int
    ref_len: int

    @classmethod
    def from_alignment(cls, alignment: WordAlignment) -> MeteorStats:
        """Counts from a one-to-one alignment: a chunk is a run of links adjacent on both sides."""
        links = alignment.links
        breaks = sum((h2, r2) != (h1 + 1, r1 + 1) for (h1, r1), (h2, r2) in pairwise(links))
        return cls(len(links), 1 + breaks if links else 0, alignment.hyp_len, alignment.ref_len)


def meteor_match(hyp: Sequence[str], ref: Sequence[str]) -> MeteorStats:
    return MeteorStats.from_alignment(align(hyp, ref, meteor_stages()))


def meteor_fmean(stats: MeteorStats) -> float:
    """Fmean = 10PR / (R + 9P), P = m / hypothesis length, R = m / reference length."""
    if not stats.matches:
        return 0.0
    precision = stats.matches / stats.hyp_len
    recall = stats.matches / stats.ref_len
    return 10 * precision * recall / (recall + 9 * precision)


def meteor_penalty(stats: MeteorStats, exponent: int = METEOR_2005) -> float:
    return 0.5 * _ratio(stats.chunks, stats.matches) ** exponent


def meteor_score(stats: MeteorStats, exponent: int = METEOR_2005) -> float:
    """Fmean · (1 − Penalty)."""
    return meteor_fmean(stats) * (1 - meteor_penalty(stats, exponent))


def meteor_chunk_score(stats: MeteorStats, exponent: int = METEOR_2005) -> float:
    """'Meteor (chnk)': the fragmentation penalty alone, as 1 − Penalty (§3.5.4, L1015)."""
    return 1 - meteor_penalty(stats, exponent)
