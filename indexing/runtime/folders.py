"""The open workspace folders, and what the runtime knows about each.

A folder's index state is written by one owner each: the writer sets scan progress and the
count of indexing work queued or running for the folder, the embed scheduler sets embedding
progress. Everything else (search meta, status requests, the symbol matcher) only reads, through
`Folder.building` and friends, so "is this folder still building?" has one answer.
"""

from __future__ import annotations

import os
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path

from indexing.indexer import Baseline, IndexSummary
from indexing.runtime.folder_index import FolderIndex
from indexing.vector_index import SyncSummary


def directory_identity(root: Path) -> tuple[int, int] | None:
    """Which directory `root` is (device and inode), or None when there is none: a root
    deleted and created again (a re-clone) is another directory by the same name."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


@dataclass(frozen=True, slots=True)
class Unopened:
    """A workspace folder the client opened whose index could not be (an unwritable or
    mistyped `indexDir`, a full disk, a URI that is no local directory). It stays part of the
    workspace the user asks about: answers say it was not searched, the status lists it, and
    a change of settings tries it again."""

    uri: str
    name: str
    root: Path | None  # None: the URI names no local path
    reason: str


@dataclass(eq=False)
class Folder:
    uri: str
    name: str
    index: FolderIndex
    removed: bool = False
    #: False while another process holds this index's writer lease (`runtime.lease`): this
    #: process then only reads it, and the writer leaves it alone (no scan, no file event).
    #: Set by `Runtime.add_folder`'s claim, and by whoever takes the lease over later.
    writes: bool = True
    #: The team index's hashes, when this folder is the checkout of one (`Runtime.set_baseline`):
    #: its local index then holds only the files that differ. Set by the runtime's owner, read
    #: by the writer as each scan or batch of events begins.
    baseline: Baseline | None = None
    # Written by the writer only.
    pending_work: int = 0  # scans and event batches queued or running for this folder
    progress: tuple[int, int] | None = None  # (files written, files to write) of a scan
    scanned_root: tuple[int, int] | None = None  # the directory the last scan walked
    last_scan: IndexSummary | None = None  # the last scan that ended (a failed one: not)
    last_error: str | None = None
    #: Why the last scan failed, when the store was not the cause (its trouble, a full disk
    #: or damage, is told by the store, and its recovery brings the index back): until a
    #: scan succeeds, files it had not reached may be missing.
    scan_failed: str | None = None
    #: Why this process cannot take the index's writer lease, when no process can either (a
    #: `writer.lock` that is a directory): written by `Writership`, under its lock.
    lease_refused: str | None = None
    # Written by the store's watcher (runtime.py), from whichever thread found the trouble.
    repairs: int = 0  # rebuilds of a damaged index in this process
    unwritable: str | None = None  # why writes fail, while they do (the user was told)
    # Written by the embed scheduler only.
    embedding: tuple[int, int] | None = None
    last_sync: SyncSummary | None = None
    open_paths: set[str] = field(default_factory=set)  # workspace-relative, embedded first
    #: The root as the client opened it (its first URI's path, absolute, symlinks kept), or
    #: None for `root`: see `cited_root`.
    opened_as: Path | None = None

    @property
    def root(self) -> Path:
        """The resolved root: what the folder is keyed by, and what events (resolved, see
        `events.normalize`) are matched against."""
        return self.index.root

    @property
    def cited_root(self) -> Path:
        """Where answers cite this folder's files: the root the client opened. A workspace
        opened through a symlink (a symlinked home, macOS's /tmp) cited at its resolved root
        would have the editor open a second buffer, outside the workspace, for a file it
        already has open."""
        return self.opened_as or self.root

    @property
    def incomplete(self) -> str | None:
        """Why this folder's index lacks files for good: partial, and not read as the
        checkout of its team index here (`FolderIndex.incomplete`); or written by another
        process with other settings (`FolderIndex.built_elsewhere`: this process writes it
        with its own, after a scan that answers say is building); or written by no process
        at all (`lease_refused`)."""
        notes = [self.index.incomplete(self.baseline),
                 None if self.writes else self.index.built_elsewhere(), self._scan_failed(),
                 None if self.writes or self.lease_refused is None else
                 f"the index of {self.root} is not kept current: {self.lease_refused}"]
        return "; ".join(n for n in notes if n is not None) or None

    def _scan_failed(self) -> str | None:
        if self.scan_failed is None:
            return None
        return (f"the last scan of {self.root} failed ({self.scan_failed}); files it had not "
                "reached may be missing until a scan succeeds")

    @property
    def building(self) -> bool:
        """Indexing work for this folder is queued, pending or running."""
        return self.pending_work > 0

    @property
    def building_anywhere(self) -> bool:
        """This process is building the index, or, when another one writes it, that one is
        scanning it now: what answers read from it must say."""
        return self.building or (not self.writes and
                                 self.index.scanning_elsewhere() is not None)

    def owns(self, path: Path) -> bool:
        """Whether a change at `path` (its folders resolved) is this folder's: under its root,
        and not in a folder never indexed (kebab's own index, when the workspace holds it:
        its writes would come back as events, and each event as a write)."""
        return ((path == self.root or self.root in path.parents)
                and not self.index.options.skips(path))

    def relative(self, path: Path) -> str | None:
        return path.relative_to(self.root).as_posix() if self.owns(path) else None


class FolderRegistry:
    """Open folders by resolved root, in the order they were added: the deterministic merge
    order of multi-root answers.

    A folder is its resolved root, not its URI: one folder given twice (`.../ws0` and
    `.../ws0/`, or through a symlink) is one index, which two `Folder`s would open twice and
    write from two stores. Every URI it was opened under is an alias of it (the first is its
    `uri`), and it closes when the last of them is removed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folders: dict[Path, Folder] = {}
        self._uris: dict[str, Path] = {}  # every URI a folder was opened under -> its root

    def add(self, folder: Folder) -> Folder:
        """The folder registered at `folder`'s root: an existing one wins (opening twice is a
        no-op)."""
        with self._lock:
            found = self._folders.setdefault(folder.root, folder)
            self._uris[folder.uri] = found.root
            return found

    def alias(self, uri: str, root: Path) -> Folder | None:
        """The folder open at `root` (resolved), now also known by `uri`; None if none is."""
        with self._lock:
            found = self._folders.get(root)
            if found is not None:
                self._uris[uri] = root
            return found

    def get(self, uri: str) -> Folder | None:
        with self._lock:
            root = self._uris.get(uri)
            return self._folders.get(root) if root is not None else None

    def aliases(self, folder: Folder) -> list[str]:
        """Every URI `folder` is open under, its own first."""
        with self._lock:
            others = [u for u, r in self._uris.items() if r == folder.root and u != folder.uri]
        return [folder.uri, *others]

    def remove(self, uri: str) -> Folder | None:
        """Forget `uri`; the folder, once no URI names it any more (None until then)."""
        with self._lock:
            root = self._uris.pop(uri, None)
            if root is None or root in self._uris.values():
                return None
            folder = self._folders.pop(root, None)
        if folder is not None:
            folder.removed = True
        return folder

    def snapshot(self) -> list[Folder]:
        with self._lock:
            return list(self._folders.values())

    def owners(self, path: Path) -> list[Folder]:
        return [f for f in self.snapshot() if f.owns(path)]
