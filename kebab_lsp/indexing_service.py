"""The server's background indexer: one writer thread for every folder, fed by a queue.

Why one thread: the store allows one writer at a time anyway, and a single thread makes the
order of writes the order of events (a save after a rename lands after the rename). Parsing may
still fan out to a process pool inside `Indexer.index`; the event loop never parses or writes.

Why debounce: a `git checkout` or a formatter run produces bursts of file events. They are
collected until the stream has been quiet for `debounce_ms` (or at most `MAX_DELAY_S` after
the first one) and then applied in arrival order, runs of plain changes as one
`update_paths` call.

This module knows nothing about LSP: it reports through `IndexListener`, which the server
implements with `$/progress` and `window/logMessage`.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from indexing.discover import DEFAULT_SKIP_DIRS
from indexing.indexer import IndexSummary
from kebab_lsp.workspace import Workspace, WorkspaceOptions
from search.symbols import SymbolIndex

MAX_DELAY_S = 1.0


class ProgressSink(Protocol):
    def report(self, done: int, total: int) -> None: ...

    def end(self, message: str) -> None: ...


class IndexListener(Protocol):
    """How the service talks to the outside world; called from the writer thread."""

    def begin(self, title: str, unit: str = "files") -> ProgressSink: ...

    def log(self, level: str, message: str) -> None: ...


class _Stopped(Exception):
    """Raised from the progress callback to abandon a scan (shutdown or folder removed)."""


@dataclass(eq=False)
class Folder:
    """One open workspace folder and what the server tracks about it."""

    uri: str
    name: str
    workspace: Workspace
    progress: tuple[int, int] | None = None
    queued_scans: int = 0
    removed: bool = False
    embedding: tuple[int, int] | None = None
    open_paths: set[str] = field(default_factory=set)  # workspace-relative, embedded first
    symbols: SymbolIndex = field(init=False)

    def __post_init__(self) -> None:
        store = self.workspace.store
        # The lexical version moves on every committed batch: one cheap read per query. While
        # a folder is being indexed, a large change may be answered from the previous matcher
        # for the second its rebuild takes (workspace/symbol results are incomplete anyway).
        self.symbols = SymbolIndex(store, store.lexical_version,
                                   may_serve_stale=lambda: self.workspace.building)

    @property
    def root(self) -> Path:
        return self.workspace.root

    def owns(self, path: Path) -> bool:
        return path == self.root or self.root in path.parents


@dataclass(frozen=True, slots=True)
class _Scan:
    folder: Folder
    rebuild: bool


@dataclass(slots=True)
class _Event:
    kind: str  # "changed" | "renamed"
    path: Path
    new_path: Path | None = None


@dataclass(slots=True)
class _Pending:
    events: list[_Event] = field(default_factory=list)
    first_at: float = 0.0
    last_at: float = 0.0


def normalize(path: Path) -> Path:
    """Resolve symlinked directories (e.g. a temp dir) but not the file itself, so a path
    from the client lines up with the resolved folder roots."""
    path = Path(os.path.abspath(path))
    return Path(os.path.realpath(path.parent)) / path.name


class IndexService:
    def __init__(
        self,
        listener: IndexListener,
        debounce_s: float = 0.2,
        workspace_factory: Callable[[Path, WorkspaceOptions], Workspace] = Workspace,
    ) -> None:
        self.listener = listener
        self.debounce_s = debounce_s
        self._factory = workspace_factory
        self._folders: dict[str, Folder] = {}
        self._cond = threading.Condition()
        self._scans: deque[_Scan] = deque()
        self._pending = _Pending()
        self._busy = False
        self._stopping = False
        self._embed_due: dict[str, set[str]] = {}  # folder uri -> recently written paths
        self._embed_restart = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kebab-writer", daemon=True)
        self._thread.start()
        self._embed_thread = threading.Thread(target=self._run_embedding,
                                              name="kebab-embedder", daemon=True)
        self._embed_thread.start()

    # -- folders (event loop thread) -------------------------------------------------------

    def add_folder(self, uri: str, name: str, root: Path, options: WorkspaceOptions) -> Folder:
        """Open (or reuse) the folder's index and queue its first scan; cheap, never scans
        inline. The scan is incremental, so it also finds files changed while we were down."""
        with self._cond:
            existing = self._folders.get(uri)
            if existing is not None:
                return existing
        ws = self._factory(root, options)
        folder = Folder(uri=uri, name=name, workspace=ws)
        if ws.store.rebuilt_reason:
            self.listener.log("warning", f"{folder.root}: {ws.store.rebuilt_reason}")
        with self._cond:
            self._folders[uri] = folder
        self.scan(folder)
        return folder

    def remove_folder(self, uri: str) -> Folder | None:
        with self._cond:
            folder = self._folders.pop(uri, None)
            if folder is not None:
                folder.removed = True
            self._cond.notify_all()
        return folder

    def folders(self) -> list[Folder]:
        """A snapshot, in the order folders were added (the deterministic merge order)."""
        with self._cond:
            return list(self._folders.values())

    def folders_for(self, path: Path) -> list[Folder]:
        path = normalize(path)
        return [f for f in self.folders() if f.owns(path)]

    # -- work (event loop thread) ----------------------------------------------------------

    def scan(self, folder: Folder, rebuild: bool = False) -> None:
        with self._cond:
            folder.queued_scans += 1
            folder.workspace.building = True
            self._scans.append(_Scan(folder, rebuild))
            self._cond.notify_all()

    def changed(self, paths: Iterable[Path]) -> None:
        self._add_events(_Event("changed", normalize(p)) for p in paths)

    def opened(self, path: Path) -> None:
        path = normalize(path)
        with self._cond:
            for folder in self._folders.values():
                if folder.owns(path):
                    folder.open_paths.add(path.relative_to(folder.root).as_posix())

    def closed(self, path: Path) -> None:
        path = normalize(path)
        with self._cond:
            for folder in self._folders.values():
                if folder.owns(path):
                    folder.open_paths.discard(path.relative_to(folder.root).as_posix())

    def renamed(self, old: Path, new: Path) -> None:
        self._add_events([_Event("renamed", normalize(old), normalize(new))])

    def _add_events(self, events: Iterable[_Event]) -> None:
        now = time.monotonic()
        with self._cond:
            added = list(events)
            if not added:
                return
            if not self._pending.events:
                self._pending.first_at = now
            self._pending.events.extend(added)
            self._pending.last_at = now
            self._cond.notify_all()

    @property
    def building(self) -> bool:
        """True while any indexing is queued, pending or running."""
        with self._cond:
            return self._busy or bool(self._scans) or bool(self._pending.events)

    def stop(self, timeout: float = 10.0) -> None:
        with self._cond:
            self._stopping = True
            self._scans.clear()
            self._pending = _Pending()
            self._cond.notify_all()
        self._embed_restart.set()
        for thread in (self._thread, self._embed_thread):
            if thread.is_alive() and threading.current_thread() is not thread:
                thread.join(timeout)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    # -- the writer thread -----------------------------------------------------------------

    def _next(self) -> _Scan | list[_Event] | None:
        """Block until there is work; None means stop."""
        with self._cond:
            while True:
                if self._stopping:
                    return None
                if self._scans:
                    self._busy = True
                    return self._scans.popleft()
                if self._pending.events:
                    now = time.monotonic()
                    due = min(self._pending.last_at + self.debounce_s,
                              self._pending.first_at + MAX_DELAY_S)
                    if now >= due:
                        events = self._pending.events
                        self._pending = _Pending()
                        self._busy = True
                        return events
                    self._cond.wait(due - now)
                else:
                    self._cond.wait()

    def _run(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            try:
                if isinstance(job, _Scan):
                    self._run_scan(job)
                else:
                    self._run_events(job)
            except _Stopped:
                pass
            except Exception as exc:  # noqa: BLE001 - one bad job must not kill the writer
                self.listener.log("error", f"indexing failed: {type(exc).__name__}: {exc}")
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def _check_stop(self, folder: Folder | None = None) -> None:
        if self._stopping or (folder is not None and folder.removed):
            raise _Stopped()

    def _run_scan(self, job: _Scan) -> None:
        folder = job.folder
        try:
            self._check_stop(folder)
            verb = "Rebuilding" if job.rebuild else "Indexing"
            sink = self.listener.begin(f"{verb} {folder.name}")
            folder.progress = (0, 0)

            def progress(done: int, total: int) -> None:
                self._check_stop(folder)
                folder.progress = (done, total)
                sink.report(done, total)
                self._apply_other_folders_events(folder)

            try:
                summary = folder.workspace.indexer.index(progress=progress, rebuild=job.rebuild)
            except _Stopped:
                sink.end("stopped")
                raise
            except Exception as exc:
                sink.end(f"failed: {exc}")
                raise
            stats = folder.workspace.store.stats()
            sink.end(f"{stats.files} files, {stats.symbols} symbols")
            self._embed_later(folder, summary.written_paths)
            self.listener.log("info", f"{verb.lower()} {folder.root}: {summary.describe()}")
        finally:
            with self._cond:
                folder.queued_scans -= 1
                if folder.queued_scans <= 0:
                    folder.queued_scans = 0
                    folder.workspace.building = False
                    folder.progress = None

    def _apply_other_folders_events(self, scanning: Folder) -> None:
        """Called between write batches of one folder's scan: due file events of *other*
        folders are applied now, so a save there does not wait for the whole scan. Events of
        the scanning folder stay queued; applying them mid-scan could be overwritten by the
        scan's older read of the same file."""
        with self._cond:
            pending = self._pending
            now = time.monotonic()
            due = min(pending.last_at + self.debounce_s, pending.first_at + MAX_DELAY_S)
            if not pending.events or now < due:
                return

            def mine(e: _Event) -> bool:
                return scanning.owns(e.path) or (e.new_path is not None
                                                 and scanning.owns(e.new_path))

            others = [e for e in pending.events if not mine(e)]
            if not others:
                return
            kept = [e for e in pending.events if mine(e)]
            self._pending = _Pending(kept, pending.first_at, pending.last_at) if kept else (
                _Pending())
        self._run_events(others)

    def _run_events(self, events: list[_Event]) -> None:
        for folder in self.folders():
            self._check_stop()
            mine = [e for e in events if folder.owns(e.path)
                    or (e.new_path is not None and folder.owns(e.new_path))]
            if not mine:
                continue
            if any(_needs_scan(folder, p) for e in mine for p in (e.path, e.new_path) if p):
                # A directory or an ignore file changed: only a walk knows what that means.
                # The scan is incremental, so this costs a stat per file.
                summary = folder.workspace.indexer.index()
                self.listener.log("info", f"rescanned {folder.root}: {summary.describe()}")
                self._embed_later(folder, summary.written_paths)
                continue
            total = IndexSummary()
            changed: list[Path] = []
            for event in self._expand(folder, mine):
                if event.kind == "renamed" and event.new_path is not None:
                    if changed:
                        total.absorb(folder.workspace.indexer.update_paths(_unique(changed)))
                        changed = []
                    total.absorb(folder.workspace.indexer.rename_path(event.path, event.new_path))
                else:
                    changed.append(event.path)
            if changed:
                total.absorb(folder.workspace.indexer.update_paths(_unique(changed)))
            if total.new or total.changed or total.deleted or total.renamed:
                self.listener.log("info", f"updated {folder.root}: {total.describe()}")
                rel = [e.path.relative_to(folder.root).as_posix() for e in mine
                       if folder.owns(e.path)]
                self._embed_later(folder, rel)

    # -- the embedding thread --------------------------------------------------------------

    def _embed_later(self, folder: Folder, paths: Iterable[str]) -> None:
        """Queue a vector sync for a folder whose lexical index just moved; the files named
        (just saved or written) are embedded first. A sync already running is asked to stop
        at its next batch, so the new files do not wait behind a long backlog."""
        if folder.workspace.vector_error is not None:
            return
        with self._cond:
            self._embed_due.setdefault(folder.uri, set()).update(paths)
            self._embed_restart.set()
            self._cond.notify_all()

    def _next_embedding(self) -> tuple[Folder, set[str]] | None:
        with self._cond:
            while True:
                if self._stopping:
                    return None
                for uri in list(self._embed_due):
                    paths = self._embed_due.pop(uri)
                    folder = self._folders.get(uri)
                    if folder is not None and not folder.removed:
                        self._embed_restart.clear()
                        return folder, paths
                self._cond.wait()

    def _run_embedding(self) -> None:
        """Embedding is the slowest stage by far, so it has its own thread: lexical updates
        (the writer) never wait for it, and it never delays a request."""
        while True:
            job = self._next_embedding()
            if job is None:
                return
            folder, paths = job
            try:
                self._sync_vectors(folder, paths)
            except Exception as exc:  # noqa: BLE001 - vectors are optional; lexical carries on
                self.listener.log("error", f"embedding failed for {folder.root}: {exc}")

    def _sync_vectors(self, folder: Folder, paths: set[str]) -> None:
        vindex = folder.workspace.vector_index()
        if vindex is None:
            return
        have, total = vindex.coverage()
        if have == total and not paths and total > 0:
            return
        sink: ProgressSink | None = None

        def progress(done: int, todo: int) -> None:
            nonlocal sink
            folder.embedding = (done, todo)
            if todo and sink is None:
                sink = self.listener.begin(f"Embedding {folder.name}", unit="vectors")
            if sink is not None:
                sink.report(done, todo)

        def should_stop() -> bool:
            return self._stopping or folder.removed or self._embed_restart.is_set()

        with self._cond:
            first = sorted(paths | folder.open_paths)
        try:
            summary = folder.workspace.sync_vectors(
                progress=progress, should_stop=should_stop, first_paths=first)
        finally:
            folder.embedding = None
        if summary is None:
            self.listener.log("warning", f"vector search is off for {folder.root}: "
                              f"{folder.workspace.vector_error}")
            if sink is not None:
                sink.end("unavailable")
            return
        if sink is not None:
            sink.end("paused" if summary.cancelled else f"{summary.embedded} chunks embedded")
        if summary.cancelled and not (self._stopping or folder.removed):
            # Stopped to let newer files go first (possibly in another folder): come back.
            self._embed_later(folder, paths)
        if summary.embedded or summary.deleted:
            self.listener.log("info", f"embedded {folder.root}: {summary.embedded} new, "
                              f"{summary.from_cache} from cache, {summary.deleted} removed "
                              f"in {summary.seconds:.1f}s")

    @staticmethod
    def _expand(folder: Folder, events: list[_Event]) -> list[_Event]:
        """A deleted directory arrives as one event: turn it into its indexed files."""
        out: list[_Event] = []
        states: list[str] | None = None
        for event in events:
            if event.kind == "changed" and not event.path.exists():
                rel = event.path.relative_to(folder.root).as_posix() if folder.owns(
                    event.path) else None
                if rel and rel != ".":
                    if states is None:
                        states = sorted(folder.workspace.store.file_states())
                    under = [p for p in states if p.startswith(rel + "/")]
                    out.extend(_Event("changed", folder.root / p) for p in under)
            out.append(event)
        return out


IGNORE_FILES = frozenset({".gitignore", ".kebabignore"})


def _needs_scan(folder: Folder, path: Path) -> bool:
    if not folder.owns(path) or path == folder.root:
        return False
    parts = path.relative_to(folder.root).parts
    if parts[-3:] == (".git", "info", "exclude") and len(parts) == 3:
        return True
    if any(p in DEFAULT_SKIP_DIRS for p in parts):
        return False
    return path.name in IGNORE_FILES or path.is_dir()


def _unique(paths: list[Path]) -> list[Path]:
    return list(dict.fromkeys(paths))
