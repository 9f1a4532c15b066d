"""What embeddings are computed from, and the cache of vectors by model and embedded-text
hash, which outlives chunk ids: a rename or a branch switch back embeds nothing again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from indexing.store.connection import StoreConnection

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
        with self.writing() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embed_cache(model, text_hash, vector) VALUES (?,?,?)",
                [(model, h, v) for h, v in items],
            )
