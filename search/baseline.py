"""A plain code-search baseline, run next to kebab in `kebab eval` so every quality figure is
read against something simple.

It is deliberately unclever, and independent of kebab's own ranking code: one chunk per
definition with its doc comment, a header chunk for each class, gap chunks of at most 50 lines
for the rest, code files only. Its dense arm embeds the file path and the definition's name as
words, then the chunk text, at 256 tokens with the same model kebab uses, and ranks by brute-force
cosine. Its lexical arm is FTS5 bm25 over name, path and body (identifier parts included), the
query's words OR-ed with stopwords removed. Its hybrid is RRF (k = 60) over the top 100 of each.
If kebab cannot beat this on a tree, the tree says something about kebab.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import apsw
import numpy as np
import numpy.typing as npt

from indexing.embed import Embedder, ModelSpec
from indexing.languages import code_languages
from indexing.records import Symbol
from indexing.store import Store, text_hash
from indexing.text import identifier_parts, token_parts, tokens
from search.evaluation import Citation

GAP_LINES = 50
DEPTH = 100
K_RRF = 60
MAX_TOKENS = 256
#: Members are part of their container's header chunk, not definitions of their own.
_MEMBER_KINDS = frozenset({"field", "enum_member", "property"})
_CONTAINER_KINDS = frozenset({"class", "struct", "interface", "enum", "object", "module",
                              "namespace"})
_COMMENT = re.compile(r"^\s*(//|/\*|\*|#|--)")
#: A common English stopword list (question words, pronouns, auxiliaries, prepositions).
_STOPWORD_TEXT = """
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing down during each few for from further
had has have having he her here hers herself him himself his how i if in into is it its itself
just me more most my myself no nor not now of off on once only or other our ours ourselves out
over own same she should so some such than that the their theirs them themselves then there
these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

FloatMatrix = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class BaselineChunk:
    path: str
    start_line: int  # 0-based, inclusive
    end_line: int
    name: str
    text: str

    def ranked(self) -> Citation:
        return (self.path, self.start_line, (self.start_line, self.end_line))


def _lead(lines: Sequence[str], start: int) -> int:
    """The first line of the comment block directly above a definition."""
    while start > 0 and lines[start - 1].strip() and _COMMENT.match(lines[start - 1]):
        start -= 1
    return start


def chunk_file(path: str, text: str, symbols: Sequence[Symbol]) -> list[BaselineChunk]:
    lines = text.split("\n")
    defs = [s for s in symbols if str(s.kind) not in _MEMBER_KINDS]
    chunks: list[BaselineChunk] = []
    covered: list[tuple[int, int]] = []
    for sym in defs:
        start, end = _lead(lines, sym.range.start_line), sym.range.end_line
        if str(sym.kind) in _CONTAINER_KINDS:
            inner = [_lead(lines, c.range.start_line) for c in defs if c is not sym
                     and sym.range.start_line < c.range.start_line
                     and c.range.end_line <= sym.range.end_line]
            if inner:  # the header: everything before the first member definition
                end = max(start, min(inner) - 1)
        body = "\n".join(lines[start : end + 1]).strip()
        if body:
            chunks.append(BaselineChunk(path, start, end, sym.name, body))
            covered.append((start, end))
    cursor = 0
    for start, end in sorted(covered) + [(len(lines), len(lines))]:
        for first in range(cursor, start, GAP_LINES):
            last = min(start - 1, first + GAP_LINES - 1)
            body = "\n".join(lines[first : last + 1]).strip()
            if body:
                chunks.append(BaselineChunk(path, first, last, "", body))
        cursor = max(cursor, end + 1)
    return chunks


def _words(text: str) -> str:
    return " ".join(token_parts(text))


def dense_text(chunk: BaselineChunk) -> str:
    return f"{_words(chunk.path)} {_words(chunk.name)}\n{chunk.text}"


def baseline_spec(base: ModelSpec) -> ModelSpec:
    """The same model, read to 256 tokens: what it was trained at."""
    return ModelSpec(name=base.name, model_dir=base.model_dir, dim=base.dim,
                     max_tokens=MAX_TOKENS, pooling=base.pooling, normalize=base.normalize,
                     model_file=base.model_file)


class Baseline:
    """The baseline over one indexed tree. Building it embeds every chunk (vectors are cached in
    the store's embedding cache under the 256-token model id, so a rerun embeds nothing)."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        by_path: dict[str, list[Symbol]] = {}
        for row in store.all_symbols():
            by_path.setdefault(row.path, []).append(row.symbol)
        self.chunks = [c for f in store.file_texts() if f.lang in code_languages()
                       for c in chunk_file(f.path, f.text, by_path.get(f.path, []))]
        self.matrix = self._embed(store)
        self.fts = apsw.Connection(":memory:")
        self.fts.execute("CREATE VIRTUAL TABLE f USING fts5(name, path, body, "
                         "tokenize='porter unicode61')")
        with self.fts:
            self.fts.executemany(
                "INSERT INTO f(rowid, name, path, body) VALUES (?,?,?,?)",
                [(i, f"{c.name} {_words(c.name)}", _words(c.path),
                  f"{c.text}\n{identifier_parts(c.text)}") for i, c in enumerate(self.chunks)])

    def _embed(self, store: Store) -> FloatMatrix:
        model = self.embedder.model_id
        texts = [dense_text(c) for c in self.chunks]
        hashes = [text_hash(t) for t in texts]
        cached = store.cached_vectors(model, sorted(set(hashes)))
        todo = sorted({h: t for h, t in zip(hashes, texts, strict=True) if h not in cached}
                      .items())
        for start in range(0, len(todo), 256):
            part = todo[start : start + 256]
            vectors = self.embedder.embed([t for _, t in part])
            fresh = [(h, vectors[i].astype(np.float32).tobytes()) for i, (h, _) in
                     enumerate(part)]
            store.cache_vectors(model, fresh)
            cached.update(fresh)
        if not hashes:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([np.frombuffer(cached[h], dtype=np.float32) for h in hashes])

    def dense(self, query: str, k: int = DEPTH) -> list[int]:
        sims = self.matrix @ self.embedder.embed_query(query)
        return [int(i) for i in np.argsort(-sims, kind="stable")[:k]]

    def bm25(self, query: str, k: int = DEPTH) -> list[int]:
        words = [w.lower() for w in tokens(query)]
        kept = list(dict.fromkeys(w for w in words if w not in STOPWORDS))
        if not kept:
            return []
        expr = " OR ".join('"' + w.replace('"', '""') + '"' for w in kept)
        rows = self.fts.execute("SELECT rowid FROM f WHERE f MATCH ? "
                                "ORDER BY bm25(f, 2.0, 0.5, 1.0), rowid LIMIT ?", (expr, k))
        return [int(r[0]) for r in rows]

    def hybrid(self, query: str, k: int = DEPTH) -> list[int]:
        scores: dict[int, float] = {}
        for arm in (self.dense(query), self.bm25(query)):
            for rank, i in enumerate(arm, start=1):
                scores[i] = scores.get(i, 0.0) + 1.0 / (K_RRF + rank)
        return sorted(scores, key=lambda i: (-scores[i], i))[:k]

    def search(self, arm: str, query: str, k: int) -> list[Citation]:
        ids = {"dense": self.dense, "bm25": self.bm25, "hybrid": self.hybrid}[arm](query, k)
        return [self.chunks[i].ranked() for i in ids]


ARMS = ("dense", "bm25", "hybrid")
