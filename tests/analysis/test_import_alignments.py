"""import_alignments: the pairs out for an external aligner, its `i-j` file back in, and
compute_metrics --aligner scoring with it; bad files change nothing and say where they are bad."""

import gzip
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from analysis.alignments_import import pairs_table
from analysis.management.commands.import_alignments import Command
from analysis.models import Alignment, Metric, MetricScore
from survey.models import Item, Participant, Rating, Triple
from wojdb.core.language.nlp import Parse

pytestmark = pytest.mark.django_db


@pytest.fixture
def rated(study):
    """Every item of the study's first questionnaire, rated by one participant."""
    questionnaire = study.questionnaires.get(number=1)
    participant = Participant.objects.create(study=study, questionnaire=questionnaire)
    for entry in questionnaire.entries.all():
        Rating.objects.create(
            participant=participant, item=entry.item, position=entry.position, holistic=3, order=4
        )
    return [entry.item for entry in questionnaire.entries.filter(item__permutation=None)]


@pytest.fixture
def pairs(rated, tmp_path) -> Path:
    path = tmp_path / "pairs.tsv"
    call_command("import_alignments", "--write-pairs", str(path), verbosity=0)
    return path


def read_rows(path: Path) -> list[list[str]]:
    header, *rows = path.read_text().splitlines()
    assert header == "item_id\thypothesis\treference"
    return [row.split("\t") for row in rows]


def reversed_links(row: list[str]) -> str:
    """Hypothesis word i to reference word m-1-i, for the first m = min(lengths) words."""
    m = min(len(row[1].split()), len(row[2].split()))
    return " ".join(f"{i}-{m - 1 - i}" for i in range(m))


def write(path: Path, lines: list[str]) -> Path:
    text = "".join(line + "\n" for line in lines)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def run(*args) -> str:
    out = StringIO()
    call_command("import_alignments", *map(str, args), stdout=out, verbosity=1)
    return out.getvalue()


def import_reversed(pairs: Path, aligner: str = "fast_align") -> Path:
    alignments = write(pairs.parent / "forward.align", map(reversed_links, read_rows(pairs)))
    run(alignments, "--pairs", pairs, "--aligner", aligner)
    return alignments


def stored() -> list[tuple]:
    return list(Alignment.objects.order_by("pk").values_list("triple_id", "aligner", "pairs"))


def test_pairs_are_the_stored_tokens_of_every_hypothesis_item(pairs):
    rows = read_rows(pairs)
    items = Item.objects.filter(permutation=None).order_by("pk")
    assert [int(row[0]) for row in rows] == [item.pk for item in items]
    for row, item in zip(rows, items, strict=True):
        # Parses were missing: they are made and kept, and the pairs hold their tokens.
        assert row[1].split() == item.triple.parse["tokens"]
        assert row[2].split() == item.triple.segment.parse["tokens"]


def test_imported_alignments_are_stored_and_used_by_compute_metrics(pairs, rated, tmp_path):
    rows = read_rows(pairs)
    alignments = write(tmp_path / "forward.align.gz", [reversed_links(row) for row in rows])
    output = run(alignments, "--pairs", pairs, "--aligner", "fast_align")
    assert "alignments: 5" in output
    for row in rows:
        triple = Item.objects.get(pk=row[0]).triple
        links = triple.alignments.get(aligner="fast_align").pairs
        assert " ".join(f"{h}-{r}" for h, r in links) == " ".join(
            sorted(reversed_links(row).split(), key=lambda link: tuple(map(int, link.split("-"))))
        )
    for aligner in ([], ["--aligner", "fast_align"]):
        metrics = ["--metrics", "aligned_pct", "kendall"]
        call_command("compute_metrics", "--jobs", "1", *aligner, *metrics, verbosity=0)

    def score(item, name, aligner):
        return MetricScore.objects.get(
            item=item, metric__name=name, metric__config__startswith=f"aligner={aligner}; version="
        ).score

    for item in rated:
        hyp, ref = len(item.triple.parse["tokens"]), len(item.triple.segment.parse["tokens"])
        m = min(hyp, ref)
        assert score(item, "aligned_pct", "fast_align") == pytest.approx(2 * m / (hyp + ref))
        # Every imported pair of links is inverted; the built-in aligner keeps the word order.
        assert score(item, "kendall", "fast_align") == 0
        assert score(item, "kendall", "woj-monolingual/exact+stem") > 0


def test_a_re_import_replaces_the_alignments_it_names(pairs, tmp_path):
    import_reversed(pairs)
    import_reversed(pairs, aligner="giza++")
    first = stored()
    rows = read_rows(pairs)
    alignments = write(tmp_path / "again.align", ["0-0"] + [reversed_links(r) for r in rows[1:]])
    output = run(alignments, "--pairs", pairs, "--aligner", "fast_align")
    assert "5 stored alignment(s) of 'fast_align' were replaced" in output
    assert "Scores already computed" not in output
    assert Alignment.objects.count() == len(first) == 10
    changed = Triple.objects.get(items__pk=rows[0][0]).alignments.get(aligner="fast_align")
    assert changed.pairs == [[0, 0]]
    assert stored()[1:] == first[1:]  # the other alignments, and the other aligner's, are kept


def test_a_re_import_after_scoring_says_the_scores_are_kept(pairs, rated):
    alignments = import_reversed(pairs)
    options = ["--aligner", "fast_align", "--metrics", "kendall"]
    call_command("compute_metrics", "--jobs", "1", *options, verbosity=0)
    output = run(alignments, "--pairs", pairs, "--aligner", "fast_align")
    assert "Scores already computed with aligner=fast_align are kept" in output


def test_a_list_of_item_ids_is_enough_and_unknown_items_are_counted(pairs, tmp_path):
    row = read_rows(pairs)[0]
    ids = write(tmp_path / "ids.tsv", ["item_id", "999998", row[0], "999999"])
    alignments = write(tmp_path / "a.align", ["0-0", "1-0 0-1", "5-5"])
    output = run(alignments, "--pairs", ids, "--aligner", "cdec")
    assert "alignments: 1" in output
    assert "ids.tsv: item ids not in the database: 2" in output
    assert [a.pairs for a in Alignment.objects.all()] == [[[0, 1], [1, 0]]]


def missing_line(rows, links):
    links.pop()


def extra_line(rows, links):
    links.append("0-0")


def hypothesis_out_of_range(rows, links):
    links[1] = f"0-0 {len(rows[1][1].split())}-0"


def reference_out_of_range(rows, links):
    links[1] = f"0-{len(rows[1][2].split())}"


def malformed_link(rows, links):
    links[0] = "0-0 0:1"


def link_twice(rows, links):
    links[2] = "1-1 1-1"


def malformed_link_of_an_unknown_item(rows, links):
    rows[3][0] = "999999"
    links[3] = "0-x"


def item_twice(rows, links):
    rows[2][0] = rows[0][0]


def item_not_a_number(rows, links):
    rows[0][0] = "first"


def permuted_reference(rows, links):
    rows[0][0] = str(Item.objects.exclude(permutation=None).first().pk)


def other_tokens(rows, links):
    rows[1][2] = rows[1][2].upper()


def no_stored_parse(rows, links):
    Triple.objects.filter(items__pk=rows[1][0]).update(parse=None)


def missing_column(rows, links):
    rows[1].pop()


BAD = [
    (missing_line, r"forward\.align, line 5: missing: pairs\.tsv lists 5 pair\(s\), the "),
    (extra_line, r"forward\.align, line 6: more lines than pairs"),
    (
        hypothesis_out_of_range,
        r"forward\.align, line 2: '\d+-0': hypothesis index out of range for \d+ words "
        r"\(item \d+, pairs line 3\)",
    ),
    (reference_out_of_range, r"forward\.align, line 2: '0-\d+': reference index out of range"),
    (malformed_link, r"forward\.align, line 1: '0:1' is not a link of the form i-j"),
    (link_twice, r"forward\.align, line 3: '1-1' is listed twice"),
    (malformed_link_of_an_unknown_item, r"forward\.align, line 4: '0-x' .*\(an unknown item"),
    (item_twice, r"pairs\.tsv, line 4, field item_id: item \d+ is listed twice \(first on line 2"),
    (item_not_a_number, r"pairs\.tsv, line 2, field item_id: 'first' is not a whole number"),
    (permuted_reference, r"pairs\.tsv, line 2, field item_id: item \d+ is a permuted reference"),
    (other_tokens, r"pairs\.tsv, line 3, field reference: the tokens differ from the stored"),
    (no_stored_parse, r"pairs\.tsv, line 3, field item_id: the hypothesis of item \d+ has no"),
    (missing_column, r"pairs\.tsv, line 3: expected 3 tab-separated columns, found 2"),
]


@pytest.mark.parametrize("edit, message", BAD, ids=[edit.__name__ for edit, _ in BAD])
def test_bad_input_is_refused_by_file_and_line_and_nothing_is_written(pairs, edit, message):
    import_reversed(pairs)
    before = stored()
    rows = read_rows(pairs)
    links = [reversed_links(row) for row in rows]
    edit(rows, links)
    bad_pairs = write(pairs, ["item_id\thypothesis\treference", *map("\t".join, rows)])
    alignments = write(pairs.parent / "forward.align", links)
    with pytest.raises(CommandError, match=message) as raised:
        run(alignments, "--pairs", bad_pairs, "--aligner", "fast_align")
    assert str(raised.value).endswith("Nothing was written.")
    assert stored() == before
    assert not Metric.objects.exists()


@pytest.mark.parametrize(
    "content, message",
    [
        (b"not gzip", ": is not a readable gzip file"),
        (gzip.compress(b""), ": is empty"),
        (gzip.compress(b"hypothesis\treference\n"), ", line 1: missing column item_id"),
    ],
    ids=["not gzip", "empty", "no item_id"],
)
def test_unreadable_pairs_files(pairs, tmp_path, content, message):
    bad = tmp_path / "keys.tsv.gz"
    bad.write_bytes(content)
    alignments = write(tmp_path / "a.align", ["0-0"])
    with pytest.raises(CommandError, match=re.escape(f"keys.tsv.gz{message}")):
        run(alignments, "--pairs", bad, "--aligner", "fast_align")
    assert not Alignment.objects.exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["a.align", "--pairs", "p.tsv"], "give the alignment file, --pairs and --aligner"),
        (["--pairs", "p.tsv", "--aligner", "x"], "give the alignment file, --pairs and"),
        (["--write-pairs", "p.tsv", "--aligner", "x"], "--write-pairs takes no other argument"),
        (["a.align", "--pairs", "p.tsv", "--aligner", " "], "--aligner: the aligner name is empty"),
        (["a.align", "--pairs", "p.tsv", "--aligner", "x" * 101], "longer than 100 characters"),
        (
            ["a.align", "--pairs", "p.tsv", "--aligner", "woj-monolingual/exact+stem"],
            "is the name of a built-in alignment",
        ),
    ],
)
def test_bad_options(db, args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        run(*args)


def test_missing_files_and_no_items(db, tmp_path):
    with pytest.raises(CommandError, match="no hypothesis items yet"):
        run("--write-pairs", tmp_path / "pairs.tsv")
    with pytest.raises(CommandError, match="none.align: does not exist\nNothing was written"):
        run(tmp_path / "none.align", "--pairs", tmp_path / "none.tsv", "--aligner", "x")


def test_tokens_an_aligner_would_split_are_refused():
    def parse(*tokens):
        n = len(tokens)
        return Parse(tokens, ("X",) * n, ("X",) * n, (-1, *[0] * (n - 1)), ("dep",) * n)

    assert pairs_table([(7, parse("a", "b"), parse("b"))]) == (
        "item_id\thypothesis\treference\n7\ta b\tb\n"
    )
    with pytest.raises(ValueError, match="item 7: a token of the reference is empty or holds"):
        pairs_table([(7, parse("a"), parse("b", "1 000"))])


def test_help_names_the_options_and_the_format():
    text = Command().create_parser("manage.py", "import_alignments").format_help()
    for words in ("--pairs", "--aligner", "--write-pairs", "hypothesis index first", "0-based"):
        assert words in " ".join(text.split())
