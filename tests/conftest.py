import pytest


@pytest.fixture
def study(db):
    from tests.factories import make_study

    return make_study()
