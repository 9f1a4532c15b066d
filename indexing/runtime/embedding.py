"""The embed scheduler: the thread that keeps every folder's vectors in step with its lexical
index.

Embedding is the slowest stage by far, so it has its own thread: lexical updates (the writer)
never wait for it, and it never delays a request. Files just written (and files the user has
open) go first; a sync already running is asked to stop at its next batch when new writes
arrive, so a save does not wait behind a long backlog, and the interrupted sync is queued again.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from indexing.runtime.folders import Folder, FolderRegistry
from indexing.runtime.listener import Listener, ProgressSink


class EmbedScheduler:
    def __init__(self, registry: FolderRegistry, listener: Listener) -> None:
        self._registry = registry
        self._listener = listener
        self._cond = threading.Condition()
        self._due: dict[str, set[str]] = {}  # folder uri -> recently written paths
        self._running: Folder | None = None
        self._restart = threading.Event()
        self._stopping = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="kebab-embedder", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._restart.set()
        thread = self._thread
        if thread is not None and thread.is_alive() and threading.current_thread() is not thread:
            thread.join(timeout)

    def request(self, folder: Folder, paths: Iterable[str]) -> None:
        """Queue a sync for a folder whose lexical index just moved; `paths` go first."""
        if folder.index.vector_error is not None:
            return
        with self._cond:
            self._due.setdefault(folder.uri, set()).update(paths)
            self._restart.set()
            self._cond.notify_all()

    @property
    def idle(self) -> bool:
        with self._cond:
            return self._running is None and not self._due

    def wait_idle(self, timeout: float | None = None) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._running is None and not self._due,
                                       timeout)

    def _next(self) -> tuple[Folder, set[str]] | None:
        with self._cond:
            while True:
                if self._stopping:
                    return None
                for uri in list(self._due):
                    paths = self._due.pop(uri)
                    folder = self._registry.get(uri)
                    if folder is not None and not folder.removed:
                        self._restart.clear()
                        self._running = folder
                        return folder, paths
                self._cond.wait()

    def _run(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            folder, paths = job
            try:
                self._sync(folder, paths)
            except Exception as exc:  # noqa: BLE001 - vectors are optional; lexical carries on
                self._listener.log("error", f"embedding failed for {folder.root}: {exc}")
            finally:
                with self._cond:
                    self._running = None
                    self._cond.notify_all()

    def _sync(self, folder: Folder, paths: set[str]) -> None:
        sink: ProgressSink | None = None

        def progress(done: int, todo: int) -> None:
            nonlocal sink
            folder.embedding = (done, todo)
            if todo and sink is None:
                sink = self._listener.begin(f"Embedding {folder.name}", unit="vectors")
            if sink is not None:
                sink.report(done, todo)

        def should_stop() -> bool:
            return self._stopping or folder.removed or self._restart.is_set()

        with self._cond:
            first = sorted(paths | folder.open_paths)
        try:
            summary = folder.index.sync_vectors(progress=progress, should_stop=should_stop,
                                                first_paths=first)
        finally:
            folder.embedding = None
        folder.last_sync = summary
        if summary is not None and summary.rebuilt:
            self._listener.warn(f"{folder.root}: {summary.rebuilt}")
        if summary is None:
            self._listener.log("warning", f"vector search is off for {folder.root}: "
                                          f"{folder.index.vector_error}")
            if sink is not None:
                sink.end("unavailable")
            return
        if sink is not None:
            sink.end("paused" if summary.cancelled else f"{summary.embedded} vectors embedded")
        if summary.cancelled and not (self._stopping or folder.removed):
            self.request(folder, paths)  # stopped to let newer files go first: come back
        if summary.embedded or summary.deleted:
            self._listener.log("info", f"embedded {folder.root}: {summary.embedded} new, "
                                       f"{summary.from_cache} from cache, {summary.deleted} "
                                       f"removed in {summary.seconds:.1f}s")
