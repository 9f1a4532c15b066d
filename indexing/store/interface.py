"""What a store must do to be indexed into and searched, so that the embedded SQLite index and a
team index on PostgreSQL (`indexing.postgres`) are two backends of one interface.

Two halves, because their callers differ: the indexer writes through `IndexWriter` (a
hash-diff plan, then batches of whole files); lexical and exact-text search and the
workspace-symbol matcher read through `SearchStore`, usage answers through `RefStore`, grouped
answers through `FileFacts`; a vector sync reads and records through `EmbeddingStore`.
Neither names a table or an engine's syntax: queries arrive as `LexicalQuery`, rows leave as
`ChunkRow`, `SymbolRow` and `RefRow`. What a backend cannot do it says in its `Capabilities`,
so a request it cannot serve fails with a reason instead of quietly becoming another request.

The lookups by handle, name or place (`kebab/symbol`, `kebab/context`, references by place)
read through `LookupStore`, which a team index answers too, for a checkout's unchanged files.
The SQLite `Store` has more than this (the change log, the embedding cache, damage repair);
those stay its own until a second backend needs them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from indexing.filters import Filters
from indexing.lexical_query import LexicalQuery
from indexing.records import Span, Symbol
from indexing.store.catalog import FileState, Stats
from indexing.store.embed_cache import EmbeddingSource, FileHead
from indexing.store.refs import FileRow, RefKey, RefRow
from indexing.store.retrieval import Checkpoint, go_on
from indexing.store.rows import ChunkRow, SymbolRow
from indexing.store.writes import FileWrite


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a backend can answer, and how its scores read. A score is only comparable with
    another of the same backend and kind: `meta.score` names both."""

    backend: str  # "sqlite" or "postgresql"
    #: The raw lexical score's kind, before search normalizes it into [0, 1).
    score_kind: str
    #: The syntax of a raw query (a query in single quotes), or None when it takes none.
    raw_syntax: str | None
    #: Uses of names (the `usage` intent, `kebab/references`).
    refs: bool
    #: Vectors beside the store (the `vector` and `hybrid` modes).
    vectors: bool


SQLITE = Capabilities(backend="sqlite", score_kind="bm25_normalized", raw_syntax="fts5",
                      refs=True, vectors=True)


#: The meta key a store that outlives a schema version (a team index) records `extracted_by` in.
EXTRACTED_BY_KEY = "extracted_by_schema"


class IndexWriter(Protocol):
    """What `Indexer` writes through: file states to plan against, and batches of whole
    files (all of a batch lands, or none of it)."""

    def begin_rebuild(self) -> None:
        """Before a rebuild writes every file again: a local index starts from an empty
        database, which repairs any damage; a team index keeps its rows until each file is
        written over, so its readers have a whole repository all through the rebuild."""
        ...

    def file_states(self) -> dict[str, FileState]: ...

    def file_state(self, path: str) -> FileState | None: ...

    def extracted_by(self) -> int | None:
        """The `SCHEMA_VERSION` whose extraction (symbols, chunks, refs) the stored files
        hold, None when unknown: a file whose content did not change is not re-extracted, so
        an index that outlives a change of extraction must say so."""
        ...

    def meta_value(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...

    def batch(self, large: bool = False) -> AbstractContextManager[None]: ...

    def write_file(self, write: FileWrite) -> list[str]: ...

    def delete_file(self, path: str) -> list[str]: ...

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None: ...

    def rename_file(self, old: str, new: str, size: int, mtime_ns: int) -> dict[str, str]: ...


class SearchStore(Protocol):
    """What lexical and exact-text search read, and where a name is defined (the chunk that
    holds a definition an identifier query names). Filters apply before any limit, every
    order is total (ties by path, line, chunk id), and `count_matches` is exact."""

    @property
    def capabilities(self) -> Capabilities: ...

    @property
    def damage(self) -> str | None: ...

    def reading(self, should_stop: Callable[[], bool] | None = None
                ) -> AbstractContextManager[Any]: ...

    def match_chunks(self, query: LexicalQuery, filters: Filters, limit: int,
                     exclude: Iterable[int] = ()) -> list[ChunkRow]: ...

    def count_matches(self, query: LexicalQuery, filters: Filters) -> int: ...

    def file_states(self) -> dict[str, FileState]: ...

    def files_containing(self, needle: str, filters: Filters, check: Checkpoint = go_on
                         ) -> list[tuple[str, str, str]]:
        """(path, lang, text) of every file whose text contains `needle`, in path order.
        Reading the candidates' texts is much of an exact search on a large tree, so `check`
        runs between batches of `retrieval.EXACT_BATCH` rows: a cancelled search stops
        inside the read instead of after every candidate's text was read."""
        ...

    def chunks_at(self, path: str, line: int) -> list[ChunkRow]: ...

    def with_texts(self, rows: Sequence[ChunkRow]) -> list[ChunkRow]: ...

    def chunks_by_ids(self, chunk_ids: Sequence[str]) -> dict[str, ChunkRow]: ...

    def held_chunk_ids(self, filters: Filters, limit: int) -> tuple[list[str], int]:
        """(the first `limit` chunk ids, in path and line order, of the chunks the other
        filters allow that hold a definition of `filters.kinds` which has no chunk of its
        own; how many there are in all): a kind filter keeps those chunks too."""
        ...

    def held_definitions(self, places: Iterable[tuple[str, int, int]], kinds: Sequence[str],
                         spanning: bool = False) -> dict[str, list[tuple[int, Symbol]]]:
        """The definitions of `kinds` with no chunk of their own whose name is on the lines
        of `places` ((path, first line, last line), 0-based, inclusive), by path, in position
        order, each with its place in its file (`ord`, for its handle): what a chunk a kind
        filter keeps for holding one cites. `spanning`: those whose text spans one of those
        lines instead (where exact text sits)."""
        ...

    def all_symbols(self) -> list[SymbolRow]: ...

    def definition_places(self, name: str) -> list[tuple[str, Span]]: ...

    def stats(self) -> Stats: ...

    def lexical_version(self) -> int: ...

    def meta_value(self, key: str) -> str | None: ...

    def problems(self) -> list[str]: ...


@runtime_checkable
class RefStore(SearchStore, Protocol):
    """A store that also holds uses of names: what usage answers (`who calls X`,
    `kebab/references`) read. Every ref of a name is listed, so their count is exact."""

    def ref_keys(self, name: str, filters: Filters, kinds: Sequence[str] = ()
                 ) -> list[RefKey]: ...

    def refs_by_rowid(self, rowids: Sequence[int]) -> dict[int, RefRow]: ...


class FileFacts(Protocol):
    """What a grouped answer (`group: true`) shows of a file: its row, its text (for the doc
    at its top), its definitions and what it imports."""

    def file_by_path(self, path: str) -> FileRow | None: ...

    def file_text_of(self, file_rowid: int) -> str | None: ...

    def symbols_of_file(self, file_rowid: int) -> list[tuple[int, Symbol]]: ...

    def imports_of(self, file_rowid: int, limit: int = 100) -> list[str]: ...


class LookupStore(RefStore, FileFacts, Protocol):
    """What the lookups by handle, name or place read (`search.handles`,
    `search.workspace_lookups`): rows by id and ordinal, a file's blocks, the name at a
    position, the definitions of a name, and its ref counts."""

    def ref_counts(self, name: str) -> dict[str, int]: ...

    def file_by_rowid(self, rowid: int) -> FileRow | None: ...

    def symbol_by_ord(self, file_rowid: int, ord_: int) -> Symbol | None: ...

    def chunks_of_file(self, file_rowid: int) -> list[ChunkRow]: ...

    def chunk_of_symbol(self, file_rowid: int, ord_: int) -> ChunkRow | None: ...

    def name_at(self, path: str, line: int, col: int) -> str | None: ...

    def definitions_named(self, name: str) -> list[tuple[str, Symbol]]: ...


class EmbeddingStore(Protocol):
    """What a vector sync (`indexing.vector_index`) reads and records: what each chunk's and
    file's vectors are computed from, how many vectors that makes, a cache of vectors by
    embedded-text hash, and the meta a completed sync leaves (which lexical version, model
    and vector table version it saw)."""

    def reading(self, should_stop: Callable[[], bool] | None = None
                ) -> AbstractContextManager[Any]: ...

    def embedding_sources(self) -> list[EmbeddingSource]: ...

    def file_heads(self) -> dict[str, FileHead]: ...

    def chunk_count(self) -> int: ...

    def leading_chunk_count(self) -> int: ...

    def chunked_file_count(self) -> int: ...

    def cached_vectors(self, model: str, hashes: Sequence[str]) -> dict[str, bytes]: ...

    def cache_vectors(self, model: str, items: Sequence[tuple[str, bytes]]) -> None: ...

    def prune_embed_cache(self, model: str, needed: AbstractSet[str]) -> int: ...

    def lexical_version(self) -> int: ...

    def meta_value(self, key: str) -> str | None: ...

    def set_meta(self, key: str, value: str) -> None: ...


class IndexStore(IndexWriter, SearchStore, Protocol):
    """Both halves: a backend `kebab index` builds and `kebab search` reads."""
