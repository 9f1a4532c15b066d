"""The change log: which paths each committed write batch touched, so in-memory caches built
from the store (the symbol matcher) can patch themselves instead of reloading everything.

A cache patches itself only while few paths changed since it was built (the symbol matcher
gives up past 256 and rebuilds in full), and all it asks is which paths changed after the
version it was built at. So the log keeps one row per path, the last version that touched it,
and only for the `CHANGES_KEEP_PATHS` most recently touched paths; `changes_floor` says where
it now starts, and a caller asking from further back is told to reload. The log is bounded by
that (plus one batch), whatever the number of batches or of saves of one file.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from indexing.store.connection import StoreConnection

#: Distinct paths of history kept; must be at least what any reader patches with (the symbol
#: matcher's 256), so pruning never forces a reload that patching would have avoided.
CHANGES_KEEP_PATHS = 1024


class ChangeLog(StoreConnection):
    def _log_batch(self, conn: Any, version: int, paths: Iterable[str]) -> None:
        """Record that the batch that becomes `version` touched `paths`, and forget the
        history no reader can use any more."""
        conn.executemany("INSERT OR REPLACE INTO changes(path, version) VALUES (?,?)",
                         [(p, version) for p in sorted(paths)])
        # The last version of the (KEEP+1)-th most recently touched path: anyone who built
        # before it has more than KEEP paths to patch, so reloads anyway.
        row = conn.execute("SELECT version FROM changes ORDER BY version DESC LIMIT 1 OFFSET ?",
                           (CHANGES_KEEP_PATHS,)).fetchone()
        if row is None:
            return
        floor = int(row[0])
        conn.execute("DELETE FROM changes WHERE version <= ?", (floor,))
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('changes_floor', ?)",
                     (str(floor),))

    def changed_paths_since(self, version: int) -> set[str] | None:
        """Paths written, deleted or renamed after `version`; None when the log no longer
        reaches back that far (the caller must reload everything)."""
        floor = int(self.meta_value("changes_floor") or 0)
        if version < floor:
            return None
        return {r[0] for r in self.conn.execute(
            "SELECT path FROM changes WHERE version > ?", (version,))}

    def change_log_size(self) -> int:
        """Rows in the log (one per path)."""
        return int(self.conn.execute("SELECT count(*) FROM changes").fetchone()[0])
