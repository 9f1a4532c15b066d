"""The vector retriever: nearest chunks by cosine similarity, hydrated from SQLite.

Filters go to LanceDB as a prefilter, so they apply before top-k. Hits are hydrated from the
SQLite store, so they carry the same citations as lexical hits; a vector whose chunk is gone
(the stores briefly disagree while a sync runs) is dropped and counted as stale.
"""

from __future__ import annotations

from dataclasses import dataclass

from indexing.filters import Filters
from indexing.store import SearchStore
from indexing.vector_index import CHUNK_SURFACES, SENTENCE_SURFACES, VectorIndex
from indexing.vectors import InvalidFilter, sql_where
from search.lexical import RankedChunk
from search.types import FileMatch, InvalidQuery


@dataclass(slots=True)
class VectorResult:
    ranked: list[RankedChunk]
    stale: int


def retrieve(
    store: SearchStore, vindex: VectorIndex, query: str, filters: Filters, limit: int,
    whole: bool = False,
) -> VectorResult:
    """A sentence is also matched against each definition read whole (`WHOLE`)."""
    try:
        found = vindex.search(query, limit, _where(filters),
                              SENTENCE_SURFACES if whole else CHUNK_SURFACES)
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


def files(store: SearchStore, vindex: VectorIndex, root: str, query: str, filters: Filters,
          limit: int) -> list[FileMatch]:
    """The files whose file vector is nearest the query, best first. A file's vector hangs on
    its first chunk; a chunk gone since (a sync catching up) drops its file. The caller asks
    only without a `kind` filter: a file is not a definition of any kind."""
    where = _where(filters)
    try:
        found = vindex.search_files(query, limit, where)
    except InvalidFilter as exc:
        raise InvalidQuery(f"path_glob cannot be used for vector search: {exc}") from exc
    rows = store.chunks_by_ids([m.chunk_id for m in found])
    out: list[FileMatch] = []
    for match in found:
        row = rows.get(match.chunk_id)
        if row is not None:
            out.append(FileMatch(root, row.path, max(0.0, match.similarity), len(out) + 1))
    return out


def _where(filters: Filters) -> str | None:
    return sql_where(list(filters.langs), list(filters.kinds), filters.path_regex,
                     filters.only_paths, filters.skip_paths)
