"""What embeddings are computed from, and the cache of vectors by model and embedded-text
hash, which outlives chunk ids: a rename or a branch switch back embeds nothing again.

The cache is bounded: vectors no chunk needs (edited or deleted code, another branch) are kept
for a while and up to a budget, because switching back is common and re-embedding costs
minutes, then pruned oldest first; vectors of another model are useless and go at once.
"""

from __future__ import annotations

import time
from collections.abc import Sequence, Set
from dataclasses import dataclass

from indexing.store.connection import StoreConnection
from indexing.top_doc import FILE_HEAD_CHARS

# Whether a chunk is the first (lowest line, then id) of its definition's chunks.
_LEADS_SQL = """(c.kind = 'definition' AND c.symbol_id IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM chunks o WHERE o.symbol_id = c.symbol_id AND o.kind = 'definition' AND
    (o.start_line < c.start_line OR (o.start_line = c.start_line AND o.chunk_id < c.chunk_id))))"""


@dataclass(frozen=True, slots=True)
class EmbeddingSource:
    chunk_id: str
    path: str
    lang: str
    kind: str
    context: str
    signature: str
    doc: str
    text: str
    leads: bool = False  # the first chunk of a definition
    is_test: bool = False  # orders embedding (tests last), not part of the embedded text


@dataclass(frozen=True, slots=True)
class FileHead:
    """What a file's vector is computed from, besides its path: the start of its text (where
    its top doc is) and its top-level definitions as (kind, name), in position order."""

    path: str
    head: str
    outline: tuple[tuple[str, str], ...]


#: Unneeded vectors kept: at least this many, or this share of the needed ones if more (a
#: branch switch back finds its vectors), and none older than the age limit.
EMBED_CACHE_MIN_SPARE = 2000
EMBED_CACHE_SPARE_RATIO = 0.5
EMBED_CACHE_MAX_AGE_S = 30 * 86400.0
#: A needed vector's `used` stamp is refreshed by a prune only when it is older than this, so
#: a prune rewrites few rows.
EMBED_CACHE_TOUCH_S = 86400.0


class EmbeddingCache(StoreConnection):
    def embedding_sources(self) -> list[EmbeddingSource]:
        """Every chunk with what its embedding texts are built from, in path/line order.
        `leads` marks the first chunk of its definition (the one a summary vector hangs on)."""
        rows = self.conn.execute(
            "SELECT c.chunk_id, f.path, f.lang, COALESCE(s.kind, c.kind), c.context, "
            "COALESCE(s.signature, ''), COALESCE(s.doc, ''), "
            "chunk_text(c.text, c.file_id, f.hash, c.start_line, c.end_line), f.is_test, "
            f"{_LEADS_SQL} FROM chunks c "
            "JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id "
            "ORDER BY f.path, c.start_line, c.chunk_id"
        ).fetchall()
        return [EmbeddingSource(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                                is_test=bool(r[8]), leads=bool(r[9])) for r in rows]

    def file_heads(self) -> dict[str, FileHead]:
        """Every file that has a chunk, by path, with what its file vector is computed from."""
        outlines: dict[int, list[tuple[str, str]]] = {}
        for file_id, kind, name in self.conn.execute(
                "SELECT file_id, kind, name FROM symbols WHERE container IS NULL "
                "ORDER BY file_id, ord"):
            outlines.setdefault(file_id, []).append((str(kind), str(name)))
        return {str(r[1]): FileHead(str(r[1]), str(r[2]), tuple(outlines.get(r[0], ())))
                for r in self.conn.execute(
                    f"SELECT f.id, f.path, substr(unpack(t.text), 1, {FILE_HEAD_CHARS}) "
                    "FROM files f JOIN file_text t ON t.file_id = f.id WHERE EXISTS "
                    "(SELECT 1 FROM chunks c WHERE c.file_id = f.id) ORDER BY f.path")}

    def chunked_file_count(self) -> int:
        """Files that own a chunk: each has a file vector."""
        return int(self.conn.execute("SELECT count(DISTINCT file_id) FROM chunks").fetchone()[0])

    def leading_chunk_count(self) -> int:
        """Definitions that own a chunk: each has a summary vector besides its code vectors."""
        return int(self.conn.execute(
            "SELECT count(DISTINCT symbol_id) FROM chunks WHERE kind='definition' "
            "AND symbol_id IS NOT NULL").fetchone()[0])

    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for start in range(0, len(hashes), 500):
            part = list(hashes[start : start + 500])
            out.update(
                (r[0], r[1]) for r in self.conn.execute(
                    "SELECT text_hash, vector FROM embed_cache WHERE model=? AND text_hash IN "
                    f"({','.join('?' * len(part))})", (model, *part))
            )
        return out

    def cache_vectors(self, model: str, items: Sequence[tuple[str, bytes]]) -> None:
        """Store new vectors, stamped as used now."""
        now = time.time()
        with self.writing() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embed_cache(model, text_hash, vector, used) "
                "VALUES (?,?,?,?)", [(model, h, v, now) for h, v in items])

    def embed_cache_size(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM embed_cache").fetchone()[0])

    def prune_embed_cache(self, model: str, needed: Set[str], now: float | None = None) -> int:
        """Drop cached vectors no chunk needs once they are older than `EMBED_CACHE_MAX_AGE_S`
        or beyond the spare budget (the larger of `EMBED_CACHE_MIN_SPARE` and
        `EMBED_CACHE_SPARE_RATIO` of what is needed), oldest first, and every vector of
        another model. Needed ones are marked used now, so "oldest" means "longest unneeded".
        Returns how many went."""
        now = time.time() if now is None else now
        rows = self.conn.execute(
            "SELECT text_hash, used FROM embed_cache WHERE model=?", (model,)).fetchall()
        spare = sorted(((used, h) for h, used in rows if h not in needed), reverse=True)
        budget = max(EMBED_CACHE_MIN_SPARE, int(EMBED_CACHE_SPARE_RATIO * len(needed)))
        doomed = [h for i, (used, h) in enumerate(spare)
                  if i >= budget or now - used > EMBED_CACHE_MAX_AGE_S]
        stale = [h for h, used in rows if h in needed and now - used > EMBED_CACHE_TOUCH_S]
        with self.writing() as conn:
            gone = int(conn.execute("SELECT count(*) FROM embed_cache WHERE model<>?",
                                    (model,)).fetchone()[0])
            conn.execute("DELETE FROM embed_cache WHERE model<>?", (model,))
            conn.executemany("DELETE FROM embed_cache WHERE model=? AND text_hash=?",
                             [(model, h) for h in doomed])
            conn.executemany("UPDATE embed_cache SET used=? WHERE model=? AND text_hash=?",
                             [(now, model, h) for h in stale])
        return gone + len(doomed)
