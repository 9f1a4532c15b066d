"""The writer lease: at most one process writes an index at a time.

Many processes may open one index (`kebab mcp` for several agents, the CLI, editors); they all
read, and exactly one, the holder of this lease, runs the writer, the embed scheduler and the
file watcher. The lease is an exclusive `flock` on `writer.lock` in the index directory: the
kernel drops it when its holder exits, however it exits (`kill -9` included), so a reader that
keeps trying takes over within one poll. The file also names the holder's pid, for status.

While the holder scans, `scanning` names it too, so that a reader's answers say the index is
still building instead of passing off a half-built index as complete. The mark counts only
while that pid holds the lease: a writer killed mid-scan leaves a mark that means nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

from indexing.location import PRIVATE_FILE, private_dir

LOCK_NAME = "writer.lock"
SCAN_MARK = "scanning"


class IndexBusy(Exception):
    """Another process holds the writer lease of an index that a one-shot command (`kebab
    index`, `kebab eval`) was asked to write: two writers would tear the vector store's files
    from under each other, so the command refuses instead."""


class WriterLease:
    def __init__(self, index_dir: Path) -> None:
        self.path = index_dir / LOCK_NAME
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lease if nobody holds it; never blocks. True when this process holds it."""
        if self._fd is not None:
            return True
        private_dir(self.path.parent)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            return False
        with contextlib.suppress(OSError):  # the pid only informs; a full disk keeps the lock
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd
        return True

    def holder(self) -> int | None:
        """The pid of the process holding the lease, if any holds it."""
        if self._fd is not None:
            return os.getpid()
        try:
            fd = os.open(self.path, os.O_RDWR)
        except FileNotFoundError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # held: the pid it wrote is current
                text = os.pread(fd, 32, 0).decode(errors="replace").strip()
                return int(text) if text.isdigit() else None
            fcntl.flock(fd, fcntl.LOCK_UN)  # free: whatever pid it names is gone
            return None
        finally:
            os.close(fd)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing the descriptor drops the flock


def take_for_one_shot(index_dir: Path, root: Path) -> WriterLease:
    """The lease of `index_dir`, held, for a command that writes the index once and exits;
    `IndexBusy` when a running process (a server, `kebab mcp`) holds it and keeps the index
    current."""
    lease = WriterLease(index_dir)
    if not lease.try_acquire():
        raise IndexBusy(f"process {lease.holder()} is writing the index of {root} and keeps it "
                        "current; not writing it from here too")
    return lease


def mark_scan(index_dir: Path, running: bool) -> None:
    """The writer's side: a scan of this index starts (`running`) or has ended."""
    path = index_dir / SCAN_MARK
    with contextlib.suppress(OSError):  # the mark only informs readers; a full disk keeps going
        if not running:
            path.unlink(missing_ok=True)
            return
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        try:
            os.write(fd, str(os.getpid()).encode())
        finally:
            os.close(fd)


def scanning_elsewhere(index_dir: Path) -> int | None:
    """The pid of another process that holds the lease and is scanning the index now, or None.
    Cheap when no scan runs: one failed open."""
    try:
        text = (index_dir / SCAN_MARK).read_text(errors="replace").strip()
    except OSError:
        return None
    pid = int(text) if text.isdigit() else None
    if pid is None or pid == os.getpid():
        return None
    return pid if WriterLease(index_dir).holder() == pid else None
