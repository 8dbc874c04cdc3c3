"""Stored dependency parses: the parse of each reference (Segment) or hypothesis (Triple),
made once with the spaCy pipeline of its target language (`target_pipeline`) and kept. Every
command that needs parses goes through :func:`stored_parses`; parses from an outside parser
come in as CoNLL-U through :func:`import_parses` (the `import_parses` command)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import nullcontext
from pathlib import Path

from django.conf import settings
from django.db import transaction

from survey.importers import ImportReport
from survey.language_rules import LanguageRules, pipeline_for, rules_for
from survey.models import Segment, Triple
from survey.nlp import Parse, parse_texts, read_conllu
from survey.permutations import Sentence
from survey.wmt import InputError, check_language, read_input

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


def import_parses(
    path: Path, *, testset: str, lp: str, system: str | None = None, parser: str = "conllu"
) -> ImportReport:
    """CoNLL-U parses from an outside parser (UDPipe, Stanza, Trankit …), one sentence per line
    of the test set in order: of its references, or with `system` of that system's hypotheses.
    They replace stored parses. Every sentence is checked against its text (the words it
    spells, in the target language's rules) before anything is saved."""
    source, _, target = lp.partition("-")
    source, target = check_language(source, path), check_language(target, path)
    try:
        parses = read_conllu(read_input(path).decode("utf-8"), parser, surface=True)
    except UnicodeDecodeError as error:
        raise InputError(path, f"bytes are not valid UTF-8 ({error.reason})") from None
    except ValueError as error:
        raise InputError(path, str(error)) from None
    where = {"testset": testset, "source_lang": source, "target_lang": target}
    if system is None:
        owners = list(Segment.objects.filter(**where).order_by("number", "ref_name"))
        names = {segment.ref_name for segment in owners}
        if len(names) > 1:
            raise InputError(path, f"{testset} {lp} has several references: {sorted(names)}")
    else:
        corpus = {f"corpus__{key}": value for key, value in where.items()}
        owners = list(
            Triple.objects.filter(**corpus, corpus__system=system)
            .select_related("segment")
            .order_by("segment__number")
        )
    if not owners:
        what = f"system {system!r} of " if system else ""
        raise InputError(path, f"there is no {what}{testset} {lp} to give parses to")
    if len(parses) != len(owners):
        raise InputError(path, f"has {len(parses)} sentences but {testset} {lp} has {len(owners)}")
    rules = target_rules(target)
    field = PARSED_TEXT[type(owners[0])]
    for number, (owner, parse) in enumerate(zip(owners, parses, strict=True), start=1):
        try:
            Sentence.from_parse(parse, getattr(owner, field), rules)
        except ValueError as error:
            raise InputError(path, f"sentence {number}: {error}") from None
        owner.parse, owner.parser = parse.to_dict(), parse.parser
    with transaction.atomic():
        type(owners[0]).objects.bulk_update(owners, ["parse", "parser"], batch_size=PARSE_CHUNK)
    report = ImportReport()
    report.created[f"{'references' if system is None else 'hypotheses'} given a parse"] = len(
        owners
    )
    return report
