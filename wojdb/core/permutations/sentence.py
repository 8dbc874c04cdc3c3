"""Sentences as the permutation algorithms see them (thesis §6.2.3).

Words are the whitespace-separated words of a sentence, as in the thesis's examples (Table 6.1
moves "she's" and "death," whole). Punctuation belongs to a word's position, not to the word:
each position keeps its leading and trailing punctuation, and whichever word lands there wears
it. The algorithms therefore work on *slots*, the words with something left once punctuation is
stripped; a word made only of punctuation (a lone dash) never moves. A word takes its tag and
its head in the dependency tree from its tokens in the parse.

What differs between target languages (the punctuation sets, elided clitics, the tag set, and
whether words are written with spaces) comes from `wojdb.core.language.rules`; English is the
default.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from wojdb.core.language.nlp import Parse
from wojdb.core.language.rules import (
    LEADING_PUNCTUATION,
    TABLE,
    TRAILING_PUNCTUATION,
    LanguageRules,
)

ENGLISH = TABLE["en"]


# Words and punctuation ----------------------------------------------------------------------


@lru_cache(maxsize=1 << 14)  # common words recur; at most some 4 MB
def split_punctuation(
    word: str, leading: str = LEADING_PUNCTUATION, trailing: str = TRAILING_PUNCTUATION
) -> tuple[str, str, str]:
    """Split a word into (leading punctuation, core, trailing punctuation) as in §6.2.3."""
    rest = word.lstrip(leading)
    core = rest.rstrip(trailing)
    return word[: len(word) - len(rest)], core, rest[len(core) :]


@lru_cache(maxsize=1 << 16)
def is_punctuation(text: str) -> bool:
    """True for text made only of Unicode punctuation (dashes, ellipses, brackets …)."""
    return all(unicodedata.category(char).startswith("P") for char in text)


@lru_cache(maxsize=1 << 16)
def is_content(
    token: str, leading: str = LEADING_PUNCTUATION, trailing: str = TRAILING_PUNCTUATION
) -> bool:
    """Whether anything but punctuation is left once §6.2.3's punctuation is stripped. The
    backtick is in the thesis's sets but Unicode files it as a symbol, so "``" is not content:
    its word never moves, and so it cannot head a word that does."""
    core = split_punctuation(token, leading, trailing)[1]
    return bool(core) and not is_punctuation(core)


def align_words(words: Sequence[str], tokens: Sequence[str]) -> list[range]:
    """The parse tokens making up each whitespace word (tokens never cross a space)."""
    spans = []
    t = 0
    for word in words:
        start, consumed = t, 0
        if t < len(tokens) and tokens[t] == word:  # most words are one token
            t += 1
            spans.append(range(start, t))
            continue
        while consumed < len(word):
            if t == len(tokens) or not word.startswith(tokens[t], consumed) or not tokens[t]:
                raise ValueError(f"the parse's tokens do not spell the word {word!r}")
            consumed += len(tokens[t])
            t += 1
        spans.append(range(start, t))
    if t != len(tokens):
        raise ValueError(f"the parse has tokens after the last word: {list(tokens[t:])}")
    return spans


def content_heads(heads: Sequence[int], content: Sequence[bool]) -> list[int]:
    """Each token's nearest ancestor that is not punctuation (-1 if none).

    Parsers attach punctuation anywhere (spaCy hangs the comma of "death," on the main verb),
    so punctuation tokens are skipped when words inherit the tree from their tokens.
    """
    result = []
    for token in range(len(heads)):
        head, steps = heads[token], 0
        while head != -1 and not content[head]:
            head, steps = heads[head], steps + 1
            if steps > len(heads):
                raise ValueError(f"the parse's heads make a cycle through token {token}")
        result.append(head)
    return result


def token_depths(heads: Sequence[int]) -> list[int]:
    """Depth of every token below its root; raises ValueError if the heads contain a cycle."""
    depths: list[int | None] = [None] * len(heads)
    for start in range(len(heads)):
        if depths[start] is not None:  # on the path up from an earlier token
            continue
        chain = []
        node = start
        while node != -1 and depths[node] is None:
            if node in chain:
                raise ValueError(f"the parse's heads make a cycle through token {node}")
            chain.append(node)
            node = heads[node]
        depth = -1 if node == -1 else depths[node]
        for node in reversed(chain):
            depth += 1
            depths[node] = depth
    return depths


@dataclass(frozen=True)
class Sentence:
    """A sentence as the permutation algorithms see it.

    `words` are all whitespace words, with `leads` and `trails` their punctuation. `slots` are
    the indices of the words that can move or be replaced (those with something other than
    punctuation in them); `cores`, `tags` and `heads` describe the slots, heads[j] being the
    slot of slot j's head word or -1 for a root. A word takes the tag and head of its highest
    non-punctuation token, so "she's" is one word, tagged like its verb "'s"; an elided clitic
    of the language (French "l'homme") leaves that to its host. In a language written without
    spaces the words are the parse's tokens, and `text` holds them separated by spaces.
    """

    text: str
    words: tuple[str, ...]
    leads: tuple[str, ...]
    trails: tuple[str, ...]
    slots: tuple[int, ...]
    cores: tuple[str, ...]
    tags: tuple[str, ...]
    heads: tuple[int, ...]

    @classmethod
    def from_parse(
        cls, parse: Parse, text: str | None = None, rules: LanguageRules = ENGLISH
    ) -> Sentence:
        """Combine a sentence's text (default: the tokens joined by spaces) with its parse.
        Without spaces between words (`rules.spaced`), the text only checks the tokens."""
        if not rules.spaced:
            if text is not None and "".join(text.split()) != "".join(parse.tokens):
                raise ValueError(f"the parse's tokens do not spell the text {text!r}")
            text = None
        text = " ".join(parse.tokens) if text is None else text
        words = text.split()
        spans = align_words(words, parse.tokens)
        punctuation = rules.leading, rules.trailing
        content = [is_content(token, *punctuation) for token in parse.tokens]
        heads = content_heads(parse.heads, content)
        depths = token_depths(heads)
        leads, cores, trails = (
            zip(*(split_punctuation(word, *punctuation) for word in words), strict=True)
            if words
            else ((), (), ())
        )
        # A content word (a letter, digit or symbol in its core) has a content token; the rest
        # never move.
        slots = [w for w, word in enumerate(words) if is_content(word, *punctuation)]
        slot_of_token = {t: j for j, w in enumerate(slots) for t in spans[w]}
        elisions = rules.elisions

        def top(span: range) -> int:
            # A one-token slot's token has the slot's non-punctuation core, so it is content.
            if len(span) == 1:
                return span.start
            candidates = [t for t in span if content[t]]
            hosts = [t for t in candidates if parse.tokens[t] not in elisions]
            return min(hosts or candidates, key=depths.__getitem__)

        tops = [top(spans[w]) for w in slots]

        def head(w: int, token: int) -> int:
            # The word's head lies outside it: a host's head may be its own elided clitic.
            head = heads[token]
            while head in spans[w]:
                head = heads[head]
            return head

        word_heads = [head(w, t) for w, t in zip(slots, tops, strict=True)]
        tags = parse.tags if rules.tags == "xpos" else parse.upos
        return cls(
            text=text,
            words=tuple(words),
            leads=leads,
            trails=trails,
            slots=tuple(slots),
            cores=tuple(map(cores.__getitem__, slots)),
            tags=tuple(map(tags.__getitem__, tops)),
            heads=tuple(-1 if h == -1 else slot_of_token[h] for h in word_heads),
        )

    def __len__(self) -> int:
        return len(self.slots)


# Truecasing (§6.2.3) ------------------------------------------------------------------------


def _fold(core: str) -> str:
    # Only the first letter is cased by the rule, so "US" and "us" stay distinct words.
    return core[:1].lower() + core[1:]


class Truecaser:
    """The thesis's truecasing: a word gets a capital first letter if, in the reference corpus
    and ignoring sentence-initial words, it appears capitalised at least twice as often as not.
    Words never seen outside a sentence start keep the case they have."""

    def __init__(self, counts: Mapping[str, tuple[int, int]] | None = None):
        self.counts = dict(counts or {})
        self._cased: dict[str, str] = {}  # each core's casing, once worked out

    @classmethod
    def from_corpus(cls, sentences: Iterable[Sequence[str]]) -> Truecaser:
        """Count capitalised and lower-case first letters in token (or word) lists."""
        capitalised: Counter[str] = Counter()
        lower: Counter[str] = Counter()
        for tokens in sentences:
            cores = [core for core in (split_punctuation(t)[1] for t in tokens) if core]
            for core in cores[1:]:
                if core[0].isupper():
                    capitalised[_fold(core)] += 1
                elif core[0].islower():
                    lower[_fold(core)] += 1
        keys = list(capitalised) + [key for key in lower if key not in capitalised]
        return cls({key: (capitalised[key], lower[key]) for key in keys})

    def case(self, core: str) -> str:
        try:
            return self._cased[core]
        except KeyError:
            self._cased[core] = cased = self._case(core)
            return cased

    def _case(self, core: str) -> str:
        key = _fold(core)
        if key not in self.counts:
            return core
        capitalised, lower = self.counts[key]
        return core[:1].upper() + core[1:] if capitalised >= 2 * lower else key
