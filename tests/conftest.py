import pytest
from django.conf import settings


def pytest_configure(config):
    # Tests render templates without running collectstatic first.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture
def study(db):
    from tests.factories import make_study

    return make_study()
