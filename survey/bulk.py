"""Rows written in bulk without model instances, where imports and builds write tens of
thousands at once."""

from __future__ import annotations

from operator import itemgetter

from django.db import connection, models
from django.utils import timezone

BATCH = 5000  # rows a statement


def insert_rows(model, rows: list[dict]) -> None:
    """INSERT rows (attribute name → value; the fields not given take their defaults, the
    time of creation now) with one executemany per batch. Django's bulk_create spends most of
    an import building model instances and SQL for hundreds of thousands of rows."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    quote = connection.ops.quote_name
    sql = (
        f"INSERT INTO {quote(model._meta.db_table)} "
        f"({', '.join(quote(f.column) for f in fields)}) VALUES ({', '.join(['%s'] * len(fields))})"
    )
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    defaults = {
        f.attname: now if getattr(f, "auto_now_add", False) else f.get_default() for f in fields
    }
    # JSON as the field stores it (None is SQL NULL, as Django saves it).
    json = {f.attname: f.encoder for f in fields if isinstance(f, models.JSONField)}
    adapt = connection.ops.adapt_json_value
    values = itemgetter(*defaults)  # one tuple per row, built in C
    with connection.cursor() as cursor:
        for start in range(0, len(rows), BATCH):
            batch = [{**defaults, **row} for row in rows[start : start + BATCH]]
            for row in batch:
                for name, encoder in json.items():
                    if row[name] is not None:
                        row[name] = adapt(row[name], encoder)
            cursor.executemany(sql, [values(row) for row in batch])
