"""Tests of data migrations: the database taken back to a migration and forward again."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    """Migrate to `targets` and return the app registry of that state."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def at_migration(targets):
    """A fixture: the database at `targets` (its app registry given to the test), brought to
    the latest migrations afterwards."""

    @pytest.fixture
    def at(transactional_db):
        yield migrate(targets)
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    return at
