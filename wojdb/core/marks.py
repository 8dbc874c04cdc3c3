"""The units a participant marks as out of place, and the truth in those units.

In a language written with spaces the units are the sentence's whitespace words, as shown (a
permutation's `tokens` are exactly these). In one written without spaces (`rules.spaced` false)
they are its characters, spaces left out: the page shows the sentence as written, and a
character is a unit every reader sees, where a tokeniser's words are not. The truth, kept in a
permutation's or an aligner's words, becomes the units those words are made of (`in_units`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from wojdb.core.language.rules import LanguageRules

WORDS = "words"
CHARACTERS = "characters"


def unit_name(rules: LanguageRules) -> str:
    """What a participant marks in the language: words, or characters."""
    return WORDS if rules.spaced else CHARACTERS


def units(text: str, rules: LanguageRules) -> list[str]:
    """The units of `text` a participant can mark, in order; positions count from 0."""
    if rules.spaced:
        return text.split()
    return [character for character in text if not character.isspace()]


def in_units(positions: Collection[int], words: Sequence[str], rules: LanguageRules) -> list[int]:
    """Word positions of `words` (whose units, joined, are the sentence's) as unit positions."""
    if rules.spaced:
        return sorted(positions)
    chosen, start = [], 0
    for w, word in enumerate(words):
        length = sum(not character.isspace() for character in word)
        if w in positions:
            chosen.extend(range(start, start + length))
        start += length
    return chosen


def permutation_truths(
    tokens: Sequence[str], mapping: Sequence[int], moved: Collection[int], rules: LanguageRules
) -> tuple[list[int], list[int]]:
    """A permutation's two truths in units: the units it displaced, and those of a smallest
    set of words whose moving back restores the reference (`truth`)."""
    # On use: the permutations package brings its generator and multiprocessing, which the
    # participant pages, needing only `units`, and every command's start do without.
    from wojdb.core.permutations import truth

    displaced, minimal = truth.truths(tokens, mapping, moved, rules)
    return in_units(displaced, tokens, rules), in_units(minimal, tokens, rules)
