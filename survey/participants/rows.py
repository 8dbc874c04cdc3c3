"""Plain SQL for the participant's requests: model instances from a query, converted as the
ORM converts them, and updates of a row.

The ORM took longer to write these statements than the database to run them: `Manager.raw`
works out again at every query which of the model's fields each column is and how the
database's values convert (0.15 ms of the 0.19 ms a participant's lookup took on SQLite), where
a `Query` works it out once per connection; `QuerySet.update` compiled its statement in 0.3 ms.
"""

from __future__ import annotations

from django.db import connections


class Query:
    """A query of one model's columns (`SELECT t.*`), and possibly more: the extra columns
    are set as attributes, unconverted, as `Manager.raw` sets them. `joined` is
    (attribute, model, prefix): a second model's columns, each named with the prefix
    (`r.id AS r__id`), made into an instance set as that attribute, None where no row was
    joined (its id is NULL)."""

    def __init__(self, model, sql: str, joined: tuple[str, type, str] | None = None):
        self.model, self.sql, self.joined = model, sql, joined
        self._plans: dict[str, tuple] = {}

    def first(self, params, using: str = "default"):
        """The first row's instance, or None."""
        connection = connections[using]
        with connection.cursor() as cursor:
            cursor.execute(self.sql, params)
            row = cursor.fetchone()
            if row is None:
                return None
            plan = self._plans.get(using) or self._plan(cursor.description, connection)
        (names, positions), joined, extra, converters = plan
        row = list(row)
        for index, functions, expression in converters:
            value = row[index]
            for function in functions:
                value = function(value, expression, connection)
            row[index] = value
        instance = self.model.from_db(using, names, [row[i] for i in positions])
        for name, index in extra:
            setattr(instance, name, row[index])
        if self.joined:
            attribute, model, _ = self.joined
            joined_names, joined_positions = joined
            values = [row[i] for i in joined_positions]
            found = values[joined_names.index(model._meta.pk.attname)] is not None
            setattr(
                instance, attribute, model.from_db(using, joined_names, values) if found else None
            )
        return instance

    def _plan(self, description, connection) -> tuple:
        """Which column goes to which field of the model (and of the joined one), in the
        model's order (as `Model.from_db` takes them, whatever the table's), the columns left
        over, and each column's conversions."""
        columns = {column[0]: index for index, column in enumerate(description)}
        converters = []

        def fields_of(model, prefix: str) -> tuple[list[str], list[int]]:
            names, positions = [], []
            for field in model._meta.concrete_fields:
                index = columns.pop(prefix + field.column, None)
                if index is None:
                    continue
                names.append(field.attname)
                positions.append(index)
                expression = field.get_col(model._meta.db_table)
                functions = connection.ops.get_db_converters(expression)
                functions += expression.get_db_converters(connection)
                if functions:
                    converters.append((index, functions, expression))
            return names, positions

        own = fields_of(self.model, "")
        joined = fields_of(*self.joined[1:]) if self.joined else None
        plan = (own, joined, list(columns.items()), converters)
        self._plans[connection.alias] = plan
        return plan


def update(
    model, pk: int, changes: dict, using: str = "default", unless_changed: dict | None = None
) -> bool:
    """`model.objects.filter(pk=pk).update(**changes)` for plain values, without compiling;
    with `unless_changed`, only where those fields still hold those values. Whether a row was
    written."""
    connection = connections[using]
    quote = connection.ops.quote_name
    fields = {model._meta.get_field(name): value for name, value in changes.items()}
    columns = ", ".join(f"{quote(field.column)} = %s" for field in fields)
    values = [field.get_db_prep_save(value, connection) for field, value in fields.items()]
    where, params = ["id = %s"], [pk]
    for name, value in (unless_changed or {}).items():
        field = model._meta.get_field(name)
        if value is None:  # `= NULL` is never true
            where.append(f"{quote(field.column)} IS NULL")
        else:
            where.append(f"{quote(field.column)} = %s")
            params.append(field.get_db_prep_save(value, connection))
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {columns} WHERE {' AND '.join(where)}", [*values, *params]
        )
        return cursor.rowcount == 1
