"""The refresher: one background thread for reads that may take a while and that nobody waits
for: rebuilding in-memory caches of the index (the workspace-symbol matcher) after large
writes, and checking an index that was just opened for damage. Owned and stopped by the
runtime.

A cache asks for a rebuild under a key; a rebuild already queued under that key is not queued
twice. The caller keeps answering from its previous state meanwhile.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from indexing.runtime.listener import Listener


class Refresher:
    def __init__(self, listener: Listener) -> None:
        self._listener = listener
        self._cond = threading.Condition()
        self._queue: dict[str, Callable[[], None]] = {}
        self._running = False
        self._stopping = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kebab-refresh", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        with self._cond:
            self._stopping = True
            self._queue.clear()
            self._cond.notify_all()
        thread = self._thread
        if thread is not None and thread.is_alive() and threading.current_thread() is not thread:
            thread.join(timeout)

    @property
    def stopping(self) -> bool:
        """Set once `stop()` began: long work polls it to end early."""
        return self._stopping

    def submit(self, key: str, work: Callable[[], None]) -> None:
        with self._cond:
            if self._stopping:
                return
            self._queue.setdefault(key, work)
            self._cond.notify_all()

    def wait_idle(self, timeout: float | None = None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._running, timeout)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait()
                if self._stopping:
                    return
                key = next(iter(self._queue))
                work = self._queue.pop(key)
                self._running = True
            try:
                work()
            except Exception as exc:  # noqa: BLE001 - a cache stays stale, nothing else breaks
                self._listener.log("error", f"refreshing {key} failed: {exc}")
            finally:
                with self._cond:
                    self._running = False
                    self._cond.notify_all()
