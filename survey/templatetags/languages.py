"""Template filters on language codes."""

from django import template

from wojdb.core.language.codes import right_to_left as written_right_to_left

register = template.Library()


@register.filter
def right_to_left(code: str) -> bool:
    """Whether the page's language is written right to left, by its script (Django's own
    LANGUAGES_BIDI knows only the languages it ships: not Pashto, Yiddish, Dhivehi, Sindhi)."""
    return written_right_to_left(code)
