"""How many sentences a segment holds, told by its punctuation.

WMT segments are mostly one sentence, but some are a dateline and a sentence ("Berlin. Michael
Hüther …"), a quotation of several sentences or a whole paragraph; a pool for a study keeps them
out (a participant reads each pair on one screen). This is a rule of thumb, not a sentence
splitter: it errs towards one sentence where it cannot tell (an abbreviation it does not know
ends a sentence for it only before a capital letter).

A sentence ends at . ! ? … (or a full stop of another script) with its closing quotes and
brackets, where the next word begins a sentence: with a capital letter or a digit, or with any
letter in a script without case. Not a sentence end: an initial (`J.`), a known abbreviation
(`Mr.`, `St.`, `Dr.`, `Mme.`), a word with a dot inside (`U.S.`), a Roman numeral (`Carl XVI.
Gustaf`) and, in languages that write ordinals with a dot, a number (`am 3. Oktober`). A part
without a letter (a list number such as `1.`) is no sentence of its own. In languages written
without spaces (Chinese, Japanese) a full stop (。！？) directly followed by more text (not a
closing quote) ends a sentence.
"""

from __future__ import annotations

import re

from wojdb.core.language.rules import UNSPACED

ENDS = ".!?…。！？؟।።။។"
CLOSERS = "\"'”’»)]}」』）›"
OPENERS = "\"'“‘„«([{「『（‹¿¡"
# A full stop inside a quotation («「来た。」と彼は言った。») ends no sentence of the text.
UNSPACED_ENDS = re.compile(r"[。！？](?=[^\s」』）”’\"')])")
#: Abbreviations that end with a dot but rarely a sentence (English, French, German, Spanish).
ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "mt", "gen", "sen", "rep", "gov", "lt",
    "col", "capt", "sgt", "inc", "ltd", "co", "corp", "vs", "etc", "no", "nr", "approx", "fig",
    "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mme",
    "mlle", "mm", "hr", "fr", "frl", "bzw", "ca", "vgl", "usw", "sra", "srta", "dres", "pres",
    "dept", "univ",
})  # fmt: skip
#: Languages that write ordinal numbers with a dot (German `3. Oktober`, Czech `3. října`).
ORDINAL_DOT = frozenset({
    "de", "da", "nb", "nn", "no", "fi", "is", "et", "cs", "sk", "sl", "hr", "sr", "bs", "hu", "lv",
    "lt", "pl", "tr",
})  # fmt: skip
ROMAN = re.compile(r"[IVXLCDM]{1,6}")


def _ends_sentence(word: str, lang: str) -> bool:
    """Whether `word` (followed by a word that may begin a sentence) ends one."""
    core = word.rstrip(CLOSERS)
    if not core or core[-1] not in ENDS:
        return False
    if core[-1] != "." or core.endswith(".."):
        return True
    stem = core[:-1].lstrip(OPENERS)
    if len(stem) == 1 and stem.isalpha():
        return False  # an initial
    if "." in stem or stem.lower() in ABBREVIATIONS or ROMAN.fullmatch(stem):
        return False
    return not (stem.isdigit() and lang in ORDINAL_DOT)


def _begins_sentence(word: str) -> bool:
    core = word.lstrip(OPENERS)
    if not core:
        return False
    first = core[0]
    # A letter of a script without case (Arabic, Devanagari, Hebrew …) counts as a capital.
    caseless = first.isalpha() and first.lower() == first.upper()
    return first.isdigit() or first.isupper() or caseless


def sentence_count(text: str, lang: str) -> int:
    """How many sentences `text` (in language `lang`, an ISO 639 code) holds: at least 1."""
    if lang in UNSPACED:
        parts = UNSPACED_ENDS.split(text)
    else:
        parts, current = [], []
        words = text.split()
        for i, word in enumerate(words):
            current.append(word)
            if i + 1 < len(words) and _ends_sentence(word, lang) and _begins_sentence(words[i + 1]):
                parts.append(" ".join(current))
                current = []
        parts.append(" ".join(current))
    return max(1, sum(any(ch.isalpha() for ch in part) for part in parts))


def is_one_sentence(text: str, lang: str) -> bool:
    return sentence_count(text, lang) == 1
