"""Stored dependency parses: the parse of each reference (Segment) or hypothesis (Triple),
made once with the spaCy pipeline of its target language (`target_pipeline`) and kept. Every
command that needs parses goes through :func:`stored_parses`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import nullcontext

from django.conf import settings

from survey.language_rules import LanguageRules, pipeline_for, rules_for
from survey.models import Segment, Triple
from survey.nlp import Parse, parse_texts

PARSE_CHUNK = 500  # parses are saved in chunks, so an interrupted run keeps its work
#: The text each kind of owner holds a parse of.
PARSED_TEXT = {Segment: "reference", Triple: "hypothesis"}


class _Silent:
    def update(self, _: int) -> None:
        pass


def no_bars(**_) -> nullcontext:
    """A progress factory that shows nothing; commands pass ``functools.partial(tqdm, ...)``."""
    return nullcontext(_Silent())


Bars = Callable[..., object]


def target_rules(code: str) -> LanguageRules:
    """The rules of a target language, with the pipelines the settings choose."""
    return rules_for(code, settings.WOJDB_SPACY_PIPELINES)


def target_pipeline(code: str) -> str:
    """The spaCy pipeline of a target language; NoPipelineError (a ValueError) saying how to
    import CoNLL-U parses for a language without one."""
    return pipeline_for(target_rules(code))


def target_language(owner: Segment | Triple) -> str:
    return (owner if isinstance(owner, Segment) else owner.segment).target_lang


def stored_parses(owners: Iterable[Segment | Triple], bars: Bars = no_bars) -> dict[int, Parse]:
    """The parse of each owner's text by primary key, parsing and saving those without one."""
    owners = list(owners)
    missing = [owner for owner in owners if owner.parse is None]
    field = PARSED_TEXT[type(owners[0])] if owners else ""
    by_language: dict[str, list] = {}
    for owner in missing:
        by_language.setdefault(target_language(owner), []).append(owner)
    # Every language's pipeline is checked before anything is parsed.
    pipelines = {code: target_pipeline(code) for code in by_language}
    with bars(total=len(missing), desc=f"parsing {field}s", unit=" texts") as bar:
        for code, owners_of_language in by_language.items():
            for start in range(0, len(owners_of_language), PARSE_CHUNK):
                chunk = owners_of_language[start : start + PARSE_CHUNK]
                texts = [getattr(owner, field) for owner in chunk]
                for owner, parse in zip(chunk, parse_texts(texts, pipelines[code]), strict=True):
                    owner.parse, owner.parser = parse.to_dict(), parse.parser
                type(chunk[0]).objects.bulk_update(chunk, ["parse", "parser"])
                bar.update(len(chunk))
    return {owner.pk: Parse.from_dict(owner.parse) for owner in owners}
