"""One repository of a team index on PostgreSQL, as the indexer writes it and search reads it
(`indexing.store.interface`).

Why the shape:
- Every statement names its repository, and row-level security (`schema.policies`) narrows
  what a reader sees again, so a role's counts, hits and stats never include a repository it
  was not granted, not even as a total.
- A batch of files is one transaction and bumps the repository's lexical version, as on
  SQLite: readers see whole files, and caches keyed by the version stay right.
- Lexical search ranks every authorized match (`ts_rank` over the GIN index's matches, ties
  by path, line, chunk id) and counts them exactly, so the recall search reports is the
  truth, as on SQLite. The raw rank returned is `-ts_rank`, lower is better, as bm25 is.
- Exact text: the trigram index proposes files, `LIKE` confirms the substring, and each
  file's text is checked again here, so recall is grep's.
- Every order is by code point (`COLLATE "C"`), as SQLite's and Python's are, whatever the
  database's collation: ties break the same way on both backends.
- One connection per store, used by one thread at a time (the CLI's); a server reading a
  team index would want a pool.
"""

from __future__ import annotations

import difflib
import os
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.pq import TransactionStatus

from indexing.filters import Filters
from indexing.lexical_query import LexicalQuery
from indexing.postgres import lexemes, ranking
from indexing.postgres.cancel import cancelled_when
from indexing.postgres.schema import DDL, GIN_INDEXES, PG_SCHEMA_VERSION, policies
from indexing.records import Extraction, Ref, Span, Symbol, chunk_id_for, text_hash
from indexing.store.catalog import FileState, Stats
from indexing.store.connection import StoreError, StoreInterrupted
from indexing.store.embed_cache import EmbeddingSource, FileHead
from indexing.store.interface import EXTRACTED_BY_KEY, Capabilities
from indexing.store.refs import FileRow, RefKey, RefRow
from indexing.store.retrieval import EXACT_BATCH, Checkpoint, go_on
from indexing.store.rows import (
    NAME_SPAN_COLUMNS,
    SYMBOL_COLUMNS,
    SYMBOL_ROW_COLUMNS,
    ChunkRow,
    SymbolRow,
    chunk_from,
    symbol_from,
    symbol_row,
)
from indexing.store.writes import FileWrite
from indexing.store_choice import check_repo, safe_url
from indexing.text import findable_by_words
from indexing.top_doc import FILE_HEAD_CHARS

#: What a team index answers: lexical and exact text, usages; no raw FTS5. Vectors are not
#: the store's: they are beside it, where `team_vectors` names (`postgres/team_vectors.py`).
POSTGRESQL = Capabilities(backend="postgresql", score_kind=ranking.SCORE_KIND, raw_syntax=None,
                          refs=True, vectors=False)
#: The first key of kebab's advisory locks, so they never meet another application's: the
#: schema's creation takes (space, 0), a repository's writer (space, hash of its name).
_LOCK_SPACE = 0x6B6562
#: Python's named groups (pathspec's) are plain groups to PostgreSQL's regex engine.
_NAMED_GROUP = re.compile(r"\(\?P<\w+>")

_CHUNK_COLUMNS = """
    c.id, c.chunk_id, f.path, f.lang, c.kind, c.start_line, c.end_line, c.context,
    {text}, c.text_hash, f.is_test, f.is_generated,
    s.name, s.kind, s.container, s.qualified_name,
    s.start_line, s.start_col, s.end_line, s.end_col,
    s.sel_start_line, s.sel_start_col, s.sel_end_line, s.sel_end_col, s.signature, s.doc,
    s.bodiless, c.start_col, f.id, f.hash, s.ord
"""
CHUNK_COLUMNS_NO_TEXT = _CHUNK_COLUMNS.format(text="NULL")
CHUNK_COLUMNS = _CHUNK_COLUMNS.format(text="c.text")
CHUNK_FROM = """
    FROM kebab.chunks c JOIN kebab.files f ON f.id = c.file_id
    LEFT JOIN kebab.symbols s ON s.id = c.symbol_id
"""


class TeamStoreError(StoreError):
    """The team index cannot be reached, is missing, or is of another schema version; the
    message says which and what to do."""


class TeamStoreBusy(TeamStoreError):
    """Another `kebab index` is writing this repository."""


#: How long the team's server may stay silent, where the URL (and for the connect timeout
#: `PGCONNECT_TIMEOUT`) says nothing. libpq's own defaults wait for ever or nearly:
#: - `connect_timeout`: a port that accepts and never answers held a request for good, and a
#:   dropped route (a laptop off the VPN) for the kernel's two minutes of SYN retries;
#: - `tcp_user_timeout` (ms) and the keepalives: a server that vanished mid-session without a
#:   reset held a request for the kernel's 15 minutes of retransmissions; now the data it
#:   has not acknowledged, or the probes of a connection waiting for its answer, give up in
#:   15 s. A server that is there acknowledges them, however long its query runs.
CONNECTION_DEFAULTS: dict[str, int] = {
    "connect_timeout": 5, "tcp_user_timeout": 15_000,
    "keepalives": 1, "keepalives_idle": 15, "keepalives_interval": 5, "keepalives_count": 3,
}


def connect(url: str) -> psycopg.Connection[Any]:
    try:
        given = set(conninfo_to_dict(url))
        if os.environ.get("PGCONNECT_TIMEOUT"):
            given.add("connect_timeout")
        defaults = {k: v for k, v in CONNECTION_DEFAULTS.items() if k not in given}
        return psycopg.connect(make_conninfo(url, **defaults), autocommit=True)
    except psycopg.Error as exc:
        raise TeamStoreError(f"cannot connect to the team index at {safe_url(url)}: "
                             f"{str(exc).strip()}") from exc


def _text(value: str) -> str:
    """PostgreSQL text cannot hold NUL; U+FFFD keeps every column where it was."""
    return value.replace("\0", "\ufffd") if "\0" in value else value


#: The chunks of a repository that hold a definition of the kinds asked that has no chunk of
#: its own (its name's line is among the chunk's lines). Parameters: the repository, the
#: kinds. Found once per version of the repository and set of kinds (`PgStore._holders`):
#: 30 ms for Django's constants, 260 to 350 ms for its 12,000 fields (each probes the wide
#: chunk rows of its file), which a search must not pay each time. Correlated with each
#: match instead, it made kind-filtered searches on Django's team index 3 to 8 times slower.
_HOLDERS_SQL = (
    "SELECT DISTINCT k.id FROM kebab.symbols h JOIN kebab.chunks k ON k.file_id = h.file_id "
    "AND h.sel_start_line BETWEEN k.start_line AND k.end_line "
    "WHERE h.repo = %s AND h.kind = ANY(%s) "
    "AND NOT EXISTS (SELECT 1 FROM kebab.chunks o WHERE o.symbol_id = h.id) ORDER BY k.id")
#: Holder sets kept per store, each for one version of the repository and one set of kinds.
HOLDERS_KEPT = 8
#: A chunk (`c`) among holders (the parameter, a bigint[]): a hashed set, where `= ANY` of a
#: large array scans it per row (Django's 8,000 field holders: 300 to 660 ms a count).
_AMONG = "c.id IN (SELECT unnest(%s::bigint[]))"


def _filter_sql(filters: Filters, holders: list[int] | None = None
                ) -> tuple[str, list[Any]]:
    """`filters` as SQL. A kind filter over chunks (`c`), given their `holders`
    (`PgStore._holders`), keeps a chunk whose own definition (`s`) is of those kinds, and a
    chunk that holds a definition of those kinds with no chunk of its own (a constant, field,
    property, variable, enum member or one-line member), as on SQLite
    (`indexing.store.retrieval._filter_sql`); without them (over refs), it keeps those inside
    a definition (`s`) of those kinds."""
    clauses: list[str] = []
    args: list[Any] = []
    if filters.langs:
        clauses.append("f.lang = ANY(%s)")
        args.append(list(filters.langs))
    if filters.kinds:
        if holders is not None:
            clauses.append(f"(s.kind = ANY(%s) OR {_AMONG})")
            args.extend([list(filters.kinds), holders])
        else:
            clauses.append("s.kind = ANY(%s)")
            args.append(list(filters.kinds))
    if filters.path_regex:
        clauses.append("f.path ~ %s")
        args.append(_NAMED_GROUP.sub("(?:", filters.path_regex))
    if filters.only_paths is not None:
        clauses.append("f.path = ANY(%s)")
        args.append(sorted(filters.only_paths))
    if filters.skip_paths:
        clauses.append("NOT (f.path = ANY(%s))")
        args.append(sorted(filters.skip_paths))
    return "".join(f" AND {c}" for c in clauses), args


def _like(needle: str) -> str:
    return "%" + re.sub(r"([\\%_])", r"\\\1", needle) + "%"


class PgStore:
    """One repository of a team index: `open` it with `create=True` to write (the schema is
    made on first use), without to read."""

    capabilities: Capabilities = POSTGRESQL
    damage: str | None = None  # the database keeps its own integrity: nothing to repair here

    def __init__(self, conn: psycopg.Connection[Any], url: str, repo: str) -> None:
        self._conn = conn
        self.url = url
        self.repo = repo
        self._lock = threading.RLock()
        self._batch_depth = 0
        self._held: dict[tuple[int, tuple[str, ...]], list[int]] = {}

    @classmethod
    def open(cls, url: str, repo: str, create: bool = False, known: bool = True) -> PgStore:
        """With `create`, to write (the schema and the repository's row are made on first
        use); else to read a repository this role can see, unless `known` is False (to revoke
        a grant of a repository that was never indexed)."""
        check_repo(repo)
        conn = connect(url)
        try:
            store = cls(conn, url, repo)
            store._check_schema(create)
            if create:
                store._register()
            elif known:
                store._check_readable()
            return store
        except BaseException:
            conn.close()
            raise

    def _check_schema(self, create: bool) -> None:
        conn = self._conn
        try:
            if create and not self._has_schema():
                with conn.transaction():
                    # Two first indexers at once: one creates, the other finds it made.
                    conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (_LOCK_SPACE,))
                    if not self._has_schema():
                        conn.execute(DDL)
                        conn.execute(policies())
                        conn.execute("INSERT INTO kebab.schema_version VALUES (%s)",
                                     (PG_SCHEMA_VERSION,))
            if not self._has_schema():
                raise TeamStoreError(
                    f"no team index at {safe_url(self.url)}: build one with `kebab index PATH "
                    f"--store URL --repo {self.repo}`")
            found = conn.execute("SELECT version FROM kebab.schema_version").fetchone()
        except psycopg.Error as exc:
            raise TeamStoreError(f"cannot open the team index at {safe_url(self.url)}: "
                                 f"{str(exc).strip()}") from exc
        if found is None or found[0] != PG_SCHEMA_VERSION:
            raise TeamStoreError(
                f"the team index at {safe_url(self.url)} has schema version "
                f"{found[0] if found else 'unknown'}; this kebab reads version "
                f"{PG_SCHEMA_VERSION}. Drop the `kebab` schema and index again")

    def _check_readable(self) -> None:
        """Refuse a repository this role cannot see, naming the ones it can: a misspelt or
        ungranted repository read as an empty one, and every search of it as "0 of 0,
        complete". Row-level security shows a role only the repositories granted to it."""
        try:
            visible = [r[0] for r in self._conn.execute(
                'SELECT repo FROM kebab.repos ORDER BY repo COLLATE "C"')]
        except psycopg.Error as exc:
            raise TeamStoreError(f"cannot open the team index at {safe_url(self.url)}: "
                                 f"{str(exc).strip()}") from exc
        if self.repo in visible:
            return
        near = difflib.get_close_matches(self.repo, visible, n=1)
        listed = ", ".join(repr(r) for r in visible[:20]) + (", ..." if len(visible) > 20 else "")
        raise TeamStoreError(
            f"repository {self.repo!r} is not in the team index at {safe_url(self.url)}, or "
            "this role is not granted it"
            + (f" (did you mean {near[0]!r}?)" if near else "")
            + (f"; this role can read {listed}" if visible else
               "; this role can read no repository of it (ask its owner for `kebab grant`)"))

    def _register(self) -> None:
        """The repository's row, made on its first index. A role that may only read (one
        `kebab grant` was given) is told why it cannot index, not shown a traceback."""
        try:
            self._conn.execute("INSERT INTO kebab.repos(repo) VALUES (%s) ON CONFLICT DO NOTHING",
                               (self.repo,))
        except psycopg.errors.InsufficientPrivilege as exc:
            raise TeamStoreError(
                f"this role may not write the team index at {safe_url(self.url)}: "
                "`kebab index --store` runs as the role that owns its `kebab` schema (the one "
                "that built it); `kebab grant` gives other roles read access only") from exc
        except psycopg.Error as exc:
            raise TeamStoreError(f"the team index at {safe_url(self.url)} failed: "
                                 f"{str(exc).strip()}") from exc

    def _has_schema(self) -> bool:
        """Whether the schema is there, read from the catalog with this statement's snapshot:
        `to_regclass` reads through a cache that need not have heard yet of a table another
        session just created (two first indexers at once then both created it)."""
        return self._conn.execute(
            "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname = 'kebab' "
            "AND c.relname = 'schema_version'").fetchone() is not None

    def close(self) -> None:
        self._conn.close()

    def reconnect(self) -> bool:
        """Open a new connection when this one broke (the database restarted or failed over)
        and no transaction of ours was on it; True when it did. A server keeps its store for
        hours: without this, every request after a restart failed until the editor did."""
        with self._lock:
            if not (self._conn.broken or self._conn.closed) or self._batch_depth:
                return False
            self._conn.close()
            self._conn = connect(self.url)
            return True

    def being_written(self) -> bool:
        """Whether a `kebab index` holds this repository's writer lock now (`writer_lock`), so
        its readers see some files of the new state and some of the old: answers say the
        index is building. `pg_locks` is readable by every role."""
        return bool(self._value(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_locks WHERE locktype = 'advisory' "
            "AND granted AND classid = %s AND objid = hashtext(%s)::oid AND objsubid = 2)",
            (_LOCK_SPACE, self.repo)))

    # -- transactions ----------------------------------------------------------------------

    def execute(self, query: str | sql.Composable, params: Sequence[Any] | None = None
                ) -> psycopg.Cursor[Any]:
        """One statement, its failures said in words a user can act on."""
        try:
            return self._conn.execute(query, params)  # type: ignore[arg-type]
        except psycopg.errors.InsufficientPrivilege as exc:
            raise TeamStoreError(f"the team index at {safe_url(self.url)} refused this role: "
                                 f"{str(exc).strip()} (ask for `kebab grant`)") from exc
        except psycopg.Error as exc:  # the connection dropped, a statement was cancelled, ...
            raise TeamStoreError(f"the team index at {safe_url(self.url)} failed: "
                                 f"{str(exc).strip()}") from exc

    def _value(self, query: str, params: Sequence[Any]) -> Any:
        """The first column of the one row `query` returns."""
        row = self.execute(query, params).fetchone()
        assert row is not None, query
        return row[0]

    def transaction(self) -> AbstractContextManager[Any]:
        """A transaction for statements of the caller's own (grants), not a batch of files:
        it changes no lexical version."""
        return self._conn.transaction()

    @contextmanager
    def reading(self, should_stop: Callable[[], bool] | None = None) -> Iterator[Any]:
        """Several statements that must see one state: one repeatable-read transaction, so a
        batch committed meanwhile is seen by all of them or none. With `should_stop`, the
        statement running when it says so is cancelled on the server (`cancelled_when`), and
        the read raises StoreInterrupted, as SQLite's does (give it on the outermost read
        only)."""
        with self._lock:
            if self._conn.info.transaction_status != TransactionStatus.IDLE:
                yield self._conn  # inside a batch or another read: that one's state
                return
            with self._conn.transaction():
                self.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                if should_stop is None:
                    yield self._conn
                    return
                with cancelled_when(self._conn, should_stop) as watch:
                    try:
                        yield self._conn
                    except TeamStoreError as exc:
                        if watch.fired:
                            raise StoreInterrupted(f"stopped inside a statement: {exc}") from exc
                        raise

    @contextmanager
    def batch(self, large: bool = False) -> Iterator[None]:
        """One transaction for many file writes; commits bump the repository's version."""
        with self._lock, self._conn.transaction():
            self._batch_depth += 1
            try:
                yield
            finally:
                self._batch_depth -= 1
            self.execute("UPDATE kebab.repos SET lexical_version = lexical_version + 1, "
                         "last_update = %s WHERE repo = %s", (time.time(), self.repo))

    @contextmanager
    def writer_lock(self) -> Iterator[None]:
        """Held while a `kebab index` writes this repository: a second one refuses rather
        than interleaving its batches (another repository is not held up)."""
        key = (_LOCK_SPACE, self.repo)
        got = self.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", key).fetchone()
        if not got or not got[0]:
            raise TeamStoreBusy(f"another `kebab index` is writing repository {self.repo!r} "
                                f"at {safe_url(self.url)}; try again when it is done")
        try:
            yield
        finally:
            self.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", key)

    def analyze(self) -> None:
        """Refresh the planner's statistics after a large write: with none, it reads a fresh
        repository through the `repo` index and filters every chunk, not through the GIN
        index (10 ms instead of 1 for a 4,000-chunk repository)."""
        self.execute("ANALYZE kebab.files, kebab.symbols, kebab.chunks")

    def merge_pending(self) -> None:
        """Merge what a write left in each GIN index's pending list into the index proper. A
        GIN index takes new rows into an unsorted list that every search reads whole until
        autovacuum merges it, whichever repository wrote them: on Django, right after another
        repository was indexed into the same database, an exact-text search took 126 ms
        instead of 14.5 ms (`make bench`'s team step had measured the slow figure)."""
        for index in GIN_INDEXES:
            self.execute("SELECT pg_catalog.gin_clean_pending_list(%s::regclass)", (index,))

    # -- writes (IndexWriter) ----------------------------------------------------------------

    def begin_rebuild(self) -> None:
        """Nothing to empty: a rebuild extracts every file again and writes it over its old
        rows, batch by batch, and deletes the files that are gone at the end. Emptying the
        repository first showed every reader an empty, then partial repository for the
        whole rebuild (and for good if it died), and dropped the record of which model
        made its vectors. The database keeps its own integrity: there is no damage to
        start over from."""

    def empty(self) -> None:
        """Delete every row of the repository (a cold start for `make bench`)."""
        with self.batch():
            self.execute("DELETE FROM kebab.files WHERE repo = %s", (self.repo,))
            self.execute("DELETE FROM kebab.meta WHERE repo = %s", (self.repo,))

    def file_states(self) -> dict[str, FileState]:
        return {r[1]: FileState(r[0], r[1], r[2], r[3], r[4]) for r in self.execute(
            "SELECT id, path, size, mtime_ns, hash FROM kebab.files WHERE repo = %s",
            (self.repo,))}

    def file_state(self, path: str) -> FileState | None:
        r = self.execute("SELECT id, path, size, mtime_ns, hash FROM kebab.files "
                         "WHERE repo = %s AND path = %s", (self.repo, path)).fetchone()
        return FileState(r[0], r[1], r[2], r[3], r[4]) if r else None

    def extracted_by(self) -> int | None:
        """What the indexer recorded: a team index outlives upgrades (its own schema version
        changes only with its tables), so a repository indexed by a release that cut other
        chunks is extracted again on its next `kebab index`, not left as it was."""
        value = self.meta_value(EXTRACTED_BY_KEY)
        return int(value) if value and value.isdigit() else None

    def meta_value(self, key: str) -> str | None:
        r = self.execute("SELECT value FROM kebab.meta WHERE repo = %s AND key = %s",
                         (self.repo, key)).fetchone()
        return str(r[0]) if r else None

    def set_meta(self, key: str, value: str) -> None:
        self.execute("INSERT INTO kebab.meta(repo, key, value) VALUES (%s, %s, %s) "
                     "ON CONFLICT (repo, key) DO UPDATE SET value = excluded.value",
                     (self.repo, key, _text(value)))

    def write_file(self, write: FileWrite) -> list[str]:
        """Replace one file's rows; returns the chunk ids it had. Must run inside `batch()`."""
        assert self._batch_depth, "write_file runs inside batch()"
        old = self._delete_rows(write.path)
        file_id = self._value(
            "INSERT INTO kebab.files(repo, path, size, mtime_ns, hash, lang, is_test, "
            "is_generated, text) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s) RETURNING id",
            (self.repo, write.path, write.size, write.mtime_ns, write.hash, write.lang,
             write.is_test, write.is_generated, _text(write.text)))
        symbol_ids = self._insert_symbols(file_id, write.extraction.symbols)
        self._insert_chunks(file_id, write.path, write.extraction, symbol_ids)
        self._insert_refs(file_id, write.extraction.refs)
        return old

    def _insert_symbols(self, file_id: int, symbols: Sequence[Symbol]) -> list[int]:
        if not symbols:
            return []
        with self._conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO kebab.symbols(repo, file_id, ord, name, qualified_name, kind, "
                "container, start_line, start_col, end_line, end_col, sel_start_line, "
                "sel_start_col, sel_end_line, sel_end_col, signature, doc, bodiless) "
                "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)",
                [(self.repo, file_id, ord_, _text(s.name), _text(s.qualified_name), str(s.kind),
                  _text(s.container) if s.container is not None else None,
                  s.range.start_line, s.range.start_col, s.range.end_line, s.range.end_col,
                  s.selection.start_line, s.selection.start_col, s.selection.end_line,
                  s.selection.end_col, _text(s.signature), _text(s.doc), s.bodiless)
                 for ord_, s in enumerate(symbols)])
        ids = dict(self.execute("SELECT ord, id FROM kebab.symbols WHERE file_id = %s",
                                (file_id,)).fetchall())
        return [ids[i] for i in range(len(symbols))]

    def _insert_chunks(self, file_id: int, path: str, extraction: Extraction,
                       symbol_ids: Sequence[int]) -> None:
        rows: list[tuple[Any, ...]] = []
        for cid, chunk, sym in extraction.stored_chunks(path):
            rows.append((self.repo, cid, file_id,
                         symbol_ids[chunk.symbol] if chunk.symbol is not None else None,
                         str(chunk.kind), chunk.start_line, chunk.end_line, chunk.start_col,
                         _text(chunk.context), _text(chunk.text), text_hash(chunk.text),
                         _document(path, sym, chunk.context, chunk.text)))
        if rows:
            with self._conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO kebab.chunks(repo, chunk_id, file_id, symbol_id, kind, "
                    "start_line, end_line, start_col, context, text, text_hash, tsv) "
                    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s::tsvector)", rows)

    def _insert_refs(self, file_id: int, refs: Sequence[Ref]) -> None:
        """COPY, not INSERT: a file has thousands of refs."""
        if not refs:
            return
        with self._conn.cursor() as cur, cur.copy(
                "COPY kebab.refs(repo, file_id, name, kind, receiver, start_line, start_col, "
                "end_line, end_col, symbol_ord) FROM STDIN") as copy:
            for r in refs:
                copy.write_row((self.repo, file_id, _text(r.name), str(r.kind),
                                _text(r.receiver) if r.receiver is not None else None,
                                r.start_line, r.start_col, r.end_line, r.end_col, r.symbol))

    def _delete_rows(self, path: str) -> list[str]:
        ids = [r[0] for r in self.execute(
            "SELECT c.chunk_id FROM kebab.chunks c JOIN kebab.files f ON f.id = c.file_id "
            "WHERE f.repo = %s AND f.path = %s", (self.repo, path))]
        self.execute("DELETE FROM kebab.files WHERE repo = %s AND path = %s", (self.repo, path))
        return ids

    def delete_file(self, path: str) -> list[str]:
        """Drop a file's rows; returns its chunk ids. Must run inside `batch()`."""
        assert self._batch_depth, "delete_file runs inside batch()"
        return self._delete_rows(path)

    def touch_file(self, path: str, size: int, mtime_ns: int) -> None:
        self.execute("UPDATE kebab.files SET size = %s, mtime_ns = %s "
                     "WHERE repo = %s AND path = %s", (size, mtime_ns, self.repo, path))

    def rename_file(self, old: str, new: str, size: int, mtime_ns: int) -> dict[str, str]:
        """Move a file's rows to a new path without re-extracting it; chunk ids and the path
        words in each chunk's tsvector follow. Returns old id -> new id."""
        row = self.execute("UPDATE kebab.files SET path = %s, size = %s, mtime_ns = %s "
                           "WHERE repo = %s AND path = %s RETURNING id",
                           (new, size, mtime_ns, self.repo, old)).fetchone()
        if row is None:
            return {}
        mapping: dict[str, str] = {}
        for raw in self.execute(f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.file_id = %s",
                                (row[0],)).fetchall():
            chunk = chunk_from(raw)
            assert chunk.text is not None
            new_id = chunk_id_for(new, chunk.start_line, chunk.text)
            mapping[chunk.chunk_id] = new_id
            self.execute("UPDATE kebab.chunks SET chunk_id = %s, tsv = %s::tsvector WHERE id = %s",
                         (new_id, _document(new, chunk.symbol, chunk.context, chunk.text),
                     chunk.rowid))
        return mapping

    # -- reads (SearchStore) -----------------------------------------------------------------

    def match_chunks(self, query: LexicalQuery, filters: Filters, limit: int,
                     exclude: Iterable[int] = ()) -> list[ChunkRow]:
        """Chunks matching `query`, best `ts_rank` first over every match (ties by path,
        line, chunk id); a row's `rank` is `-ts_rank`, lower is better."""
        tsq = self._tsquery(query)
        if tsq is None:
            return []
        excluded = sorted(set(exclude))
        rank = ranking.rank_sql("c.tsv", "q.q")
        with self.reading():  # a kind filter's holders and the match see one state
            where, args = self._where(filters)
            rows = self.execute(
                f"SELECT {CHUNK_COLUMNS_NO_TEXT}, {rank} AS r {CHUNK_FROM} "
                "CROSS JOIN (SELECT %s::tsquery AS q) q "
                f"WHERE c.repo = %s AND c.tsv @@ q.q AND NOT (c.id = ANY(%s)){where} "
                "ORDER BY r DESC, f.path COLLATE \"C\", c.start_line, c.chunk_id COLLATE \"C\" "
                "LIMIT %s",
                (tsq, self.repo, excluded, *args, limit)).fetchall()
        return [chunk_from(r, rank=-float(r[-1])) for r in rows]

    def count_matches(self, query: LexicalQuery, filters: Filters) -> int:
        tsq = self._tsquery(query)
        if tsq is None:
            return 0
        with self.reading():
            where, args = self._where(filters)
            return int(self._value(
                f"SELECT count(*) {CHUNK_FROM} WHERE c.repo = %s AND c.tsv @@ %s::tsquery"
                f"{where}", (self.repo, tsq, *args)))

    def _where(self, filters: Filters) -> tuple[str, list[Any]]:
        """`_filter_sql` with the holders a kind filter needs."""
        if not filters.kinds:
            return _filter_sql(filters)
        return _filter_sql(filters, self._holders(filters.kinds))

    def _holders(self, kinds: Sequence[str]) -> list[int]:
        """The ids of this repository's chunks that hold a definition of `kinds` with no
        chunk of its own (`_HOLDERS_SQL`), for the version of it this read sees; kept per
        version, but not inside a write's batch, whose changes have no version yet."""
        wanted = tuple(sorted(set(kinds)))
        if self._batch_depth:
            return [r[0] for r in self.execute(_HOLDERS_SQL, (self.repo, list(wanted)))]
        key = (self.lexical_version(), wanted)
        with self._lock:
            found = self._held.get(key)
        if found is None:
            found = [r[0] for r in self.execute(_HOLDERS_SQL, (self.repo, list(wanted)))]
            with self._lock:
                self._held[key] = found
                while len(self._held) > HOLDERS_KEPT:
                    self._held.pop(next(iter(self._held)))
        return found

    def _tsquery(self, query: LexicalQuery) -> str | None:
        if query.raw is not None:
            raise TeamStoreError("the PostgreSQL store reads no raw FTS5 expression")
        return lexemes.tsquery(query)

    def files_containing(self, needle: str, filters: Filters, check: Checkpoint = go_on
                         ) -> list[tuple[str, str, str]]:
        """(path, lang, text) of every file whose text contains `needle` exactly, in path
        order: pg_trgm's index narrows, LIKE confirms, and so does this process.

        The matching files are found first, by id (one statement, the trigram index's plan),
        and their texts read `EXACT_BATCH` at a time with `check` between batches, so a
        cancelled search stops with the rest unsent. A cursor over the texts stopped sooner
        still, but the plan it got made a common string's search three times slower (Django:
        p95 152 ms, not 46)."""
        where, args = _filter_sql(replace(filters, kinds=()))
        what = "exact text, reading the files that hold it on the team index"
        found: list[tuple[str, str, str]] = []
        with self.reading():
            ids = [r[0] for r in self.execute(
                f"SELECT f.id FROM kebab.files f WHERE f.repo = %s AND f.text LIKE %s{where}",
                (self.repo, _like(_text(needle)), *args))]
            for start in range(0, len(ids), EXACT_BATCH):
                if start:
                    check(what, start, len(ids))
                found.extend((r[0], r[1], r[2]) for r in self.execute(
                    "SELECT path, lang, text FROM kebab.files WHERE id = ANY(%s)",
                    (ids[start : start + EXACT_BATCH],)) if needle in r[2])
        found.sort()
        return found

    def chunks_at(self, path: str, line: int) -> list[ChunkRow]:
        rows = self.execute(
            f"SELECT {CHUNK_COLUMNS_NO_TEXT} {CHUNK_FROM} WHERE f.repo = %s AND f.path = %s "
            "AND c.start_line <= %s AND c.end_line >= %s "
            "ORDER BY c.end_line - c.start_line, c.start_line, c.chunk_id COLLATE \"C\"",
            (self.repo, path, line, line)).fetchall()
        return [chunk_from(r) for r in rows]

    def held_chunk_ids(self, filters: Filters, limit: int) -> tuple[list[str], int]:
        """(the first `limit` chunk ids, in path and line order, of the chunks the other
        filters allow that hold a definition of `filters.kinds` with no chunk of its own; how
        many there are in all), as `Retrieval.held_chunk_ids`."""
        if not filters.kinds:
            return [], 0
        with self.reading():
            where, args = _filter_sql(replace(filters, kinds=()))
            rows = self.execute(
                "SELECT c.chunk_id, count(*) OVER () FROM kebab.chunks c "
                f"JOIN kebab.files f ON f.id = c.file_id WHERE c.repo = %s AND {_AMONG}"
                f"{where} ORDER BY f.path COLLATE \"C\", c.start_line, "
                "c.chunk_id COLLATE \"C\" LIMIT %s",
                (self.repo, self._holders(filters.kinds), *args, limit)).fetchall()
        if rows:
            return [str(r[0]) for r in rows], int(rows[0][1])
        return [], 0

    def held_definitions(self, places: Iterable[tuple[str, int, int]], kinds: Sequence[str],
                         spanning: bool = False) -> dict[str, list[tuple[int, Symbol]]]:
        """The definitions of `kinds` with no chunk of their own whose name is on the lines
        of `places` ((path, first line, last line)), or with `spanning` whose text spans one
        of them, by path, in position order, as `Retrieval.held_definitions`."""
        wanted = sorted(set(places))
        if not kinds or not wanted:
            return {}
        found: dict[str, dict[int, Symbol]] = {}  # path -> ord -> definition
        on = ("s.start_line <= r.b AND s.end_line >= r.a" if spanning
              else "s.sel_start_line BETWEEN r.a AND r.b")
        for r in self.execute(
                f"SELECT f.path, s.ord, {SYMBOL_COLUMNS} "
                "FROM unnest(%s::text[], %s::int[], %s::int[]) AS r(path, a, b) "
                "JOIN kebab.files f ON f.repo = %s AND f.path = r.path "
                "JOIN kebab.symbols s ON s.file_id = f.id "
                f"AND {on} WHERE s.kind = ANY(%s) "
                "AND NOT EXISTS (SELECT 1 FROM kebab.chunks o WHERE o.symbol_id = s.id)",
                ([w[0] for w in wanted], [w[1] for w in wanted], [w[2] for w in wanted],
                 self.repo, list(kinds))):
            found.setdefault(str(r[0]), {})[int(r[1])] = symbol_from(r[2:])
        return {path: sorted(by_ord.items()) for path, by_ord in found.items()}

    def with_texts(self, rows: Sequence[ChunkRow]) -> list[ChunkRow]:
        ids = [r.rowid for r in rows if r.text is None]
        texts: dict[int, str] = dict(self.execute(
            "SELECT id, text FROM kebab.chunks WHERE id = ANY(%s)", (ids,)).fetchall()
        ) if ids else {}
        return [r if r.text is not None else replace(r, text=texts.get(r.rowid, ""))
                for r in rows]

    def chunks_by_ids(self, chunk_ids: Sequence[str]) -> dict[str, ChunkRow]:
        rows = self.execute(f"SELECT {CHUNK_COLUMNS_NO_TEXT} {CHUNK_FROM} "
                            "WHERE c.repo = %s AND c.chunk_id = ANY(%s)",
                            (self.repo, list(chunk_ids))).fetchall()
        return {r[1]: chunk_from(r) for r in rows}

    def ref_keys(self, name: str, filters: Filters, kinds: Sequence[str] = ()
                 ) -> list[RefKey]:
        """Every ref of `name` (exact, case-sensitive) of the `kinds` asked (all when none),
        in files the filters allow and, with a kind filter, inside definitions of those
        kinds; in no particular order (`search.usage` orders them)."""
        where, args = _filter_sql(filters)
        if kinds:
            where += " AND r.kind = ANY(%s)"
            args.append(list(kinds))
        rows = self.execute(
            "SELECT r.id, f.path, r.kind, r.start_line, r.start_col FROM kebab.refs r "
            "JOIN kebab.files f ON f.id = r.file_id LEFT JOIN kebab.symbols s "
            "ON s.file_id = r.file_id AND s.ord = r.symbol_ord "
            f"WHERE r.repo = %s AND r.name = %s{where}", (self.repo, name, *args)).fetchall()
        return [RefKey(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    def refs_by_rowid(self, rowids: Sequence[int]) -> dict[int, RefRow]:
        """Refs by id, each with its file, enclosing definition and the smallest chunk
        around its line."""
        if not rowids:
            return {}
        rows = self.execute(
            "SELECT r.id, f.path, f.lang, r.name, r.kind, r.receiver, r.start_line, "
            "r.start_col, r.end_line, r.end_col, f.id, f.hash, "
            "(SELECT c.chunk_id FROM kebab.chunks c WHERE c.file_id = r.file_id "
            "AND c.start_line <= r.start_line AND c.end_line >= r.start_line "
            "ORDER BY c.end_line - c.start_line, c.start_line, c.chunk_id COLLATE \"C\" "
            f"LIMIT 1), s.ord, {SYMBOL_COLUMNS} FROM kebab.refs r "
            "JOIN kebab.files f ON f.id = r.file_id LEFT JOIN kebab.symbols s "
            "ON s.file_id = r.file_id AND s.ord = r.symbol_ord "
            "WHERE r.repo = %s AND r.id = ANY(%s)", (self.repo, list(rowids))).fetchall()
        out: dict[int, RefRow] = {}
        for r in rows:
            symbol = symbol_from(r[14:]) if r[14] is not None else None
            out[r[0]] = RefRow(
                rowid=r[0], path=r[1], lang=r[2], name=r[3], kind=r[4], receiver=r[5],
                span=Span(r[6], r[7], r[8], r[9]), file_rowid=r[10], file_hash=r[11],
                symbol=symbol, symbol_ord=r[13] if symbol is not None else None,
                chunk_id=r[12])
        return out

    def ref_counts(self, name: str) -> dict[str, int]:
        """How many refs of `name` there are, by kind (kinds with none left out)."""
        return {str(r[0]): int(r[1]) for r in self.execute(
            "SELECT kind, count(*) FROM kebab.refs WHERE repo = %s AND name = %s "
            "GROUP BY kind ORDER BY kind COLLATE \"C\"", (self.repo, name)).fetchall()}

    # -- what handles and places resolve through (`search.handles`, `workspace_lookups`) --

    def file_by_rowid(self, rowid: int) -> FileRow | None:
        r = self.execute("SELECT id, path, hash, lang FROM kebab.files "
                         "WHERE repo = %s AND id = %s", (self.repo, rowid)).fetchone()
        return FileRow(r[0], r[1], r[2], r[3]) if r else None

    def file_by_path(self, path: str) -> FileRow | None:
        r = self.execute("SELECT id, path, hash, lang FROM kebab.files "
                         "WHERE repo = %s AND path = %s", (self.repo, path)).fetchone()
        return FileRow(r[0], r[1], r[2], r[3]) if r else None

    def symbol_by_ord(self, file_rowid: int, ord_: int) -> Symbol | None:
        r = self.execute(f"SELECT {SYMBOL_COLUMNS} FROM kebab.symbols s WHERE s.repo = %s "
                         "AND s.file_id = %s AND s.ord = %s",
                         (self.repo, file_rowid, ord_)).fetchone()
        return symbol_from(r) if r else None

    def chunks_of_file(self, file_rowid: int) -> list[ChunkRow]:
        """A file's chunks in line order (ties as on SQLite: end line, then chunk id)."""
        return [chunk_from(r) for r in self.execute(
            f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.repo = %s AND c.file_id = %s "
            "ORDER BY c.start_line, c.end_line, c.chunk_id COLLATE \"C\"",
            (self.repo, file_rowid)).fetchall()]

    def chunk_of_symbol(self, file_rowid: int, ord_: int) -> ChunkRow | None:
        """The first chunk of a definition."""
        r = self.execute(
            f"SELECT {CHUNK_COLUMNS} {CHUNK_FROM} WHERE c.repo = %s AND c.file_id = %s "
            "AND s.ord = %s ORDER BY c.start_line, c.chunk_id COLLATE \"C\" LIMIT 1",
            (self.repo, file_rowid, ord_)).fetchone()
        return chunk_from(r) if r else None

    def name_at(self, path: str, line: int, col: int) -> str | None:
        """The name used or defined at a position of a file (its end counts: a cursor just
        after a word is on it), or None: the ref starting nearest before it on its line (a
        string's excepted), else the definition whose name is there, as on SQLite."""
        found = self.execute(
            "SELECT r.name FROM kebab.refs r JOIN kebab.files f ON f.id = r.file_id "
            "WHERE f.repo = %s AND f.path = %s AND r.kind <> 'string' AND r.start_line = %s "
            "AND r.start_col <= %s AND r.end_col >= %s "
            "ORDER BY r.start_col DESC, r.name COLLATE \"C\" LIMIT 1",
            (self.repo, path, line, col, col)).fetchone()
        if found is None:
            found = self.execute(
                "SELECT s.name FROM kebab.symbols s JOIN kebab.files f ON f.id = s.file_id "
                "WHERE f.repo = %s AND f.path = %s AND s.sel_start_line = %s "
                "AND s.sel_start_col <= %s AND s.sel_end_col >= %s "
                "ORDER BY s.sel_start_col DESC LIMIT 1",
                (self.repo, path, line, col, col)).fetchone()
        return str(found[0]) if found else None

    def definitions_named(self, name: str) -> list[tuple[str, Symbol]]:
        """(path, symbol) of every definition of `name`, in path order."""
        return [(r[0], symbol_from(r[1:])) for r in self._named(SYMBOL_COLUMNS, name)]

    def definition_places(self, name: str) -> list[tuple[str, Span]]:
        """(path, span of its name) of every definition of `name`, in path order
        (`indexing.store.refs`)."""
        return [(r[0], Span(*r[1:])) for r in self._named(NAME_SPAN_COLUMNS, name)]

    def _named(self, columns: str, name: str) -> list[tuple[Any, ...]]:
        """The path and `columns` of every definition of `name`, in path order."""
        return self.execute(
            f"SELECT f.path, {columns} FROM kebab.symbols s JOIN kebab.files f "
            "ON f.id = s.file_id WHERE f.repo = %s AND s.name = %s "
            "ORDER BY f.path COLLATE \"C\", s.ord", (self.repo, name)).fetchall()

    def file_text_of(self, file_rowid: int) -> str | None:
        r = self.execute("SELECT text FROM kebab.files WHERE repo = %s AND id = %s",
                         (self.repo, file_rowid)).fetchone()
        return str(r[0]) if r else None

    def symbols_of_file(self, file_rowid: int) -> list[tuple[int, Symbol]]:
        return [(r[0], symbol_from(r[1:])) for r in self.execute(
            f"SELECT s.ord, {SYMBOL_COLUMNS} FROM kebab.symbols s "
            "WHERE s.repo = %s AND s.file_id = %s ORDER BY s.ord",
            (self.repo, file_rowid)).fetchall()]

    def imports_of(self, file_rowid: int, limit: int = 100) -> list[str]:
        """The names a file imports, first occurrence first."""
        rows = self.execute("SELECT name FROM kebab.refs WHERE repo = %s AND file_id = %s "
                            "AND kind = 'import' ORDER BY start_line, start_col",
                            (self.repo, file_rowid)).fetchall()
        return list(dict.fromkeys(r[0] for r in rows))[:limit]

    def all_symbols(self) -> list[SymbolRow]:
        """Every definition of the repository, for the workspace-symbol matcher."""
        return self._symbols("")

    def symbols_in(self, paths: Iterable[str]) -> list[SymbolRow]:
        """The definitions in `paths`."""
        return self._symbols(" AND f.path = ANY(%s)", [sorted(set(paths))])

    def _symbols(self, where: str, params: Sequence[Any] = ()) -> list[SymbolRow]:
        rows = self.execute(
            f"SELECT {SYMBOL_ROW_COLUMNS} FROM kebab.symbols s "
            f"JOIN kebab.files f ON f.id = s.file_id WHERE f.repo = %s{where} "
            "ORDER BY f.path COLLATE \"C\", s.ord",
            (self.repo, *params)).fetchall()
        return [symbol_row(r) for r in rows]

    def changed_paths_since(self, version: int) -> set[str] | None:
        """None: a team index keeps no log of the paths each version changed, so a reader's
        workspace-symbol matcher reloads every definition when the version moves, which is
        when the indexing job (CI) has written."""
        return None

    # -- what vectors are computed from (`EmbeddingStore`, with `team_vectors`) -------------

    def embedding_sources(self) -> list[EmbeddingSource]:
        """Every chunk with what its embedding texts are built from, in path/line order, as
        the SQLite store gives them (`indexing.store.embed_cache`)."""
        rows = self.execute(
            "SELECT c.chunk_id, f.path, f.lang, COALESCE(s.kind, c.kind), c.context, "
            "COALESCE(s.signature, ''), COALESCE(s.doc, ''), c.text, f.is_test, "
            "(c.kind = 'definition' AND c.symbol_id IS NOT NULL AND NOT EXISTS ("
            "SELECT 1 FROM kebab.chunks o WHERE o.symbol_id = c.symbol_id "
            "AND o.kind = 'definition' AND (o.start_line < c.start_line OR "
            "(o.start_line = c.start_line "
            "AND o.chunk_id COLLATE \"C\" < c.chunk_id COLLATE \"C\"))))"
            f" {CHUNK_FROM} WHERE c.repo = %s "
            "ORDER BY f.path COLLATE \"C\", c.start_line, c.chunk_id COLLATE \"C\"",
            (self.repo,)).fetchall()
        return [EmbeddingSource(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                                is_test=bool(r[8]), leads=bool(r[9])) for r in rows]

    def file_heads(self) -> dict[str, FileHead]:
        """Every file that has a chunk, by path, with what its file vector is computed from."""
        outlines: dict[int, list[tuple[str, str]]] = {}
        for file_id, kind, name in self.execute(
                "SELECT file_id, kind, name FROM kebab.symbols WHERE repo = %s "
                "AND container IS NULL ORDER BY file_id, ord", (self.repo,)):
            outlines.setdefault(file_id, []).append((str(kind), str(name)))
        return {str(r[1]): FileHead(str(r[1]), str(r[2]), tuple(outlines.get(r[0], ())))
                for r in self.execute(
                    f"SELECT f.id, f.path, substr(f.text, 1, {FILE_HEAD_CHARS}) "
                    "FROM kebab.files f WHERE f.repo = %s AND EXISTS "
                    "(SELECT 1 FROM kebab.chunks c WHERE c.file_id = f.id) "
                    "ORDER BY f.path COLLATE \"C\"", (self.repo,))}

    def chunk_count(self) -> int:
        return int(self._value("SELECT count(*) FROM kebab.chunks WHERE repo = %s",
                               (self.repo,)))

    def chunked_file_count(self) -> int:
        """Files that own a chunk: each has a file vector."""
        return int(self._value("SELECT count(DISTINCT file_id) FROM kebab.chunks "
                               "WHERE repo = %s", (self.repo,)))

    def leading_chunk_count(self) -> int:
        """Definitions that own a chunk: each has a summary vector besides its code vectors."""
        return int(self._value(
            "SELECT count(DISTINCT symbol_id) FROM kebab.chunks WHERE repo = %s "
            "AND kind = 'definition' AND symbol_id IS NOT NULL", (self.repo,)))

    def bm25_extension(self) -> str | None:
        """A BM25 extension the database offers; reported, not used (`ranking`)."""
        return ranking.bm25_extension(self.execute)

    def stats(self) -> Stats:
        def count(table: str) -> int:
            return int(self._value(f"SELECT count(*) FROM kebab.{table} WHERE repo = %s",
                                   (self.repo,)))

        repo = self.execute("SELECT lexical_version, last_update FROM kebab.repos WHERE repo = %s",
                            (self.repo,)).fetchone()
        langs = dict(self.execute("SELECT lang, count(*) FROM kebab.files WHERE repo = %s "
                                  "GROUP BY lang ORDER BY lang COLLATE \"C\"",
                                  (self.repo,)).fetchall())
        return Stats(files=count("files"), symbols=count("symbols"), chunks=count("chunks"),
                     schema_version=PG_SCHEMA_VERSION,
                     lexical_version=int(repo[0]) if repo else 0,
                     last_update=float(repo[1]) if repo and repo[1] is not None else None,
                     langs={str(k): int(v) for k, v in langs.items()})

    def lexical_version(self) -> int:
        row = self.execute("SELECT lexical_version FROM kebab.repos WHERE repo = %s",
                           (self.repo,)).fetchone()
        return int(row[0]) if row else 0

    def problems(self) -> list[str]:
        return []


def _document(path: str, sym: Symbol | None, context: str, body: str) -> str:
    if not findable_by_words(body):
        return ""  # an empty tsvector: no query matches it
    names = f"{sym.name} {sym.qualified_name}" if sym else context
    return lexemes.document(names, path, context, body)
