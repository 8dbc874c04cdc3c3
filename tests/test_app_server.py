"""The app server as the README and docs/deployment.md run it (wojdb/gunicorn_conf.py): a
connection that has sent nothing yet, as a browser's speculative one or one whose bytes were
held up by an overflowing queue, does not hold up a sync worker."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.servers import free_port
from wojdb.gunicorn_conf import COMMAND

ROOT = Path(__file__).resolve().parent.parent
# gunicorn's own timeout for a silent worker: what a held worker would wait before its restart.
WORKER_TIMEOUT = 20
APP = """
def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [b"served"]
"""


def get(port: int, timeout: float) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        reply = b""
        while chunk := connection.recv(4096):  # to the end: the head and body come apart
            reply += chunk
        return reply


@pytest.mark.skipif(not hasattr(socket, "TCP_DEFER_ACCEPT"), reason="a Linux socket option")
def test_a_connection_that_sends_nothing_leaves_the_only_worker_free(tmp_path):
    (tmp_path / "probe_app.py").write_text(APP)
    port = free_port()
    # The settings and the command line of the deployment; a one-line app in place of Django's.
    settings = COMMAND[:-1]
    assert settings == ["gunicorn", "-c", "python:wojdb.gunicorn_conf"]
    log = (tmp_path / "server.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", *settings, "probe_app:app", "--chdir", str(tmp_path)]
        + ["--workers", "1", "--timeout", str(WORKER_TIMEOUT), "--bind", f"127.0.0.1:{port}"],
        cwd=ROOT,
        stdout=log,
        stderr=log,
    )
    silent = None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                assert get(port, timeout=5).startswith(b"HTTP/1.0 200")
                break
            except OSError:
                started = time.monotonic() < deadline and server.poll() is None
                assert started, (tmp_path / "server.log").read_text()
                time.sleep(0.2)
        silent = socket.create_connection(("127.0.0.1", port))
        time.sleep(0.5)  # were it handed over, the worker would be waiting on it by now
        # Answered long before the held worker's restart would have freed it.
        assert get(port, timeout=WORKER_TIMEOUT / 4).endswith(b"served")
    finally:
        if silent is not None:
            silent.close()
        server.terminate()
        server.wait(timeout=30)
        log.close()


def test_every_documented_start_of_the_app_server_uses_its_settings():
    started = []
    for path in [ROOT / "README.md", *ROOT.glob("docs/*.md"), *ROOT.glob("bin/*")]:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if "gunicorn" in line and "wojdb.wsgi" in line:
                started.append((path.name, number, line))
    assert len(started) >= 5  # README, bin/demo, the deployment's two, MTurk's local trial
    for name, number, line in started:
        assert " ".join(COMMAND) in line, f"{name}:{number}: {line}"
