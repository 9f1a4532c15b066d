"""The SQLite store: one writer, many readers, whole files swapped in one transaction.

Why the shape:
- WAL mode lets readers (search requests) run while the writer commits a batch.
- A file's rows are replaced inside one transaction, so a crash never leaves half a file.
- An index of another schema version, or one that is damaged (found at open, or by any query
  or write later), is deleted and rebuilt: the index is a cache of the workspace, and asking
  users to delete it by hand is a bug. A schema bump keeps the cached vectors (`carry`):
  embedding again costs far more than parsing again. A disk that refuses writes leaves the
  last good index readable (see `connection`).
- Retrieval SQL lives here too (the read API), so `search` never needs to know table names.

`Store` is the one object callers use; each part of it is a module of its own: `connection`
(open, rebuild, per-thread connections, meta), `writes`, `changes` (the change log),
`retrieval` (the read API search uses), `interface` (what any backend must do, which
this store does), `refs` (uses of names, and what handles resolve
through), `catalog` (what is indexed), `embed_cache` and `carry`.
"""

from __future__ import annotations

from indexing.filters import Filters
from indexing.records import text_hash
from indexing.store.catalog import Catalog, FileState, FileText, Stats
from indexing.store.changes import CHANGES_KEEP_PATHS
from indexing.store.connection import (
    DB_NAME,
    StoreClosed,
    StoreCorrupt,
    StoreError,
    StoreInterrupted,
    StoreUnwritable,
    StoreWatcher,
)
from indexing.store.embed_cache import EmbeddingCache, EmbeddingSource, FileHead
from indexing.store.interface import (
    SQLITE,
    Capabilities,
    EmbeddingStore,
    FileFacts,
    IndexStore,
    IndexWriter,
    LookupStore,
    RefStore,
    SearchStore,
)
from indexing.store.refs import FileRow, RefKey, RefRow, Refs
from indexing.store.retrieval import QuerySyntaxError, Retrieval
from indexing.store.rows import ChunkRow, SymbolRow
from indexing.store.writes import FileWrite, Writes

__all__ = [
    "CHANGES_KEEP_PATHS",
    "Capabilities",
    "DB_NAME",
    "ChunkRow",
    "EmbeddingSource",
    "EmbeddingStore",
    "FileFacts",
    "FileHead",
    "FileState",
    "FileText",
    "LookupStore",
    "FileRow",
    "FileWrite",
    "IndexStore",
    "IndexWriter",
    "Filters",
    "QuerySyntaxError",
    "RefKey",
    "RefRow",
    "RefStore",
    "SQLITE",
    "SearchStore",
    "Stats",
    "Store",
    "StoreClosed",
    "StoreCorrupt",
    "StoreError",
    "StoreInterrupted",
    "StoreUnwritable",
    "StoreWatcher",
    "SymbolRow",
    "text_hash",
]


class Store(Writes, Retrieval, Refs, Catalog, EmbeddingCache):
    """Owns one index directory's SQLite database."""

    capabilities: Capabilities = SQLITE
