"""Score many sentence pairs with the built-in metrics, in parallel, as tidy rows.

Pure: the pairs arrive parsed (`wojdb.core.language.nlp.Parse`), so neither spaCy nor Django is
loaded here
or in the worker processes. Each row records the parser and aligner that produced the metric's
input (empty where the metric uses none) and the metric's version.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from wojdb.core.language.nlp import Parse
from wojdb.core.metrics.alignment import WordAlignment
from wojdb.core.metrics.registry import BY_KEY, Key, PairContext, score_context, select

CHUNK = 32


@dataclass(frozen=True)
class PairInput:
    """One hypothesis/reference pair; without an alignment the built-in aligner is used.
    `words` are the hypothesis's and reference's texts as sacreBLEU's tokeniser of the target
    language splits them, which BLEU, chrF and TER count (default: the parses' tokens)."""

    key: Hashable
    hyp: Parse
    ref: Parse
    alignment: WordAlignment | None = None
    words: tuple[tuple[str, ...], tuple[str, ...]] | None = None


@dataclass(frozen=True)
class ScoreRow:
    key: Hashable
    name: str
    variant: str
    score: float
    version: str
    parser: str
    aligner: str


def score_rows(pair: PairInput, keys: Sequence[Key]) -> list[ScoreRow]:
    """The rows of one pair for the metrics with these (name, variant) keys."""
    metrics = [BY_KEY[key] for key in keys]
    context = PairContext(pair.hyp, pair.ref, pair.alignment, pair.words)
    scores = score_context(context, metrics)
    return [
        ScoreRow(
            pair.key,
            metric.name,
            metric.variant,
            scores[metric.key],
            metric.version,
            context.parser if metric.uses_parser else "",
            context.alignment.aligner if metric.uses_aligner else "",
        )
        for metric in metrics
    ]


def _score_chunk(task: tuple[list[PairInput], list[Key]]) -> tuple[int, list[ScoreRow]]:
    pairs, keys = task
    return len(pairs), [row for pair in pairs for row in score_rows(pair, keys)]


def _chunks(pairs: Iterable[PairInput], size: int) -> Iterator[list[PairInput]]:
    iterator = iter(pairs)
    while chunk := list(islice(iterator, size)):
        yield chunk


def compute_many(
    pairs: Iterable[PairInput],
    metrics: Iterable[str] | None = None,
    jobs: int | None = 1,
    progress: Callable[[int], None] | None = None,
) -> list[ScoreRow]:
    """Rows (pair key, metric name, variant, score, version, parser, aligner), in input order.

    `metrics` names metrics as `registry.select` does (all if None); `jobs` worker processes
    (None: one per CPU); `progress(n)` is called after every n pairs scored.
    """
    keys = [metric.key for metric in select(metrics)]
    jobs = jobs or os.cpu_count() or 1
    tasks = ((chunk, keys) for chunk in _chunks(pairs, CHUNK))
    rows: list[ScoreRow] = []

    def collect(results: Iterable[tuple[int, list[ScoreRow]]]) -> None:
        for count, chunk_rows in results:
            rows.extend(chunk_rows)
            if progress is not None:
                progress(count)

    # The first chunk is scored here: the compiled metrics (numba) are compiled once, by this
    # process, and the forked workers inherit them rather than each compiling its own.
    collect(map(_score_chunk, islice(tasks, 1)))
    if jobs == 1:
        collect(map(_score_chunk, tasks))
    else:
        with multiprocessing.Pool(jobs) as pool:
            collect(pool.imap(_score_chunk, tasks))
    return rows
