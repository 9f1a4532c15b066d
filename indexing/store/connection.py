"""Opening one index directory's SQLite database: a connection per thread, one write lock,
and the rebuild of an index of another schema version or one SQLite cannot read."""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any, cast

import apsw

from indexing.schema import DDL, SCHEMA_VERSION
from indexing.store.texts import chunk_text_function, unpack_text

DB_NAME = "index.sqlite3"


class StoreError(Exception):
    pass


_regex_cache: dict[str, re.Pattern[str]] = {}


def _regexp(pattern: str, value: str | None) -> bool:
    """SQLite's REGEXP, which it declares but does not implement: path filters use it."""
    compiled = _regex_cache.get(pattern)
    if compiled is None:
        compiled = _regex_cache[pattern] = re.compile(pattern)
    return value is not None and compiled.search(value) is not None


class StoreConnection:
    """What every part of the store shares: the database, this thread's connection, the
    lock that serializes writers, and the `meta` table."""

    def __init__(self, index_dir: Path) -> None:
        self.index_dir = index_dir
        self.db_path = index_dir / DB_NAME
        self.rebuilt_reason: str | None = None
        self._local = threading.local()
        self._write_lock = threading.RLock()
        index_dir.mkdir(parents=True, exist_ok=True)
        self._open_or_rebuild()

    def _connect(self) -> Any:
        conn = apsw.Connection(str(self.db_path))
        conn.set_busy_timeout(10_000)
        conn.create_scalar_function("regexp", cast(Any, _regexp), 2, deterministic=True)
        conn.create_scalar_function("unpack", cast(Any, unpack_text), 1, deterministic=True)
        conn.create_scalar_function("chunk_text", cast(Any, chunk_text_function(conn)), 5)
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
