"""The SQLite store: one writer, many readers, whole files swapped in one transaction.

Why the shape:
- WAL mode lets readers (search requests) run while the writer commits a batch.
- A file's rows are replaced inside one transaction, so a crash never leaves half a file.
- An index of another schema version, or one SQLite cannot read, is deleted and rebuilt:
  the index is a cache of the workspace, and asking users to delete it by hand is a bug.
- Retrieval SQL lives here too (the read API), so `search` never needs to know table names.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import apsw

from indexing.records import Extraction, Span, Symbol, SymbolKind, chunk_id_for
from indexing.schema import DDL, FTS_WEIGHTS, SCHEMA_VERSION
from indexing.text import identifier_parts

DB_NAME = "index.sqlite3"
CHANGES_KEEP = 1000  # write batches of path history kept for incremental cache updates


class StoreError(Exception):
    pass


class QuerySyntaxError(StoreError):
    """An FTS5 expression SQLite refused; the message is SQLite's own."""


@dataclass(frozen=True, slots=True)
class FileState:
    id: int
    path: str
    size: int
    mtime_ns: int
    hash: str


@dataclass(frozen=True, slots=True)
class FileWrite:
    """Everything needed to (re)write one file's rows."""

    path: str
    size: int
    mtime_ns: int
    hash: str
    lang: str
    text: str
    extraction: Extraction
    is_test: bool = False
    is_generated: bool = False


@dataclass(frozen=True, slots=True)
class Filters:
    """Filters as the store applies them: in SQL, before any LIMIT."""

    langs: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()
    path_regex: str | None = None


@dataclass(frozen=True, slots=True)
class ChunkRow:
    """A chunk joined with its file and (optional) symbol: all a hit needs to cite itself."""

    rowid: int
    chunk_id: str
    path: str
    lang: str
    chunk_kind: str
    start_line: int
    end_line: int
    context: str
    text: str
    text_hash: str
    is_test: bool
    is_generated: bool
    symbol: Symbol | None
    rank: float = 0.0  # raw bm25 when it came from FTS; never sent to clients


@dataclass(frozen=True, slots=True)
class FileText:
    path: str
    lang: str
    text: str
    is_test: bool


@dataclass(frozen=True, slots=True)
class SymbolRow:
    id: int
    path: str
    is_test: bool
    symbol: Symbol


@dataclass(frozen=True, slots=True)
class Stats:
    files: int
    symbols: int
    chunks: int
    schema_version: int
    lexical_version: int
    last_update: float | None
    langs: dict[str, int]


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


_regex_cache: dict[str, re.Pattern[str]] = {}


def _regexp(pattern: str, value: str | None) -> bool:
    compiled = _regex_cache.get(pattern)
    if compiled is None:
        compiled = _regex_cache[pattern] = re.compile(pattern)
    return value is not None and compiled.search(value) is not None


_CHUNK_COLUMNS = """
    c.id, c.chunk_id, f.path, f.lang, c.kind, c.start_line, c.end_line, c.context, c.text,
    c.text_hash, f.is_test, f.is_generated,
    s.name, s.kind, s.container, s.qualified_name,
    s.start_line, s.start_col, s.end_line, s.end_col,
    s.sel_start_line, s.sel_start_col, s.sel_end_line, s.sel_end_col, s.signature, s.doc
"""
_CHUNK_FROM = """
    FROM chunks c JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id
"""
# Whether a chunk is the first (lowest line, then id) of its definition's chunks.
_LEADS_SQL = """(c.kind = 'definition' AND c.symbol_id IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM chunks o WHERE o.symbol_id = c.symbol_id AND o.kind = 'definition' AND
    (o.start_line < c.start_line OR (o.start_line = c.start_line AND o.chunk_id < c.chunk_id))))"""
_SYMBOL_COLUMNS = """
    s.name, s.kind, s.container, s.qualified_name,
    s.start_line, s.start_col, s.end_line, s.end_col,
    s.sel_start_line, s.sel_start_col, s.sel_end_line, s.sel_end_col, s.signature, s.doc
"""


def _symbol_from(row: Sequence[Any]) -> Symbol:
    return Symbol(
        name=row[0],
        kind=SymbolKind(row[1]),
        container=row[2],
        qualified_name=row[3],
        range=Span(row[4], row[5], row[6], row[7]),
        selection=Span(row[8], row[9], row[10], row[11]),
        signature=row[12],
        doc=row[13],
    )


def _chunk_from(row: Sequence[Any], rank: float = 0.0) -> ChunkRow:
    return ChunkRow(
        rowid=row[0],
        chunk_id=row[1],
        path=row[2],
        lang=row[3],
        chunk_kind=row[4],
        start_line=row[5],
        end_line=row[6],
        context=row[7],
        text=row[8],
        text_hash=row[9],
        is_test=bool(row[10]),
        is_generated=bool(row[11]),
        symbol=_symbol_from(row[12:26]) if row[12] is not None else None,
        rank=rank,
    )


def _filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    args: list[Any] = []
    if filters.langs:
        clauses.append(f"f.lang IN ({','.join('?' * len(filters.langs))})")
        args.extend(filters.langs)
    if filters.kinds:
        clauses.append(f"s.kind IN ({','.join('?' * len(filters.kinds))})")
        args.extend(filters.kinds)
    if filters.path_regex:
        clauses.append("f.path REGEXP ?")
        args.append(filters.path_regex)
    return "".join(f" AND {c}" for c in clauses), args


class Store:
    """Owns one index directory's SQLite database."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self.db_path = index_dir / DB_NAME
        self.rebuilt_reason: str | None = None
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._batch_paths: set[str] = set()
        index_dir.mkdir(parents=True, exist_ok=True)
        self._open_or_rebuild()

    # -- connections -----------------------------------------------------------------------

    def _connect(self) -> Any:
        conn = apsw.Connection(str(self.db_path))
        conn.set_busy_timeout(10_000)
        conn.create_scalar_function("regexp", cast(Any, _regexp), 2, deterministic=True)
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA cache_size=-32000")
        return conn

    @property
    def conn(self) -> Any:
        """This thread's connection: SQLite connections are not shared across threads here.
        Typed `Any` because apsw's row type is a union no caller can use without casts."""
        conn: apsw.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = self._connect()
        return conn

    def _open_or_rebuild(self) -> None:
        try:
            conn = self._connect()
            found = self._schema_version(conn)
            if found is not None and found != SCHEMA_VERSION:
                self.rebuilt_reason = (
                    f"index schema version {found} differs from {SCHEMA_VERSION}; rebuilding"
                )
                conn.close()
                self._delete_files()
                conn = self._connect()
            self._init(conn)
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            self.rebuilt_reason = f"index was unreadable ({exc}); rebuilding"
            self._delete_files()
            conn = self._connect()
            self._init(conn)
        self._local.conn = conn

    def _delete_files(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            (self.index_dir / (DB_NAME + suffix)).unlink(missing_ok=True)

    @staticmethod
    def _schema_version(conn: Any) -> int | None:
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
        ).fetchone()
        if not exists:
            return None
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else -1

    @staticmethod
    def _init(conn: Any) -> None:
        conn.execute("PRAGMA journal_mode=WAL")
        with conn:
            conn.execute(DDL)
            conn.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                (str(SCHEMA_VERSION),),
            )
            conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('lexical_version', '0')")

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # -- writing ---------------------------------------------------------------------------

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One transaction for many file writes: all of a batch lands, or none of it."""
        with self._write_lock, self.conn:
            self._batch_paths.clear()
            yield
            self.conn.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key='lexical_version'"
            )
            version = self.lexical_version()
            self.conn.executemany("INSERT INTO changes(version, path) VALUES (?,?)",
                                  [(version, p) for p in sorted(self._batch_paths)])
            if version % CHANGES_KEEP == 0:
                floor = version - CHANGES_KEEP
                self.conn.execute("DELETE FROM changes WHERE version <= ?", (floor,))
                self.conn.execute(
                    "INSERT OR REPLACE INTO meta(key, value) VALUES ('changes_floor', ?)",
                    (str(floor),))
            self.conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('last_update', ?)",
                (repr(time.time()),),
            )

    def write_file(self, write: FileWrite) -> list[str]:
        """Replace one file's rows; returns the chunk ids it had before (for vector cleanup).
        Must run inside `batch()`."""
        self._batch_paths.add(write.path)
        old_ids = self._delete_rows(write.path)
        conn = self.conn
        conn.execute(
            "INSERT INTO files(path, size, mtime_ns, hash, lang, is_test, is_generated) "
            "VALUES (?,?,?,?,?,?,?)",
            (write.path, write.size, write.mtime_ns, write.hash, write.lang,
             int(write.is_test), int(write.is_generated)),
        )
        file_id = conn.last_insert_rowid()
        conn.execute("INSERT INTO file_text(file_id, text) VALUES (?,?)", (file_id, write.text))
        conn.execute("INSERT INTO text_trigram(rowid, text) VALUES (?,?)", (file_id, write.text))
        symbol_ids = self._insert_symbols(file_id, write.extraction.symbols)
        self._insert_chunks(file_id, write.path, write.extraction, symbol_ids)
        return old_ids

    def _insert_symbols(self, file_id: int, symbols: Sequence[Symbol]) -> list[int]:
        ids = []
        for ord_, s in enumerate(symbols):
            self.conn.execute(
                "INSERT INTO symbols(file_id, ord, name, qualified_name, kind, container, "
                "start_line, start_col, end_line, end_col, sel_start_line, sel_start_col, "
                "sel_end_line, sel_end_col, signature, doc) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (file_id, ord_, s.name, s.qualified_name, str(s.kind), s.container,
                 s.range.start_line, s.range.start_col, s.range.end_line, s.range.end_col,
                 s.selection.start_line, s.selection.start_col, s.selection.end_line,
                 s.selection.end_col, s.signature, s.doc),
            )
            ids.append(self.conn.last_insert_rowid())
        return ids

    def _insert_chunks(
        self, file_id: int, path: str, extraction: Extraction, symbol_ids: Sequence[int]
    ) -> None:
        seen: set[str] = set()
        for chunk in extraction.chunks:
            cid = chunk.chunk_id(path)
            if cid in seen:  # identical text at the same line: one row is enough
                continue
            seen.add(cid)
            sym = extraction.symbols[chunk.symbol] if chunk.symbol is not None else None
            self.conn.execute(
                "INSERT INTO chunks(chunk_id, file_id, symbol_id, kind, start_line, end_line, "
                "context, text, text_hash) VALUES (?,?,?,?,?,?,?,?,?)",
                (cid, file_id, symbol_ids[chunk.symbol] if chunk.symbol is not None else None,
                 str(chunk.kind), chunk.start_line, chunk.end_line, chunk.context, chunk.text,
                 text_hash(chunk.text)),
            )
            self._insert_fts(self.conn.last_insert_rowid(), path, sym, chunk.context, chunk.text)

    def _insert_fts(
        self, rowid: int, path: str, sym: Symbol | None, context: str, body: str
    ) -> None:
        names = f"{sym.name} {sym.qualified_name}" if sym else context
        parts = identifier_parts(f"{names} {body}")
        path_words = path.replace("/", " ").replace(".", " ")
        self.conn.execute(
            "INSERT INTO chunks_fts(rowid, names, parts, path, body) VALUES (?,?,?,?,?)",
            (rowid, names, parts, f"{path_words} {identifier_parts(path_words)}", body),
        )

    def _delete_rows(self, path: str) -> list[str]:
        conn = self.conn
        row = conn.execute("SELECT id FROM files WHERE path=?", (path,)).fetchone()
        if row is None:
            return []
        file_id = row[0]
        chunk_rows = conn.execute(
            "SELECT id, chunk_id FROM chunks WHERE file_id=?", (file_id,)
        ).fetchall()
        conn.executemany("DELETE FROM chunks_fts WHERE rowid=?", [(r[0],) for r in chunk_rows])
        conn.execute("DELETE FROM text_trigram WHERE rowid=?", (file_id,))
        conn.execute("DELETE FROM chunks WHERE file_id=?", (file_id,))
        conn.execute("DELETE FROM symbols WHERE file_id=?", (file_id,))
        conn.execute("DELETE FROM files WHERE id=?", (file_id,))
        return [r[1] for r in chunk_rows]

    def delete_file(self, path: str) -> list[str]:
        """Drop a file's rows; returns its chunk ids. Must run inside `batch()`."""
        self._batch_paths.add(path)
        return self._delete_rows(path)

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        """Record a new mtime for a file whose content hash did not change, so the next scan
        skips it on the cheap size+mtime check."""
        self.conn.execute(
            "UPDATE files SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path)
        )

    def rename_file(self, old: str, new: str, size: int, mtime_ns: int) -> dict[str, str]:
        """Move a file's rows to a new path without re-extracting it. Chunk ids derive from the
        path, so they are recomputed; returns old id -> new id. Must run inside `batch()`."""
        conn = self.conn
        row = conn.execute("SELECT id FROM files WHERE path=?", (old,)).fetchone()
        if row is None:
            return {}
        self._batch_paths.update((old, new))
        file_id = row[0]
        conn.execute(
            "UPDATE files SET path=?, size=?, mtime_ns=? WHERE id=?", (new, size, mtime_ns, file_id)
        )
        mapping: dict[str, str] = {}
        chunks = conn.execute(
            f"SELECT {_CHUNK_COLUMNS} {_CHUNK_FROM} WHERE c.file_id=?", (file_id,)
        ).fetchall()
        for raw in chunks:
            chunk = _chunk_from(raw)
            new_id = chunk_id_for(new, chunk.start_line, chunk.text)
            mapping[chunk.chunk_id] = new_id
            conn.execute("UPDATE chunks SET chunk_id=? WHERE id=?", (new_id, chunk.rowid))
            conn.execute("DELETE FROM chunks_fts WHERE rowid=?", (chunk.rowid,))
            self._insert_fts(chunk.rowid, new, chunk.symbol, chunk.context, chunk.text)
        return mapping

    # -- reading: bookkeeping --------------------------------------------------------------

    def file_states(self) -> dict[str, FileState]:
        return {
            r[1]: FileState(r[0], r[1], r[2], r[3], r[4])
            for r in self.conn.execute("SELECT id, path, size, mtime_ns, hash FROM files")
        }

    def file_state(self, path: str) -> FileState | None:
        r = self.conn.execute(
            "SELECT id, path, size, mtime_ns, hash FROM files WHERE path=?", (path,)
        ).fetchone()
        return FileState(r[0], r[1], r[2], r[3], r[4]) if r else None

    def meta_value(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._write_lock, self.conn:
            self.conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", (key, value))

    def lexical_version(self) -> int:
        """Bumped by every committed write batch: a cheap "has anything changed" check for
        caches built from the store."""
        return int(self.meta_value("lexical_version") or 0)

    def stats(self) -> Stats:
        conn = self.conn

        def count(table: str) -> int:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])

        last = self.meta_value("last_update")
        langs = {r[0]: r[1] for r in conn.execute(
            "SELECT lang, count(*) FROM files GROUP BY lang ORDER BY lang")}
        return Stats(
            files=count("files"),
            symbols=count("symbols"),
            chunks=count("chunks"),
            schema_version=SCHEMA_VERSION,
            lexical_version=int(self.meta_value("lexical_version") or 0),
            last_update=float(last) if last else None,
            langs=langs,
        )

    # -- reading: retrieval ----------------------------------------------------------------

    def match_chunks(
        self, expr: str, filters: Filters, limit: int, exclude: Iterable[int] = ()
    ) -> list[ChunkRow]:
        """Chunks matching an FTS5 expression, best bm25 first; ties by path, line, chunk id
        so the same index and query always give the same order."""
        excluded = set(exclude)
        try:
            if filters == Filters():
                return self._match_unfiltered(expr, limit, excluded)
            return self._match_filtered(expr, filters, limit, excluded)
        except apsw.SQLError as exc:
            raise QuerySyntaxError(str(exc)) from exc

    def _match_unfiltered(self, expr: str, limit: int, excluded: set[int]) -> list[ChunkRow]:
        """Rank inside FTS5 alone, then join only the winners: joining every match first
        costs four times as much on broad queries. Rows tied with the last one kept are all
        fetched, so the tie-break by path and line sees every candidate."""
        rank_sql = f"bm25(chunks_fts, {', '.join(str(w) for w in FTS_WEIGHTS)})"
        want = limit + len(excluded) + 1
        ranked = self.conn.execute(
            f"SELECT rowid, {rank_sql} AS r FROM chunks_fts WHERE chunks_fts MATCH ? "
            "ORDER BY r LIMIT ?", (expr, want)).fetchall()
        ranked = [(rid, r) for rid, r in ranked if rid not in excluded]
        if len(ranked) > limit and ranked[limit - 1][1] == ranked[limit][1]:
            boundary = ranked[limit - 1][1]
            ranked = [(rid, r) for rid, r in self.conn.execute(
                f"SELECT rowid, {rank_sql} AS r FROM chunks_fts WHERE chunks_fts MATCH ? "
                f"AND {rank_sql} <= ? ORDER BY r", (expr, boundary)) if rid not in excluded]
        rank_of = dict(ranked)
        rows: list[ChunkRow] = []
        ids = list(rank_of)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            rows.extend(_chunk_from(r, rank=rank_of[r[0]]) for r in self.conn.execute(
                f"SELECT {_CHUNK_COLUMNS} {_CHUNK_FROM} WHERE c.id IN "
                f"({','.join('?' * len(part))})", part))
        rows.sort(key=lambda c: (c.rank, c.path, c.start_line, c.chunk_id))
        return rows[:limit]

    def _match_filtered(
        self, expr: str, filters: Filters, limit: int, excluded: set[int]
    ) -> list[ChunkRow]:
        where, args = _filter_sql(filters)
        if excluded:
            where += f" AND c.id NOT IN ({','.join('?' * len(excluded))})"
            args.extend(sorted(excluded))
        weights = ", ".join(str(w) for w in FTS_WEIGHTS)
        sql = (
            f"WITH m AS (SELECT rowid AS id, bm25(chunks_fts, {weights}) AS r FROM chunks_fts "
            f"WHERE chunks_fts MATCH ?) "
            f"SELECT {_CHUNK_COLUMNS}, m.r FROM m JOIN chunks c ON c.id = m.id "
            f"JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id "
            f"WHERE 1{where} ORDER BY m.r, f.path, c.start_line, c.chunk_id LIMIT ?"
        )
        rows = self.conn.execute(sql, (expr, *args, limit)).fetchall()
        return [_chunk_from(r, rank=r[-1]) for r in rows]

    def count_matches(self, expr: str, filters: Filters) -> int:
        try:
            if filters == Filters():
                return int(self.conn.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (expr,)
                ).fetchone()[0])
            where, args = _filter_sql(filters)
            sql = (
                "SELECT count(*) FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
                "JOIN files f ON f.id = c.file_id LEFT JOIN symbols s ON s.id = c.symbol_id "
                f"WHERE chunks_fts MATCH ?{where}"
            )
            return int(self.conn.execute(sql, (expr, *args)).fetchone()[0])
        except apsw.SQLError as exc:
            raise QuerySyntaxError(str(exc)) from exc

    def files_containing(
        self, needle: str, filters: Filters
    ) -> list[tuple[str, str, str]]:
        """(path, lang, text) of every file whose text contains `needle` exactly.

        The trigram index narrows candidates; `instr` confirms, so recall equals grep's. A
        needle under three characters has no trigram and falls back to a scan.
        """
        where, args = _filter_sql(Filters(filters.langs, (), filters.path_regex))
        if len(needle) >= 3:
            phrase = '"' + needle.replace('"', '""') + '"'
            sql = (
                "SELECT f.path, f.lang, t.text FROM text_trigram JOIN file_text t "
                "ON t.file_id = text_trigram.rowid JOIN files f ON f.id = t.file_id "
                f"WHERE text_trigram MATCH ? AND instr(t.text, ?) > 0{where} ORDER BY f.path"
            )
            params: tuple[Any, ...] = (phrase, needle, *args)
        else:
            sql = (
                "SELECT f.path, f.lang, t.text FROM file_text t JOIN files f ON f.id = t.file_id "
                f"WHERE instr(t.text, ?) > 0{where} ORDER BY f.path"
            )
            params = (needle, *args)
        return [(r[0], r[1], r[2]) for r in self.conn.execute(sql, params)]

    def chunks_at(self, path: str, line: int) -> list[ChunkRow]:
        """Chunks of `path` covering `line`, smallest first: the tightest citation."""
        rows = self.conn.execute(
            f"SELECT {_CHUNK_COLUMNS} {_CHUNK_FROM} WHERE f.path=? AND c.start_line<=? "
            "AND c.end_line>=? ORDER BY c.end_line - c.start_line, c.start_line, c.chunk_id",
            (path, line, line),
        ).fetchall()
        return [_chunk_from(r) for r in rows]

    def chunks_by_ids(self, chunk_ids: Sequence[str]) -> dict[str, ChunkRow]:
        out: dict[str, ChunkRow] = {}
        for start in range(0, len(chunk_ids), 500):
            part = list(chunk_ids[start : start + 500])
            rows = self.conn.execute(
                f"SELECT {_CHUNK_COLUMNS} {_CHUNK_FROM} WHERE c.chunk_id IN "
                f"({','.join('?' * len(part))})",
                part,
            ).fetchall()
            out.update((r[1], _chunk_from(r)) for r in rows)
        return out

    def chunk_ids_matching(self, filters: Filters) -> set[str]:
        where, args = _filter_sql(filters)
        return {r[0] for r in self.conn.execute(
            f"SELECT c.chunk_id {_CHUNK_FROM} WHERE 1{where}", args)}

    def all_symbols(self) -> list[SymbolRow]:
        """Every definition, for the in-memory workspace-symbol matcher."""
        rows = self.conn.execute(
            f"SELECT s.id, f.path, f.is_test, {_SYMBOL_COLUMNS} FROM symbols s "
            "JOIN files f ON f.id = s.file_id ORDER BY f.path, s.ord"
        ).fetchall()
        return [SymbolRow(r[0], r[1], bool(r[2]), _symbol_from(r[3:])) for r in rows]

    def symbols_in(self, paths: Iterable[str]) -> list[SymbolRow]:
        wanted = sorted(set(paths))
        out: list[SymbolRow] = []
        for start in range(0, len(wanted), 500):
            part = wanted[start : start + 500]
            out.extend(SymbolRow(r[0], r[1], bool(r[2]), _symbol_from(r[3:])) for r in
                       self.conn.execute(
                           f"SELECT s.id, f.path, f.is_test, {_SYMBOL_COLUMNS} FROM symbols s "
                           "JOIN files f ON f.id = s.file_id WHERE f.path IN "
                           f"({','.join('?' * len(part))}) ORDER BY f.path, s.ord", part))
        return out

    def changed_paths_since(self, version: int) -> set[str] | None:
        """Paths written, deleted or renamed after `version`; None when the log no longer
        reaches back that far (the caller must reload everything)."""
        floor = int(self.meta_value("changes_floor") or 0)
        if version < floor:
            return None
        return {r[0] for r in self.conn.execute(
            "SELECT DISTINCT path FROM changes WHERE version > ?", (version,))}

    # -- embeddings: sources and the vector cache ------------------------------------------

    def embedding_sources(self) -> list[EmbeddingSource]:
        """Every chunk with what its embedding texts are built from, in path/line order.
        `leads` marks the first chunk of its definition (the one a summary vector hangs on)."""
        rows = self.conn.execute(
            "SELECT c.chunk_id, f.path, f.lang, COALESCE(s.kind, c.kind), c.context, "
            "COALESCE(s.signature, ''), COALESCE(s.doc, ''), c.text, f.is_test, "
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

    def file_texts(self) -> list[FileText]:
        """Every indexed file with its text, in path order."""
        return [FileText(r[0], r[1], r[2], bool(r[3])) for r in self.conn.execute(
            "SELECT f.path, f.lang, t.text, f.is_test FROM files f "
            "JOIN file_text t ON t.file_id = f.id ORDER BY f.path")]

    def chunk_count(self) -> int:
        return int(self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0])

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
        with self._write_lock, self.conn:
            self.conn.executemany(
                "INSERT OR REPLACE INTO embed_cache(model, text_hash, vector) VALUES (?,?,?)",
                [(model, h, v) for h, v in items],
            )


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

