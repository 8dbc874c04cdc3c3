"""The NLP layer: one interface (tokens, tags, dependency heads and labels) over several backends.

A `Parse` is plain data so the permutation generators and the dependency metrics (DTED, DERP)
can be tested without spaCy or Django. Backends: spaCy (the pipeline named in settings) and
CoNLL-U text, so researchers can bring parses from any parser.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Parse:
    """A tokenised, tagged and dependency-parsed sentence.

    heads[i] is the 0-based index of token i's head, or -1 for the root.
    tags are fine-grained (Penn Treebank) tags, upos the Universal POS tags.
    """

    tokens: tuple[str, ...]
    tags: tuple[str, ...]
    upos: tuple[str, ...]
    heads: tuple[int, ...]
    deps: tuple[str, ...]
    parser: str = ""

    def __post_init__(self):
        n = len(self.tokens)
        if not (len(self.tags) == len(self.upos) == len(self.heads) == len(self.deps) == n):
            raise ValueError("Parse fields must all have one entry per token")
        for i, h in enumerate(self.heads):
            if h < -1 or h >= n or h == i:
                raise ValueError(f"token {i}: head {h} is not a valid 0-based index or -1")

    def __len__(self) -> int:
        return len(self.tokens)
