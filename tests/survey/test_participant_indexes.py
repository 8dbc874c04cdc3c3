"""The participant's and the rating's tables keep no index another covers: a participant's every
move and every answer writes each index of their rows, so an index whose columns begin another's
(or, on PostgreSQL, the LIKE index Django adds beside a unique or indexed text column) costs each
of those writes and saves no read. Checked on the database the suite runs on."""

from __future__ import annotations

import pytest
from django.db import connection

from survey.models import Participant, Rating


@pytest.mark.django_db
@pytest.mark.parametrize("model", [Participant, Rating], ids=lambda model: model.__name__)
def test_no_index_is_covered_by_another(model):
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, model._meta.db_table)
    indexed = {
        name: tuple(about["columns"])
        for name, about in found.items()
        if about["index"] or about["unique"] or about["primary_key"]
    }
    assert ("token",) in indexed.values() or model is Rating  # the personal link's lookup
    for name, columns in indexed.items():
        if found[name]["unique"] or found[name]["primary_key"]:
            continue  # a constraint, whatever else reads its columns
        covering = [
            other
            for other, by in indexed.items()
            if other != name and by[: len(columns)] == columns
        ]
        assert not covering, f"{name} {columns} is covered by {covering}"
