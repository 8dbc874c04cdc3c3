"""The `score` command's reports: every built-in metric of one sentence pair or permutation.

Imports nothing from Django.
"""

from __future__ import annotations

from pathlib import Path

from wojdb.core.io import read_input
from wojdb.core.language.nlp import parse_texts, read_conllu
from wojdb.core.language.rules import LanguageRules, metric_tokens, pipeline_for
from wojdb.core.metrics.alignment import (
    AlignmentFormatError,
    alignment_permutation,
    format_links,
    parse_links,
)
from wojdb.core.metrics.registry import (
    BY_KEY,
    PairContext,
    score_context,
    score_permutation,
    select,
)


def permutation_report(text: str, metrics=None) -> dict:
    """Every permutation metric (or those named) of a 1-based permutation like "2,4,1,3"."""
    try:
        values = [int(value) for value in text.split(",")]
    except ValueError:
        raise ValueError(f"--permutation must be comma-separated integers, not {text!r}") from None
    return {"permutation": values, "scores": rows(score_permutation(values, metrics))}


def pair_report(hyp, ref, conllu, links, metrics, rules: LanguageRules) -> dict:
    """Every pair metric (or those named) of a hypothesis and reference in the language of
    `rules`, parsed by its pipeline or read from a CoNLL-U file (hypothesis first); `links` are
    given i-j alignment links. BLEU, chrF and TER count the texts (from CoNLL-U: its tokens
    joined as the language writes words) split by the language's sacreBLEU tokeniser."""
    if conllu is not None:
        if hyp is not None or ref is not None:
            raise ValueError("give --conllu or --hyp and --ref, not both")
        try:
            text = read_input(Path(conllu)).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"{conllu}: bytes are not valid UTF-8 ({e.reason})") from None
        parses = read_conllu(text)
        if len(parses) != 2:
            raise ValueError(f"{conllu} has {len(parses)} sentences; it needs two")
        hyp, ref = (rules.separator.join(parse.tokens) for parse in parses)
    elif hyp is None or ref is None:
        raise ValueError("give both --hyp and --ref")
    else:
        parses = list(parse_texts([hyp, ref], pipeline_for(rules)))
    hyp_parse, ref_parse = parses
    alignment = None
    if links is not None:
        try:
            alignment = parse_links(links, len(hyp_parse), len(ref_parse), aligner="given")
        except AlignmentFormatError as error:
            raise ValueError(f"--alignment: {error}") from None
    words = (metric_tokens(hyp, rules), metric_tokens(ref, rules))
    context = PairContext(hyp_parse, ref_parse, alignment, words)
    return {
        "language": rules.code,
        "tokenize": rules.bleu_tokenizer,
        "hypothesis": list(hyp_parse.tokens),
        "reference": list(ref_parse.tokens),
        "parser": context.parser,
        "aligner": context.alignment.aligner,
        "alignment": format_links(context.alignment),
        "permutation": list(alignment_permutation(context.alignment)),
        "scores": rows(score_context(context, select(metrics))),
    }


def rows(scores) -> list[dict]:
    return [
        {
            "name": name,
            "variant": variant,
            "score": value,
            "higher_is_better": BY_KEY[name, variant].higher_is_better,
            "version": BY_KEY[name, variant].version,
        }
        for (name, variant), value in scores.items()
    ]


def text(report: dict) -> str:
    """The report as lines for a terminal."""
    lines = []
    for field in ("hypothesis", "reference"):
        if field in report:
            lines.append(f"{field}: {' '.join(report[field])}")
    for field in ("language", "tokenize", "parser", "aligner", "alignment"):
        if field in report:
            lines.append(f"{field}: {report[field]}")
    lines.append(f"permutation: {','.join(map(str, report['permutation']))}")
    width = max(len(f"{row['name']}:{row['variant']}") for row in report["scores"])
    for row in report["scores"]:
        direction = "" if row["higher_is_better"] else "  (lower is better)"
        label = f"{row['name']}:{row['variant']}"
        lines.append(f"  {label:<{width}}  {row['score']:.4f}{direction}")
    return "\n".join(lines)
