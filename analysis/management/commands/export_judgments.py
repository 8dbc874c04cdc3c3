"""Imported human judgments as CSV: per rater, or per segment as the system tables use them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.management.base import BaseCommand

from survey.management.reporting import refused
from wojdb.arguments import output_file
from wojdb.core.vocabulary import EXTERNAL_SOURCES

if TYPE_CHECKING:
    import pandas as pd

PER = ("rater", "segment")
TEXT = {"source", "testset", "lp", "file", "format", "kind", "system", "document", "rater",
        "item_type"}  # fmt: skip


class Command(BaseCommand):
    help = (
        "Write the imported human judgments as CSV. --per rater (default): one row per "
        "judgment as imported (WMT DA, Appraise, MQM, ESA): testset, lp, file, format, kind, "
        "system as in the file, segment_id and document as published, line (the test-set line, "
        "where linked to a sentence), rater, item_type, score, seconds, document_score and "
        "errors (the errors marked). --per segment: one row per system and segment of each "
        "source as system_scores averages them: source, testset, lp, system, segment_id, "
        "document, score (DA: Z.SCR; MQM: minus the error weights, the mean over raters; ESA: "
        "0-100, the mean over raters), raw (DA: RAW.SCR) and judgments (averaged). --source "
        "keeps da (WMT DA), mqm or esa. Text cells a spreadsheet would read as a formula start "
        "with '. Nothing to export is an error."
    )

    def add_arguments(self, parser):
        parser.add_argument("--out", type=output_file, required=True, help="CSV file to write")
        parser.add_argument("--per", choices=PER, default="rater", help="default: rater")
        parser.add_argument("--source", nargs="+", choices=EXTERNAL_SOURCES)
        parser.add_argument("--testset", help="only judgments imported for this test set")
        parser.add_argument("--lp", nargs="+", help="language pairs, e.g. de-en cs-en")

    def handle(self, out, per, source, testset, lp, **options):
        from analysis import frames
        from wojdb.core.spreadsheet import escape_text

        if per == "rater":
            table = frames.judgments_export(source, testset, lp)
        else:
            parts = [
                frames.external_segments(name, testset, lp).assign(source=name)
                for name in source or EXTERNAL_SOURCES
            ]
            table = segment_table([p for p in parts if not p.empty])
        if table.empty:
            raise refused(
                "No imported judgments"
                + (f" of {', '.join(source)}" if source else "")
                + (f" of test set {testset!r}" if testset else "")
                + (f" for {', '.join(lp)}" if lp else "")
                + ". Nothing was written."
            )
        for column in TEXT.intersection(table.columns):
            table[column] = escape_text(table[column].astype("string"))
        out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(out, index=False)
        if options["verbosity"]:
            self.stdout.write(f"{len(table):,} rows written to {out}")


def segment_table(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The segment frames of the sources, in the export's columns."""
    import pandas as pd

    from wojdb.core.stats import system

    columns = [
        "source", system.TESTSET, system.LP, system.SYSTEM, "segment_id", system.DOCUMENT,
        system.SCORE, system.RAW, "judgments",
    ]  # fmt: skip
    if not parts:
        return pd.DataFrame(columns=columns)
    table = pd.concat(parts, ignore_index=True).rename(columns={system.SEGMENT: "segment_id"})
    return table.reindex(columns=columns)
