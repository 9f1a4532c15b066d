"""The indexing runtime: every thread that keeps indexes current, with one owner.

The language server and `kebab index` drive this same object: open folders, queue scans, feed
file events, change settings, wait, stop. It owns three threads and starts and stops them:

- the writer (`writer.py`): every index write, scans interleaved with file events;
- the embed scheduler (`embedding.py`): vectors, behind the writer, never in its way;
- the refresher (`refresher.py`): rebuilds of in-memory caches such as the symbol matcher.

It knows nothing about LSP: it reports through a `Listener`.

It is also where trouble with an index turns into action (`_StoreWatcher`): a damaged index is
rebuilt from the files and the user is told; when the disk refuses writes the user is told
once, answers keep coming from the last good index, and the writer retries until a write
succeeds and the index catches up.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from indexing.indexer import Baseline
from indexing.runtime.embedding import EmbedScheduler
from indexing.runtime.events import FileEvent, normalize
from indexing.runtime.folder_index import FolderIndex
from indexing.runtime.folders import Folder, FolderRegistry, Unopened
from indexing.runtime.listener import Listener
from indexing.runtime.refresher import Refresher
from indexing.runtime.writer import Writer
from indexing.settings import Scope, Settings, changed

#: Whether this process may write a folder's index (`runtime.writership`); by default it may.
Claim = Callable[[Folder], bool]


class Runtime:
    def __init__(self, listener: Listener, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.listener = listener
        #: Asked by `add_folder` before any scan: may this process write the folder's index?
        #: A process sharing indexes with others sets it (`Writership.claim`).
        self.claim: Claim = lambda folder: True
        self.registry = FolderRegistry()
        #: Folders the client opened whose index could not be, by URI (`Unopened`).
        self._unopened: dict[str, Unopened] = {}
        self.embedder = EmbedScheduler(self.registry, listener)
        self.refresher = Refresher(listener)
        self.writer = Writer(self.registry, listener, self._written,
                             self.settings.debounce_ms / 1000)
        self._started = False
        self.stopped = False  # for good: `stop` has stopped every thread and closed every index

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        if not self._started:
            self._started = True
            self.writer.start()
            self.embedder.start()
            self.refresher.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop every thread (a running scan or sync stops at its next step) and close every
        folder's index."""
        self.writer.stop(timeout)
        self.embedder.stop(timeout)
        self.refresher.stop(timeout)
        for folder in self.registry.snapshot():
            folder.index.close()
        self.stopped = True

    # -- folders -----------------------------------------------------------------------------

    def add_folder(self, uri: str, name: str, root: Path, scan: bool = True,
                   check: bool = True) -> Folder:
        """Open (or reuse) a folder's index and queue its first scan (if this process writes it:
        `claim`); cheap, never scans inline. The scan is incremental, so it also finds files
        changed while we were down.
        With `check`, the index is also read through in the background for damage that no
        query or write would meet soon (the refresher runs `Store.verify`)."""
        existing = self.registry.get(uri) or self.registry.alias(uri, root.resolve())
        if existing is not None:  # the same folder, perhaps spelled otherwise: one index
            self._unopened.pop(uri, None)
            return existing
        try:
            index = FolderIndex(root, self.settings)
        except Exception as exc:
            self.unopened(uri, name, root, str(exc) or type(exc).__name__)
            raise
        self._unopened.pop(uri, None)
        if index.store.rebuilt_reason:
            self.listener.warn(f"{index.root}: {index.store.rebuilt_reason}")
        folder = self.registry.add(Folder(uri=uri, name=name, index=index,
                                          opened_as=Path(os.path.abspath(root))))
        if folder.index is not index:  # another thread opened it first
            index.close()
            return folder
        try:
            folder.writes = self.claim(folder)
        except Exception as exc:  # its lease's folder cannot be made: not opened after all
            self.registry.remove(uri)
            index.close()
            self.unopened(uri, name, root, str(exc) or type(exc).__name__)
            raise
        watcher = _StoreWatcher(self, folder)
        index.store.watcher = watcher
        if index.store.read_only is not None:
            watcher.write_failed(index.store.read_only)
        if scan:
            self.writer.scan(folder)
        if check and not index.store.rebuilt_reason:  # a rebuilt index is new: nothing to check
            self.refresher.submit(f"verify {uri}", lambda: self._verify(folder))
        return folder

    def _verify(self, folder: Folder) -> None:
        """Damage found here is reported through the store's watcher (a rebuild follows)."""
        folder.index.store.verify(lambda: folder.removed or self.refresher.stopping)

    def unopened(self, uri: str, name: str, root: Path | None, reason: str) -> None:
        """Record a folder the client opened that has no index here (see `Unopened`)."""
        self._unopened[uri] = Unopened(uri, name, Path(os.path.abspath(root)) if root else None,
                                       reason)

    def unopened_folders(self) -> list[Unopened]:
        return list(self._unopened.values())

    def remove_folder(self, uri: str) -> Folder | None:
        """Forget a folder's URI, and the folder once no URI of it is left (`FolderRegistry`);
        work on it stops at its next step, and the writer then closes its index: every
        connection of every thread, so no file of it stays open."""
        self._unopened.pop(uri, None)
        folder = self.registry.remove(uri)
        if folder is not None:
            self.writer.retire(folder)
        return folder

    def folders(self) -> list[Folder]:
        return self.registry.snapshot()

    def scan(self, folder: Folder, rebuild: bool = False) -> None:
        self.writer.scan(folder, rebuild)

    def set_baseline(self, folder: Folder, baseline: Baseline | None) -> None:
        """`folder` is the checkout of a team index holding these hashes (None: of none any
        more): its index keeps only the files that differ from them. A scan by hash brings
        it in line (unless one not yet begun is queued: it reads the new baseline)."""
        if folder.baseline == baseline:
            return
        folder.baseline = baseline
        self.writer.scan(folder, unless_queued=True)

    # -- settings ----------------------------------------------------------------------------

    def configure(self, settings: Settings) -> list[str]:
        """The one way settings change. Runtime settings apply at once; settings that shape an
        index reopen every folder (a new scan brings each in line). Returns what changed."""
        old, self.settings = self.settings, settings
        self.writer.set_debounce(settings.debounce_ms / 1000)
        runtime = changed(old, settings, Scope.RUNTIME)
        if changed(old, settings, Scope.INDEX) or set(runtime) - {"debounce_ms"}:
            # A folder's index, indexer and embedder are built from the settings: reopen,
            # and try again the folders that could not be opened (a mistyped `indexDir`
            # the user just fixed).
            retry = [(u.uri, u.name, u.root) for u in self._unopened.values() if u.root]
            for folder in self.registry.snapshot():
                uris = self.registry.aliases(folder)
                for uri in uris:
                    self.remove_folder(uri)
                # The first (its `uri`) opens it, as it was opened.
                self._reopen([(uri, folder.name, folder.cited_root) for uri in uris])
            for entry in retry:
                self._reopen([entry])
        return [name for scope in Scope for name in changed(old, settings, scope)]

    def _reopen(self, spellings: list[tuple[str, str, Path | None]]) -> None:
        """Open one folder again under each of its URIs; if its index cannot be opened it
        becomes `Unopened` under each of them, and the user is told once."""
        failed: str | None = None
        for uri, name, root in spellings:
            if root is None:
                continue
            try:
                self.add_folder(uri, name, root, check=False)
            except Exception as exc:  # noqa: BLE001 - recorded as unopened by add_folder
                failed = f"{root}: cannot open an index: {exc}"
        if failed is not None:
            self.listener.warn(failed)

    # -- file events -------------------------------------------------------------------------

    def changed(self, paths: Iterable[Path]) -> None:
        self.writer.add(FileEvent("changed", normalize(p)) for p in paths)

    def renamed(self, old: Path, new: Path) -> None:
        self.writer.add([FileEvent("renamed", normalize(old), normalize(new))])

    def opened(self, path: Path) -> None:
        """Open files are what the user is looking at: they are embedded first."""
        path = normalize(path)
        for folder in self.registry.owners(path):
            rel = folder.relative(path)
            if rel:
                folder.open_paths.add(rel)

    def closed(self, path: Path) -> None:
        path = normalize(path)
        for folder in self.registry.owners(path):
            rel = folder.relative(path)
            if rel:
                folder.open_paths.discard(rel)

    # -- waiting -----------------------------------------------------------------------------

    @property
    def building(self) -> bool:
        return self.writer.indexing or any(f.building for f in self.registry.snapshot())

    def wait_idle(self, timeout: float | None = None, embedding: bool = False) -> bool:
        """Wait for indexing (and, with `embedding`, for vectors) to settle."""
        if not self.writer.wait_idle(timeout):
            return False
        return not embedding or self.embedder.wait_idle(timeout)

    def finish_upkeep(self, timeout: float | None = None) -> bool:
        """Merge and checkpoint the indexes now rather than in idle time: a one-shot
        `kebab index` exits next, and the index it leaves should be the quick one to read."""
        return self.writer.wait_upkept(timeout)

    def _written(self, folder: Folder, paths: Sequence[str]) -> None:
        if self.settings.embed:
            self.embedder.request(folder, paths)


#: Rebuilds of a damaged index per folder and process. An index damaged again and again is
#: a failing disk, not a bad write: rebuilding forever would hide that and burn the CPU.
MAX_REPAIRS = 3


class _StoreWatcher:
    """A folder's store reports trouble here, from whichever thread ran into it; every
    method only records, tells the user and queues work, so it returns at once."""

    def __init__(self, runtime: Runtime, folder: Folder) -> None:
        self._runtime = runtime
        self._folder = folder

    def damaged(self, reason: str) -> None:
        folder, listener = self._folder, self._runtime.listener
        if folder.removed:
            return
        folder.repairs += 1
        if folder.repairs > MAX_REPAIRS:
            if folder.repairs == MAX_REPAIRS + 1:
                listener.warn(f"{folder.root}: the index keeps getting damaged ({reason}); it "
                              f"was rebuilt {MAX_REPAIRS} times, and is not rebuilt again "
                              "until kebab restarts: check the disk")
            return
        listener.warn(f"{folder.root}: the index is damaged ({reason}); rebuilding it from "
                      "the files")
        self._runtime.writer.scan(folder, rebuild=True)

    def write_failed(self, reason: str) -> None:
        folder = self._folder
        if folder.removed:
            return
        if folder.unwritable is None:
            folder.unwritable = reason
            self._runtime.listener.warn(
                f"{folder.root}: {reason}; searches answer from the last complete index "
                "until a write succeeds")
        self._runtime.writer.retry_later(folder)

    def write_recovered(self) -> None:
        folder = self._folder
        if folder.unwritable is not None:
            folder.unwritable = None
            self._runtime.listener.warn(f"{folder.root}: the index can be written again; "
                                        "it is catching up")
