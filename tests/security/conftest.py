import pytest


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Staff logins here test lockout and access, not hashing strength."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
