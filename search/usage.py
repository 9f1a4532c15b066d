"""Usage answers: the refs of a name, grouped by file, each cited inside its enclosing
definition.

Order: files that call the name first, then files that import it, then files with bare
mentions, then files where it only appears in strings (ties by path); inside a file, calls,
then imports, then mentions, then strings, each in position order. A definition's own name is never
a ref (extraction leaves it out), so definitions are not usages. Every matching ref is
counted, so `total_matches` is exact and `truncated` says whether every ref was returned.
"""

from __future__ import annotations

from indexing.filters import Filters
from indexing.store import ChunkRow, RefKey, RefRow, RefStore
from indexing.store.refs import KIND_RANK
from indexing.store.retrieval import Checkpoint, go_on
from search.handles import file_handle, symbol_handle
from search.hits import build_hit, chunk_span
from search.scores import kept
from search.types import Hit, InvalidQuery, Meta, Retrieval

#: A usage hit's score by its kind's rank: calls and imports 1, mentions 1/2, strings 1/3.
SCORE_KIND = "ref_kind"


def usage_name(symbol: str) -> str:
    """The name refs are stored under: the last part of `Class.method`, `a::b`, `x#y`."""
    name = symbol.replace("::", ".").replace("#", ".").rsplit(".", 1)[-1].removesuffix("()")
    if not name or any(ch.isspace() for ch in name):
        raise InvalidQuery("a usage request needs a name (like 'parse_config' or 'who calls "
                           f"parse_config'), got {symbol!r}")
    return name


#: Calls, then imports, then mentions, then strings: a file ranks by its best ref, and so
#: does a ref inside its file.
_ORDER = {"call": 0, "import": 1, "identifier": 2, "string": 3}


def order(keys: list[RefKey]) -> list[RefKey]:
    best: dict[str, int] = {}
    for key in keys:
        rank = _ORDER.get(key.kind, 4)
        best[key.path] = min(rank, best.get(key.path, rank))
    return sorted(keys, key=lambda k: (best[k.path], k.path, _ORDER.get(k.kind, 4), k.line,
                                       k.col))


def find(store: RefStore, root: str, name: str, filters: Filters, k: int,
         snippet_chars: int, kinds: tuple[str, ...] = (), check: Checkpoint = go_on
         ) -> tuple[list[Hit], int]:
    """(the first `k` usage hits, how many refs match in all).

    A common name's refs are listed whole (to count and order them) before the first hit is
    read, and each read after that is a statement or more per few hundred refs: `check`
    runs between them, so a request given up on reads no further. (A statement already
    under way stops by the store's own means: `reading(should_stop)`.)"""
    keys = order(store.ref_keys(name, filters, kinds))
    shown = keys[:k]
    check("usages, reading the rows of the refs shown", 0, len(shown))
    rows = store.refs_by_rowid([key.rowid for key in shown])
    chunk_ids = sorted({r.chunk_id for r in rows.values() if r.chunk_id})
    check("usages, reading the chunks around them", 0, len(chunk_ids))
    found = store.chunks_by_ids(chunk_ids)
    check("usages, reading those chunks' texts", 0, len(found))
    chunks = {row.chunk_id: row for row in store.with_texts(list(found.values()))}
    hits = []
    for done, key in enumerate(shown):
        check("usages, building hits", done, len(shown))
        row = rows.get(key.rowid)
        chunk = chunks.get(row.chunk_id or "") if row else None
        if row is not None and chunk is not None:
            hits.append(usage_hit(row, chunk, root, snippet_chars))
    return hits, len(keys)


def usage_hit(row: RefRow, chunk: ChunkRow, root: str, snippet_chars: int) -> Hit:
    focus = row.span
    score = kept(1.0 / (1 + KIND_RANK.get(row.kind, 3)))
    hit = build_hit(chunk, root, (), score, Retrieval("usage"), snippet_chars, focus)
    hit.span = row.span
    hit.selection = row.span
    hit.citation = row.symbol.range if row.symbol else chunk_span(chunk)
    hit.chunk_kind = "usage"
    hit.file_id = file_handle(row.file_rowid, row.path, row.file_hash)
    sym = row.symbol
    hit.symbol_id = (symbol_handle(row.file_rowid, row.path, row.file_hash, row.symbol_ord)
                     if row.symbol_ord is not None else None)
    hit.title = sym.qualified_name if sym else f"{row.path}:{row.span.start_line + 1}"
    hit.kind = str(sym.kind) if sym else "module"
    hit.symbol = sym.name if sym else None
    hit.container = sym.container if sym else None
    hit.ref = {"kind": row.kind, "name": row.name, "receiver": row.receiver}
    return hit


def describe(meta: Meta, hits: list[Hit], total: int) -> None:
    meta.total_matches = total
    meta.count_accuracy = "exact"
    meta.recall = {"complete": True, "ranking_scope": "all_matches",
                   "truncated": total > len(hits)}
    meta.score = {"kind": SCORE_KIND, "direction": "higher_is_better"}
    meta.query_plan = "refs"
