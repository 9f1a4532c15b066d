"""The parse pool: the processes that extract large plans, and how none of them outlives the
process that started it.

Workers come from a fork server (`pool_context`), and a worker's parent is that fork server,
not the process using the pool. When the process using the pool is killed (kill -9, the OOM
killer), nothing tells the workers: each blocks forever on its task queue, and each holds the
write end of the fork server's "alive" pipe and of the resource tracker's pipe, so neither of
those sees end-of-file and exits either. So every worker watches the pool's owner itself
(`watch_owner`, its initializer): a pidfd (Linux 5.3+) becomes readable the moment the owner
exits, and the worker exits too. Once the workers are gone, the fork server and the resource
tracker find their pipes closed and exit on their own.
"""

from __future__ import annotations

import multiprocessing
import os
import select
import threading
import time
from concurrent.futures import ProcessPoolExecutor

#: How often a worker without pidfds checks that its owner still exists.
POLL_S = 0.5


def pool_context() -> multiprocessing.context.BaseContext:
    """forkserver, not fork: the server runs threads (event loop, writer, embedder), and
    forking a threaded process can copy a lock some thread holds into the child and hang it
    (seen: a first index stuck at 0/120). The fork server is a clean single-threaded process;
    preloading the indexer there keeps each worker's start cheap."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["indexing.indexer"])
    return ctx


def parse_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers exit when this process does, however it ends."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=pool_context(),
                               initializer=watch_owner, initargs=(os.getpid(),))


def watch_owner(owner: int) -> None:
    """In a worker: exit as soon as process `owner` (the pool's user) has. Returns at once; a
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
