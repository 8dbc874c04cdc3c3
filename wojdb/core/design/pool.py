"""How a study's sentence pool is drawn (thesis §6.2.3): the same number of triples at random from
every corpus (one system's output for one language pair of one test set), among the triples a
participant can read: never a blank text, within the study's length limits, one sentence only
unless the study allows more (and then only a reference that ends as a sentence ends, unless the
study says otherwise: a line cut short is no sentence), and none the study excludes.

Lengths are in words, or in characters for languages written without spaces
(`wojdb.core.io.text_length`), counted on what a participant reads: the reference and the
hypothesis. The draw of each corpus is seeded by the corpus's name, so adding a corpus does not
change the others' draws, and depends on nothing a database assigns (row ids).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from wojdb.core.language.sentences import ends_as_sentence, is_one_sentence

DEFAULT_PER_CORPUS = 450  # the thesis's pool (§6.2.3)


@dataclass(frozen=True)
class Exclusion:
    """Triples to leave out: those matching every field given (None matches anything;
    `Exclusions` does the matching)."""

    testset: str | None = None
    language_pair: str | None = None
    system: str | None = None
    document: str | None = None
    segment: int | None = None

    @property
    def key(self) -> tuple:
        return (self.testset, self.language_pair, self.system, self.document, self.segment)

    def describe(self) -> str:
        fields = (f"{k} = {v!r}" for k, v in vars(self).items() if v is not None)
        return "{" + ", ".join(fields) + "}"


def _fields(c: Candidate) -> tuple:
    """A triple's values of an Exclusion's fields, in their order."""
    return (c.corpus.testset, c.corpus.language_pair, c.corpus.system, c.document, c.segment)


class Exclusions:
    """A rule's exclusions indexed by which fields each names (at most 2⁵ kinds), so that a
    triple is looked up once a kind however many there are: tried one by one, 50,000 of them
    took 145 s against a WMT slice."""

    def __init__(self, exclusions: Sequence[Exclusion]):
        self.kinds: dict[tuple[int, ...], dict[tuple, list[int]]] = {}
        for n, x in enumerate(exclusions):
            named = tuple(i for i, v in enumerate(x.key) if v is not None)
            values = tuple(x.key[i] for i in named)
            self.kinds.setdefault(named, {}).setdefault(values, []).append(n)

    def matching(self, c: Candidate) -> Iterator[int]:
        """The positions of the exclusions that match a triple."""
        values = _fields(c)
        for named, keys in self.kinds.items():
            yield from keys.get(tuple(values[i] for i in named), ())


@dataclass(frozen=True)
class PoolRule:
    """A study's `[pool]`: which corpora, how many triples of each, and which triples qualify.
    Empty `testsets`, `language_pairs` or `systems` mean every one imported (of the study's
    sources, when it names them)."""

    per_corpus: int = DEFAULT_PER_CORPUS
    seed: int = 1
    testsets: tuple[str, ...] = ()
    language_pairs: tuple[str, ...] = ()
    systems: tuple[str, ...] = ()
    min_length: int = 1
    max_length: int | None = None
    single_sentence: bool = True
    sentence_end: bool = True  # with single_sentence: the reference ends as a sentence ends
    exclude: tuple[Exclusion, ...] = ()

    @cached_property
    def exclusions(self) -> Exclusions:
        return Exclusions(self.exclude)


@dataclass(frozen=True, order=True)
class CorpusName:
    testset: str
    language_pair: str
    system: str

    def __str__(self) -> str:
        return f"{self.testset} {self.language_pair} {self.system}"


@dataclass(frozen=True)
class Candidate:
    """A triple as the draw sees it; `key` identifies it to the caller."""

    key: Hashable
    corpus: CorpusName
    segment: int  # the test set's line
    document: str
    target_lang: str
    reference: str
    hypothesis: str
    source_length: int
    reference_length: int
    hypothesis_length: int


# Why a triple is not drawn, in the order they are checked; each names the [pool] key behind it.
BLANK, SHORT, LONG, SENTENCES, FRAGMENT, EXCLUDED = (
    "blank",
    "under min_length",
    "over max_length",
    "of several sentences (single_sentence)",
    "not ending as a sentence ends (sentence_end)",
    "excluded (exclude)",
)


def left_out(c: Candidate, rule: PoolRule) -> str | None:
    """Why the rule leaves a triple out of the draw, or None."""
    lengths = (c.reference_length, c.hypothesis_length)
    if not c.source_length or not all(lengths):
        return BLANK
    if min(lengths) < rule.min_length:
        return SHORT
    if rule.max_length is not None and max(lengths) > rule.max_length:
        return LONG
    if rule.single_sentence and not (
        is_one_sentence(c.reference, c.target_lang) and is_one_sentence(c.hypothesis, c.target_lang)
    ):
        return SENTENCES
    # A segmentation error shows in the test set's line, the reference; a system's output may
    # drop a full stop the reference has.
    if (
        rule.single_sentence
        and rule.sentence_end
        and not ends_as_sentence(c.reference, c.target_lang)
    ):
        return FRAGMENT
    if next(rule.exclusions.matching(c), None) is not None:
        return EXCLUDED
    return None


@dataclass
class Draw:
    """The triples drawn, per corpus in name order, and what was left out of each."""

    chosen: dict[CorpusName, list[Hashable]] = field(default_factory=dict)
    reasons: dict[CorpusName, Counter] = field(default_factory=dict)

    @property
    def keys(self) -> list[Hashable]:
        return [key for keys in self.chosen.values() for key in keys]


class TooFew(ValueError):
    """Corpora with fewer qualifying triples than the rule draws from each."""

    def __init__(self, short: list[tuple[CorpusName, int, int, Counter]], per_corpus: int):
        self.short, self.per_corpus = short, per_corpus
        shown = "; ".join(
            f"{name}: {n} of {total}"
            + (" (" + ", ".join(f"{k} {why}" for why, k in reasons.most_common()) + ")")
            * bool(reasons)
            for name, n, total, reasons in short[:8]
        )
        more = f"; … and {len(short) - 8} more" if len(short) > 8 else ""
        super().__init__(
            f"per_corpus = {per_corpus}, but {len(short)} corpora have fewer triples that "
            f"qualify: {shown}{more}"
        )

    @property
    def keys(self) -> list[str]:
        """The [pool] keys that left triples out, besides per_corpus; none where a corpus holds
        fewer triples than per_corpus in all (no other key is then to blame)."""
        if any(total < self.per_corpus for _, _, total, _ in self.short):
            return []
        named = {SHORT: "min_length", LONG: "max_length", SENTENCES: "single_sentence"}
        named |= {FRAGMENT: "sentence_end", EXCLUDED: "exclude"}
        found = {why for _, _, _, reasons in self.short for why in reasons}
        return [key for why, key in named.items() if why in found]


def draw(corpora: Mapping[CorpusName, Sequence[Candidate]], rule: PoolRule) -> Draw:
    """`rule.per_corpus` qualifying triples of each corpus, at random; raises TooFew.

    Each corpus's candidates are taken in line order, so the draw depends only on the texts,
    the rule and the seed."""
    out, short = Draw(), []
    for name in sorted(corpora):
        members = sorted(corpora[name], key=lambda c: c.segment)
        verdicts = [(c.key, left_out(c, rule)) for c in members]
        reasons = Counter(why for _, why in verdicts if why)
        fit = [key for key, why in verdicts if why is None]
        out.reasons[name] = reasons
        if len(fit) < rule.per_corpus:
            short.append((name, len(fit), len(members), reasons))
            continue
        rng = random.Random(f"{rule.seed}:{name.testset}:{name.language_pair}:{name.system}")
        out.chosen[name] = rng.sample(fit, rule.per_corpus)
    if short:
        raise TooFew(short, rule.per_corpus)
    return out


def unmatched_exclusions(rule: PoolRule, candidates: Iterable[Candidate]) -> list[Exclusion]:
    """The rule's exclusions that match no candidate (a typo, most likely)."""
    matched = {n for c in candidates for n in rule.exclusions.matching(c)}
    return [x for n, x in enumerate(rule.exclude) if n not in matched]
