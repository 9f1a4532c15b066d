"""One broad FTS5 ranking run as two halves at once, split by rowid.

A sentence's any-term fill matches tens of thousands of chunks, and bm25 scores every one of
them before the best few are kept: on Django that one statement is most of a prose query's
time. SQLite scores on one core, and apsw lets go of the GIL while it does, so the upper
half of the rowids is ranked on a second connection, on a thread of its own, while the
calling thread ranks the lower half. bm25 reads the whole index's statistics, not the
half's, so a chunk scores the same in either half, and the best `n` of the two halves' best
`n` are the best `n` of all.

Both halves must see one state of the index. Each reads `lexical_version`, which every
committed write batch bumps, inside the transaction it ranks in. When the two differ (a
save landed between the halves), the upper half is ranked again on the caller's
connection, so no answer mixes two states. While the helper thread is busy with another
query's half, the caller ranks the whole range itself rather than queueing behind it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

#: Below this many rowids the handoff costs more than the halving saves. Measured in-process,
#: `kebab/search` lexical at k = 20: on Django (63,000 chunks; the bench's 100 queries) p95
#: fell from 33.4 to 27.2 ms and p50 from 10.7 to 9.8; on rich (1,700 chunks; its hand-written
#: questions) p50 rose by 0.3 ms.
MIN_SPLIT_ROWIDS = 20_000


class RankSplitter:
    """Owns the one helper thread (`kebab-rank-half`): started on first use, stopped by
    `stop()` (the store's `close()`), started again by a later use."""

    def __init__(self) -> None:
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._busy = threading.Lock()

    def try_submit(self, fn: Callable[[], T]) -> Future[T] | None:
        """Run `fn` on the helper thread, or return None when it is busy (or stopping)."""
        if not self._busy.acquire(blocking=False):
            return None
        try:
            with self._lock:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(1, thread_name_prefix="kebab-rank-half")
                future = self._pool.submit(fn)
        except RuntimeError:  # shut down between the check and the submit
            self._busy.release()
            return None
        future.add_done_callback(lambda _done: self._busy.release())
        return future

    def stop(self) -> None:
        """Wait for a half in flight (milliseconds), then end the thread."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
