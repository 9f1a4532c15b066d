"""Opening one index directory's SQLite database and keeping it usable when things go wrong.

The index is a cache of the workspace: anything wrong with it is repaired by rebuilding it from
the files, never by asking the user to delete a folder. What this module guarantees:

- **One connection per thread, all tracked.** Query threads, the writer and the embedder each
  get their own connection; the store knows every one of them, so `close()` releases them all
  (a removed folder holds no file open) and `reset()` makes every thread reconnect.
- **Damage is found wherever it shows.** Every statement runs through `GuardedConnection`:
  SQLite's and FTS5's corruption errors, a file that is not a database, and stored values that
  no longer decode become `StoreCorrupt`; `verify()` reads every page for damage no statement
  has met yet. The first sign marks the index damaged (a marker file, so another process and
  the next start know too) and tells the `StoreWatcher`, which queues a rebuild; a store opened
  over the marker, or over a file that is not a database or is empty, rebuilds at once.
  Damage met by a connection to a database that was since rebuilt is that old file's, and
  only means "ask again" (`StoreClosed`).
- **A full or failing disk leaves the last good index readable.** Opening writes nothing to an
  index that already has its schema. The WAL and its shared-memory file persist between runs
  (`SQLITE_FCNTL_PERSIST_WAL`, the WAL truncated to 0 bytes on close), so reopening needs no
  new disk space; if SQLite still cannot open read-write, the store opens read-only. Committed
  writes are checkpointed soon (a large one at once, small ones when the writer is idle:
  `settle`), so a write that fails (`StoreUnwritable`) rolls back and truncates the WAL to
  nothing without first needing room to copy anything; it is reported until a later write
  succeeds.
- **Private.** The index folder is 0700 and the database files 0600.
"""

from __future__ import annotations

import ctypes
import os
import re
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Protocol, cast

import apsw

from indexing.location import PRIVATE_FILE, private_dir
from indexing.schema import DDL, SCHEMA_VERSION
from indexing.store import carry
from indexing.store.texts import DamagedText, chunk_text_function, unpack_text

DB_NAME = "index.sqlite3"
#: Present while the index is known to be damaged: whoever opens it next rebuilds it. Holds
#: the reason, for the message.
DAMAGE_MARK = "index.damaged"
_DB_FILES = ("", "-wal", "-shm")
#: The WAL is truncated to this after a checkpoint (and to 0 bytes on close), so a long
#: session's largest transaction does not keep its size on disk.
WAL_LIMIT_BYTES = 8 << 20
#: A commit that leaves more pages than this in the WAL (a scan's batch, or many small writes
#: nobody settled) is checkpointed at once. Above any one save: saving one of the largest files
#: of a real tree (Django's 24 KB database backends) rewrites 350-400 pages (its names, refs
#: and trigrams), and checkpointing those inline cost each such save 12 ms of its 42 ms.
#: 4 MiB of WAL is still half of `WAL_LIMIT_BYTES`.
CHECKPOINT_AFTER_PAGES = 1024


class StoreError(Exception):
    pass


class StoreCorrupt(StoreError):
    """The database is damaged. The index is rebuilt from the files; the message says so."""


class StoreUnwritable(StoreError):
    """The disk refused a write (full, read-only, failing). Nothing of the write landed; the
    last good index stays readable."""


class StoreClosed(StoreError):
    """The store was closed (its folder was removed) or rebuilt under a running query."""


class StoreInterrupted(StoreError):
    """A read stopped inside a statement because its caller gave up (`reading`'s
    `should_stop`): one FTS5 statement over a query of thousands of terms runs for a minute,
    and a cancelled request must free its worker, not finish it."""


#: SQLite virtual-machine steps between two `should_stop` questions: well under a
#: millisecond, and a negligible cost per question.
STOP_CHECK_STEPS = 10_000



class StoreWatcher(Protocol):
    """Who hears about trouble the store finds; called from whichever thread found it, so
    every method must return at once."""

    def damaged(self, reason: str) -> None: ...

    def write_failed(self, reason: str) -> None: ...

    def write_recovered(self) -> None: ...


class _NoWatcher:
    def damaged(self, reason: str) -> None:
        pass

    def write_failed(self, reason: str) -> None:
        pass

    def write_recovered(self) -> None:
        pass


_regex_cache: dict[str, re.Pattern[str]] = {}


def _regexp(pattern: str, value: str | None) -> bool:
    """SQLite's REGEXP, which it declares but does not implement: path filters use it."""
    compiled = _regex_cache.get(pattern)
    if compiled is None:
        compiled = _regex_cache[pattern] = re.compile(pattern)
    return value is not None and compiled.search(value) is not None


def _is_damage(exc: BaseException) -> bool:
    if isinstance(exc, apsw.CorruptError | apsw.NotADBError | UnicodeDecodeError | zlib.error
                  | DamagedText):
        return True
    if isinstance(exc, apsw.Error):
        text = str(exc).lower()
        return "malformed" in text or "corrupt" in text
    return False


def _is_storage(exc: BaseException) -> bool:
    return isinstance(exc, apsw.FullError | apsw.IOError | apsw.ReadOnlyError |
                      apsw.CantOpenError)


#: Free space under which a failed write is put down to a full disk, whatever SQLite called
#: it (a full disk often shows as an I/O error while SQLite maps its shared memory).
_FULL_BELOW_BYTES = 1 << 20


def _describe_storage(exc: BaseException, where: Path) -> str:
    if isinstance(exc, apsw.FullError):
        return f"the disk is full ({exc})"
    if isinstance(exc, apsw.ReadOnlyError):
        return f"the index is read-only ({exc})"
    try:
        fs = os.statvfs(where)
    except OSError:
        fs = None
    if fs is not None and fs.f_bavail * fs.f_frsize < _FULL_BELOW_BYTES:
        return f"the disk is full ({exc})"
    return f"the disk failed ({exc})"


class _Rows:
    """A cursor whose iteration is guarded too: SQLite reports most damage while stepping
    through rows, not when the statement starts."""

    __slots__ = ("_cursor", "_guard")

    def __init__(self, cursor: Any, guard: GuardedConnection) -> None:
        self._cursor = cursor
        self._guard = guard

    def __iter__(self) -> Iterator[Any]:
        try:
            yield from self._cursor
        except Exception as exc:
            raise self._guard.translate(exc) from exc

    def fetchone(self) -> Any:
        try:
            return self._cursor.fetchone()
        except Exception as exc:
            raise self._guard.translate(exc) from exc

    def fetchall(self) -> list[Any]:
        try:
            return cast(list[Any], self._cursor.fetchall())
        except Exception as exc:
            raise self._guard.translate(exc) from exc


class GuardedConnection:
    """An apsw connection whose every failure is sorted: damage, a refusing disk, or a plain
    error (an FTS5 syntax error, say) passed through untouched."""

    __slots__ = ("raw", "generation", "_store")

    def __init__(self, raw: Any, generation: int, store: StoreConnection) -> None:
        self.raw = raw
        self.generation = generation
        self._store = store

    def translate(self, exc: BaseException) -> BaseException:
        return self._store.translate(exc, self.generation)

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> _Rows:
        try:
            return _Rows(self.raw.execute(sql, params), self)
        except Exception as exc:
            raise self.translate(exc) from exc

    def executemany(self, sql: str, rows: Any) -> _Rows:
        try:
            return _Rows(self.raw.executemany(sql, rows), self)
        except Exception as exc:
            raise self.translate(exc) from exc

    def last_insert_rowid(self) -> int:
        return int(self.raw.last_insert_rowid())

    def __enter__(self) -> GuardedConnection:
        try:
            self.raw.__enter__()
        except Exception as exc:
            raise self.translate(exc) from exc
        return self

    def __exit__(self, *exc_info: Any) -> bool:
        try:
            return bool(self.raw.__exit__(*exc_info))
        except Exception as exc:
            raise self.translate(exc) from exc


class StoreConnection:
    """What every part of the store shares: the database, this thread's connection, the
    lock that serializes writers, the `meta` table, and the store's health."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self.db_path = index_dir / DB_NAME
        #: Why this store rebuilt its index when it opened (shown to the user), or None.
        self.rebuilt_reason: str | None = None
        #: Why the index is damaged, from the first sign until `reset()` rebuilds it.
        self.damage: str | None = None
        #: Why the last write failed, until a write succeeds again.
        self.write_error: str | None = None
        #: Why the store is open read-only (the disk refused to open it read-write), or None.
        self.read_only: str | None = None
        #: Whether committed writes wait in the WAL for a checkpoint (`settle`).
        self.unsettled = False
        self._wal_pages = 0  # after the last commit (`_wal_hook`)
        self.watcher: StoreWatcher = _NoWatcher()
        self._local = threading.local()
        self._write_lock = threading.RLock()
        self._state_lock = threading.Lock()
        # Held by a reset from wiping the files until the new schema is in: no thread may open
        # a connection in between and find an empty database.
        self._open_lock = threading.RLock()
        self._conns: list[Any] = []  # every open apsw connection, any thread's
        self._generation = 0
        self._last_version = 0
        self._ro_uri: str | None = None
        private_dir(index_dir)
        self._open_or_rebuild()

    # -- connections ---------------------------------------------------------------------------

    def _connect(self) -> Any:
        try:
            if self._ro_uri is not None:
                conn = apsw.Connection(self._ro_uri,
                                       flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
            else:
                self._create_private()
                conn = apsw.Connection(str(self.db_path))
        except Exception as exc:
            raise self.translate(exc) from exc
        with self._state_lock:
            self._conns.append(conn)
        try:
            if self._ro_uri is None:
                conn.set_wal_hook(self._wal_hook)
                persist = ctypes.c_int(1)
                conn.file_control("main", apsw.SQLITE_FCNTL_PERSIST_WAL,
                                  ctypes.addressof(persist))
            conn.set_busy_timeout(10_000)
            conn.create_scalar_function("regexp", cast(Any, _regexp), 2, deterministic=True)
            conn.create_scalar_function("unpack", cast(Any, unpack_text), 1, deterministic=True)
            conn.create_scalar_function("chunk_text", cast(Any, chunk_text_function(conn)), 5)
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA cache_size=-32000")
            conn.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
        except Exception as exc:
            self._release(conn)
            raise self.translate(exc) from exc
        return conn

    def _create_private(self) -> None:
        """The database file is created 0600 before SQLite opens it; SQLite gives its WAL and
        shared-memory files the database's mode. Files an older version made wider are
        narrowed."""
        for suffix in _DB_FILES:
            path = self.index_dir / (DB_NAME + suffix)
            try:
                if path.stat().st_mode & 0o077:
                    os.chmod(path, PRIVATE_FILE)
            except FileNotFoundError:
                if not suffix:
                    with suppress(FileExistsError):
                        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY,
                                         PRIVATE_FILE))

    @property
    def conn(self) -> Any:
        """This thread's connection: SQLite connections are not shared across threads here.
        After a `reset()` every thread's next use reconnects to the new database. Typed `Any`
        because apsw's row type is a union no caller can use without casts."""
        guarded: GuardedConnection | None = getattr(self._local, "conn", None)
        if guarded is not None and guarded.generation == self._generation:
            return guarded
        if guarded is not None:
            self._release(guarded.raw)
            self._local.conn = None
        with self._open_lock:  # never between a reset's wipe and its new schema
            generation = self._generation
            guarded = GuardedConnection(self._connect(), generation, self)
        self._local.conn = guarded
        return guarded

    def _release(self, raw: Any) -> bool:
        """Close one connection; False when another thread is inside it right now."""
        try:
            raw.close()
        except apsw.ThreadingViolationError:
            return False
        except apsw.Error:
            pass
        with self._state_lock:
            if raw in self._conns:
                self._conns.remove(raw)
        return True

    def _release_all(self, wait_s: float = 0.0) -> None:
        """Close every thread's connection. One that a query is inside is retried for up to
        `wait_s` (queries take milliseconds); its thread reconnects or fails on next use."""
        deadline = time.monotonic() + wait_s
        while True:
            with self._state_lock:
                pending = list(self._conns)
            busy = [raw for raw in pending if not self._release(raw)]
            if not busy or time.monotonic() >= deadline:
                return
            time.sleep(0.01)

    def open_connections(self) -> int:
        with self._state_lock:
            return len(self._conns)

    def close(self) -> None:
        """Release every connection of every thread, so no file of the index stays open (a
        removed folder's, a stopped runtime's). A later use opens a new connection. The last
        connection to close checkpoints the WAL and truncates it."""
        with self._write_lock:
            self._generation += 1
            self._release_all(wait_s=2.0)
            self.unsettled = False

    # -- failures ------------------------------------------------------------------------------

    def translate(self, exc: BaseException, generation: int | None = None) -> BaseException:
        """The store's exception for an apsw failure; damage is recorded on the way, unless
        the connection that met it (of `generation`) reads a database that was since replaced:
        that damage is gone with it."""
        if isinstance(exc, StoreError):
            return exc
        if generation is not None and generation != self._generation and (
                _is_damage(exc) or isinstance(exc, apsw.ConnectionClosedError)):
            return self._replaced()
        if _is_damage(exc):
            reason = f"{type(exc).__name__}: {exc}"
            self.mark_damaged(reason)
            return StoreCorrupt(f"the index at {self.index_dir} is damaged ({reason}); it is "
                                "rebuilt from the files")
        if _is_storage(exc):
            return StoreUnwritable(f"cannot write the index at {self.index_dir}: "
                                   f"{_describe_storage(exc, self.index_dir)}")
        if isinstance(exc, apsw.ConnectionClosedError | apsw.CursorClosedError):
            return StoreClosed(f"the index at {self.index_dir} was closed or rebuilt while "
                               "this was reading it; ask again")
        return exc

    def _replaced(self) -> StoreClosed:
        return StoreClosed(f"the index at {self.index_dir} was rebuilt or closed while this "
                           "was reading it; ask again")

    def damaged_read(self, what: str) -> StoreCorrupt | StoreClosed:
        """Damage a read found by itself (rows one table promises and another lacks): recorded
        like SQLite's own corruption errors, returned to raise. Unless this thread read a
        database a rebuild has since replaced (`reset` waits a moment for readers, then
        deletes the files under them): rows missing there are the rebuild's, and marking
        the new database damaged started a second rebuild of a rebuild the user asked for."""
        used: GuardedConnection | None = getattr(self._local, "conn", None)
        if used is not None and used.generation != self._generation:
            return self._replaced()
        self.mark_damaged(what)
        return StoreCorrupt(f"the index at {self.index_dir} is damaged ({what}); it is rebuilt "
                            "from the files")

    def mark_damaged(self, reason: str) -> None:
        """Record damage once: the marker file makes whoever opens the index next rebuild it,
        and the watcher queues a rebuild now."""
        with self._state_lock:
            first = self.damage is None
            if first:
                self.damage = reason
        if not first:
            return
        with suppress(OSError):  # a full disk may refuse even this; the watcher still hears
            fd = os.open(self.index_dir / DAMAGE_MARK, os.O_CREAT | os.O_TRUNC | os.O_WRONLY,
                         PRIVATE_FILE)
            try:
                os.write(fd, reason.encode("utf-8", "replace"))
            finally:
                os.close(fd)
        self.watcher.damaged(reason)

    def verify(self, should_stop: Callable[[], bool] = lambda: False) -> str | None:
        """Read every page of the index (`PRAGMA quick_check`), so damage no query has met
        yet is found now, and is recorded like any other. Returns what was found, or None when
        the index is sound, or the check was stopped (`should_stop`, asked every few thousand
        steps) or outlived the database it was reading (a rebuild started meanwhile).

        About 10 ms per MB of index: the runtime runs it in the background when it opens a
        folder."""
        conn = self.conn
        generation = conn.generation
        conn.raw.set_progress_handler(should_stop, 1000)
        try:
            found = [str(r[0]) for r in conn.execute("PRAGMA quick_check(8)")]
        except StoreCorrupt:
            return self.damage
        except (apsw.InterruptError, StoreClosed):
            return None
        finally:
            with suppress(apsw.Error):
                conn.raw.set_progress_handler(None)
        if found == ["ok"] or generation != self._generation:
            return None
        reason = "integrity check: " + "; ".join(found)[:400]
        self.mark_damaged(reason)
        return reason

    def problems(self) -> list[str]:
        """What answers read from this index should warn about, in words for the user."""
        out: list[str] = []
        if self.damage is not None:
            out.append(f"the index at {self.index_dir} is damaged ({self.damage}); it is being "
                       "rebuilt from the files, so answers may be incomplete")
        unwritable = self.write_error or self.read_only
        if unwritable is not None:
            out.append(f"the index cannot be updated ({unwritable}); answers come from the "
                       "last good index and may be out of date")
        return out

    # -- reading and writing -------------------------------------------------------------------

    @contextmanager
    def reading(self, should_stop: Callable[[], bool] | None = None) -> Iterator[Any]:
        """Several statements that must see one state of the index: a read transaction, so a
        write committed meanwhile (a save, a scan's batch) is seen by all of them or none.
        With `should_stop`, a statement stops within `STOP_CHECK_STEPS` steps of it saying
        so, and the read raises StoreInterrupted (give it on the outermost read only: the
        handler is this thread's connection's, and the read that set it clears it)."""
        conn = self.conn
        if should_stop is None:
            with conn:
                yield conn
            return
        conn.raw.set_progress_handler(should_stop, STOP_CHECK_STEPS)
        try:
            with conn:
                yield conn
        except apsw.InterruptError as exc:
            raise StoreInterrupted(f"stopped inside a statement: {exc}") from exc
        finally:
            with suppress(apsw.Error):
                conn.raw.set_progress_handler(None)

    @contextmanager
    def writing(self) -> Iterator[Any]:
        """One write transaction on this thread's connection, under the writers' lock. A write
        the disk refuses rolls back whole, hands the WAL's space back and is reported until a
        later write succeeds."""
        with self._write_lock:
            if self._ro_uri is not None:
                raise StoreUnwritable(f"cannot write the index at {self.index_dir}: "
                                      f"{self.read_only}")
            conn: Any = None
            try:
                conn = self.conn
                with conn:
                    yield conn
            except StoreUnwritable as exc:
                self._write_failed(conn, str(exc))
                raise
            if not conn.raw.in_transaction:  # the outermost write: committed
                if self._wal_pages > CHECKPOINT_AFTER_PAGES:
                    self._checkpoint(conn)
                elif self._wal_pages:
                    self.unsettled = True
            if self.write_error is not None or self.read_only is not None:
                self.write_error = self.read_only = None
                self.watcher.write_recovered()

    def _wal_hook(self, _conn: Any, _name: str, pages: int) -> int:
        """After every commit: how many pages the WAL holds. Taking this hook turns off
        SQLite's own checkpoint every 1,000 pages; `writing` and `settle` checkpoint instead."""
        self._wal_pages = pages
        return int(apsw.SQLITE_OK)

    def _checkpoint(self, conn: Any) -> None:
        """Copy what was committed into the database file now, not when the WAL holds 1,000
        pages: a write the disk refuses later then leaves only its own frames in the WAL, and
        those can be dropped without first finding room to copy anything. Costs a sync of the
        database file (about 15 ms), so a small write leaves it to `settle`."""
        with suppress(apsw.Error):
            conn.raw.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        self.unsettled = False

    def settle(self) -> None:
        """Checkpoint what small writes left in the WAL: the writer calls this when it has
        nothing else to do, so a save never waits for the sync."""
        with self._write_lock:
            if self.unsettled and self._ro_uri is None:
                try:
                    conn = self.conn
                except StoreError:
                    return
                self._checkpoint(conn)

    def _write_failed(self, conn: Any, reason: str) -> None:
        with suppress(apsw.Error, StoreError, AttributeError):
            # Frames of the rolled-back transaction are dead weight in the WAL; on a full disk
            # they are exactly the space the next attempt needs.
            conn.raw.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
        first = self.write_error is None
        self.write_error = reason
        if first:
            self.watcher.write_failed(reason)

    # -- opening and rebuilding ----------------------------------------------------------------

    def _open_or_rebuild(self) -> None:
        mark = self.index_dir / DAMAGE_MARK
        if mark.exists():
            with suppress(OSError):
                found = mark.read_text("utf-8", "replace").strip() or "unknown damage"
                self.rebuilt_reason = f"the index was damaged ({found}); rebuilding it"
            self._delete_files()
        elif self._size(DB_NAME) == 0 and not self._size(DB_NAME + "-wal"):
            # Not a fresh index (its file is created 0600 just before SQLite first opens it,
            # and holds a page from then on): one truncated by a crash or by hand.
            self.rebuilt_reason = "the index file was empty (0 bytes); rebuilding it"
            self._delete_files()
        carry.discard(self.index_dir)
        try:
            conn = self.conn
            found_version = self._schema_version(conn)
            aside: Path | None = None
            if found_version is not None and found_version != SCHEMA_VERSION:
                self.rebuilt_reason = (f"index schema version {found_version} differs from "
                                       f"{SCHEMA_VERSION}; rebuilding")
                aside = carry.set_aside(conn.raw, self.index_dir, found_version)
                self._wipe()
                conn = self.conn
                found_version = None
            if found_version is None:
                self._init(0)
                if aside is not None:
                    kept = carry.take_back(self.conn.raw, aside)
                    self.rebuilt_reason = (f"{self.rebuilt_reason} (its {kept:,} cached "
                                           "vectors are kept)")
            self._last_version = int(self.meta_value("lexical_version") or 0)
        except StoreCorrupt as exc:
            self.rebuilt_reason = f"index was unreadable ({exc.__cause__}); rebuilding"
            self._wipe()
            self._init(0)
        except StoreUnwritable as exc:
            self._open_read_only(exc)
        if self.rebuilt_reason is not None:
            self.damage = None

    def _open_read_only(self, why: StoreUnwritable) -> None:
        """The disk refused to open the index read-write (typically: it is full and SQLite
        needs room for the WAL's files). An index with its schema is still served, read-only;
        with an empty WAL the database file alone is the whole index, so it can be read
        without SQLite's shared memory (`immutable`)."""
        self._release_all()
        self._generation += 1
        wal = self.index_dir / (DB_NAME + "-wal")
        wal_empty = not wal.exists() or wal.stat().st_size == 0
        path = self.db_path.as_posix()
        for uri in (f"file:{path}?mode=ro", f"file:{path}?immutable=1" if wal_empty else None):
            if uri is None:
                continue
            self._ro_uri = uri
            try:
                if self._schema_version(self.conn) == SCHEMA_VERSION:
                    self.read_only = str(why).split(": ", 1)[-1]
                    self._last_version = int(self.meta_value("lexical_version") or 0)
                    return
            except StoreError:
                pass
            self._release_all()
            self._generation += 1
        self._ro_uri = None
        raise why

    def probe_write(self) -> None:
        """Write nothing, for real: raises `StoreUnwritable` unless the disk takes writes
        again, and leaves read-only mode when it does."""
        with self._write_lock:
            saved = self._ro_uri
            if saved is not None:
                self._ro_uri = None
                self._generation += 1
            try:
                with self.writing() as conn:
                    conn.execute("UPDATE meta SET value=value WHERE key='schema_version'")
            except StoreError:
                if saved is not None:
                    self._ro_uri = saved
                    self._generation += 1
                raise
            self.read_only = None

    def reset(self) -> None:
        """Rebuild from nothing: delete the database and start an empty one, whatever state
        the old one was in. The lexical version carries on from the last one seen, so caches
        keyed by it (the symbol matcher, search stats) never mistake the new index for the
        old, and the change log starts past them so they reload in full."""
        with self._write_lock, self._open_lock:
            carried = self._last_version + 1
            self._wipe()
            self._init(carried)
            self._last_version = carried
            with self._state_lock:
                self.damage = None

    def _wipe(self) -> None:
        self._generation += 1
        self._release_all(wait_s=1.0)
        self._ro_uri = None
        self.read_only = None
        self._delete_files()

    def _delete_files(self) -> None:
        for name in (*(DB_NAME + s for s in _DB_FILES), DAMAGE_MARK):
            (self.index_dir / name).unlink(missing_ok=True)

    @staticmethod
    def _schema_version(conn: Any) -> int | None:
        exists = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
        ).fetchone()
        if not exists:
            return None
        row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else -1

    def _size(self, name: str) -> int | None:
        try:
            return (self.index_dir / name).stat().st_size
        except FileNotFoundError:
            return None

    def _init(self, version: int) -> None:
        """Create the schema in an empty database, its lexical version starting at
        `version`."""
        self.conn.execute("PRAGMA journal_mode=WAL").fetchall()
        with self.writing() as conn:
            self._create(conn, version)

    @staticmethod
    def _create(conn: Any, version: int) -> None:
        conn.execute(DDL)
        conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)",
                     (str(SCHEMA_VERSION),))
        conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('lexical_version', ?)",
                     (str(version),))
        if version:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('changes_floor', ?)",
                         (str(version),))

    # -- meta ----------------------------------------------------------------------------------

    def meta_value(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self.writing() as conn:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?,?)", (key, value))

    def lexical_version(self) -> int:
        """Bumped by every committed write batch: a cheap "has anything changed" check for
        caches built from the store."""
        version = int(self.meta_value("lexical_version") or 0)
        if version > self._last_version:
            self._last_version = version
        return version

