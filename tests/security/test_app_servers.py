"""Two app servers on one database, as behind a load balancer: participants whose every request
goes to the other server than the last (bench/load_test.py --servers 2) finish with every
acknowledged answer stored, once, as acknowledged. Nothing one server keeps in memory is needed
by the other."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.mark.slow
def test_participants_moving_between_two_servers_at_every_step_lose_nothing():
    on_postgres = os.environ.get("DATABASE_URL", "").startswith("postgres")
    command = [sys.executable, "bench/load_test.py", "--servers", "2", "--workers", "1"]
    command += ["--participants", "6", "--items", "4", "--questionnaires", "2", "--think", "0.05"]
    command += ["--ramp", "1", "--max-seconds", "240", "--p99-ms", "60000"]
    command += ["--database", "postgres" if on_postgres else "sqlite"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "finished: 6/6 participants" in result.stdout
    assert "lost 0, changed 0, duplicated 0, revised 0" in result.stdout
