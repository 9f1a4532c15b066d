"""The vector retriever: nearest chunks by cosine similarity, hydrated from SQLite.

Filters go to LanceDB as a prefilter, so they apply before top-k. A kind filter there keeps
the chunks whose own definition is of those kinds (the vector's stored `kind`) and, as the
lexical stores do, the chunks that hold a definition of those kinds which has no chunk of its
own (`search.held`), named by chunk id: at most `MAX_HELD_IDS` of them, and an answer that
had to leave some out says so. Hits are hydrated from the SQLite store, so they carry the same
citations as lexical hits; a vector whose chunk is gone (the stores briefly disagree while a
sync runs) is dropped and counted as stale.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexing.filters import Filters
from indexing.store import SearchStore
from indexing.vector_index import CHUNK_SURFACES, SENTENCE_SURFACES, VectorIndex
from indexing.vectors import InvalidFilter, sql_quote, sql_where
from search.lexical import RankedChunk
from search.types import FileMatch, InvalidQuery

#: Chunks that hold a definition of the kinds asked, named in a kind filter's LanceDB
#: prefilter at most: each id costs the scan (on 150,000 rows, a filter naming 1,000 ids took
#: 50 ms more than none, 5,000 took 105 ms more, 10,000 took 210 ms more), so a filter that
#: would name more names these first ones (by path and line) and the answer says it left the
#: rest out.
MAX_HELD_IDS = 2000


@dataclass(slots=True)
class VectorResult:
    ranked: list[RankedChunk]
    stale: int
    #: What the answer must say of this arm: chunks a kind filter left out (`_where`).
    warnings: list[str] = field(default_factory=list)


def retrieve(
    store: SearchStore, vindex: VectorIndex, query: str, filters: Filters, limit: int,
    whole: bool = False,
) -> VectorResult:
    """A sentence is also matched against each definition read whole (`WHOLE`)."""
    where, warnings = _where(store, filters)
    try:
        found = vindex.search(query, limit, where,
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
    return VectorResult(ranked, stale, warnings)


def files(store: SearchStore, vindex: VectorIndex, root: str, query: str, filters: Filters,
          limit: int) -> list[FileMatch]:
    """The files whose file vector is nearest the query, best first. A file's vector hangs on
    its first chunk; a chunk gone since (a sync catching up) drops its file. The caller asks
    only without a `kind` filter: a file is not a definition of any kind."""
    where, _warnings = _where(store, filters)  # no kinds here: nothing left out
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


def _where(store: SearchStore, filters: Filters) -> tuple[str | None, list[str]]:
    """The LanceDB prefilter of `filters`, and the warnings it calls for."""
    where = sql_where(list(filters.langs), None, filters.path_regex, filters.only_paths,
                      filters.skip_paths)
    if not filters.kinds:
        return where, []
    kinds = ", ".join(sql_quote(k) for k in filters.kinds)
    held, total = store.held_chunk_ids(filters, MAX_HELD_IDS)
    clause = f"kind IN ({kinds})"
    if held:
        clause = f"({clause} OR chunk_id IN ({', '.join(sql_quote(c) for c in held)}))"
    warnings: list[str] = []
    if total > len(held):
        warnings.append(
            f"vector search under the kind filter looked at {len(held)} of the {total} chunks "
            f"that hold a {' or '.join(filters.kinds)} with no chunk of its own (the first by "
            "path); the others can still be found by words (mode 'lexical')")
    return clause if where is None else f"({where}) AND {clause}", warnings
