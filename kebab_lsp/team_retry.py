"""How often a team index that cannot be reached is tried again.

Each attempt may wait the connect timeout (`indexing.postgres.store.CONNECTION_DEFAULTS`) for
a server that does not answer, and workspace/symbol asks on every keystroke: without a pause,
a laptop off the VPN waited that long for every request. After a failure, requests fail at
once with its reason and when the next attempt is due; the first request after that tries
again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable

from search.types import SearchUnavailable

#: Seconds after a failed attempt during which requests are not tried again.
RETRY_S = 30.0


class RetryLater:
    """The last failure to reach a team index: of what (a key: the index and the folder it
    serves), when and why. A new key, or `clear`, tries at once."""

    def __init__(self) -> None:
        self._last: tuple[Hashable, float, str] | None = None

    def check(self, key: Hashable = None) -> None:
        """Raises SearchUnavailable, with the last reason, while `key`'s retry is not due."""
        last = self._last
        if last is None or last[0] != key:
            return
        wait = last[1] + RETRY_S - time.monotonic()
        if wait > 0:
            raise SearchUnavailable(f"{last[2]} (trying again in {math.ceil(wait)} s)")

    def failed(self, why: str, key: Hashable = None) -> None:
        self._last = (key, time.monotonic(), why)

    def clear(self) -> None:
        self._last = None
