"""Building or updating one repository of a team index, as CI runs it on every merge: the
same discovery, extraction and hash-diff plan as a local index (`Indexer`), written to
PostgreSQL. One writer per repository at a time (`PgStore.writer_lock`); other repositories
are indexed alongside."""

from __future__ import annotations

from pathlib import Path

from indexing.discover import DiscoveryOptions
from indexing.indexer import Indexer, IndexSummary, ProgressFn
from indexing.postgres.store import PgStore
from indexing.settings import Settings

#: Files written in one run past which the planner's statistics are refreshed: autovacuum
#: would, but only after the first searches ran with none.
ANALYZE_AFTER_FILES = 100


def index_repository(root: Path, url: str, repo: str, settings: Settings,
                     rebuild: bool = False, progress: ProgressFn | None = None
                     ) -> IndexSummary:
    """Bring repository `repo` of the team index at `url` in step with the files under
    `root`; unchanged files are not read again, and `rebuild` re-extracts every file."""
    store = PgStore.open(url, repo, create=True)
    try:
        with store.writer_lock():
            indexer = Indexer(root, store, DiscoveryOptions.from_settings(settings),
                              workers=settings.workers, languages=settings.languages)
            summary = indexer.index(progress, rebuild=rebuild)
            if summary.new + summary.changed + summary.deleted > ANALYZE_AFTER_FILES:
                store.analyze()
            return summary
    finally:
        store.close()
