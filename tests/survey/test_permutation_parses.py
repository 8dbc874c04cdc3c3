"""Permuted references of a language without a spaCy pipeline, scored through an outside
parser's CoNLL-U: their texts written out (import_parses --write-permutations), the parses
imported back (--permutations) and used by compute_metrics.

References and hypotheses are sentences of the PUD treebanks in tests/core/data, imported as
their gold CoNLL-U. The permutations' CoNLL-U stands in for an outside parser's output: it is
built here from each permutation's words and its reference's word tree carried through the
permutation's `mapping`. What is under test is the round trip and the scoring."""

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from analysis.models import MetricScore
from survey.models import (
    Item,
    Participant,
    Permutation,
    Questionnaire,
    QuestionnaireEntry,
    Rating,
    Segment,
    Study,
)
from tests.factories import FILLED_SETTINGS
from tests.survey.test_target_languages import make_pool, text_of
from wojdb.core.language.nlp import Parse
from wojdb.core.language.rules import rules_for
from wojdb.core.permutations import Sentence

DATA = Path(__file__).resolve().parents[1] / "core" / "data"
PARSER = "udpipe-test"
PERMUTATION_PARSER = "udpipe-permutations"
METRICS = ("kendall", "dted:co", "bleu")
# Permutations put into the questionnaire: every type at these degrees.
DEGREES = (1, 2, 5)


def blocks(treebank: str, first: int, count: int = 4) -> list[str]:
    return (DATA / treebank).read_text().strip().split("\n\n")[first : first + count]


def build(tmp_path, code: str, treebank: str, first: int) -> list[Item]:
    """A pool into `code` with imported parses, its permutations, and one participant's
    ratings of a questionnaire holding every hypothesis and some permutations."""
    sentences = blocks(treebank, first)
    texts = [text_of(block) for block in sentences]
    # Each sentence's hypothesis is the next sentence, parsed in the next file's order.
    make_pool(code, texts, texts[1:] + texts[:1])
    lp = f"en-{code}"
    for name, parses, system in (
        ("references", sentences, None),
        ("hypotheses", sentences[1:] + sentences[:1], "SysA"),
    ):
        path = tmp_path / f"{name}.conllu"
        path.write_text("\n\n".join(parses) + "\n")
        options = {"system": system} if system else {}
        call_command(
            "import_parses",
            str(path),
            testset="newstest2021",
            lp=lp,
            parser=PARSER,
            verbosity=0,
            **options,
        )
    call_command("generate_permutations", types="order,swap,phrase,choice", jobs=1, verbosity=0)
    study = Study.objects.create(name="Study", slug="study", language=code, **FILLED_SETTINGS)
    questionnaire = Questionnaire.objects.create(
        study=study, number=1, seed=1, software_version="test"
    )
    segments = Segment.objects.order_by("number")
    items = [Item.objects.create(triple=segment.triples.get()) for segment in segments]
    items += [
        Item.objects.create(triple=permutation.triple, permutation=permutation)
        for permutation in Permutation.objects.filter(degree__in=DEGREES).order_by("pk")
    ]
    participant = Participant.objects.create(study=study, questionnaire=questionnaire)
    for position, item in enumerate(items, start=1):
        QuestionnaireEntry.objects.create(questionnaire=questionnaire, position=position, item=item)
        Rating.objects.create(
            participant=participant, item=item, position=position, holistic=3, order=3
        )
    return items


def outside_parse(permutation: Permutation) -> str:
    """A CoNLL-U sentence for a permutation, as an outside parser given its words one token
    each would write it: each word hangs from the word now showing its reference word's head,
    taken from the reference's word tree (`Sentence.from_parse` of the imported parse); a word
    from the hypothesis, a word whose head was replaced, or punctuation hangs from the first
    root."""
    segment = permutation.triple.segment
    rules = rules_for(segment.target_lang)
    reference = Sentence.from_parse(Parse.from_dict(segment.parse), segment.reference, rules)
    slot = {word: j for j, word in enumerate(reference.slots)}
    shown_at = {source: i for i, source in enumerate(permutation.mapping) if source >= 0}
    heads, tags = [], []
    for source in permutation.mapping:
        j = slot.get(source)
        head_word = (
            -1 if j is None or reference.heads[j] == -1 else reference.slots[reference.heads[j]]
        )
        heads.append(shown_at.get(head_word, -1))
        tags.append("X" if j is None else reference.tags[j])
    root = heads.index(-1)
    lines = [f"# parser = {PERMUTATION_PARSER}"]
    for i, (word, head, tag) in enumerate(zip(permutation.tokens, heads, tags, strict=True)):
        head = root if head == -1 and i != root else head
        relation = "root" if head == -1 else "dep"
        lines.append(f"{i + 1}\t{word}\t_\t{tag}\t_\t_\t{head + 1}\t{relation}\t_\t_")
    return "\n".join(lines) + "\n"


def write_permutations(path: Path, *options: str) -> str:
    out = StringIO()
    call_command("import_parses", "--write-permutations", str(path), *options, stdout=out)
    return out.getvalue()


def import_permutations(conllu: Path, ids: Path) -> str:
    out = StringIO()
    call_command("import_parses", str(conllu), "--permutations", str(ids), stdout=out)
    return out.getvalue()


def compute_metrics() -> None:
    call_command("compute_metrics", "--jobs", "1", "--metrics", *METRICS, verbosity=0)


def round_trip(tmp_path) -> tuple[list[Permutation], list[str]]:
    """Write the permutations out, parse them as an outside parser would, import the CoNLL-U."""
    text = tmp_path / "perms.txt"
    written = write_permutations(text)
    lines = text.read_text(encoding="utf-8").splitlines()
    ids = [int(line) for line in (tmp_path / "perms.ids").read_text().splitlines()]
    assert f"Wrote {len(lines)} permutation(s) to {text} and their ids to {tmp_path}" in written
    permutations = [Permutation.objects.get(pk=pk) for pk in ids]
    conllu = tmp_path / "perms.conllu"
    conllu.write_text("\n".join(outside_parse(p) for p in permutations))
    report = import_permutations(conllu, tmp_path / "perms.ids")
    assert f"permutations given a parse: {len(permutations)}" in report
    return permutations, lines


@pytest.fixture
def czech(db, tmp_path):
    # The 10th to 13th sentences: the 11th has a multiword token ("aby" = "aby" + "by").
    return build(tmp_path, "cs", "cs_pud-20.conllu", 9)


@pytest.fixture
def chinese(db, tmp_path):
    return build(tmp_path, "zh", "zh_pud-20.conllu", 0)


def test_without_their_parses_permutations_cannot_be_scored_and_the_error_says_how(czech):
    with pytest.raises(
        CommandError,
        match=r"rated permutation\(s\) into 'cs' have no stored parse.*"
        r"import_parses --write-permutations PERMS.txt.*--permutations PERMS.ids",
    ):
        compute_metrics()
    assert not MetricScore.objects.exists()


def test_czech_permutations_round_trip_and_every_item_is_scored(czech, tmp_path):
    permuted = [item for item in czech if item.permutation]
    assert {item.permutation.perm_type for item in permuted} == {
        "order",
        "swap",
        "phrase",
        "choice",
    }
    permutations, lines = round_trip(tmp_path)
    assert [p.pk for p in permutations] == sorted(item.permutation_id for item in permuted)
    # A language written with spaces: each line is the permutation's text.
    assert lines == [p.text for p in permutations]
    for permutation in Permutation.objects.filter(item__isnull=False):
        assert permutation.parser == PERMUTATION_PARSER
        assert permutation.parse["tokens"] == permutation.tokens
    compute_metrics()
    for item in czech:
        scores = MetricScore.objects.filter(item=item).select_related("metric")
        assert {s.metric.name for s in scores} == {"kendall", "dted", "bleu"}
        dted = next(s.metric for s in scores if s.metric.name == "dted")
        # A permutation is parsed by the outside parser, its reference by the imported one.
        if item.permutation:
            expected = f"parser=hypothesis: {PERMUTATION_PARSER}; reference: {PARSER};"
        else:
            expected = f"parser={PARSER};"
        assert dted.config.startswith(expected)


def test_chinese_permutations_are_written_as_their_words_and_scored(chinese, tmp_path):
    permutations, lines = round_trip(tmp_path)
    for permutation, line in zip(permutations, lines, strict=True):
        # Written without spaces, the text is sent as the generator's words.
        assert " " not in permutation.text
        assert line.split() == permutation.tokens
        assert "".join(line.split()) == permutation.text
    compute_metrics()
    assert MetricScore.objects.filter(item__permutation__isnull=False).count() == len(
        permutations
    ) * len(METRICS)


def test_conllu_not_matching_the_permutations_is_refused_and_nothing_written(czech, tmp_path):
    text = tmp_path / "perms.txt"
    write_permutations(text, "--lp", "en-cs")
    ids = tmp_path / "perms.ids"
    permutations = [Permutation.objects.get(pk=int(pk)) for pk in ids.read_text().split()]
    sentences = [outside_parse(p) for p in permutations]
    swapped = tmp_path / "swapped.conllu"
    swapped.write_text("\n".join([sentences[1], sentences[0], *sentences[2:]]))
    with pytest.raises(
        CommandError,
        match=rf"swapped.conllu, field FORM: sentence 1 \(permutation {permutations[0].pk}\): "
        "the parse's tokens do not spell",
    ):
        import_permutations(swapped, ids)
    short = tmp_path / "short.conllu"
    short.write_text("\n".join(sentences[:-1]))
    with pytest.raises(
        CommandError,
        match=rf"short.conllu: has {len(sentences) - 1} sentences but .*perms.ids names "
        rf"{len(sentences)} permutations",
    ):
        import_permutations(short, ids)
    whole = tmp_path / "whole.conllu"
    whole.write_text("\n".join(sentences))
    numbers = [str(p.pk) for p in permutations]
    unknown = tmp_path / "unknown.ids"
    unknown.write_text("\n".join([*numbers[:2], "999999", *numbers[3:]]) + "\n")
    with pytest.raises(
        CommandError, match="unknown.ids, line 3, field permutation id: there is no permutation"
    ):
        import_permutations(whole, unknown)
    twice = tmp_path / "twice.ids"
    twice.write_text("\n".join([numbers[0], numbers[0], *numbers[2:]]) + "\n")
    with pytest.raises(CommandError, match="twice.ids, line 2, .* listed twice"):
        import_permutations(whole, twice)
    # Python's int() reads "0_5" as 5 and "²" not at all: neither is a permutation id.
    for odd in (f"0_{numbers[2]}", "²", "٣"):
        spelled = tmp_path / "spelled.ids"
        spelled.write_text("\n".join([*numbers[:2], odd, *numbers[3:]]) + "\n")
        message = f"spelled.ids, line 3, field permutation id: '{odd}' is not a number"
        with pytest.raises(CommandError, match=message):
            import_permutations(whole, spelled)
    named = tmp_path / "named.conllu"
    long_name = sentences[-1].replace(PERMUTATION_PARSER, "x" * 129)
    named.write_text("\n".join([*sentences[:-1], long_name]))
    with pytest.raises(
        CommandError, match=rf"sentence {len(sentences)}: the parser's name is over 128"
    ):
        import_permutations(named, ids)
    assert not Permutation.objects.filter(parse__isnull=False).exists()


def test_other_pairs_and_mixed_arguments_are_refused(czech, tmp_path):
    with pytest.raises(CommandError, match="no questionnaire item shows a permutation of en-de"):
        write_permutations(tmp_path / "perms.txt", "--lp", "en-de")
    with pytest.raises(CommandError, match="takes no other argument but --lp"):
        write_permutations(tmp_path / "perms.txt", "--testset", "newstest2021")
    assert not (tmp_path / "perms.txt").exists()
    with pytest.raises(CommandError, match="--permutations takes no --testset, --lp or --system"):
        call_command("import_parses", "p.conllu", "--permutations", "p.ids", "--lp", "en-cs")
    with pytest.raises(CommandError, match="give --testset and --lp"):
        call_command("import_parses", "p.conllu", "--lp", "en-cs")
    with pytest.raises(CommandError, match="give FILE.conllu"):
        call_command("import_parses")


@pytest.mark.django_db
def test_the_parsing_progress_names_its_texts_in_the_plural():
    """The bar used to say "parsing hypothesiss"."""
    from survey.sources.parses import no_bars, stored_parses
    from tests.factories import make_triple

    triple = make_triple()
    parse = Parse(("The",), ("DT",), ("DET",), (-1,), ("ROOT",), "test")
    for owner in (triple, triple.segment):
        owner.parse, owner.parser = parse.to_dict(), "test"
        owner.save()
    said = []

    def bars(**options):
        said.append(options["desc"])
        return no_bars()

    stored_parses([triple], bars)
    stored_parses([triple.segment], bars)
    assert said == ["parsing hypotheses", "parsing references"]
