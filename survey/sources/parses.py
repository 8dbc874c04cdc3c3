"""Stored dependency parses: the parse of each reference (Segment) or hypothesis (Triple),
made once with the spaCy pipeline of its target language (`target_pipeline`) and kept. Every
command that needs parses goes through :func:`stored_parses`; parses from an outside parser
come in as CoNLL-U through :func:`import_parses` (the `import_parses` command).

Permuted references are parsed when they are scored (`analysis.scoring`), by the language's
pipeline, unless an outside parser's parse is stored with them: :func:`write_permutations`
writes their texts for it, :func:`import_permutation_parses` brings its CoNLL-U back."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import nullcontext
from pathlib import Path

from django.conf import settings
from django.db import transaction

from survey.models import Permutation, Segment, Triple
from wojdb.core.io import (
    MAX_ID,
    ImportReport,
    InputError,
    check_language,
    parse_number,
    read_input,
    read_lines,
)
from wojdb.core.language.codes import language
from wojdb.core.language.nlp import Parse, parse_texts, read_conllu
from wojdb.core.language.rules import LanguageRules, NoPipelineError, pipeline_for, rules_for
from wojdb.core.permutations import Sentence
from wojdb.core.permutations.sentence import align_words

PARSE_CHUNK = 500  # parses are saved in chunks, so an interrupted run keeps its work
#: The text each kind of owner holds a parse of.
PARSED_TEXT = {Segment: "reference", Triple: "hypothesis"}
PARSED_TEXTS = {Segment: "references", Triple: "hypotheses"}  # for the progress bar


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
    plural = PARSED_TEXTS[type(owners[0])] if owners else ""
    by_language: dict[str, list] = {}
    for owner in missing:
        by_language.setdefault(target_language(owner), []).append(owner)
    # Every language's pipeline is checked before anything is parsed.
    pipelines = {}
    for code, unparsed in by_language.items():
        try:
            pipelines[code] = target_pipeline(code)
        except NoPipelineError as error:
            missing_parses = f"{len(unparsed):,} {plural} have no parse"
            raise NoPipelineError(f"{missing_parses}, and {error}") from None
    with bars(total=len(missing), desc=f"parsing {plural}", unit=" texts") as bar:
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
    parses = _read_conllu_file(path, parser)
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


def _read_conllu_file(path: Path, parser: str) -> list[Parse]:
    """The sentences of a CoNLL-U file, multiword tokens whole (they spell the text)."""
    try:
        text = read_input(path).decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(path, f"bytes are not valid UTF-8 ({error.reason})") from None
    parses = read_conllu(text, parser, surface=True, path=path)
    limit = Segment._meta.get_field("parser").max_length  # Triple's and Permutation's alike
    for number, parse in enumerate(parses, start=1):
        if len(parse.parser) > limit:
            raise InputError(
                path, f"sentence {number}: the parser's name is over {limit} characters"
            )
    return parses


# --- permuted references: their texts out to an outside parser, its CoNLL-U back -----------


def ids_path(path: Path) -> Path:
    """The file beside a permutations text file naming the permutation of each line."""
    return path.with_suffix(".ids")


def write_permutations(text_path: Path, id_path: Path, lp: str | None = None) -> int:
    """Write the permuted references that questionnaire items show (rated or not yet), of the
    language pair `lp` or of all, one sentence per line, to `text_path` for an outside parser,
    and the id of each line's permutation to `id_path` (`ids_path` of the text file, where the
    import looks for it); returns how many.

    Each line is the permutation's words separated by single spaces: its text in a language
    written with spaces, and in one written without them the generator's words, so a parser
    told the text is tokenised keeps them."""
    permutations = Permutation.objects.filter(item__isnull=False)
    if lp is not None:
        source, _, target = lp.partition("-")
        codes = language(source), language(target)
        if None in codes:
            raise ValueError(f"--lp {lp!r} is not a language pair of ISO 639 codes, e.g. en-cs")
        permutations = permutations.filter(
            triple__corpus__source_lang=codes[0], triple__corpus__target_lang=codes[1]
        )
    rows = list(permutations.order_by("pk").values_list("pk", "tokens"))
    if not rows:
        into = f" of {lp}" if lp else ""
        raise ValueError(f"no questionnaire item shows a permutation{into}; nothing written")
    text_path.write_text("".join(f"{' '.join(tokens)}\n" for _, tokens in rows), encoding="utf-8")
    id_path.write_text("".join(f"{pk}\n" for pk, _ in rows), encoding="utf-8")
    return len(rows)


def import_permutation_parses(path: Path, ids: Path, parser: str = "conllu") -> ImportReport:
    """CoNLL-U parses of permuted references from an outside parser, one sentence per line of
    the `ids` file `write_permutations` wrote, in order. Each sentence's tokens must spell its
    permutation's words (a parser may split a word, never join two); all are checked before
    any is saved, and they replace the permutations' stored parses."""
    numbers = _read_ids(ids)
    parses = _read_conllu_file(path, parser)
    if len(parses) != len(numbers):
        raise InputError(
            path, f"has {len(parses)} sentences but {ids} names {len(numbers)} permutations"
        )
    found = Permutation.objects.in_bulk(list(numbers))
    for pk, line in numbers.items():
        if pk not in found:
            raise InputError(ids, f"there is no permutation {pk}", line, "permutation id")
    permutations = []
    for number, (pk, parse) in enumerate(zip(numbers, parses, strict=True), start=1):
        permutation = found[pk]
        try:
            align_words(permutation.tokens, parse.tokens)
        except ValueError as error:
            raise InputError(
                path, f"sentence {number} (permutation {pk}): {error}", field="FORM"
            ) from None
        permutation.parse, permutation.parser = parse.to_dict(), parse.parser
        permutations.append(permutation)
    with transaction.atomic():
        Permutation.objects.bulk_update(permutations, ["parse", "parser"], batch_size=PARSE_CHUNK)
    report = ImportReport()
    report.created["permutations given a parse"] = len(permutations)
    return report


def _read_ids(path: Path) -> dict[int, int]:
    """The permutation ids of an ids file, in order, each with its line number."""
    numbers: dict[int, int] = {}
    for line, value in enumerate(read_lines(path), start=1):
        pk = parse_number(value.strip(), path, line, "permutation id", int, 1, MAX_ID)
        if pk in numbers:
            raise InputError(
                path,
                f"permutation {pk} is listed twice (first on line {numbers[pk]})",
                line,
                "permutation id",
            )
        numbers[pk] = line
    if not numbers:
        raise InputError(path, "is empty")
    return numbers
