"""The change log: which paths each committed write batch touched, so in-memory caches built
from the store (the symbol matcher) can patch themselves instead of reloading everything."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from indexing.store.connection import StoreConnection

CHANGES_KEEP = 1000  # write batches of path history kept for incremental cache updates


class ChangeLog(StoreConnection):
    def _log_batch(self, conn: Any, version: int, paths: Iterable[str]) -> None:
        """Record the paths of the batch that becomes `version` on `conn`, the batch's
        connection; every `CHANGES_KEEP` batches, forget the oldest and remember how far back
        the log still reaches."""
        conn.executemany("INSERT INTO changes(version, path) VALUES (?,?)",
                         [(version, p) for p in sorted(paths)])
        if version % CHANGES_KEEP == 0:
            floor = version - CHANGES_KEEP
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
            "SELECT DISTINCT path FROM changes WHERE version > ?", (version,))}
