"""Word alignments of a hypothesis to its reference: a monolingual aligner, `i-j` files, and the
permutation an alignment induces.

A `WordAlignment` holds 0-based (hypothesis, reference) links. The thesis's aligners were GIZA++ and
cdec (§3.4.5), whose output is read here in the Pharaoh `i-j` format with the hypothesis index
first (thesis L970). Their cardinality rule, one hypothesis word to several reference words but
not the reverse (L883), is not enforced: each metric says how it treats other links.

The built-in aligner matches in stages, as Meteor does (exact, then stem, then WordNet synonyms
where the WordNet data is installed). Within a stage it links as many still-unlinked words as
possible one-to-one and, among such matchings, picks the one whose linked words sit at the
most similar relative positions in their sentences; that choice is a linear assignment problem
(scipy).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from nltk.stem.porter import PorterStemmer
from scipy.optimize import linear_sum_assignment

from wojdb.core.metrics.permutation import WordOrder
from wojdb.core.permutations.sentence import align_words

Link = tuple[int, int]
PERMUTATION_MAPPING = "permutation-mapping"


@dataclass(frozen=True)
class WordAlignment:
    """Links (hypothesis index, reference index), 0-based and sorted, between two sentences."""

    links: tuple[Link, ...]
    hyp_len: int
    ref_len: int
    aligner: str = ""

    def __post_init__(self):
        links = tuple(sorted(set(self.links)))
        if len(links) != len(self.links):
            raise ValueError("an alignment lists a link twice")
        for h, r in links:
            if not (0 <= h < self.hyp_len and 0 <= r < self.ref_len):
                raise ValueError(
                    f"link {h}-{r} is outside a {self.hyp_len}-word hypothesis and "
                    f"{self.ref_len}-word reference"
                )
        object.__setattr__(self, "links", links)

    @cached_property
    def aligned_hyp(self) -> frozenset[int]:
        return frozenset(h for h, _ in self.links)

    @cached_property
    def aligned_ref(self) -> frozenset[int]:
        return frozenset(r for _, r in self.links)

    @classmethod
    def from_mapping(cls, mapping: Sequence[int], aligner: str = PERMUTATION_MAPPING):
        """The alignment of a permuted reference: hypothesis word k is reference word mapping[k]."""
        return cls(tuple(enumerate(mapping)), len(mapping), len(mapping), aligner)


# --- the built-in aligner ----------------------------------------------------------------------


@dataclass(frozen=True)
class Stage:
    """A matching stage: two words match if their key sets intersect."""

    name: str
    keys: Callable[[str], frozenset[str]]


@lru_cache(maxsize=65536)
def _exact_keys(word: str) -> frozenset[str]:
    return frozenset((word.lower(),))


_STEMMER = PorterStemmer()


@lru_cache(maxsize=65536)
def _stem_keys(word: str) -> frozenset[str]:
    return frozenset((_STEMMER.stem(word.lower()),))


EXACT = Stage("exact", _exact_keys)
STEM = Stage("stem", _stem_keys)


@lru_cache(maxsize=1)
def wordnet_stage() -> Stage | None:
    """A synonym stage (shared WordNet synsets) if the nltk WordNet data is installed, else None.

    Nothing is downloaded: without the data, Meteor-style matching has no synonym stage.
    """
    from nltk.corpus import wordnet

    try:
        wordnet.ensure_loaded()
    except LookupError:
        return None

    @lru_cache(maxsize=65536)
    def synsets(word: str) -> frozenset[str]:
        return frozenset(synset.name() for synset in wordnet.synsets(word.lower()))

    return Stage("synonym", synsets)


DEFAULT_STAGES = (EXACT, STEM)


def aligner_name(stages: Sequence[Stage]) -> str:
    return "woj-monolingual/" + "+".join(stage.name for stage in stages)


def align(
    hyp: Sequence[str], ref: Sequence[str], stages: Sequence[Stage] = DEFAULT_STAGES
) -> WordAlignment:
    """One-to-one monolingual alignment of hypothesis and reference tokens, stage by stage."""
    links: list[Link] = []
    free_hyp, free_ref = list(range(len(hyp))), list(range(len(ref)))
    for stage in stages:
        stage_links = _match_stage(hyp, ref, free_hyp, free_ref, stage)
        links.extend(stage_links)
        linked_hyp = {h for h, _ in stage_links}
        linked_ref = {r for _, r in stage_links}
        free_hyp = [h for h in free_hyp if h not in linked_hyp]
        free_ref = [r for r in free_ref if r not in linked_ref]
    return WordAlignment(tuple(links), len(hyp), len(ref), aligner_name(stages))


def _match_stage(hyp, ref, free_hyp, free_ref, stage) -> list[Link]:
    by_key: dict[str, list[int]] = {}
    for r in free_ref:
        for key in stage.keys(ref[r]):
            by_key.setdefault(key, []).append(r)
    candidates = {}
    for h in free_hyp:
        found = {r for key in stage.keys(hyp[h]) for r in by_key.get(key, ())}
        if found:
            candidates[h] = found
    claimed = [r for found in candidates.values() for r in found]
    if len(set(claimed)) == len(claimed) == len(candidates):
        return [(h, found.pop()) for h, found in candidates.items()]  # no word has a rival
    rows = list(candidates)
    cols = sorted(set(claimed))
    # Relative positions of word centres; a non-match costs more than any complete matching of
    # real matches can, so the assignment first maximises the number of links.
    hyp_pos = (np.asarray(rows) + 0.5) / len(hyp)
    ref_pos = (np.asarray(cols) + 0.5) / len(ref)
    cost = np.abs(hyp_pos[:, None] - ref_pos[None, :])
    allowed = np.array([[r in candidates[h] for r in cols] for h in rows])
    cost[~allowed] = min(len(rows), len(cols)) + 1
    chosen_rows, chosen_cols = linear_sum_assignment(cost)
    return [
        (rows[i], cols[j]) for i, j in zip(chosen_rows, chosen_cols, strict=True) if allowed[i, j]
    ]


# --- i-j files ---------------------------------------------------------------------------------


class AlignmentFormatError(ValueError):
    """A malformed `i-j` line; the message names the line."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


_LINK = re.compile(r"(\d+)-(\d+)")


def parse_links(
    text: str,
    hyp_len: int,
    ref_len: int,
    *,
    one_based: bool = False,
    ref_first: bool = False,
    aligner: str = "",
    line: int = 1,
) -> WordAlignment:
    """Read one line of `i-j` links (hypothesis index first unless `ref_first`), 0-based unless
    `one_based` (GIZA++ and fast_align write 0-based Pharaoh files). An empty line has no links."""
    links: set[Link] = set()
    offset = 1 if one_based else 0
    for token in text.split():
        match = _LINK.fullmatch(token)
        if not match:
            raise AlignmentFormatError(line, f"{token!r} is not a link of the form i-j")
        first, second = int(match[1]) - offset, int(match[2]) - offset
        h, r = (second, first) if ref_first else (first, second)
        if not (0 <= h < hyp_len):
            raise AlignmentFormatError(
                line, f"{token!r}: hypothesis index out of range for {hyp_len} words"
            )
        if not (0 <= r < ref_len):
            raise AlignmentFormatError(
                line, f"{token!r}: reference index out of range for {ref_len} words"
            )
        if (h, r) in links:
            raise AlignmentFormatError(line, f"{token!r} is listed twice")
        links.add((h, r))
    return WordAlignment(tuple(links), hyp_len, ref_len, aligner)


def read_alignments(
    lines: Iterable[str],
    lengths: Sequence[tuple[int, int]],
    *,
    one_based: bool = False,
    ref_first: bool = False,
    aligner: str = "",
) -> list[WordAlignment]:
    """Read an `i-j` file, one line per sentence pair; lengths are (hypothesis, reference) token
    counts of those pairs, in order. Raises AlignmentFormatError naming the first bad line."""
    alignments = []
    for number, text in enumerate(lines, start=1):
        if number > len(lengths):
            raise AlignmentFormatError(number, f"only {len(lengths)} sentence pairs were given")
        hyp_len, ref_len = lengths[number - 1]
        alignments.append(
            parse_links(
                text,
                hyp_len,
                ref_len,
                one_based=one_based,
                ref_first=ref_first,
                aligner=aligner,
                line=number,
            )
        )
    if len(alignments) < len(lengths):
        raise AlignmentFormatError(
            len(alignments) + 1, f"missing: {len(lengths)} sentence pairs need as many lines"
        )
    return alignments


def format_links(alignment: WordAlignment, *, one_based: bool = False) -> str:
    """One `i-j` line, hypothesis index first."""
    offset = 1 if one_based else 0
    return " ".join(f"{h + offset}-{r + offset}" for h, r in alignment.links)


def write_alignments(alignments: Iterable[WordAlignment], *, one_based: bool = False) -> str:
    """An `i-j` file, one line per alignment."""
    return "".join(format_links(a, one_based=one_based) + "\n" for a in alignments)


# --- permuted references -----------------------------------------------------------------------


def alignment_from_word_mapping(
    hyp_words: Sequence[str],
    hyp_tokens: Sequence[str],
    ref_words: Sequence[str],
    ref_tokens: Sequence[str],
    mapping: Sequence[int],
) -> WordAlignment:
    """Token links of a permuted reference, from its known word mapping instead of an aligner.

    mapping[i] is the reference word shown as output word i (−1 for a word brought in from
    elsewhere); words are whitespace words, tokens the parser's. Tokens with the same text
    (ignoring case, as moved words are recased) are linked in order within each output word and
    the reference word it shows; tokens left over, the punctuation that stays at a position when
    its word moves, are then linked likewise to the reference word at the same position.
    """
    hyp_spans = align_words(hyp_words, hyp_tokens)
    ref_spans = align_words(ref_words, ref_tokens)
    links: list[Link] = []
    linked_hyp: set[int] = set()
    linked_ref: set[int] = set()

    def link(hyp_span: range, ref_span: range) -> None:
        for h in hyp_span:
            if h in linked_hyp:
                continue
            for r in ref_span:
                if r not in linked_ref and hyp_tokens[h].lower() == ref_tokens[r].lower():
                    links.append((h, r))
                    linked_hyp.add(h)
                    linked_ref.add(r)
                    break

    for word, source in enumerate(mapping):
        if source >= 0:
            link(hyp_spans[word], ref_spans[source])
    for hyp_span, ref_span in zip(hyp_spans, ref_spans, strict=False):
        link(hyp_span, ref_span)
    return WordAlignment(tuple(links), len(hyp_tokens), len(ref_tokens), PERMUTATION_MAPPING)


# --- alignment -> permutation ------------------------------------------------------------------


def alignment_permutation(alignment: WordAlignment) -> WordOrder:
    """The 1-based permutation of an alignment, as the released code builds it (metrics spec §3.1).

    Reference indices are listed in hypothesis order (a hypothesis word linked to several
    reference words contributes them in ascending order); a reference word linked from several
    hypothesis words keeps only its first link; unlinked words on either side are dropped and the
    reference indices renumbered 1..m ("ignore and normalise").
    """
    seen: set[int] = set()
    order = []
    for _, r in alignment.links:
        if r not in seen:
            seen.add(r)
            order.append(r)
    rank = {r: k for k, r in enumerate(sorted(order), start=1)}
    return tuple(rank[r] for r in order)
