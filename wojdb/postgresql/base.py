"""Django's PostgreSQL backend, with the health check of a kept connection made without a
round trip while the connection shows no sign of having been closed.

Django checks a connection kept from an earlier request (CONN_HEALTH_CHECKS) by sending
`SELECT 1` before the request's first query: one more round trip on every request. In a
2,000-participant load run on PostgreSQL it was a sixth of the app servers' time, most of it
waiting for the database's process to be given a core (bench/load_test.py). A connection the
server has ended (a restart, a terminated backend, `idle_session_timeout`) has the server's
last message and the end of the stream waiting on its socket: only a socket with something to
read is checked by the round trip, and closed and opened again if that fails.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self):
        kept = self.connection is not None and self.health_check_enabled
        if kept and not (self.health_check_done or self.connection.closed or self._readable()):
            self.health_check_done = True
        super().close_if_health_check_failed()

    def _readable(self) -> bool:
        """Whether the server has sent anything since the last query's reply was read: between
        requests it sends nothing unless it ends the connection (or, rarely, a notice)."""
        socket = self.connection.fileno()
        if not hasattr(select, "poll"):  # Windows
            return bool(select.select([socket], [], [], 0)[0])
        poll = select.poll()
        poll.register(socket, select.POLLIN)
        return bool(poll.poll(0))
