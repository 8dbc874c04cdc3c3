"""Language codes: the one check of an ISO 639 code, and the names shown to participants."""

import re
from functools import lru_cache

import langcodes


@lru_cache(maxsize=1024)  # every row of a judgment file names its pair
def language(code: str) -> str | None:
    """The standard form of an ISO 639 code (`ces` and `cze` → `cs`, `liv` stays), or None if
    unknown. Every reader checks codes here, through the maintained langcodes registry rather
    than a closed table, so any language WMT adds is read."""
    if not re.fullmatch(r"[A-Za-z]{2,3}", code) or not langcodes.tag_is_valid(code):
        return None
    return langcodes.standardize_tag(code)


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
