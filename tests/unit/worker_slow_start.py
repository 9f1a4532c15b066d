"""A worker target whose import takes seconds, as the grammars' can on a loaded machine.
Imported by the workers, so it lives beside the tests, on their path."""

from __future__ import annotations

import time

time.sleep(3.0)


def double(n: int) -> int:
    return 2 * n
