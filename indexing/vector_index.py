"""Keeping the vector store in step with the SQLite chunks, and asking it questions.

Every chunk has a `code` vector (its text under a short header). The first chunk of each
definition also has a `summary` vector: where it lives and what it is called, in plain words,
with its signature and doc. Code identifiers are poor English for the model (`makeObservable`
is not "make observable" to WordPiece), and a question often names the concept that only the
file and the definition's name carry; measured with `kebab eval`, the summary lifts the
doc-blanked and hand-written sets by about 0.03 MRR@10 and leaves the docstring set alone.
A chunk's score is the better of those two. The first chunk also has a `whole` vector, the
definition read twice as far (`whole_text`), which sentences read (not names or code): then a
chunk scores the best of three.

Each file also has one `file` vector (hung on its first chunk): its path in words, the doc at
its top and its outline (the kinds and names of its top-level definitions). It answers "which
file handles X" when no snippet of the file does. It is a channel of its own
(`search_files`), which ranks the `files` group of a grouped answer: scored as a third surface
of chunks it only competed with their own vectors and lost (`kebab eval`, README Quality).

SQLite (or, for a team index, PostgreSQL: any `EmbeddingStore`) is the source of truth. A
sync diffs (row key, embedded-text hash) between the two stores: vectors whose chunk is gone,
or whose text changed, are replaced; chunks without a vector get one. That one diff also
repairs a crash between the two stores, so there is no separate recovery path. Rows whose
chunk is gone are deleted last, so that a store with no embedding cache of its own (a team
index's) can take a moved chunk's vector from its old row.

Vectors are cached by the hash of the text that was embedded (model-qualified), so an
unchanged text is never embedded twice: not after a restart, a rename (which changes chunk
ids but not code text), or a branch switch back and forth. A sync that embedded or dropped
anything prunes the cache to what the chunks need plus a bounded spare
(`store.embed_cache`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from indexing.doc_brief import doc_brief, without_doc
from indexing.embed import Embedder, EmbedderUnavailable
from indexing.records import ChunkKind
from indexing.store import EmbeddingSource, EmbeddingStore, FileHead, text_hash
from indexing.text import has_word, words
from indexing.top_doc import top_doc
from indexing.vectors import VectorMatch, VectorRow, VectorStore, VectorStoreUnavailable, row_key

EMBED_BATCH = 64
WRITE_BATCH = 128  # also how often a running sync checks whether to stop
HEADER_CHARS = 300
EMBED_TEXT_CHARS = 2000  # the model reads ~128 tokens; more text only costs tokenization

ProgressFn = Callable[[int, int], None]
StopFn = Callable[[], bool]


class VectorsUnavailable(Exception):
    """Either the model or the vector store cannot serve; the message says which and why."""


def embedding_text(src: EmbeddingSource) -> str:
    """A short context header (container, signature, doc) before the body, so a chunk's vector
    knows what it belongs to even when its body is generic; the header comes first so the
    model's truncation never cuts it.

    The path is left out on purpose: the vector cache is keyed by this text, and a renamed or
    moved file must not be embedded again.

    A chunk with no word in it (the `}` after a long definition's last member, a `> {` between
    a multi-line signature and its body) gets no header: its vector would be the header's
    alone, a copy of its definition's summary that ranks high for any question on the
    definition and cites a closing brace.
    """
    if not has_word(src.text):
        return src.text[:EMBED_TEXT_CHARS]
    header: list[str] = []
    if src.context:
        header.append(src.context)
    if src.signature and src.signature not in src.text[:300]:
        header.append(src.signature)
    if src.doc:
        header.append(src.doc[:HEADER_CHARS])
    head = "\n".join(header)[: HEADER_CHARS * 2]
    return (f"{head}\n{src.text}" if head else src.text)[:EMBED_TEXT_CHARS]


_NOT_DEFINITIONS = frozenset({ChunkKind.CODE, ChunkKind.SECTION, ChunkKind.TEXT})


def embed_priority(src: EmbeddingSource, first: Set[str]) -> int:
    """Lower embeds sooner. A cold tree takes minutes to embed (Django's 62k chunks, about 16 min
    on one core), and until then answers by meaning are partial, so the chunks a question in
    words most likely wants go first:

    0. chunks of files the user has open or just saved;
    1. documented definitions outside tests (embedded with their doc, so they match questions
       best);
    2. other definitions outside tests;
    3. everything else outside tests (text windows, top-level code, doc sections);
    4. test code, which search ranks down anyway.

    The sort using this is stable, so each group stays in path and line order.
    """
    if src.path in first:
        return 0
    if src.is_test:
        return 4
    if src.kind in _NOT_DEFINITIONS:
        return 3
    return 1 if src.doc else 2


#: What a completed sync records in its store's meta (searches read the first and the last).
SYNCED_LEXICAL_VERSION = "vector_synced_lexical_version"
SYNCED_MODEL = "vector_synced_model"
#: Which vectors a sync computes, and from what: a sync that computed others (an index last
#: synced before the whole-definition surface) is not current even when nothing else changed.
SYNCED_SURFACES = "vector_synced_surfaces"
SYNCED_VECTOR_VERSION = "vector_version"

CODE, SUMMARY, FILE, WHOLE = "code", "summary", "file", "whole"
#: The surfaces a chunk is ranked by: a chunk search reads this many rows per chunk at most.
CHUNK_SURFACES = (CODE, SUMMARY)
#: ... and for a sentence (asked or told), also the definition read whole (`whole_text`).
SENTENCE_SURFACES = (CODE, SUMMARY, WHOLE)
#: How far the whole-definition surface is read: twice the code vector's 128 tokens.
WHOLE_TOKENS = 256
#: The surfaces a sync computes, as recorded (`SYNCED_SURFACES`); change it with any surface.
SURFACES = f"{CODE}/bare-wordless,{SUMMARY},{WHOLE}@{WHOLE_TOKENS}t-brief,{FILE}"
#: Whether files get a vector (switched off only to measure what it brings).
FILE_SURFACE = True
#: Top-level definitions named in a file's vector: its head is what the model reads anyway.
OUTLINE_NAMES = 40


def summary_text(src: EmbeddingSource) -> str | None:
    """The summary surface of a definition's first chunk, None for every other chunk.

    It names the file's folder and stem, so a rename embeds this short text again; the long
    code text stays cached."""
    if not src.leads:
        return None
    where = words("/".join(src.path.rsplit(".", 1)[0].split("/")[-2:]))
    lines = [f"{where} {words(src.context)}".strip(), src.signature, src.doc[:HEADER_CHARS]]
    return "\n".join(line for line in lines if line)


def whole_text(src: EmbeddingSource) -> str | None:
    """The whole-definition surface of a definition's first chunk, None for every other chunk:
    its path and qualified name in words, what its doc says it does (`doc_brief`: not its
    parameter lists or examples), then the chunk without the doc, read to `WHOLE_TOKENS`.
    Questions written by hand ("how does the client retry") are answered by what a definition
    does, further down than the code vector reads; scored with the other two for questions, it
    lifted `auto` on the hand-written sets of all eight eval trees and left the docstring sets
    alone (docs/bench/quality-2026-11-25c.md, 5); for every sentence, it lifted the
    doc-blanked sets (quality-2026-11-29d.md). A long doc read first left no room for the code
    (quality-2026-12-02b.md); the summary vector keeps the doc as written."""
    if not src.leads:
        return None
    head = f"{words(src.path)} {words(src.context)}".strip()
    parts = (head, doc_brief(src.doc, HEADER_CHARS), without_doc(src.text, src.doc)) \
        if src.doc else (head, src.text)
    return "\n".join(part for part in parts if part)[: EMBED_TEXT_CHARS * 2]


def surface_hash(surface: str, text: str) -> str:
    """What a vector is cached under: its text's hash, and for the whole-definition surface its
    reading length too (the model id names only the code vectors' length)."""
    return text_hash(f"{WHOLE_TOKENS}t\n{text}" if surface == WHOLE else text)


def file_text(head: FileHead) -> str:
    """The file surface: the path in words, the top doc, then the outline: the names of its
    top-level definitions in words, each kind named except for functions (the model reads
    "function" before every name as noise: a toy file of four functions matched a question on
    its subject at 0.46 cosine with the word, 0.55 without). The path is in it, so a moved file
    embeds this short text again."""
    where = words(head.path.rsplit(".", 1)[0])
    outline = ", ".join(
        words(name) or name if kind in _PLAIN_KINDS else f"{kind} {words(name) or name}"
        for kind, name in head.outline[:OUTLINE_NAMES])
    lines = [where, top_doc(head.head)[:HEADER_CHARS], outline]
    return "\n".join(line for line in lines if line)[:EMBED_TEXT_CHARS]


_PLAIN_KINDS = frozenset({"function", "method"})


@dataclass(frozen=True, slots=True)
class _Wanted:
    """One vector the store should hold."""

    source: EmbeddingSource
    surface: str
    text: str
    hash: str

    @property
    def key(self) -> str:
        return row_key(self.source.chunk_id, self.surface)


def _wanted(sources: list[EmbeddingSource], heads: dict[str, FileHead]) -> list[_Wanted]:
    """Every vector the chunks need; a file's vector hangs on its first chunk (sources come
    in path and line order)."""
    out: list[_Wanted] = []
    last_path = None
    for src in sources:
        head = heads.get(src.path) if src.path != last_path else None
        last_path = src.path
        if head is not None:
            text = file_text(head)
            out.append(_Wanted(src, FILE, text, text_hash(text)))
        code = embedding_text(src)
        out.append(_Wanted(src, CODE, code, text_hash(code)))
        summary = summary_text(src)
        if summary is not None:
            out.append(_Wanted(src, SUMMARY, summary, text_hash(summary)))
        whole = whole_text(src)
        if whole is not None:
            out.append(_Wanted(src, WHOLE, whole, surface_hash(WHOLE, whole)))
    return out


@dataclass(slots=True)
class SyncSummary:
    embedded: int = 0
    from_cache: int = 0
    deleted: int = 0
    total: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    #: Why the vector table was dropped and rebuilt by this sync (another schema version, a
    #: deleted or unreadable table), or None when it was not: worth telling the user.
    rebuilt: str | None = None


def vectors_wanted(store: EmbeddingStore, chunks: int | None = None) -> int:
    """How many vectors a complete sync of `store` holds: one per chunk, a summary and a
    whole-definition vector per definition's first chunk, and one per file. Read from the
    lexical store alone, so a process that does not open the vector table can say it."""
    total = store.chunk_count() if chunks is None else chunks
    total += 2 * store.leading_chunk_count()
    if FILE_SURFACE:
        total += store.chunked_file_count()
    return total


class VectorIndex:
    """The vector side of one workspace's index."""

    def __init__(self, store: EmbeddingStore, index_dir: Path, embedder: Embedder,
                 vectors: VectorStore | None = None) -> None:
        """The table is `index_dir`/vectors, unless `vectors` is given (a team index's)."""
        self.store = store
        self.embedder = embedder
        self.vectors = vectors or VectorStore(index_dir / "vectors", embedder.dim)
        self._sync_lock = threading.Lock()
        self._lock = threading.Lock()  # guards `_queries` (searches run on many threads)
        self._queries: dict[str, Any] = {}

    def coverage(self, chunks: int | None = None) -> tuple[int, int]:
        """(vectors stored, vectors wanted): how complete vector recall can be right now.
        Pass a known chunk count to spare a table scan."""
        total = vectors_wanted(self.store, chunks)
        try:
            have = self.vectors.count()
        except VectorStoreUnavailable:
            have = 0
        return min(have, total), total

    def expected(self) -> dict[str, str]:
        """Row key -> embedded-text hash of every vector the table should hold, no more: what
        a completed sync leaves (and what a check for orphan rows compares against)."""
        return {w.key: w.hash for w in self._wanted()}

    def _wanted(self) -> list[_Wanted]:
        with self.store.reading():  # the chunks and the file heads of one state of the index
            heads = self.store.file_heads() if FILE_SURFACE else {}
            return _wanted(self.store.embedding_sources(), heads)

    def version(self) -> int | None:
        try:
            return self.vectors.version()
        except VectorStoreUnavailable:
            return None

    def sync(
        self,
        progress: ProgressFn | None = None,
        should_stop: StopFn | None = None,
        first_paths: Iterable[str] = (),
    ) -> SyncSummary:
        """Embed what is missing and drop what is orphaned. Files in `first_paths` (open or
        just saved) are embedded first. Stops between batches when `should_stop` says so."""
        with self._sync_lock:
            stop, first = should_stop or (lambda: False), set(first_paths)
            try:
                return self._sync(progress, stop, first)
            except VectorStoreUnavailable as exc:
                self.vectors.reset()
                summary = self._sync(progress, stop, first)
                summary.rebuilt = str(exc)
                return summary

    def is_current(self) -> bool:
        """True only when the last completed sync saw the store's lexical version, used this
        model, and left the vector table at the version it still has (nobody wrote, reset or
        deleted it since). Anything else, including a table that cannot be read, means: run
        the sync. Checking costs no model load and no diff: most of a no-change index run."""
        meta = self.store.meta_value
        if meta(SYNCED_LEXICAL_VERSION) != str(self.store.lexical_version()):
            return False
        if meta(SYNCED_MODEL) != self.embedder.model_id:
            return False
        if meta(SYNCED_SURFACES) != SURFACES:
            return False
        return meta(SYNCED_VECTOR_VERSION) == str(self.version())

    def sync_recorded(self, **kwargs: Any) -> SyncSummary:
        """`sync`, recording in the store's meta the lexical version it caught up with (so a
        search can tell when vectors are stale), the model, and the table's version. Vectors
        of another model are dropped first: they would answer nonsense."""
        meta = self.store.meta_value
        model = meta(SYNCED_MODEL)
        if model is not None and model != self.embedder.model_id:
            self.vectors.reset()
        version = self.store.lexical_version()
        summary = self.sync(**kwargs)
        have, total = self.coverage()
        if not summary.cancelled or have == total:
            self.store.set_meta(SYNCED_LEXICAL_VERSION, str(version))
            self.store.set_meta(SYNCED_MODEL, self.embedder.model_id)
            self.store.set_meta(SYNCED_SURFACES, SURFACES)
        current = self.version()
        if current is not None:
            self.store.set_meta(SYNCED_VECTOR_VERSION, str(current))
        return summary

    def _sync(self, progress: ProgressFn | None, stop: StopFn, first: set[str]) -> SyncSummary:
        started = time.perf_counter()
        summary = SyncSummary()
        wanted = self._wanted()
        have = self.vectors.row_hashes()
        want_hash = {w.key: w.hash for w in wanted}
        stale = [key for key, h in have.items() if want_hash.get(key) != h]
        summary.deleted = len(stale)
        replaced = [key for key in stale if key in want_hash]
        if replaced:  # their chunk is still there: its new vector comes below
            self.vectors.delete_keys(sorted(replaced))
        try:
            self._add_missing(wanted, have, summary, progress, stop, first)
        finally:
            # Last: until now the rows of chunks that moved were a cache of their vectors.
            gone = sorted(key for key in stale if key not in want_hash)
            if gone:
                self.vectors.delete_keys(gone)
        summary.seconds = time.perf_counter() - started
        return summary

    def _add_missing(self, wanted: list[_Wanted], have: dict[str, str], summary: SyncSummary,
                     progress: ProgressFn | None, stop: StopFn, first: set[str]) -> None:
        missing = [w for w in wanted if have.get(w.key) != w.hash]
        # Whole-definition vectors last: they serve sentences on top of the other two, and
        # cost the most to embed.
        missing.sort(key=lambda w: (w.surface == WHOLE, embed_priority(w.source, first)))
        summary.total = len(missing)
        model = self.embedder.model_id
        done = 0
        if progress:
            progress(0, len(missing))
        for start in range(0, len(missing), WRITE_BATCH):
            if stop():
                summary.cancelled = True
                break
            batch = missing[start : start + WRITE_BATCH]
            rows = self._vectors_for(batch, model, summary, stop)
            if rows is None:
                summary.cancelled = True
                break
            self.vectors.upsert(rows)
            done += len(batch)
            if progress:
                progress(done, len(missing))
        if not summary.cancelled and (summary.embedded or summary.deleted):
            # The cache only grows by what was just embedded: bound it now.
            self.store.prune_embed_cache(model, {w.hash for w in wanted})

    def _vectors_for(
        self, batch: list[_Wanted], model: str, summary: SyncSummary, stop: StopFn
    ) -> list[VectorRow] | None:
        cached = self.store.cached_vectors(model, sorted({w.hash for w in batch}))
        # By length, so that each embed call gets texts of similar length: the embedder pads a
        # micro-batch to its longest text, and sorting the whole write batch rather than each
        # call's share of it cuts padded tokens from 3.8% to 2.6% (Django sample).
        fresh: list[tuple[str, bytes]] = []
        for whole in (False, True):
            todo = sorted({w.hash: w.text for w in batch if w.hash not in cached
                           and (w.surface == WHOLE) == whole}.items(),
                          key=lambda item: (len(item[1]), item[0]))
            for start in range(0, len(todo), EMBED_BATCH):
                if stop():
                    return None
                part = todo[start : start + EMBED_BATCH]
                vecs = self.embedder.embed([t for _, t in part],
                                           max_tokens=WHOLE_TOKENS if whole else None)
                fresh.extend((h, vecs[i].astype(np.float32).tobytes())
                             for i, (h, _) in enumerate(part))
        if fresh:
            self.store.cache_vectors(model, fresh)
            cached.update(fresh)
        summary.embedded += len(fresh)
        summary.from_cache += len(batch) - len(fresh)
        return [
            VectorRow(w.source.chunk_id, w.surface, w.source.path, w.source.lang, w.source.kind,
                      w.hash, np.frombuffer(cached[w.hash], dtype=np.float32))
            for w in batch
        ]

    def search(self, query: str, k: int, where: str | None,
               surfaces: tuple[str, ...] = CHUNK_SURFACES) -> list[VectorMatch]:
        """The `k` best chunks, each scored by its best of `surfaces`, best first (ties by
        chunk id); raises `VectorsUnavailable`.

        Without a caller's filter the table is read unfiltered and rows of other surfaces are
        dropped here. LanceDB's prefilter on `surface` cost a command-line question on Django
        (149k rows) about 0.1 s of the 0.35 s the scan takes, and the result is the same: the
        store returns a prefix of one total order (similarity, then key), so the rows kept are
        exactly the first rows the filtered read returns, and reading on until k chunks are
        seen stops where it would."""
        qvec = self._query_vector(query)
        keep: frozenset[str] | None = None
        if where is None:
            keep = frozenset(surfaces)
        else:
            where = _and(where, f"surface IN ({', '.join(repr(s) for s in surfaces)})")
        # A chunk has at most one row per surface, so that many times k rows hold k chunks
        # (unfiltered, one more: a file's vector or, for a plain query, a definition's whole).
        limit = (len(surfaces) + (keep is not None)) * k
        try:
            while True:
                rows = self.vectors.search(qvec, limit, where)
                best: dict[str, VectorMatch] = {}
                for row in rows:  # best first: a chunk's first row is its best surface
                    if keep is None or row.surface in keep:
                        best.setdefault(row.chunk_id, row)
                if len(best) >= k or len(rows) < limit:
                    break
                limit *= 2
        except VectorStoreUnavailable as exc:
            raise VectorsUnavailable(f"vector store unavailable: {exc}") from exc
        return sorted(best.values(), key=lambda m: (-m.similarity, m.chunk_id))[:k]

    def search_files(self, query: str, k: int, where: str | None) -> list[VectorMatch]:
        """The `k` files whose file vector is nearest, best first (ties by chunk id), each as
        its first chunk; raises `VectorsUnavailable`."""
        qvec = self._query_vector(query)
        try:
            return self.vectors.search(qvec, k, _and(where, f"surface = {FILE!r}"))
        except VectorStoreUnavailable as exc:
            raise VectorsUnavailable(f"vector store unavailable: {exc}") from exc

    def _query_vector(self, query: str) -> Any:
        """The query's embedding; the last few are kept, so a grouped answer's file channel
        does not embed the query a second time."""
        with self._lock:
            cached = self._queries.get(query)
        if cached is not None:
            return cached
        try:
            qvec = self.embedder.embed_query(query)
        except EmbedderUnavailable as exc:
            raise VectorsUnavailable(f"embedding model unavailable: {exc}") from exc
        with self._lock:
            self._queries[query] = qvec
            while len(self._queries) > QUERY_VECTORS_KEPT:
                self._queries.pop(next(iter(self._queries)))
        return qvec


#: Query embeddings a `VectorIndex` keeps (see `_query_vector`).
QUERY_VECTORS_KEPT = 16


def _and(where: str | None, clause: str) -> str:
    return clause if where is None else f"({where}) AND {clause}"
