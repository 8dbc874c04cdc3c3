"""Document ids of stored test sets: which document each segment belongs to."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from django.db import connection, transaction

from survey.models import (
    Segment,
)
from survey.sources.testsets import testset_for
from wojdb.core.formats import wmt
from wojdb.core.io import ImportReport, InputError


def import_documents(paths: Iterable[Path], *, testset: str | None = None) -> ImportReport:
    """Document ids of each line (`TESTSET.LP.docids`) into the test set's segments."""
    files = [(path, wmt.read_documents(path, testset)) for path in paths]
    report, updates = ImportReport(), []
    for path, docs in files:
        ts = testset_for(docs.testset, docs.source_lang, docs.target_lang, path)
        segments = list(
            Segment.objects.filter(
                testset=ts, source_lang=docs.source_lang, target_lang=docs.target_lang
            ).values_list("pk", "number", "document")
        )
        count = max(number for _, number, _ in segments)
        if count != len(docs.ids):
            raise InputError(
                path, f"has {len(docs.ids)} lines but {ts} {docs.source_lang}-{docs.target_lang} "
                f"has {count} sentences",
            )  # fmt: skip
        for pk, number, document in segments:
            new = docs.ids[number - 1]
            if document and document != new:
                raise InputError(
                    path, f"gives {new!r}, but the sentence already belongs to {document!r}",
                    line=number,
                )  # fmt: skip
            if not document:
                updates.append((new, pk))
    with transaction.atomic(), connection.cursor() as cursor:
        column = Segment._meta.get_field("document").column
        cursor.executemany(
            f"UPDATE {Segment._meta.db_table} SET {column} = %s WHERE id = %s", updates
        )
    report.created["segments given a document id"] = len(updates)
    return report
