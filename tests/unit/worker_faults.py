"""Work for worker processes that goes wrong on purpose: a file named `crash...` kills its
worker as a segfaulting grammar would, one named `hang...` never returns, as a grammar whose
scanner loops. Imported by the workers, so it lives beside the tests, on their path."""

from __future__ import annotations

import os
import time

from indexing.indexer import build_write
from indexing.store import FileWrite


def faulty_build_write(work: object) -> FileWrite:
    name = work.path.rsplit("/", 1)[-1]  # type: ignore[attr-defined]
    if name.startswith("crash"):
        os.kill(os.getpid(), 11)  # SIGSEGV
    if name.startswith("hang"):
        while True:
            time.sleep(1)
    return build_write(work)  # type: ignore[arg-type]


def square(n: int) -> int:
    if n == 13:
        os._exit(1)
    if n == 7:
        time.sleep(60)
    return n * n
