import pytest
from django.conf import settings

from wojdb.catalogues import compile_catalogues


def pytest_configure(config):
    # The pages' translations are built, not kept in the tree (a fresh clone has none).
    compile_catalogues(only_outdated=True)
    # Tests render templates without running collectstatic first; whitenoise still wants the
    # folder it would serve from.
    settings.STATIC_ROOT.mkdir(exist_ok=True)
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def pytest_collection_modifyitems(items):
    """Slow tests run first, so that parallel workers end together rather than one running a
    long test met last while the others wait (the order is otherwise kept). bin/test hands the
    workers one test at a time (--dist load --maxschedchunk 1): handed out in batches, the slow
    tests at the front would all go to the first worker, one after another."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def study(db):
    from tests.factories import make_study

    return make_study()


@pytest.fixture(autouse=True)
def empty_study_cache():
    """Every test starts with nothing kept of an earlier test's studies and questionnaires: a
    rolled-back test's ids are given again to the next one's rows."""
    from survey.participants import study_cache

    study_cache.clear()


@pytest.fixture(autouse=True)
def report_dir(settings, tmp_path):
    """Reports go to the test's own folder: a withdrawal in a test edits stored reports, which
    must never be the checkout's own (var/reports)."""
    settings.WOJDB_REPORTS_DIR = tmp_path / "reports"
    return settings.WOJDB_REPORTS_DIR
