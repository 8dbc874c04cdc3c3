"""Crash test: kill the server with SIGKILL in the middle of the load, restart it, and check
that every answer acknowledged before the kill is in the database, intact.

The participants of bench/load_test.py carry on through the outage as the page's script
does: a request that fails for want of a server is sent again until it is answered. After
they finish, the answers acknowledged before the kill, and then all acknowledged answers,
are checked to be stored exactly once with their values.

    .venv/bin/python bench/crash_test.py --participants 200 --database sqlite
    .venv/bin/python bench/crash_test.py --participants 200 --database postgres
"""

from __future__ import annotations

import signal
import sys
import threading
import time

import load_test
from load_test import Results, Site


def crash(site: Site, results: Results, saves: int, down: float, outcome: dict) -> None:
    """Once `saves` answers are acknowledged: note them, SIGKILL every server process, wait
    `down` seconds, start the server again."""
    while True:
        with results.lock:
            if len(results.latencies) >= saves:
                outcome["acknowledged"] = dict(results.acknowledged)
                outcome["failures"] = results.connection_failures
                break
        time.sleep(0.02)
    site.kill(signal.SIGKILL)
    killed = time.monotonic()
    time.sleep(down)
    site.start()
    outcome["outage"] = time.monotonic() - killed


def main() -> int:
    parser = load_test.arguments(__doc__.split("\n")[0])
    parser.add_argument(
        "--kill-at", type=float, default=0.5, help="share of all answer saves made before the kill"
    )
    parser.add_argument("--down", type=float, default=2, help="seconds before the restart")
    args = parser.parse_args()
    load_test.defaults(args)
    print("WOJ-DB crash test")
    load_test.describe(args)
    site = Site(args.database, args.workers, args.servers, args.threads)
    outcome: dict = {}
    try:
        slug = site.build(args.questionnaires, args.items)
        site.start()
        results = Results()
        total = args.participants * (args.items + 1) * load_test.SAVES_PER_ITEM
        saves = int(args.kill_at * total)
        killer = threading.Thread(
            target=crash, args=(site, results, saves, args.down, outcome), daemon=True
        )
        killer.start()
        elapsed = load_test.run_participants(site, slug, args, results)
        killer.join(timeout=1)
        if "outage" not in outcome:
            print("  FAIL: the load ended before the server was killed and restarted")
            return 1
        before = outcome["acknowledged"]
        print(
            f"  SIGKILL with {len(before):,} answers acknowledged "
            f"({args.kill_at:.0%} of the load); server back {outcome['outage']:.1f} s later"
        )
        completed = load_test.report(results, elapsed, args)
        retried = results.connection_failures - outcome["failures"]
        print(f"  requests sent again because the server was down: {retried:,}")
        site.kill(signal.SIGTERM)
        kept = load_test.check_database(before, "acknowledged before the kill")
        exact = load_test.check_database(dict(results.acknowledged), "all acknowledged answers")
        intact = load_test.sqlite_intact()
    finally:
        site.close(args.keep)
    ok = completed and kept and exact and intact and retried > 0
    print("  PASS" if ok else "  FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
