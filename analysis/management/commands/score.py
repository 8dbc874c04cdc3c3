import json

from django.core.management.base import BaseCommand

from survey.management.reporting import refused


class Command(BaseCommand):
    help = (
        "Print every built-in metric for one hypothesis/reference pair (--hyp and --ref, parsed "
        "with the pipeline of --language, or --conllu with the two sentences parsed "
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
        parser.add_argument(
            "--language",
            default="en",
            help="the pair's language (ISO 639): its pipeline and BLEU tokeniser (default: en)",
        )
        parser.add_argument("--json", action="store_true", help="print JSON")

    def handle(self, hyp, ref, conllu, alignment, permutation, metrics, language, **options):
        from survey.sources.parses import target_rules
        from wojdb.core.metrics.pair_report import pair_report, permutation_report, text

        pair = hyp is not None or ref is not None or conllu is not None
        if permutation is not None and (pair or alignment is not None):
            raise refused("give --permutation or a sentence pair, not both")
        try:
            if permutation is not None:
                report = permutation_report(permutation, metrics)
            elif pair:
                report = pair_report(hyp, ref, conllu, alignment, metrics, target_rules(language))
            else:
                raise refused("give --hyp and --ref, --conllu, or --permutation")
        except (ValueError, OSError) as error:
            raise refused(str(error)) from None
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(text(report))
