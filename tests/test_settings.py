"""Production settings: `check --deploy` passes with the documented environment, and each
variable switches on what docs/deployment.md says it does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The environment docs/deployment.md gives for a site on HTTPS behind one load balancer.
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "k" * 20 + "-production-secret-for-tests-" + "x7Q9" * 8,
    "ALLOWED_HOSTS": "study.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://study.example.org",
    "WOJDB_HTTPS": "1",
    "WOJDB_PROXIES": "1",
}
SHOWN = [
    "DEBUG",
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_PROXY_SSL_HEADER",
    "X_FRAME_OPTIONS",
    "WOJDB_ENTRY_RATE",
    "MEDIA_ROOT",
    "WOJDB_REPORTS_DIR",
    "WOJDB_MTURK_HOSTS",
]


def run(args: list[str], env: dict[str, str], tmp_path) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("WOJDB_", "DEBUG"))}
    base.pop("SECRET_KEY", None)
    # Set by the browser fixture while chromium lives; a deployment never has it.
    base.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    base["WOJDB_HOME"] = str(tmp_path)
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env=base | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def settings_under(env: dict[str, str], tmp_path) -> dict:
    code = (
        "import json, django; from django.conf import settings; django.setup(); "
        f"print(json.dumps({{n: getattr(settings, n, None) for n in {SHOWN!r}}}, default=str))"
    )
    result = run(["-c", code], env | {"DJANGO_SETTINGS_MODULE": "wojdb.settings"}, tmp_path)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow
def test_check_deploy_passes_with_the_production_environment(tmp_path):
    result = run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"], PRODUCTION, tmp_path
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_check_deploy_fails_without_https(tmp_path):
    env = {k: v for k, v in PRODUCTION.items() if k != "WOJDB_HTTPS"}
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], env, tmp_path)
    assert result.returncode != 0
    for check in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert check in result.stderr


def test_https_flag_switches_on_secure_cookies_redirect_and_hsts(tmp_path):
    on = settings_under(PRODUCTION, tmp_path)
    assert on["SESSION_COOKIE_SECURE"] and on["CSRF_COOKIE_SECURE"] and on["SECURE_SSL_REDIRECT"]
    assert on["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert on["SECURE_PROXY_SSL_HEADER"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert on["DEBUG"] is False


def test_reports_and_scans_go_to_the_media_folder_every_app_server_shares(tmp_path):
    assert settings_under({}, tmp_path)["WOJDB_REPORTS_DIR"] == str(tmp_path / "reports")
    shared = tmp_path / "shared"
    chosen = settings_under({"WOJDB_MEDIA_ROOT": str(shared)}, tmp_path)
    assert chosen["MEDIA_ROOT"] == str(shared)
    assert chosen["WOJDB_REPORTS_DIR"] == str(shared / "reports")


def test_plain_http_defaults_keep_cookies_usable_and_frames_denied(tmp_path):
    off = settings_under({}, tmp_path)
    assert not off["SESSION_COOKIE_SECURE"] and not off["CSRF_COOKIE_SECURE"]
    assert off["SECURE_HSTS_SECONDS"] == 0 and not off["SECURE_SSL_REDIRECT"]
    assert off["SECURE_PROXY_SSL_HEADER"] is None
    assert off["X_FRAME_OPTIONS"] == "DENY"
    assert off["WOJDB_ENTRY_RATE"] == [60, 600]
    assert settings_under({"WOJDB_ENTRY_RATE": "off"}, tmp_path)["WOJDB_ENTRY_RATE"] is None


def test_mturk_hosts_are_mturks_own_and_those_the_environment_adds(tmp_path):
    mturk = ["https://www.mturk.com", "https://workersandbox.mturk.com"]
    assert settings_under({}, tmp_path)["WOJDB_MTURK_HOSTS"] == mturk
    trial = settings_under({"WOJDB_MTURK_HOSTS": "http://localhost:8001/"}, tmp_path)
    assert trial["WOJDB_MTURK_HOSTS"] == [*mturk, "http://localhost:8001"]


@pytest.mark.parametrize(
    "variable, value",
    [
        ("WOJDB_MTURK_HOSTS", "localhost:8001"),
        ("WOJDB_ENTRY_RATE", "5/0"),
        ("WOJDB_PROXIES", "two"),
        ("DEBUG", "maybe"),
        ("DATABASE_URL", "nosuchdb://x/y"),
        ("WOJDB_MAX_INPUT_BYTES", "64MB"),
    ],
)
def test_a_bad_variable_stops_the_settings_from_loading_and_is_named(variable, value, tmp_path):
    result = run(["manage.py", "check"], {variable: value}, tmp_path)
    assert result.returncode != 0
    assert f"environment variable {variable}" in result.stderr


def unwritable_folder(tmp_path: Path) -> Path:
    """A folder this process may not create anything in (as root, sysfs refuses new folders)."""
    if os.geteuid() == 0:
        return Path("/sys/wojdb-home")
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o500)
    return folder / "home"


@pytest.mark.parametrize("kind", ["a file", "below a file", "unwritable"])
def test_wojdb_demo_with_an_unusable_home_stops_with_one_line(kind, tmp_path):
    (tmp_path / "file").write_text("not a folder")
    home = {
        "a file": tmp_path / "file",
        "below a file": tmp_path / "file" / "home",
        "unwritable": unwritable_folder(tmp_path),
    }[kind]
    code = "import sys; from wojdb.cli import main; sys.argv = ['wojdb', 'demo']; main()"
    result = run(["-c", code], {"WOJDB_HOME": str(home)}, tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    problem = {
        "a file": "is a file, not a folder",
        "below a file": "the folder cannot be created: Not a directory",
        "unwritable": "the folder cannot be created: ",
    }[kind]
    line = f"wojdb: error: environment variable WOJDB_HOME='{home}': {problem}"
    assert result.stderr.startswith(line) and result.stderr.count("\n") == 1, result.stderr


def test_a_refused_input_exits_with_status_2_and_a_crash_with_1(tmp_path):
    assert run(["manage.py", "migrate", "-v0"], {}, tmp_path).returncode == 0
    study = tmp_path / "study.toml"
    study.write_text("name = 'A study'\nslug = 'a'\nabandon_after_minutes = nan\n")
    result = run(["manage.py", "create_study", str(study)], {}, tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"CommandError: {study}, line 3, key abandon_after_minutes:")
    crash = "import sys; from wojdb.cli import run; run(['manage.py', 'shell', '-c', '1/0'])"
    assert run(["-c", crash], {}, tmp_path).returncode == 1


def test_python_m_wojdb_cli_is_the_wojdb_command(tmp_path):
    """`python -m wojdb.cli COMMAND` printed nothing and exited 0, whatever the command."""
    listed = run(["-m", "wojdb.cli", "help"], {}, tmp_path)
    assert listed.returncode == 0 and "create_study" in listed.stdout
    unknown = run(["-m", "wojdb.cli", "nope"], {}, tmp_path)
    assert unknown.returncode == 2 and "Unknown command: 'nope'" in unknown.stderr
    assert "Type 'wojdb help' for usage." in unknown.stderr


MANIFEST = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}


def test_an_app_server_refuses_to_start_without_the_collected_static_files(tmp_path, settings):
    """Without them every page was a bare "Server Error (500)" and nothing in the log."""
    from django.core.exceptions import ImproperlyConfigured

    from wojdb import serving

    settings.STORAGES = {**settings.STORAGES, "staticfiles": MANIFEST}
    settings.STATIC_ROOT = tmp_path
    settings.DEBUG = False
    with pytest.raises(ImproperlyConfigured, match="Run `manage.py collectstatic --noinput`"):
        serving.prepare()
    (tmp_path / "staticfiles.json").write_text('{"paths": {}, "version": "1.1"}')
    assert serving.static_files_problem() is None
    settings.DEBUG = True  # pages link to the files by their own names
    (tmp_path / "staticfiles.json").unlink()
    assert serving.static_files_problem() is None
