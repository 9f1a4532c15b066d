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
import errno
import fcntl
import os
import stat
from pathlib import Path

from indexing.location import ELSEWHERE, PRIVATE_FILE, UnusableIndexDir, private_dir

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
        #: Why this process cannot write the index (a read-only folder or mount, a lock that is
        #: not a file), for the user, as the last `try_acquire` found; None when it can.
        self.refused: str | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def try_acquire(self) -> bool:
        """Take the lease if nobody holds it; never blocks. True when this process holds it.
        An index that cannot be written here can still be leased, through a lock file opened
        only to read: its holder then writes nothing until the disk lets it (the store says
        why, as on a full disk), and no other process writes it meanwhile. `refused` says why
        when the lease is held so, or could not be taken at all (no lock file can be made, or
        it is not a file). `UnusableIndexDir` when the index's folder cannot be created."""
        if self._fd is not None:
            return True
        private_dir(self.path.parent)
        self.refused = None
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, PRIVATE_FILE)
        except OSError as exc:
            self.refused = self._refusal(exc)
            if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
                return False
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            except OSError:
                return False
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO, a socket: no lock of kebab's
            os.close(fd)
            self.refused = _not_a_lock(self.path, "not a regular file")
            return False
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

    def _refusal(self, exc: OSError) -> str:
        if exc.errno == errno.EISDIR:
            return _not_a_lock(self.path, "a directory")
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            return (f"cannot write the index at {self.path.parent} ({exc.strerror}: "
                    f"{self.path.name}); make it writable, or {ELSEWHERE}")
        return f"cannot open {self.path}: {exc.strerror or exc}"

    def holder(self) -> int | None:
        """The pid of the process holding the lease, if any holds it (and names itself). Only
        reads: a read-only index has a holder too, or none."""
        if self._fd is not None:
            return os.getpid()
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:  # none; or none this process can see, so none it could name
            return None
        try:
            try:  # shared: a test that needs no write access, failing only against the holder
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:  # held: the pid it wrote is current
                try:
                    text = os.pread(fd, 32, 0).decode(errors="replace").strip()
                except OSError:
                    return None
                return int(text) if text.isdigit() and _alive(int(text)) else None
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


def _alive(pid: int) -> bool:
    """Whether `pid` names a live process: a holder that could not write its own pid (a
    read-only index) leaves that of an older holder, perhaps long gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # alive, another user's
        return True
    return True


def _not_a_lock(path: Path, what: str) -> str:
    return (f"{path} is {what}, not a file, so no process can take the index's writer lock "
            "and keep it current; remove it")


def lock_problem(index_dir: Path) -> str | None:
    """Why no process can take the writer lease of `index_dir`, found without trying to (so a
    status never takes it from a writer about to): its lock is not a file. An index that
    cannot be written at all is the store's to report (`Store.problems`)."""
    path = index_dir / LOCK_NAME
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode):
        return None
    return _not_a_lock(path, "a directory" if stat.S_ISDIR(mode) else "not a regular file")


def take_for_one_shot(index_dir: Path, root: Path) -> WriterLease:
    """The lease of `index_dir`, held, for a command that writes the index once and exits;
    `IndexBusy` when a running process (a server, `kebab mcp`) holds it and keeps the index
    current, `UnusableIndexDir` when the index cannot be written here."""
    lease = WriterLease(index_dir)
    taken = lease.try_acquire()
    if lease.refused is not None:  # nothing this command does would reach the disk
        lease.release()
        raise UnusableIndexDir(lease.refused)
    if not taken:
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
