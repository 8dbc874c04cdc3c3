"""Which words of a sentence are out of place: the truth participants' marks are compared with.

Positions are 0-based indices of the words shown, a permutation's `tokens` (its whitespace
words; in a language written without spaces, its `words`). A permutation's `mapping` already
says which reference word stands at each position (-1 for a word taken from the hypothesis);
from it and the words the algorithm touched (`moved`) come two sets of positions:

- `displaced`: the words the algorithm moved or replaced, as it defines them (an 'order' of
  degree d moves d words, a 'swap' of degree d exchanges d/2 pairs, a 'phrase' move every word
  of its phrases, 'choice' the replaced words, 'both' the union);
- `minimal_moves`: a smallest set of words whose moving back restores the reference: those off
  one longest increasing subsequence of the mapping.

Words made only of punctuation keep their positions in every permutation (see `sentence`), so
both sets leave them out and putting words back lets them stay where they are (`fixed`).

For a machine hypothesis there is no algorithm, only an alignment: `crossing_words` gives the
words whose links cross another link.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Collection, Sequence
from itertools import pairwise
from typing import TYPE_CHECKING

from wojdb.core.language.rules import LanguageRules
from wojdb.core.permutations.sentence import ENGLISH, is_content

if TYPE_CHECKING:  # the metrics load numpy, scipy and nltk: not with permutation generation
    from wojdb.core.metrics.alignment import WordAlignment

REPLACED = -1  # a mapping's mark for a word that is not the reference's


def fixed_words(words: Sequence[str], rules: LanguageRules = ENGLISH) -> frozenset[int]:
    """Positions of the words made only of punctuation, which no permutation moves."""
    return frozenset(
        i for i, word in enumerate(words) if not is_content(word, rules.leading, rules.trailing)
    )


def truths(
    tokens: Sequence[str], mapping: Sequence[int], moved: Collection[int], rules: LanguageRules
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A permutation's two truths, in positions of its words: `displaced` and `minimal_moves`
    (as stored with each permutation, however it was made)."""
    return displaced(mapping, moved), minimal_moves(mapping, fixed_words(tokens, rules))


def displaced(mapping: Sequence[int], moved: Collection[int]) -> tuple[int, ...]:
    """Positions of the words the algorithm moved or replaced (`moved`: reference indices)."""
    moved = set(moved)
    return tuple(i for i, source in enumerate(mapping) if source == REPLACED or source in moved)


def minimal_moves(order: Sequence[int], fixed: Collection[int] = ()) -> tuple[int, ...]:
    """A smallest set of positions whose words, moved, put `order` in increasing order.

    The words that stay must already be in order, so the fewest moves leave one longest
    increasing subsequence in place (patience sorting, O(n log n)). A replaced word (-1) is
    always in the set, `fixed` positions never are.
    """
    tails: list[int] = []  # tails[k]: the smallest last value of an increasing run of k + 1
    tail_at: list[int] = []  # the position of that value
    previous: dict[int, int] = {}  # position -> the position before it in its run
    for i, value in enumerate(order):
        if value == REPLACED or i in fixed:
            continue
        k = bisect_left(tails, value)
        if k:
            previous[i] = tail_at[k - 1]
        if k == len(tails):
            tails.append(value)
            tail_at.append(i)
        else:
            tails[k], tail_at[k] = value, i
    kept = set()
    i = tail_at[-1] if tail_at else None
    while i is not None:
        kept.add(i)
        i = previous.get(i)
    return tuple(i for i in range(len(order)) if i not in kept and i not in fixed)


def restore(order: Sequence[int], positions: Collection[int], fixed: Collection[int] = ()) -> list:
    """The reference order rebuilt by taking out the words at `positions` and putting each
    back where the reference has it; `fixed` words stay put. A replaced word gives way to the
    reference word it replaced. Raises ValueError if the words left are out of order, that is,
    if moving the words at `positions` cannot restore the reference."""
    open_positions = [i for i in range(len(order)) if i not in fixed]
    stayed = [order[i] for i in open_positions if i not in positions]
    if REPLACED in stayed or any(a > b for a, b in pairwise(stayed)):
        raise ValueError(f"the words left in place are not in the reference's order: {stayed}")
    # The reference words the open positions hold once restored, in order; the ones not
    # staying are put back, each at its rank among them.
    wanted = sorted(set(range(len(order))) - {order[i] for i in fixed})
    result = stayed.copy()
    staying = set(stayed)
    for rank, word in enumerate(wanted):
        if word not in staying:
            result.insert(rank, word)
    restored = list(order)
    for i, word in zip(open_positions, result, strict=True):
        restored[i] = word
    return restored


def crossing_words(
    alignment: WordAlignment, spans: Sequence[range] | None = None
) -> tuple[int, ...]:
    """Hypothesis words with a link that crosses another link: links (h, r) and (h', r') cross
    when h < h' and r > r'. Links join the alignment's units (the metrics align tokens);
    `spans[w]`, the units making up word w (see `sentence.align_words`), turns them into words.
    """
    links = alignment.links  # sorted by hypothesis index, then reference index
    crossing = set()
    # A link crosses one with a smaller hypothesis index iff some such link reaches further
    # into the reference, and one with a larger index iff some such link reaches less far.
    highest = -1
    for start, end in _runs(links):
        for h, r in links[start:end]:
            if r < highest:
                crossing.add(h)
        highest = max(highest, max(r for _, r in links[start:end]))
    lowest = alignment.ref_len
    for start, end in reversed(_runs(links)):
        for h, r in links[start:end]:
            if r > lowest:
                crossing.add(h)
        lowest = min(lowest, min(r for _, r in links[start:end]))
    if spans is None:
        return tuple(sorted(crossing))
    return tuple(w for w, span in enumerate(spans) if crossing.intersection(span))


def _runs(links: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The [start, end) index ranges of the links sharing a hypothesis index."""
    runs, start = [], 0
    for i in range(1, len(links) + 1):
        if i == len(links) or links[i][0] != links[start][0]:
            runs.append((start, i))
            start = i
    return runs
