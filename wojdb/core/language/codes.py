"""Language codes: the one check of an ISO 639 code, and the names shown to participants."""

import re
from functools import lru_cache


@lru_cache(maxsize=1024)  # every row of a judgment file names its pair
def language(code: str) -> str | None:
    """The standard form of an ISO 639 code (`ces` and `cze` → `cs`, `liv` stays), or None if
    unknown. Every reader checks codes here, through the maintained langcodes registry rather
    than a closed table, so any language WMT adds is read.

    Always a bare language code, itself standard: the few deprecated codes whose standard tag
    adds a script or region (`sh` → sr-Latn, `prs` → fa-AF) become that tag's language (`sr`,
    `fa`), since pairs are written `src-tgt` and a study's language is a code alone."""
    import langcodes  # its registry loads when a code is first read, not at start-up

    if not re.fullmatch(r"[A-Za-z]{2,3}", code) or not langcodes.tag_is_valid(code):
        return None
    return langcodes.Language.get(langcodes.standardize_tag(code)).language


#: Scripts written right to left (Unicode's bidirectional class R or AL).
RIGHT_TO_LEFT_SCRIPTS = frozenset({
    "Adlm", "Arab", "Armi", "Avst", "Chrs", "Cprt", "Elym", "Hatr", "Hebr", "Hung", "Khar",
    "Lydi", "Mand", "Mani", "Mend", "Merc", "Mero", "Narb", "Nbat", "Nkoo", "Orkh", "Ougr",
    "Palm", "Phli", "Phlp", "Phnx", "Prti", "Rohg", "Samr", "Sarb", "Sogd", "Sogo", "Syrc",
    "Thaa", "Yezi",
})  # fmt: skip


@lru_cache(maxsize=256)
def right_to_left(code: str) -> bool:
    """Whether a language (a code or tag: `ps`, `yi`, `sd`, `az-Arab`) is written right to left,
    by its script: the one the tag names, else the language's most likely one (CLDR)."""
    import langcodes

    try:
        return langcodes.Language.get(code).maximize().script in RIGHT_TO_LEFT_SCRIPTS
    except (langcodes.LanguageTagError, ValueError):
        return False


# Names of the languages of the WMT test sets; other codes are shown as they are.

LANGUAGE_NAMES = {
    "ar": "Arabic",
    "bn": "Bengali",
    "cs": "Czech",
    "de": "German",
    "en": "English",
    "es": "Spanish",
    "et": "Estonian",
    "fi": "Finnish",
    "fr": "French",
    "gu": "Gujarati",
    "ha": "Hausa",
    "hi": "Hindi",
    "hr": "Croatian",
    "hu": "Hungarian",
    "is": "Icelandic",
    "it": "Italian",
    "iu": "Inuktitut",
    "ja": "Japanese",
    "kk": "Kazakh",
    "km": "Khmer",
    "ko": "Korean",
    "lt": "Lithuanian",
    "lv": "Latvian",
    "my": "Burmese",
    "nl": "Dutch",
    "pl": "Polish",
    "ps": "Pashto",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sv": "Swedish",
    "ta": "Tamil",
    "th": "Thai",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "xh": "Xhosa",
    "zh": "Chinese",
}
