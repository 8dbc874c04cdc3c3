"""gunicorn's settings for the app server: `gunicorn -c python:wojdb.gunicorn_conf wojdb.wsgi`.

A sync worker reads a request as soon as it accepts the connection, and nothing else until the
request has come or gunicorn's timeout (30 s) kills the worker, failing whatever it held. A
connection whose bytes come late holds a worker so: a browser's speculative connection, which
sends nothing at first; or, under a burst, one whose handshake overflowed the listening queue,
which Linux completes without its data (sent again by the client seconds later, each try
waiting twice as long). With 5,000 participants on PostgreSQL (bench/load_test.py) such
connections held the three workers in turn until each was killed: the CPU stood idle while
participants got gunicorn's error page. Each TCP listener therefore hands a connection to a
worker only once its first bytes have arrived (Linux's TCP_DEFER_ACCEPT, nginx's `deferred`).
"""

from __future__ import annotations

import socket

#: The app server's command after `python -m`: gunicorn with these settings, serving WOJ-DB.
COMMAND = ["gunicorn", "-c", "python:wojdb.gunicorn_conf", "wojdb.wsgi"]
#: Seconds a connection may wait for its first bytes before a worker accepts it anyway.
DEFER_SECONDS = 30


def when_ready(server) -> None:
    """gunicorn's hook once its sockets listen, before its workers start."""
    defer = getattr(socket, "TCP_DEFER_ACCEPT", None)  # Linux's; elsewhere as gunicorn does
    if defer is None:
        return
    for listener in server.LISTENERS:
        if listener.sock.family in (socket.AF_INET, socket.AF_INET6):
            listener.sock.setsockopt(socket.IPPROTO_TCP, defer, DEFER_SECONDS)
