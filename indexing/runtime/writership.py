"""Which of a runtime's folders this process writes, when other processes share the indexes.

Any number of processes may serve one workspace (`kebab serve` in the editor, `kebab mcp` for
each agent); exactly one of them writes each index: the holder of its writer lease
(`runtime.lease`). `Writership` is that rule for one runtime, used by both servers:

- `claim` is the runtime's hook (`Runtime.claim`): opening a folder takes its index's lease if
  it is free. The holder writes: it runs the runtime's threads, scans, and follows the files'
  changes: `kebab mcp` watches them (watchfiles, `watch=True`); the language server hears them
  from its editor (`workspace/didChangeWatchedFiles`), which a watcher would only duplicate,
  and turn a reported rename into a delete and an add, unless the editor cannot report them
  (Neovim on Linux cannot): then it watches too (`watch_changes`). Otherwise `Folder.writes`
  is false and the runtime leaves the index alone: this process reads it and sees every
  commit.
- A poller (`kebab-lease`) keeps trying the leases this process lacks. The kernel drops a lease
  when its holder exits, however it exits, so within a poll one reader takes over, catches up
  with a scan (the index lags the disk by whatever changed meanwhile) and starts watching.
- A lease is released once no open folder uses its index and the writer has finished with it,
  once the runtime has stopped (a language server between `shutdown` and `exit`), or on
  `close`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from indexing.runtime.folders import Folder, directory_identity
from indexing.runtime.lease import WriterLease

if TYPE_CHECKING:
    from indexing.runtime.runtime import Runtime

#: How often a reader tries to take over an index whose writer may have gone.
LEASE_POLL_S = 1.0


def watcher_stopped(root: Path, why: str) -> str:
    """What the user is told, once as a warning and in every status while it lasts, when the
    watcher of `root` stopped (`why`: its state)."""
    return (f"{root}: the file watcher stopped ({why}); changes made outside the editor reach "
            "the index only through an editor's saves, or at the next start")


#: How often a watcher looks whether its root is still the directory it watches, and, while
#: the root is gone, whether it is back.
ROOT_CHECK_S = 0.5
#: The watcher's state while its root does not exist.
ROOT_GONE = "the folder is gone; waiting for it to be created again"



class Watcher:
    """A thread (`kebab-watch`) that turns file changes under a root into runtime events.

    watchfiles batches and debounces changes itself; the writer's own debounce and ignore rules
    (`Runtime.changed`) decide what is indexed.

    A watch follows the directory, not the name: once the root is deleted (a re-clone, `git
    worktree remove`) it goes silent for good, even when a new directory takes the name. So
    the watcher checks the root's identity every `ROOT_CHECK_S`; when it changed it reports
    the root itself (the writer walks it: a root that is gone empties the index, a new one is
    indexed), says in its state that the root is gone while it is, and watches the new
    directory once there is one."""

    def __init__(self, root: Path, on_change: Callable[[list[Path]], None],
                 skip: Path | None, on_failure: Callable[[str], None] = lambda _why: None
                 ) -> None:
        self.root = root
        self._on_change = on_change
        self._skip = skip
        self._on_failure = on_failure
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="kebab-watch", daemon=True)
        self.state = "starting"

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        try:
            first = True
            while not self._stop.is_set():
                identity = directory_identity(self.root)
                if identity is None and not first:
                    self.state = ROOT_GONE
                    back = not self._stop.wait(ROOT_CHECK_S) and directory_identity(self.root)
                    if back:
                        self._on_change([self.root])  # a new directory took the name: walk it
                    continue
                # A root missing from the start is no watch at all: that fails, and says so.
                first = False
                self.state = "watching"
                self._watch(identity)
                if not self._stop.is_set():  # gone or replaced: walk it (gone: the index empties)
                    self._on_change([self.root])
            self.state = "stopped"
        except Exception as exc:  # noqa: BLE001 - a dead watcher is reported, not raised
            self.state = f"failed: {type(exc).__name__}: {exc}"
            self._on_failure(self.state)

    def _watch(self, identity: tuple[int, int] | None) -> None:
        """Report changes under the root until it stops being the directory `identity`."""
        from watchfiles import watch

        try:
            for changes in watch(self.root, stop_event=self._stop, debounce=100, step=50,
                                 rust_timeout=int(ROOT_CHECK_S * 1000), yield_on_timeout=True,
                                 raise_interrupt=False):
                paths = [Path(p) for _, p in changes]
                if self._skip is not None:
                    paths = [p for p in paths if p != self._skip and self._skip not in p.parents]
                if paths:
                    self._on_change(paths)
                if directory_identity(self.root) != identity:
                    return
        except Exception:
            if directory_identity(self.root) == identity:  # not the root going away: a real failure
                raise

    @property
    def failed(self) -> bool:
        return self.state.startswith("failed")

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)


class Writership:
    def __init__(self, runtime: Runtime, watch: bool, poll_s: float = LEASE_POLL_S) -> None:
        self._runtime = runtime
        self._watch = watch
        self._poll_s = poll_s
        self._lock = threading.RLock()
        self._leases: dict[Path, WriterLease] = {}  # index dir -> its lease
        self._watchers: dict[Path, Watcher] = {}  # index dir -> the watcher of its root
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None

    def claim(self, folder: Folder) -> bool:
        """`Runtime.claim`: take the lease of `folder`'s index if it is free (or already
        ours). True when this process writes it; otherwise the poller keeps trying."""
        with self._lock:
            held = self._take(folder)
            if self._poller is None and not self._stop.is_set():
                self._poller = threading.Thread(target=self._poll, name="kebab-lease",
                                                daemon=True)
                self._poller.start()
            return held

    def try_write(self, folder: Folder) -> bool:
        """Take over writing `folder` now if its lease is free: the folder is then scanned
        to catch up. True while this process writes it."""
        with self._lock:
            if folder.writes:
                return True
            if folder.removed or not self._take(folder):
                return False
            folder.writes = True
        self._runtime.scan(folder)
        return True

    def watch_changes(self) -> None:
        """Watch the roots of the indexes this process writes, now and whenever it takes a
        lease from here on: for a client that cannot report changes made outside it (a git
        checkout, a formatter, another editor's save), which would otherwise reach the index
        only at the next start."""
        with self._lock:
            self._watch = True
            for folder in self._runtime.folders():
                if folder.writes and not folder.removed:
                    self._start_watcher(folder)

    def holder(self, folder: Folder) -> int | None:
        """The pid of the process writing `folder`'s index, if one does."""
        index_dir = folder.index.index_dir
        with self._lock:
            lease = self._leases.get(index_dir) or WriterLease(index_dir)
        return lease.holder()

    def watcher_state(self, folder: Folder) -> str | None:
        """This process's watcher of `folder` (None when it has none: another process writes
        it, or this one does not watch)."""
        watcher = self._watcher(folder)
        return watcher.state if watcher is not None else None

    def watcher_warning(self, folder: Folder) -> str | None:
        """What to tell the user while this process's watcher of `folder` has stopped, or
        waits for the folder, which is gone, to be created again."""
        watcher = self._watcher(folder)
        if watcher is None:
            return None
        if watcher.state == ROOT_GONE:
            return f"{folder.root}: {ROOT_GONE}"
        return watcher_stopped(folder.root, watcher.state) if watcher.failed else None

    def _watcher(self, folder: Folder) -> Watcher | None:
        with self._lock:
            return self._watchers.get(folder.index.index_dir)

    def close(self) -> None:
        """Stop polling and watching, and release every lease: after the runtime stopped, so
        no write of this process outlives its lease."""
        self._stop.set()
        poller = self._poller
        if poller is not None and poller is not threading.current_thread():
            poller.join(self._poll_s * 3)
        with self._lock:
            watchers, self._watchers = list(self._watchers.values()), {}
            leases, self._leases = list(self._leases.values()), {}
        for watcher in watchers:
            watcher.stop()
        for lease in leases:
            lease.release()

    # -- inside -------------------------------------------------------------------------------

    def _take(self, folder: Folder) -> bool:
        """Under the lock: the lease, and on getting it the runtime's threads and a watcher."""
        index_dir = folder.index.index_dir
        lease = self._leases.setdefault(index_dir, WriterLease(index_dir))
        if not lease.try_acquire():
            # Said once, until the reason changes: otherwise this process read the index in
            # silence, as if another wrote it, and nothing might (a `writer.lock` directory).
            if lease.refused is not None and lease.refused != folder.lease_refused:
                self._runtime.listener.warn(f"{index_dir}: this process reads the index but "
                                            f"cannot write it: {lease.refused}")
            folder.lease_refused = lease.refused
            return False
        folder.lease_refused = None
        self._runtime.start()
        if self._watch:
            self._start_watcher(folder)
        return True

    def _start_watcher(self, folder: Folder) -> None:
        """Under the lock: a watcher of `folder`'s root, unless it has one."""
        index_dir = folder.index.index_dir
        if index_dir not in self._watchers and not self._stop.is_set():
            listener = self._runtime.listener

            def failed(why: str, root: Path = folder.root) -> None:
                listener.warn(watcher_stopped(root, why))

            watcher = Watcher(folder.root, self._runtime.changed, index_dir, failed)
            watcher.start()
            self._watchers[index_dir] = watcher

    def _poll(self) -> None:
        while not self._stop.wait(self._poll_s):
            if self._runtime.stopped:  # its writes are over: let another process write now
                self.close()
                return
            for folder in self._runtime.folders():
                if folder.writes or folder.removed:
                    continue
                try:
                    self.try_write(folder)
                except Exception as exc:  # noqa: BLE001 - try again next poll
                    self._runtime.listener.log("error", f"taking over {folder.root}: {exc}")
            self._release_unused()

    def _release_unused(self) -> None:
        """Leases of indexes no open folder uses any more, once the writer is done with them
        (a removed folder's scan stops and its index closes on the writer's thread)."""
        with self._lock:
            used = {f.index.index_dir for f in self._runtime.folders()}
            unused = [d for d in self._leases if d not in used]
            if not unused or not self._runtime.writer.idle:
                return
            for index_dir in unused:
                watcher = self._watchers.pop(index_dir, None)
                if watcher is not None:
                    watcher.stop(timeout=0.5)
                self._leases.pop(index_dir).release()
