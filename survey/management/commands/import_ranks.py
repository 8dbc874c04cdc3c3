from pathlib import Path

from django.core.management.base import BaseCommand

from survey.management.reporting import clear_errors, print_report
from survey.sources.ranks import import_ranks


class Command(BaseCommand):
    help = (
        "Import WMT relative-ranking judgments, recognised by content: 5-way rankings (CSV: "
        "srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,..., "
        "system5rank) or WMT15-16 pairwise rows (srclang,trglang,srcIndex,segmentId,judgeID,"
        "system1Id,system1rank,system2Id,system2rank,rankingID, grouped back into rankings), "
        "and turn them into absolute "
        "scores by eq. 6.1, score = 1 - (rank - 1)/|S|, merging identical hypotheses; each "
        "triple's score is the mean over the rankings it appears in."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--testset", help="test set to join to, when several hold the pair")

    def handle(self, file, testset, verbosity, **options):
        with clear_errors():
            report = import_ranks(file, testset=testset)
        print_report(self, report, verbosity)
