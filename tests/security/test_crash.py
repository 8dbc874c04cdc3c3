"""The crash test of bench/crash_test.py at a small scale: SIGKILL the server halfway through
the participants' answers, restart it, and find every acknowledged answer intact."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.slow
def test_every_answer_acknowledged_before_a_sigkill_survives_it():
    # The suite's own database decides which server is crashed: SQLite, or PostgreSQL in CI.
    on_postgres = os.environ.get("DATABASE_URL", "").startswith("postgres")
    command = [sys.executable, "bench/crash_test.py", "--participants", "10", "--items", "6"]
    command += ["--questionnaires", "2", "--think", "0.1", "--ramp", "1", "--kill-at", "0.4"]
    command += ["--max-seconds", "240", "--database", "postgres" if on_postgres else "sqlite"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    before = next(line for line in result.stdout.splitlines() if "before the kill" in line)
    assert "lost 0, changed 0, duplicated 0, revised 0" in before
    assert "PASS" in result.stdout
