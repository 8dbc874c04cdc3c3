"""The parallel driver: tidy rows, provenance, selection, progress, and jobs > 1."""

from wojdb.core.language.nlp import Parse
from wojdb.core.metrics.alignment import WordAlignment
from wojdb.core.metrics.compute import PairInput, compute_many, score_rows
from wojdb.core.metrics.registry import METRICS, score_pair


def _parse(text, parser="parser-x"):
    tokens = tuple(text.split(" "))
    n = len(tokens)
    heads = (-1,) + (0,) * (n - 1)
    return Parse(tokens, ("X",) * n, ("X",) * n, heads, ("dep",) * n, parser)


PAIRS = [
    PairInput(("item", 1), _parse("the mat sat on the cat"), _parse("the cat sat on the mat")),
    PairInput(("item", 2), _parse("there I spoke to him"), _parse("I spoke to him there")),
    PairInput(
        ("item", 3),
        _parse("it was done then"),
        _parse("then was it done"),
        WordAlignment(((0, 2), (1, 1), (2, 3), (3, 0)), 4, 4, "giza++"),
    ),
]


def test_rows_match_score_pair_and_record_provenance():
    rows = compute_many(PAIRS)
    assert len(rows) == len(PAIRS) * len(METRICS)
    by_key = {(row.key, row.name, row.variant): row for row in rows}
    for pair in PAIRS:
        for (name, variant), score in score_pair(pair.hyp, pair.ref, pair.alignment).items():
            assert by_key[(pair.key, name, variant)].score == score
    dted = by_key[(("item", 3), "dted", "co")]
    assert (dted.parser, dted.aligner) == ("parser-x", "giza++")
    flat = by_key[(("item", 3), "dted", "fco")]
    assert (flat.parser, flat.aligner) == ("", "giza++")
    kendall = by_key[(("item", 1), "kendall", "paper")]
    assert (kendall.parser, kendall.aligner) == ("", "woj-monolingual/exact+stem")
    bleu = by_key[(("item", 1), "bleu", "sacrebleu")]
    assert (bleu.parser, bleu.aligner) == ("", "")
    assert bleu.version.startswith("nrefs:1|")


def test_selection_order_and_progress():
    seen = []
    rows = compute_many(PAIRS, metrics=["derp", "bleu"], progress=seen.append)
    assert sum(seen) == len(PAIRS)
    assert [(row.key[1], row.name, row.variant) for row in rows[:3]] == [
        (1, "derp", "structured"),
        (1, "derp", "f"),
        (1, "bleu", "sacrebleu"),
    ]


def test_two_workers_give_the_same_rows():
    pairs = PAIRS * 30  # several chunks
    assert compute_many(pairs, jobs=2) == compute_many(pairs, jobs=1)


def test_score_rows_of_one_pair():
    rows = score_rows(PAIRS[2], [("derp", "f")])
    assert len(rows) == 1
    assert rows[0].aligner == "giza++"
    assert 0.0 <= rows[0].score <= 1.0
