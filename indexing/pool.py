"""The parse workers' processes (`indexing.workers`): how they start, and how none of them
outlives the process that started them.

Workers are spawned (`pool_context`). When the process using them is killed (kill -9, the OOM
killer), an idle worker sees its pipe close, but one busy on a file (or hung in a grammar)
would run on. So every worker watches its owner itself (`watch_owner`, first thing in its
loop): a pidfd (Linux 5.3+) becomes readable the moment the owner exits, and the worker exits
too.
"""

from __future__ import annotations

import multiprocessing
import os
import select
import threading
import time

#: How often a worker without pidfds checks that its owner still exists.
POLL_S = 0.5


def pool_context() -> multiprocessing.context.BaseContext:
    """spawn: not fork, because the server runs threads (event loop, writer, embedder) and
    forking a threaded process can copy a lock some thread holds into the child and hang it
    (seen: a first index stuck at 0/120); not the fork server, because it listens on a Unix
    socket and the server opens none (tests/e2e/test_lsp_offline.py), now that a save is
    parsed in a worker too. A spawned worker costs a fresh interpreter's imports once (about
    half a second): the save worker is started early (`Workers.warm`), a scan's workers live
    as long as the scan."""
    return multiprocessing.get_context("spawn")


def watch_owner(owner: int) -> None:
    """In a worker: exit as soon as process `owner` (the workers' user) has. Returns at once; a
    daemon thread waits."""
    try:
        fd: int | None = os.pidfd_open(owner)
    except ProcessLookupError:  # gone before the worker even started
        os._exit(0)
    except (AttributeError, OSError):  # no pidfd on this system: poll instead
        fd = None
    threading.Thread(target=_wait_for_exit, args=(owner, fd), name="kebab-owner-watch",
                     daemon=True).start()


def _wait_for_exit(owner: int, fd: int | None) -> None:
    if fd is not None:
        select.select([fd], [], [])  # readable once the owner has exited
    else:
        while _exists(owner):
            time.sleep(POLL_S)
    os._exit(0)  # the whole worker, whatever its main thread is doing


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
