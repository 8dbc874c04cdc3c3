"""What the tests that start a server of their own share."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback port free now, for a server a test starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
