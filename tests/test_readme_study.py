"""The README's "Your own study in brief", followed as written: its commands are taken from
README.md and run, one by one, in a copy of the clone (its files as they are, no database, no static
files), on the bundled WMT21 Czech → English slice. The serving command is the one step not run
as it stands: the site is served on a free port instead, and the study link must answer."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.servers import free_port

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## Your own study in brief"
SAVE_AS = "Save this as `my-study.toml` in the clone's folder"
SERVING = re.compile(r"\b(gunicorn|runserver)\b")

pytestmark = pytest.mark.slow


def section() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(SECTION)
    return text[start : text.index("\n## ", start + 1)]


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def commands(text: str) -> list[str]:
    return [
        line
        for block in blocks(text, "bash")
        for line in block.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def clone_of_the_tree(into: Path) -> Path:
    """The repository's files as they are (tracked or new, not ignored), as a fresh clone has
    them, with the virtual environment the tests run in (bin/setup then finds it) and the compiled
    metrics."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    (into / ".venv").symlink_to((ROOT / ".venv").resolve())
    for cached in compiled_metrics():
        target = into / cached.relative_to(ROOT)
        target.parent.mkdir(exist_ok=True)
        shutil.copy2(cached, target)
    return into


def compiled_metrics() -> list[Path]:
    """numba's cache of this tree's compiled metrics, compiled here if it is not yet. It is
    keyed by each source file's size and modification time, which the copy keeps, so the
    clone's first scoring loads it rather than compiling again (about 16 s of CPU)."""
    from wojdb.core.language.nlp import Parse
    from wojdb.core.metrics.compute import PairInput, compute_many

    def parse(text: str) -> Parse:
        words = tuple(text.split())
        n = len(words)
        return Parse(words, ("X",) * n, ("X",) * n, (-1,) + (0,) * (n - 1), ("dep",) * n, "x")

    compute_many([PairInput(0, parse("the mat sat on the cat"), parse("the cat sat on the mat"))])
    return sorted((ROOT / "wojdb/core/metrics/__pycache__").glob("*.nb[ic]"))


def serve_and_check(command: str, clone: Path, env: dict, url_path: str) -> None:
    """Run the serving command on a free port until the study link answers, then stop it."""
    port = free_port()
    command = command.replace("127.0.0.1:8000", f"127.0.0.1:{port}")
    server = subprocess.Popen(
        ["bash", "-c", f"exec {command}"], cwd=clone, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{url_path}") as response:
                    page = response.read().decode()
                    break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None, server.stderr.read().decode()
                assert time.monotonic() < deadline, "the study link did not answer"
                time.sleep(0.5)
        assert response.status == 200
        assert "Word order in Czech to English translation" in page
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def test_the_readme_runs_a_study_of_its_own_from_a_fresh_clone(tmp_path):
    text = section()
    assert SAVE_AS in text
    (study_file,) = blocks(text, "toml")
    steps = commands(text)
    assert steps[0] == "bin/setup" and any(SERVING.search(s) for s in steps)
    clone = clone_of_the_tree(tmp_path / "clone")
    (clone / "my-study.toml").write_text(study_file, encoding="utf-8")
    # A clone's own data folder (var/) and database, whatever the tests run on.
    env = {k: v for k, v in os.environ.items() if k not in ("WOJDB_HOME", "DATABASE_URL")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    printed = {}
    for step in steps:
        if SERVING.search(step):
            serve_and_check(step, clone, env, "/s/word-order-cs/")
            continue
        done = subprocess.run(
            ["bash", "-c", step], cwd=clone, env=env, capture_output=True, text=True, timeout=1800
        )
        assert done.returncode == 0, f"{step}\n{done.stdout}\n{done.stderr}"
        printed[step] = done.stdout
    (built,) = [out for step, out in printed.items() if "create_study" in step]
    assert built.startswith("Created study 'word-order-cs'.\n")
    assert "  pool: triples in the pool: 90\n" in built and "questionnaires: 4 built" in built
    assert (clone / "var/reports/word-order-cs/report.html").is_file()
    # The study's record names each command and the account that ran it.
    log = subprocess.run(
        ["bash", "-c", ".venv/bin/python manage.py study_log word-order-cs"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert ",command create_study run by " in log.stdout and ",launched," in log.stdout
    assert ",member added," in log.stdout and ",report generated," in log.stdout
    package = json.loads((clone / "var/release-word-order-cs/datapackage.json").read_text())
    assert package["simulated_participants"]["participants"] == 12  # and it says so
