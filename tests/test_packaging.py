"""WOJ-DB as a Python package: the wheel built from this tree installs into a fresh virtual
environment and runs the `wojdb` command there, with its data in WOJDB_HOME."""

from __future__ import annotations

import email.parser
import importlib.metadata
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import sysconfig
import time
import tomllib
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.servers import free_port
from wojdb.cli import command_line

ROOT = Path(__file__).resolve().parent.parent
# What a clean clone does not have: local environments, data, caches and build leftovers.
NOT_IN_A_CLONE = shutil.ignore_patterns(
    ".git",
    ".venv",
    "var",
    "staticfiles",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    "*.pyc",
    ".*_cache",
    ".hypothesis",
    "test-artifacts",
)
APPS = ("wojdb", "survey", "analysis")


def _requirements_in() -> dict[str, Requirement]:
    lines = (ROOT / "requirements.in").read_text().splitlines()
    reqs = [Requirement(line.split("#")[0]) for line in lines if line.split("#")[0].strip()]
    return {canonicalize_name(r.name): r for r in reqs}


def test_the_package_depends_on_what_requirements_in_names():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    package = {canonicalize_name(r.name): r for r in map(Requirement, declared)}
    wanted = _requirements_in()
    assert package.keys() == wanted.keys()
    for name, req in package.items():
        assert req.extras == wanted[name].extras, name
        # Where requirements.in bounds a version, the package keeps the same bounds.
        if wanted[name].specifier:
            assert req.specifier == wanted[name].specifier, name


LOCKS = ("requirements.txt", "requirements-dev.txt")


def _locked() -> dict[str, Requirement]:
    """The pinned lines of the locks (`name[extras]==version`) by name; a package in both
    locks is pinned alike and asked with the extras of either."""
    locked: dict[str, Requirement] = {}
    for lock in LOCKS:
        for line in (ROOT / lock).read_text().splitlines():
            if line[:1].isalnum():
                req = Requirement(line.removesuffix("\\"))
                name = canonicalize_name(req.name)
                if name in locked:
                    assert locked[name].specifier == req.specifier, (lock, line)
                    req.extras |= locked[name].extras
                locked[name] = req
    return locked


def test_the_locks_pin_every_requirement_of_the_locked_packages_with_its_extras():
    """pip installs the locks with --require-hashes (bin/setup, where uv cannot) only if every
    requirement of a locked package is locked, and locked with the extras asked for: pip takes
    `smart-open[http]>=5.2.1` (weasel's) for a requirement of its own, unpinned, beside a bare
    `smart-open==9.0.2`, and refuses. Read from the installed packages' metadata, which
    bin/setup installed from the locks (.ci/run installs them with pip in a fresh venv)."""
    locked = _locked()
    problems = []
    for name, req in locked.items():
        (pin,) = req.specifier
        installed = importlib.metadata.version(req.name)
        if installed != pin.version:
            problems.append(f"{req}: installed {installed}, not the locked version")
            continue
        for need in map(Requirement, importlib.metadata.requires(req.name) or []):
            if need.marker and not any(
                need.marker.evaluate({"extra": extra}) for extra in {"", *req.extras}
            ):
                continue
            have = locked.get(canonicalize_name(need.name))
            if have is None:
                problems.append(f"{name} needs {need}, which is not locked")
                continue
            (have_pin,) = have.specifier
            if not (need.extras <= have.extras and need.specifier.contains(have_pin.version, True)):
                problems.append(f"{name} needs {need}; the lock pins {have}")
    assert problems == []


def test_wojdb_demo_serves_unless_told_not_to():
    assert command_line(["wojdb", "demo", "--port", "9000"]) == [
        "wojdb",
        "demo",
        "--serve",
        "--port",
        "9000",
    ]
    assert command_line(["wojdb", "demo", "--no-serve"]) == ["wojdb", "demo", "--no-serve"]
    assert command_line(["wojdb", "import_wmt", "demo"]) == ["wojdb", "import_wmt", "demo"]


def _unmet(requirements: list[str], extra: str = "") -> list[str]:
    """The requirements (and those of the extras they ask for) that the running environment
    does not satisfy."""
    unmet = []
    for req in map(Requirement, requirements):
        if req.marker and not req.marker.evaluate({"extra": extra}):
            continue
        try:
            version = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            unmet.append(f"{req} (not installed)")
            continue
        if not req.specifier.contains(version, prereleases=True):
            unmet.append(f"{req} (installed: {version})")
        for name in req.extras:
            unmet += _unmet(importlib.metadata.requires(req.name) or [], extra=name)
    return unmet


def _run(args, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run(args, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done


def _build_wheel(tmp_path: Path) -> Path:
    """The wheel of a clean copy of the tree: building in place would leave build/ behind, whose
    stale files a later build would package."""
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=NOT_IN_A_CLONE)
    dist = tmp_path / "dist"
    # The build backend (setuptools) is already installed: no download.
    pip_wheel = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
    _run([*pip_wheel, "--wheel-dir", str(dist), str(source)], cwd=tmp_path)
    (wheel,) = dist.glob("wojdb-*.whl")
    return wheel


def _expected_files() -> set[str]:
    """Every file of the apps in this tree, and the demo's data, as the wheel names them."""
    files = set()
    for app in APPS:
        for path in (ROOT / app).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                files.add(path.relative_to(ROOT).as_posix())
    fixtures = ROOT / "fixtures"
    for path in [
        fixtures / "README.md",
        fixtures / "demo-study.toml",
        fixtures / "demo-study-fr.toml",
        *(fixtures / "wmt21-slice").rglob("*"),
        *(fixtures / "wmt21-defr-slice").rglob("*"),
    ]:
        if path.is_file():
            files.add("wojdb/" + path.relative_to(ROOT).as_posix())
    return files


def _fresh_venv(tmp_path: Path, wheel: Path) -> Path:
    """A new virtual environment with the wheel installed, which also sees the packages of the
    running one, so the dependencies need not be downloaded again (their versions are checked
    against the wheel's requirements separately)."""
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    pip_install = [sys.executable, "-m", "pip", "--python", str(python), "install"]
    _run([*pip_install, "--no-deps", "--no-index", "--quiet", str(wheel)], cwd=tmp_path)
    site_packages = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
    ).stdout.strip()
    # addsitedir, not a bare path, so the .pth files of the running environment work too; it
    # appends, so the wheel's own files come first.
    outer = sysconfig.get_path("purelib")
    Path(site_packages, "outer.pth").write_text(f"import site; site.addsitedir({outer!r})\n")
    return venv


def _wait_for(url: str, server: subprocess.Popen, seconds: float = 600) -> str:
    """The page at url, once the server answers; fails if the server stops first."""
    deadline = time.monotonic() + seconds
    while True:
        assert server.poll() is None, server.stdout.read()
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                return response.read().decode()
        except urllib.error.HTTPError:
            raise
        except urllib.error.URLError:
            assert time.monotonic() < deadline, f"nothing served at {url}"
            time.sleep(1)


@pytest.mark.slow
def test_the_wheel_installs_and_runs_the_demo_from_its_data_folder(tmp_path):
    wheel = _build_wheel(tmp_path)
    _run([sys.executable, "-m", "twine", "check", "--strict", str(wheel)])

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = email.parser.Parser().parsestr(archive.read(metadata).decode())
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        assert "wojdb = wojdb.cli:main" in archive.read(entry_points).decode()
    packaged = {n for n in names if ".dist-info/" not in n}
    assert packaged == _expected_files()
    assert _unmet(requires.get_all("Requires-Dist")) == []

    venv = _fresh_venv(tmp_path, wheel)
    wojdb = str(venv / "bin" / "wojdb")
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("WOJDB_", "DJANGO_", "PYTHON"))
        and name not in {"DATABASE_URL", "SECRET_KEY", "DEBUG"}
    }
    env["WOJDB_HOME"] = str(home)

    # The installed code runs, not this tree's; the release loader still needs no Django.
    probe = (
        "import os, sys, wojdb; from wojdb.release import load_release; print(wojdb.__file__); "
        "print(sys.argv[1] in [os.path.realpath(p or '.') for p in sys.path]); "
        "print(any(m == 'django' or m.startswith('django.') for m in sys.modules))"
    )
    where, on_path, django = _run(
        [str(venv / "bin" / "python"), "-c", probe, str(ROOT)], cwd=cwd, env=env
    ).stdout.split()
    assert Path(where).is_relative_to(venv)
    assert (on_path, django) == ("False", "False")

    commands = _run([wojdb, "--help"], cwd=cwd, env=env).stdout
    for command in ("demo", "import_wmt", "export_wojdb", "analyse"):
        assert command in commands

    # `wojdb demo` builds the demo into WOJDB_HOME, then serves it.
    checkout_db = ROOT / "var" / "wojdb.sqlite3"
    before = checkout_db.stat().st_mtime_ns if checkout_db.exists() else None
    port = free_port()
    with subprocess.Popen(
        [wojdb, "demo", "--port", str(port)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as demo:
        try:
            page = _wait_for(f"http://127.0.0.1:{port}/s/demo/", demo)
            style = re.search(r'href="(/static/survey/participant\.\w+\.css)"', page)
            assert style, page
            assert "body" in _wait_for(f"http://127.0.0.1:{port}{style[1]}", demo)
        finally:
            demo.terminate()
            output = demo.communicate(timeout=60)[0]
    assert "The WOJ-DB demo is ready." in output
    assert (home / "secret_key").exists() and (home / "reports" / "demo" / "report.html").exists()
    assert (home / "staticfiles" / "staticfiles.json").exists()
    with sqlite3.connect(home / "wojdb.sqlite3") as db:
        (participants,) = db.execute(
            "SELECT count(*) FROM survey_participant WHERE simulated"
        ).fetchone()
    assert participants == 36
    after = checkout_db.stat().st_mtime_ns if checkout_db.exists() else None
    assert before == after
    assert list(cwd.iterdir()) == []

    # Without WOJDB_HOME, the user's data folder.
    del env["WOJDB_HOME"]
    env["XDG_DATA_HOME"] = str(tmp_path / "user-data")
    _run([wojdb, "check"], cwd=cwd, env=env)
    assert (tmp_path / "user-data" / "wojdb" / "secret_key").exists()
