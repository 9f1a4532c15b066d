"""Extraction in worker processes, each file with a deadline, so that a grammar that crashes
(a segfault in its C code) or hangs (a scanner that loops; no callback can stop it) costs
its own file, not the scan or the server.

A worker is a plain process on a pipe, not a `ProcessPoolExecutor`: a pool cannot stop a task
that is running, nor say which task killed it. Here every file is sent to one worker, and
when its answer does not come by the deadline, or the worker dies, that worker is ended and
replaced and the file is reported as failed; the caller indexes it as plain text. Results
come back in the order the items were given.

Workers are spawned (see `indexing.pool.pool_context`), so a threaded parent is never
forked, and each exits as soon as the process that started it does, however that ends
(`indexing.pool.watch_owner`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

#: A file may take this long, plus `DEADLINE_S_PER_MB` per megabyte of it, before its worker
#: is ended. Generous: a megabyte parses in well under a second on a busy core.
DEADLINE_S = 20.0
DEADLINE_S_PER_MB = 20.0


#: How long a new worker may take to start (spawn, imports) before its first item's deadline
#: starts: on a loaded machine importing the grammars can take seconds, and that time is not
#: the file's. A worker that does not start within this is ended like a stalled one.
STARTUP_S = 120.0


@dataclass(frozen=True, slots=True)
class _Ready:
    """A worker's first message: its imports are done, deadlines may start."""


@dataclass(frozen=True, slots=True)
class Failed:
    """An item whose worker crashed or ran past its deadline."""

    reason: str  # "grammar crashed" | "parse stalled"


def deadline_for(size: int) -> float:
    return DEADLINE_S + DEADLINE_S_PER_MB * size / 1e6


def _serve(conn: Connection, target: str, owner: int) -> None:
    """A worker's loop: call `target` (`module:function`) on each item received, until
    process `owner` is gone. A pipe the parent dropped ends the loop quietly: the parent
    already reports why (a full disk, a cancel), and a traceback here would only add noise
    to its one line."""
    import importlib

    from indexing.pool import watch_owner

    watch_owner(owner)
    module, name = target.split(":")
    fn = getattr(importlib.import_module(module), name)
    try:
        conn.send(_Ready())
    except OSError:
        return
    while True:
        try:
            item = conn.recv()
        except (EOFError, OSError):  # the parent closed or died: nothing left to answer
            return
        if item is None:
            return
        result = fn(item)
        try:
            conn.send(result)
        except OSError:
            return


class _Worker:
    def __init__(self, context: Any, target: str) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, target, os.getpid()),
                                       daemon=True)
        self.process.start()
        child.close()
        self.index = -1  # the item it works on, -1 when idle
        self.size = 0  # that item's size
        self.ready = False  # its imports are done (it said `_Ready`)
        self.deadline = 0.0

    def give(self, index: int, size: int) -> None:
        self.index, self.size = index, size
        self.deadline = time.monotonic() + (deadline_for(size) if self.ready else STARTUP_S)

    def stop(self, now: bool = False) -> None:
        try:
            if not now:
                self.conn.send(None)
        except OSError:
            pass
        self.conn.close()
        if now and self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)


class Workers:
    """Up to `size` worker processes that call `target` on items."""

    def __init__(self, size: int, context: Any, target: str, ahead: int = 0) -> None:
        self.size = max(1, size)
        #: At most this many items handed out beyond the last one yielded (0: no bound), so
        #: that results do not wait in memory for a slow consumer.
        self.ahead = ahead
        self.context = context
        self.target = target
        self._idle: list[_Worker] = []

    def map(self, items: Iterable[Any], size_of: Callable[[Any], int]) -> Iterator[Any]:
        """Each item's result, or `Failed`, in the items' order."""
        todo = list(items)
        results: dict[int, Any] = {}
        busy: list[_Worker] = []
        following = 0  # the next item to hand out
        emitted = 0
        try:
            while emitted < len(todo):
                while (following < len(todo) and len(busy) < self.size
                       and (not self.ahead or following - emitted < self.ahead)):
                    worker = self._idle.pop() if self._idle else _Worker(self.context,
                                                                         self.target)
                    worker.give(following, size_of(todo[following]))
                    try:
                        worker.conn.send(todo[following])
                    except OSError:  # it died while idle: the item goes to a new one
                        worker.stop(now=True)
                        continue
                    busy.append(worker)
                    following += 1
                while emitted in results:
                    yield results.pop(emitted)
                    emitted += 1
                if not busy:
                    continue
                timeout = max(0.0, min(w.deadline for w in busy) - time.monotonic())
                ready = set(wait([w.conn for w in busy], timeout=timeout))
                now = time.monotonic()
                for worker in list(busy):
                    if worker.conn in ready:
                        try:
                            answer = worker.conn.recv()
                        except (EOFError, OSError):
                            results[worker.index] = Failed("grammar crashed")
                            busy.remove(worker)
                            worker.stop(now=True)
                            continue
                        if isinstance(answer, _Ready):  # started: the file's own time begins
                            worker.ready = True
                            worker.give(worker.index, worker.size)
                            continue
                        results[worker.index] = answer
                        busy.remove(worker)
                        self._idle.append(worker)
                    elif now >= worker.deadline:
                        results[worker.index] = Failed("parse stalled")
                        busy.remove(worker)
                        worker.stop(now=True)
                while emitted in results:
                    yield results.pop(emitted)
                    emitted += 1
        finally:
            for worker in busy:  # abandoned (the caller stopped): their answers are lost
                worker.stop(now=True)

    def warm(self) -> None:
        """Start a worker now, so the first item does not wait for its imports."""
        if not self._idle:
            self._idle.append(_Worker(self.context, self.target))

    def close(self) -> None:
        for worker in self._idle:
            worker.stop()
        self._idle.clear()
