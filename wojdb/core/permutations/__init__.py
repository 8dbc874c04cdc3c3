"""Automatic permutations of references (thesis §6.2.3, Algorithms 3–5, Table 6.1).

A permutation takes a reference and changes `degree` of its words: `order` moves single words
by decreasing distances, `swap` exchanges pairs of words with the same tag, `phrase` moves
whole dependency subtrees to phrase boundaries, `choice` replaces words with same-tag words of
the machine hypothesis and `both` (pilot only) runs `choice` and then `order`.

Punctuation stays with its position (see `sentence`). The thesis's own code moved punctuation
along with displaced words in some cases (58% of its 'order' sentences ended up with different
punctuation, §7.3.2); here punctuation positions never change, as §6.2.3 intends.

Everything is plain Python on `Parse` data, so it runs in worker processes without spaCy or
Django. Every random choice comes from `permutation_rng`, a SHAKE-256 stream keyed by
(seed, type, degree, reference), so results are the same on any machine, in any process.
"""

from __future__ import annotations

import gc
import operator
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import Pool

from wojdb.core.language.nlp import Parse
from wojdb.core.language.rules import LanguageRules
from wojdb.core.permutations.algorithms import Edit, RandomStream, make_permuter
from wojdb.core.permutations.sentence import ENGLISH, Sentence, Truecaser
from wojdb.core.vocabulary import MAIN_TYPES, PERMUTATION_TYPES

__all__ = [
    "MAX_DEGREE",
    "VERSION",
    "PermutedReference",
    "Renderer",
    "Sentence",
    "SentencePair",
    "Truecaser",
    "generate_all",
    "generate_many",
    "permutation_rng",
    "quality",
]

MAX_DEGREE = 18  # "beyond 18 ... devoid of any meaning" (§6.2.3)
# Bumped whenever the same inputs would give different permutations.
VERSION = "permutations-1"


@dataclass(slots=True)  # not frozen: a frozen dataclass takes 5 times as long to build
class PermutedReference:
    """One permuted reference. Its `tokens` are the output's words; `mapping[i]` is the
    reference word shown as output word i (-1 for a word taken from the hypothesis), so
    permutation metrics need no aligner; `moved` lists the reference words moved or replaced,
    in the order the algorithm touched them. In a language written without spaces `text` joins
    the words without them and `words` holds them separated by spaces."""

    perm_type: str
    degree: int
    seed: int
    base: str
    text: str
    moved: tuple[int, ...]
    mapping: tuple[int, ...]
    quality: float
    words: str = ""

    @property
    def tokens(self) -> tuple[str, ...]:
        # Words never contain spaces, so the text holds them; worker processes send less.
        return tuple((self.words or self.text).split())


def quality(degree: int, max_degree: int = MAX_DEGREE) -> float:
    """Eq. 6.2: score_perm = 1 − (degree − 1)/(max degree − 1), a proxy for a judge's score."""
    if max_degree <= 1:
        return 1.0
    return 1 - (degree - 1) / (max_degree - 1)


def permutation_rng(seed: int, perm_type: str, degree: int, reference: str) -> RandomStream:
    """The random stream of one permutation, keyed by what defines it (never by Python's
    salted hash()), so it does not depend on which other permutations are generated."""
    return RandomStream("\x1f".join((str(seed), perm_type, str(degree), reference)).encode())


class Renderer:
    """Turns edits of one sentence into output text and mappings.

    Every position keeps its punctuation and wears the word now there. In a cased script all
    words are truecased (Table 6.1 capitalises 'Cook' although it did not move) and the first
    word is capitalised if the reference's was (Table 6.1: "Usurper Bajgar time …", "To Cook
    him …"); other scripts have no case to restore.
    """

    def __init__(self, sentence: Sentence, truecaser: Truecaser | None = None, cased: bool = True):
        self.sentence = sentence
        self.truecaser = (truecaser if cased else None) or Truecaser()
        self.capital_start = cased and bool(sentence.cores) and sentence.cores[0][:1].isupper()
        self.cased = [self.truecaser.case(core) for core in sentence.cores]
        self.capitalised = list(map(_capitalise, self.cased)) if self.capital_start else []
        # The text with a hole for each slot's word: what lies between two slots' words (their
        # punctuation and any words made of punctuation) is fixed, so a permutation only fills
        # in the holes.
        self.template: list[str | None] = []
        text, slots = [], set(sentence.slots)
        for word, original in enumerate(sentence.words):
            if word in slots:
                text.append(sentence.leads[word])
                self.template += ["".join(text), None]
                text = [sentence.trails[word]]
            else:
                text.append(original)
            text.append(" ")
        self.template.append("".join(text[:-1]))
        self.all_slots = len(sentence.slots) == len(sentence.words)  # no punctuation-only word

    def text(self, edit: Edit) -> str:
        """The output sentence, its words separated by single spaces."""
        arrangement, replacements = edit.arrangement, edit.replacements
        parts = self.template.copy()
        parts[1::2] = _gather(self.cased, arrangement)
        if replacements:
            for source, word in replacements.items():
                parts[2 * arrangement.index(source) + 1] = self.truecaser.case(word)
        if self.capital_start:
            first = arrangement[0]
            parts[1] = _capitalise(parts[1]) if first in replacements else self.capitalised[first]
        return "".join(parts)

    def mapping(self, edit: Edit) -> tuple[int, ...]:
        """Reference word index of each output word; -1 where a hypothesis word replaced it."""
        arrangement, replacements = edit.arrangement, edit.replacements
        if self.all_slots and not replacements:
            return arrangement  # slots are the words themselves
        shown = list(self.words(arrangement))  # the reference word at each slot
        for source in replacements:
            shown[arrangement.index(source)] = -1
        if self.all_slots:
            return tuple(shown)
        mapping = list(range(len(self.sentence.words)))  # punctuation-only words stay
        for word, source in zip(self.sentence.slots, shown, strict=True):
            mapping[word] = source
        return tuple(mapping)

    def words(self, slots: Sequence[int]) -> tuple[int, ...]:
        """The reference word index of each slot."""
        if self.all_slots:
            return tuple(slots)
        return _gather(self.sentence.slots, slots)


def _capitalise(word: str) -> str:
    return word[:1].upper() + word[1:]


def _gather(items: Sequence, indices: Sequence[int]) -> tuple:
    """items[i] for each of the indices; itemgetter gathers several in one call."""
    if len(indices) > 1:
        return operator.itemgetter(*indices)(items)
    return tuple(items[i] for i in indices)


def generate_all(
    reference: Sentence,
    hypothesis: Sentence | None,
    seed: int,
    *,
    types: Sequence[str] = MAIN_TYPES,
    degrees: Iterable[int] = range(1, MAX_DEGREE + 1),
    max_degree: int | None = None,
    truecaser: Truecaser | None = None,
    rules: LanguageRules = ENGLISH,
) -> list[PermutedReference]:
    """Every permutation the reference can take, for each type and degree (§6.2.3); a degree
    the sentence cannot take is skipped. `max_degree` is eq. 6.2's maximum (default: the
    highest degree tried). `rules` are the target language's (the sentences' own were made
    with the same)."""
    rows = _rows(reference, hypothesis, seed, types, degrees, max_degree, truecaser, rules)
    return [PermutedReference(*row) for row in rows]


def _rows(
    reference: Sentence,
    hypothesis: Sentence | None,
    seed: int,
    types: Sequence[str],
    degrees: Iterable[int],
    max_degree: int | None,
    truecaser: Truecaser | None,
    rules: LanguageRules,
) -> list[tuple]:
    """`generate_all`'s permutations as tuples of their fields: worker processes send these,
    in half the time dataclasses take."""
    degrees = sorted(set(degrees))
    if not degrees:
        return []
    max_degree = max_degree or degrees[-1]
    renderer = Renderer(reference, truecaser, rules.cased)
    text, words, mapping = renderer.text, renderer.words, renderer.mapping
    base = reference.text
    qualities = {degree: quality(degree, max_degree) for degree in degrees}
    rows = []
    append = rows.append
    for perm_type in types:
        permuter = make_permuter(perm_type, reference, hypothesis, degrees[-1])
        possible, permute = permuter.possible, permuter.permute
        # permutation_rng's key, with the degree's place left open
        prefix, suffix = f"{seed}\x1f{perm_type}\x1f", f"\x1f{base}".encode()
        for degree in degrees:
            if not possible(degree):
                continue
            edit = permute(degree, RandomStream(f"{prefix}{degree}".encode() + suffix))
            if edit is not None:
                row = (
                    perm_type,
                    degree,
                    seed,
                    base,
                    text(edit),
                    words(edit.moved),
                    mapping(edit),
                    qualities[degree],
                )
                if not rules.spaced:  # shown without spaces; the words kept apart
                    row = (*row[:4], "".join(row[4].split()), *row[5:], row[4])
                append(row)
    return rows


# Many references, in parallel ----------------------------------------------------------------


@dataclass(frozen=True)
class SentencePair:
    """A reference and the hypothesis whose words 'choice' may use, each with its parse."""

    reference: str
    reference_parse: Parse
    hypothesis: str | None = None
    hypothesis_parse: Parse | None = None

    def sentences(self, rules: LanguageRules = ENGLISH) -> tuple[Sentence, Sentence | None]:
        try:
            reference = Sentence.from_parse(self.reference_parse, self.reference, rules)
            hypothesis = None
            if self.hypothesis_parse is not None:
                hypothesis = Sentence.from_parse(self.hypothesis_parse, self.hypothesis, rules)
        except ValueError as error:
            raise ValueError(f"{error} (reference {self.reference!r})") from error
        return reference, hypothesis


@dataclass(frozen=True)
class _Run:
    seed: int
    types: tuple[str, ...]
    degrees: tuple[int, ...]
    max_degree: int | None
    truecaser: Truecaser | None
    rules: LanguageRules

    def __call__(self, pair: SentencePair) -> list[tuple]:
        reference, hypothesis = pair.sentences(self.rules)
        return _rows(
            reference,
            hypothesis,
            self.seed,
            self.types,
            self.degrees,
            self.max_degree,
            self.truecaser,
            self.rules,
        )


_worker_run: _Run | None = None  # set once per worker process by the pool's initializer


def _start_worker(run: _Run) -> None:
    global _worker_run
    _worker_run = run
    # Nothing a worker runs makes cycles, and a collection would copy memory it shares with
    # the parent process (a loaded spaCy pipeline, say).
    gc.disable()


def _run_in_worker(pair: SentencePair) -> list[tuple]:
    return _worker_run(pair)


def generate_many(
    pairs: Iterable[SentencePair],
    seed: int,
    *,
    types: Sequence[str] = MAIN_TYPES,
    degrees: Iterable[int] = range(1, MAX_DEGREE + 1),
    max_degree: int | None = None,
    truecaser: Truecaser | None = None,
    rules: LanguageRules = ENGLISH,
    jobs: int | None = None,
    progress: Callable[[int], object] | None = None,
    chunksize: int = 64,
) -> Iterator[list[PermutedReference]]:
    """`generate_all` for many pairs, in input order, on `jobs` processes (default: all cores).

    `progress(1)` is called in this process as each pair's permutations arrive, so a tqdm
    bar's `update` fits. The results do not depend on the number of jobs. All pairs are in
    the target language whose `rules` are given. Objects frozen
    with `gc.freeze()` before the call are unfrozen when it ends (see below).
    """
    unknown = sorted(set(types) - set(PERMUTATION_TYPES))
    if unknown:
        raise ValueError(f"unknown permutation types {unknown}; expected {PERMUTATION_TYPES}")
    run = _Run(seed, tuple(types), tuple(degrees), max_degree, truecaser, rules)
    jobs = jobs or os.cpu_count() or 1
    # Generating makes no reference cycles: reference counting frees all it drops. The cyclic
    # garbage collector's passes would walk every permutation kept so far (some 10% of the
    # time), so what exists is frozen out of them at the start and as each pair's
    # permutations arrive, and unfrozen at the end (with whatever the caller had frozen).
    gc.freeze()
    try:
        if jobs == 1:
            yield from _received(map(run, pairs), progress)
            return
        # The truecaser's counts travel to each worker once, not with every pair.
        with Pool(jobs, initializer=_start_worker, initargs=(run,)) as pool:
            rows = pool.imap(_run_in_worker, pairs, chunksize=chunksize)
            yield from _received(rows, progress)
    finally:
        gc.unfreeze()


def _received(rows: Iterable[list[tuple]], progress) -> Iterator[list[PermutedReference]]:
    """Each pair's permutations from its rows, reporting progress."""
    for pair_rows in rows:
        if progress is not None:
            progress(1)
        permutations = [PermutedReference(*row) for row in pair_rows]
        gc.freeze()
        yield permutations
