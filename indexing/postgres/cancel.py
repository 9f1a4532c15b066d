"""Stopping a team index's statement while it runs: a cancelled request must free its query
worker, and a PostgreSQL statement gives no progress callback to ask (SQLite's read does,
`indexing.store.connection.STOP_CHECK_STEPS`). The server is asked instead: a watcher polls
the caller's `should_stop` beside the read and sends PostgreSQL's cancel request, which ends
the statement then running on that connection (and none of any other)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import psycopg

#: Seconds between two `should_stop` questions: a cancelled search stops within about this
#: long of the client's `$/cancelRequest`, for one thread's wake-up each time.
POLL_S = 0.05
#: Seconds the cancel request may take to reach the server before the watcher gives up on it
#: (the read then ends at its own pace, and the search at its next checkpoint).
CANCEL_TIMEOUT_S = 10.0


class Watch:
    """Whether the watcher sent the cancel request: a statement that then fails was stopped
    on purpose, not broken."""

    def __init__(self) -> None:
        self.fired = False


@contextmanager
def cancelled_when(conn: psycopg.Connection[object], should_stop: Callable[[], bool]
                   ) -> Iterator[Watch]:
    """While the block runs, a `kebab-pg-cancel` thread (owned here: started on entry,
    stopped and joined on exit) cancels the statement running on `conn` once `should_stop`
    says so, once."""
    watch = Watch()
    done = threading.Event()

    def poll() -> None:
        while not done.wait(POLL_S):
            if should_stop():
                watch.fired = True
                # A connection already gone fails its statement on its own.
                with suppress(psycopg.Error):
                    conn.cancel_safe(timeout=CANCEL_TIMEOUT_S)
                return

    watcher = threading.Thread(target=poll, name="kebab-pg-cancel", daemon=True)
    watcher.start()
    try:
        yield watch
    finally:
        done.set()
        watcher.join()
