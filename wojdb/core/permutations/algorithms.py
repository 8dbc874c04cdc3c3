"""The permutation algorithms of thesis §6.2.3: order (Algorithm 3), swap, phrase (Algorithm 4),
choice (Algorithm 5) and the pilot's both (§6.4.3).

Each is a *permuter* built once per sentence — Algorithm 4 notes its structures are "only
calculated once and cached between calls" — with `possible(degree)`, a cheap test that needs no
randomness, and `permute(degree, rng)`, which returns an `Edit` or None when the draw cannot be
completed. Positions are slots (see `sentence`), so punctuation never moves.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
import sys
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from wojdb.core.permutations.sentence import Sentence
from wojdb.core.vocabulary import PERMUTATION_TYPES

MAX_PHRASE_SIZE = 9  # Algorithm 4, line 5
# A drawn set of phrases can leave one of them nowhere to go; a few fresh draws usually do.
PHRASE_ATTEMPTS = 10


@dataclass(slots=True)
class Edit:
    """What an algorithm did, over slots: the output shows at slot j the word of slot
    arrangement[j], or its replacement if that slot's word was replaced. `moved` lists the
    slots affected, in the order the algorithm touched them."""

    arrangement: tuple[int, ...]
    moved: tuple[int, ...]
    replacements: Mapping[int, str] = field(default_factory=dict)


class RandomStream:
    """The random numbers of one permutation: 64-bit words of SHAKE-256(key), block by block.

    Cheap to start (one hash call, where a Mersenne Twister fills 2.5 kB of state) and defined
    by a standard (FIPS 202), so a key gives the same numbers on every machine and Python.
    Whole numbers below n are taken modulo n: the bias, under n / 2**64, is nil.
    """

    __slots__ = ("next",)

    def __init__(self, key: bytes):
        # The first block is hashed at once: nearly every stream needs it and no other, and a
        # generator started on the first draw costs more than the hash. Nothing here refers
        # back to the stream, so it is freed as soon as it is dropped, without a garbage
        # collection.
        self.next = itertools.chain(_block(key, 0), _later_blocks(key)).__next__

    def below(self, n: int) -> int:
        """A whole number in [0, n)."""
        if n <= 1 << 32:
            return self.next() % n
        return ((self.next() << 64) | self.next()) % n  # huge n: 128 bits keep the bias nil


_BLOCK_BYTES = 256  # 32 words per hash call; most permutations use fewer
_LITTLE_ENDIAN = sys.byteorder == "little"


def _block(key: bytes, index: int) -> array:
    """One block of big-endian words; an array makes a Python int only of the words drawn."""
    words = array("Q", hashlib.shake_256(key + index.to_bytes(4, "big")).digest(_BLOCK_BYTES))
    if _LITTLE_ENDIAN:
        words.byteswap()
    return words


def _later_blocks(key: bytes):
    for index in itertools.count(1):
        yield from _block(key, index)


class Permuter(Protocol):
    def possible(self, degree: int) -> bool: ...

    def permute(self, degree: int, rng: RandomStream) -> Edit | None: ...


_first = operator.itemgetter(0)


def _shuffle(rng: RandomStream, items: list) -> None:
    draw = rng.next
    for i in range(len(items) - 1, 0, -1):  # Fisher–Yates
        j = draw() % (i + 1)
        items[i], items[j] = items[j], items[i]


def _sample(rng: RandomStream, items: Sequence, k: int) -> list:
    pool, draw = list(items), rng.next
    for i in range(k):  # the first k steps of Fisher–Yates
        j = i + draw() % (len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return pool[:k]


def order_moves(n: int, degree: int, rng: RandomStream) -> tuple[list[tuple[int, int]], list[int]]:
    """Algorithm 3: pick `degree` distinct words and move them by ±degree, ±(degree − 1) … ±1.

    Returns the moves as (word, signed distance), words being original positions, and the
    final arrangement. A word moves only in a direction that stays inside the sentence (the
    thesis leaves the edges open), so the first move needs degree < n; some unused word can
    always make each later move, because the words that cannot move far enough either way sit
    in a middle stretch shorter than the number of unused words.
    """
    if not 0 < degree < n:
        raise ValueError(f"cannot move {degree} words of a {n}-word sentence")
    arrangement = list(range(n))
    used = [False] * n
    moves = []
    draw = rng.next
    for distance in range(degree, 0, -1):
        low = n - distance  # a word before `low` can move right, one from `distance` on left
        while True:  # lines 4–6: draw positions until an unused word that can move comes up
            p = draw() % n
            if (p < low or p >= distance) and not used[arrangement[p]]:
                break
        if p >= low:
            d = -distance
        elif p < distance:
            d = distance
        else:
            d = distance if draw() & 1 else -distance
        word = arrangement.pop(p)
        arrangement.insert(p + d, word)  # lines 10–11: remove, then insert at p + d
        used[word] = True
        moves.append((word, d))
    return moves, arrangement


class OrderPermuter:
    """'order' (Algorithm 3): entirely chance-based order distortion."""

    def __init__(self, sentence: Sentence):
        self.n = len(sentence)

    def possible(self, degree: int) -> bool:
        return 0 < degree < self.n

    def permute(self, degree: int, rng: RandomStream) -> Edit:
        moves, arrangement = order_moves(self.n, degree, rng)
        return Edit(tuple(arrangement), tuple(map(_first, moves)))


class SwapPermuter:
    """'swap': degree/2 disjoint pairs of words with the same tag exchange places (§6.2.3).

    Swapping two copies of one word ("the" and "the") would change nothing, so a pair is always
    two different words; a group of same-tag words can then form min(n // 2, n − most common
    word's count) pairs.
    """

    def __init__(self, sentence: Sentence):
        self.forms = [core.lower() for core in sentence.cores]
        self.groups: dict[str, list[int]] = {}
        for slot, tag in enumerate(sentence.tags):
            self.groups.setdefault(tag, []).append(slot)
        self.capacity = {}
        self.repeating = set()  # tags whose group holds some word more than once
        for tag, group in self.groups.items():
            forms = [self.forms[slot] for slot in group]
            largest = 1
            if len(set(forms)) < len(forms):
                self.repeating.add(tag)
                largest = max(Counter(forms).values())
            self.capacity[tag] = min(len(group) // 2, len(group) - largest)
        # Each tag once per pair it can form, so tags share the pairs in proportion to that.
        self.pair_tags = [tag for tag, capacity in self.capacity.items() for _ in range(capacity)]

    def possible(self, degree: int) -> bool:
        return degree > 0 and degree % 2 == 0 and degree // 2 <= len(self.pair_tags)

    def permute(self, degree: int, rng: RandomStream) -> Edit:
        wanted: dict[str, int] = {}
        for tag in _sample(rng, self.pair_tags, degree // 2):
            wanted[tag] = wanted.get(tag, 0) + 1
        arrangement = list(range(len(self.forms)))
        moved = []
        for tag, pairs in wanted.items():
            for a, b in _sample(rng, self._pairs(tag, rng), pairs):
                arrangement[a], arrangement[b] = b, a
                moved += [a, b]
        return Edit(tuple(arrangement), tuple(moved))

    def _pairs(self, tag: str, rng: RandomStream) -> list[tuple[int, int]]:
        """As many random disjoint pairs of different words as the tag's group allows."""
        group = self.groups[tag]
        ordered = group.copy()
        _shuffle(rng, ordered)
        if tag in self.repeating:
            classes = self._classes(ordered)
            largest = max(classes, key=len)
            if 2 * len(largest) > len(group):  # one word dominates: pair every other word with it
                others = [slot for members in classes if members is not largest for slot in members]
                return list(zip(largest, others, strict=False))
            ordered = [slot for members in classes for slot in members]
        # No word fills more than half the group: with the classes laid end to end (each word
        # is a class of its own when none repeats), pair each slot with the one half the group
        # further on, which always belongs to another class.
        if len(ordered) % 2:
            ordered.pop(rng.below(len(ordered)))
        half = len(ordered) // 2
        return list(zip(ordered[:half], ordered[half:], strict=True))

    def _classes(self, shuffled: list[int]) -> list[list[int]]:
        """The slots grouped by word, in the order the words first come up."""
        by_form: dict[str, list[int]] = {}
        forms = self.forms
        for slot in shuffled:
            form = forms[slot]
            if form in by_form:
                by_form[form].append(slot)
            else:
                by_form[form] = [slot]
        return list(by_form.values())


class PhrasePermuter:
    """'phrase' (Algorithm 4): move non-overlapping dependency subtrees, largest first, each as
    one unit to a random phrase boundary outside the chosen phrases.

    Candidate phrases are the contiguous subtrees of at most 9 words, short of the whole
    sentence (which has nowhere to go); phrase boundaries are the left edges of all subtrees,
    plus the end. Non-overlapping phrases are disjoint intervals, so
    count[i][s] = number of ways to pick phrases inside slots i.. whose sizes sum to s,
    and `choose` draws uniformly among all selections by unranking one random number.
    """

    def __init__(self, sentence: Sentence, max_degree: int):
        n = len(sentence)
        lo, hi, size = _subtree_spans(sentence.heads)
        self.n = n
        self.bounds = sorted(set(lo) | {n})
        self.sizes_at: list[list[int]] = [[] for _ in range(n)]  # candidate sizes by first slot
        for first, last, words in zip(lo, hi, size, strict=True):
            if words <= MAX_PHRASE_SIZE and words < n and last - first < words:
                self.sizes_at[first].append(words)
        # phrases never cover the whole sentence
        self.count = _selection_counts(self.sizes_at, min(max_degree, n - 1))

    def possible(self, degree: int) -> bool:
        if not (0 < degree < len(self.count[0]) and self.count[0][degree] > 0):
            return False
        if self.count[0][degree] > 1:
            return True
        # One set of phrases has this size. `move` fails only when the end is the one boundary
        # its phrases may go to, and then no draw changes anything: every attempt would fail
        # alike, so one attempt, with any stream, tells.
        rng = RandomStream(b"")
        return self.move(self.choose(degree, rng), rng) is not None

    def choose(self, degree: int, rng: RandomStream) -> list[range]:
        """Line 6: a uniformly random set of disjoint phrases of `degree` words in all."""
        count, sizes_at, r = self.count, self.sizes_at, rng.below(self.count[0][degree])
        chosen, i, left = [], 0, degree
        while left:
            while r < count[i + 1][left]:  # selections that leave slot i out of every phrase
                i += 1
            r -= count[i + 1][left]
            for length in sizes_at[i]:
                ways = count[i + length][left - length] if length <= left else 0
                if r < ways:
                    chosen.append(range(i, i + length))
                    i, left = i + length, left - length
                    break
                r -= ways
        return chosen

    def permute(self, degree: int, rng: RandomStream) -> Edit | None:
        for _ in range(PHRASE_ATTEMPTS):
            edit = self.move(self.choose(degree, rng), rng)
            if edit is not None:
                return edit
        return None

    def move(self, phrases: Iterable[range], rng: RandomStream) -> Edit | None:
        """Lines 8–14: move each phrase, largest first, to a boundary no chosen phrase covers.

        A boundary is the word it precedes, so it follows that word as earlier moves shift it.
        The boundary right after a phrase would leave it in place, so that one is not offered.
        Phrases stay whole, so the words form a linked list in which a move relinks a phrase's
        two ends, whatever the phrase's size.
        """
        phrases = sorted(phrases, key=len, reverse=True)
        inside = set().union(*phrases)
        end = self.n
        # `end` is never inside
        anchors = list(itertools.filterfalse(inside.__contains__, self.bounds))
        count, draw = len(anchors), rng.next
        # The list is circular, closed by `end`: the word after `end` is the first word.
        following = [*range(1, end + 1), 0]
        preceding = [end, *range(end)]
        moved: list[int] = []
        for phrase in phrases:
            first, last = phrase.start, phrase.stop - 1
            staying = following[last]
            if count == 1 and anchors[0] == staying:
                return None
            target = anchors[draw() % count]
            while target == staying:
                target = anchors[draw() % count]
            before = preceding[first]  # unlink the phrase …
            following[before], preceding[staying] = staying, before
            before = preceding[target]  # … and link it in before the target
            following[before], preceding[first] = first, before
            following[last], preceding[target] = target, last
            moved += phrase
        arrangement = [0] * end
        word = end
        for position in range(end):
            word = arrangement[position] = following[word]
        return Edit(tuple(arrangement), tuple(moved))


def _selection_counts(sizes_at: Sequence[Sequence[int]], top: int) -> list[list[int]]:
    """count[i][s]: the ways to pick disjoint phrases inside slots i.. with s words in all, for
    s up to `top`, given the sizes of the phrases that start at each slot."""
    n = len(sizes_at)
    count: list[list[int]] = [[]] * (n + 1)
    count[n] = [1] + [0] * top
    for i in reversed(range(n)):
        row = count[i + 1]  # rows are never changed, so a row can be shared
        for length in sizes_at[i]:
            row = [*row[:length], *map(operator.add, row[length:], count[i + length])]
        count[i] = row
    return count


def _subtree_spans(heads: Sequence[int]) -> tuple[list[int], list[int], list[int]]:
    """First slot, last slot and size of every slot's subtree."""
    n = len(heads)
    children: list[list[int]] = [[] for _ in range(n)]
    order = [slot for slot in range(n) if heads[slot] == -1]
    for slot, head in enumerate(heads):
        if head != -1:
            children[head].append(slot)
    for slot in order:  # grows while it is walked: every head comes before its dependents
        order.extend(children[slot])
    lo, hi, size = list(range(n)), list(range(n)), [1] * n
    for slot in reversed(order):
        head = heads[slot]
        if head != -1:
            if lo[slot] < lo[head]:
                lo[head] = lo[slot]
            if hi[slot] > hi[head]:
                hi[head] = hi[slot]
            size[head] += size[slot]
    return lo, hi, size


class ChoicePermuter:
    """'choice' (Algorithm 5): replace words with hypothesis words of the same tag, never using
    a word already in the reference or the output (compared without case).

    Drawing only among the words and candidates still valid is the thesis's "go to 4 or 5"
    rejection loop without the wasted draws; when no word has a valid candidate left it
    produces nothing, as the thesis's loop exits.
    """

    def __init__(self, sentence: Sentence, hypothesis: Sentence | None):
        self.tags = sentence.tags
        reference_forms = {core.lower() for core in sentence.cores}
        self.pools: dict[str, dict[str, str]] = {}  # tag -> {form: hypothesis word}
        if hypothesis is not None:
            for core, tag in zip(hypothesis.cores, hypothesis.tags, strict=True):
                if core.lower() not in reference_forms:
                    self.pools.setdefault(tag, {}).setdefault(core.lower(), core)
        self.open = [slot for slot, tag in enumerate(self.tags) if tag in self.pools]
        self.tags_of: dict[str, list[str]] = {}  # form -> the tags it is offered for
        for tag, pool in self.pools.items():
            for form in pool:
                self.tags_of.setdefault(form, []).append(tag)
        self.limit = min(len(self.open), len(self.tags_of))
        self.identity = tuple(range(len(self.tags)))

    def possible(self, degree: int) -> bool:
        return 0 < degree <= self.limit

    def permute(self, degree: int, rng: RandomStream) -> Edit | None:
        tags, draw = self.tags, rng.next
        pools = {tag: list(pool) for tag, pool in self.pools.items()}
        # The slots still open, in slot order; kept up to date rather than refiltered per draw.
        words = list(self.open)
        replacements: dict[int, str] = {}
        while len(replacements) < degree:
            if not words:
                return None
            slot = words[draw() % len(words)]
            pool = pools[tags[slot]]
            form = pool[draw() % len(pool)]
            replacements[slot] = self.pools[tags[slot]][form]
            words.remove(slot)
            emptied = False
            for tag in self.tags_of[form]:  # now in the output: no other slot may take it
                pool = pools[tag]
                pool.remove(form)
                emptied = emptied or not pool
            if emptied:
                words = [s for s in words if pools[tags[s]]]
        return Edit(self.identity, tuple(replacements), replacements)


class BothPermuter:
    """The pilot's 'both' (§6.4.3): 'choice', then 'order' on the result, at the same degree."""

    def __init__(self, sentence: Sentence, hypothesis: Sentence | None):
        self.choice = ChoicePermuter(sentence, hypothesis)
        self.order = OrderPermuter(sentence)

    def possible(self, degree: int) -> bool:
        return self.choice.possible(degree) and self.order.possible(degree)

    def permute(self, degree: int, rng: RandomStream) -> Edit | None:
        choice = self.choice.permute(degree, rng)
        if choice is None:
            return None
        order = self.order.permute(degree, rng)
        moved = tuple(dict.fromkeys(choice.moved + order.moved))
        return Edit(order.arrangement, moved, choice.replacements)


def make_permuter(
    perm_type: str, sentence: Sentence, hypothesis: Sentence | None, max_degree: int
) -> Permuter:
    """The permuter of one type for one reference (and the hypothesis 'choice' draws from)."""
    if perm_type == "order":
        return OrderPermuter(sentence)
    if perm_type == "swap":
        return SwapPermuter(sentence)
    if perm_type == "phrase":
        return PhrasePermuter(sentence, max_degree)
    if perm_type == "choice":
        return ChoicePermuter(sentence, hypothesis)
    if perm_type == "both":
        return BothPermuter(sentence, hypothesis)
    raise ValueError(f"unknown permutation type {perm_type!r}; expected one of {PERMUTATION_TYPES}")
