"""Building or updating one repository of a team index, as CI runs it on every merge: the
same discovery, extraction and hash-diff plan as a local index (`Indexer`), written to
PostgreSQL; then, when a directory for its vectors is named, the same vector sync as a local
index's (`team_vectors`). One writer per repository at a time (`PgStore.writer_lock`, held
across both); other repositories are indexed alongside."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from indexing.discover import DiscoveryOptions
from indexing.embed import Embedder
from indexing.indexer import Indexer, IndexSummary, ProgressFn
from indexing.postgres.store import PgStore
from indexing.settings import Settings
from indexing.vector_index import SyncSummary

#: Files written in one run past which the planner's statistics are refreshed: autovacuum
#: would, but only after the first searches ran with none.
ANALYZE_AFTER_FILES = 100


@dataclass(frozen=True, slots=True)
class TeamIndexRun:
    """What one run did: the files, and the vectors when it synced them."""

    files: IndexSummary
    vectors: SyncSummary | None = None


def index_repository(root: Path, url: str, repo: str, settings: Settings,
                     rebuild: bool = False, progress: ProgressFn | None = None
                     ) -> IndexSummary:
    """Bring repository `repo` of the team index at `url` in step with the files under
    `root`; unchanged files are not read again, and `rebuild` re-extracts every file."""
    return update_repository(root, url, repo, settings, rebuild, progress).files


def update_repository(root: Path, url: str, repo: str, settings: Settings,
                      rebuild: bool = False, progress: ProgressFn | None = None,
                      vectors: Path | None = None, embedder: Embedder | None = None,
                      embed_progress: ProgressFn | None = None) -> TeamIndexRun:
    """`index_repository`, then, with `vectors` (a directory) and `embedder`, the sync of the
    repository's dataset under it, by the same writer."""
    store = PgStore.open(url, repo, create=True)
    try:
        with store.writer_lock():
            indexer = Indexer(root, store, DiscoveryOptions.from_settings(settings),
                              workers=settings.workers, languages=settings.languages)
            summary = indexer.index(progress, rebuild=rebuild)
            if summary.new + summary.changed + summary.deleted > ANALYZE_AFTER_FILES:
                store.analyze()
            if summary.new + summary.changed:
                store.merge_pending()
            if vectors is None or embedder is None or summary.cancelled:
                return TeamIndexRun(summary)
            from indexing.postgres.team_vectors import sync_repository

            return TeamIndexRun(summary, sync_repository(store, vectors, embedder,
                                                         embed_progress))
    finally:
        store.close()
