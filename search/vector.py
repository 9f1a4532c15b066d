"""The vector retriever: nearest chunks by cosine similarity, hydrated from SQLite.

Filters go to LanceDB as a prefilter, so they apply before top-k. Hits are hydrated from the
SQLite store, so they carry the same citations as lexical hits; a vector whose chunk is gone
(the stores briefly disagree while a sync runs) is dropped and counted as stale.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexing.filters import Filters
from indexing.store import Store
from indexing.vector_index import VectorIndex
from indexing.vectors import InvalidFilter, sql_where
from search.lexical import RankedChunk
from search.types import InvalidQuery


@dataclass(slots=True)
class VectorResult:
    ranked: list[RankedChunk]
    stale: int


def retrieve(
    store: Store, vindex: VectorIndex, query: str, filters: Filters, limit: int
) -> VectorResult:
    where = sql_where(list(filters.langs), list(filters.kinds), filters.path_regex)
    try:
        found = vindex.search(query, limit, where)
    except InvalidFilter as exc:
        raise InvalidQuery(f"path_glob cannot be used for vector search: {exc}") from exc
    rows = store.chunks_by_ids([m.chunk_id for m in found])
    ranked: list[RankedChunk] = []
    stale = 0
    for match in found:
        row = rows.get(match.chunk_id)
        if row is None:
            stale += 1
            continue
        ranked.append(RankedChunk(row, max(0.0, match.similarity), len(ranked) + 1,
                             surface=match.surface))
    return VectorResult(ranked, stale)
