import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from analysis.metrics.alignment import (
    AlignmentFormatError,
    alignment_permutation,
    format_links,
    parse_links,
)
from analysis.metrics.registry import (
    BY_KEY,
    PairContext,
    score_context,
    score_permutation,
    select,
)
from survey.nlp import parse_texts, read_conllu
from survey.wmt import read_input


class Command(BaseCommand):
    help = (
        "Print every built-in metric for one hypothesis/reference pair (--hyp and --ref, parsed "
        "with the pipeline WOJDB_SPACY_PIPELINE, or --conllu with the two sentences parsed "
        "already, hypothesis first), or every permutation metric for one 1-based permutation "
        "(--permutation 2,4,1,3). The pair is aligned by the built-in aligner unless --alignment "
        "gives 'i-j' links (0-based, hypothesis index first, over the parser's tokens)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--hyp", help="the hypothesis (machine translation)")
        parser.add_argument("--ref", help="the reference (human translation)")
        parser.add_argument("--conllu", help="a CoNLL-U file: the hypothesis, then the reference")
        parser.add_argument("--alignment", help="'i-j' links, e.g. '0-0 1-2 2-1'")
        parser.add_argument("--permutation", help="a 1-based permutation, e.g. 2,4,1,3")
        parser.add_argument(
            "--metrics", nargs="+", metavar="NAME[:VARIANT]", help="only these metrics"
        )
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, hyp, ref, conllu, alignment, permutation, metrics, **options):
        pair = hyp is not None or ref is not None or conllu is not None
        if permutation is not None and (pair or alignment is not None):
            raise CommandError("give --permutation or a sentence pair, not both")
        try:
            if permutation is not None:
                report = self.permutation_report(permutation, metrics)
            elif pair:
                report = self.pair_report(hyp, ref, conllu, alignment, metrics)
            else:
                raise CommandError("give --hyp and --ref, --conllu, or --permutation")
        except (ValueError, OSError) as error:
            raise CommandError(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(self.text(report))

    def permutation_report(self, text: str, metrics) -> dict:
        try:
            values = [int(value) for value in text.split(",")]
        except ValueError:
            raise ValueError(
                f"--permutation must be comma-separated integers, not {text!r}"
            ) from None
        return {"permutation": values, "scores": self.rows(score_permutation(values, metrics))}

    def pair_report(self, hyp, ref, conllu, links, metrics) -> dict:
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
        elif hyp is None or ref is None:
            raise ValueError("give both --hyp and --ref")
        else:
            parses = list(parse_texts([hyp, ref], settings.WOJDB_SPACY_PIPELINE))
        hyp_parse, ref_parse = parses
        alignment = None
        if links is not None:
            try:
                alignment = parse_links(links, len(hyp_parse), len(ref_parse), aligner="given")
            except AlignmentFormatError as error:
                raise ValueError(f"--alignment: {error}") from None
        context = PairContext(hyp_parse, ref_parse, alignment)
        return {
            "hypothesis": list(hyp_parse.tokens),
            "reference": list(ref_parse.tokens),
            "parser": context.parser,
            "aligner": context.alignment.aligner,
            "alignment": format_links(context.alignment),
            "permutation": list(alignment_permutation(context.alignment)),
            "scores": self.rows(score_context(context, select(metrics))),
        }

    @staticmethod
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

    @staticmethod
    def text(report: dict) -> str:
        lines = []
        for field in ("hypothesis", "reference"):
            if field in report:
                lines.append(f"{field}: {' '.join(report[field])}")
        for field in ("parser", "aligner", "alignment"):
            if field in report:
                lines.append(f"{field}: {report[field]}")
        lines.append(f"permutation: {','.join(map(str, report['permutation']))}")
        width = max(len(f"{row['name']}:{row['variant']}") for row in report["scores"])
        for row in report["scores"]:
            direction = "" if row["higher_is_better"] else "  (lower is better)"
            label = f"{row['name']}:{row['variant']}"
            lines.append(f"  {label:<{width}}  {row['score']:.4f}{direction}")
        return "\n".join(lines)
