"""Chunk vectors in a local LanceDB table: exact (brute-force) cosine search with SQL prefilters.

At workspace scale (tens of thousands of chunks) a flat scan answers in about 15 ms, so there is
no ANN index: it would take seconds to build and would go stale with every edit.

Reads (search, count, version, the id scan) go through lancedb's compiled core
(`indexing.lance_core`), which skips the 4 s `import lancedb`; writes use the public API, imported
on the first write. Reading never creates the table: a store with no table yet reads as empty.

Failure policy: every LanceDB/pyarrow failure surfaces as `VectorStoreUnavailable`, so callers
can fall back to lexical search with one `except`. If the table directory disappears under a
live process, every later operation (reads *and* writes) raises `VectorStoreUnavailable` until
`reset()` recreates an empty table. Writes are refused too because LanceDB would otherwise
happily write a new manifest that still references the vanished data files, leaving a table
that looks fine and fails on the next search.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from indexing.lance_core import CoreTable
from indexing.location import PRIVATE_DIR, PRIVATE_FILE, private_dir
from indexing.schema import (
    UNSTAMPED_VECTOR_VERSIONS,
    VECTOR_COLUMNS,
    VECTOR_SCHEMA_KEY,
    VECTOR_SCHEMA_VERSION,
)

# lancedb 0.40 reads LANCEDB_LOG (LANCE_LOG is the older pylance name); both must be set
# before the native module loads, or each search logs a deprecation warning to stderr.
os.environ.setdefault("LANCEDB_LOG", "error")
os.environ.setdefault("LANCE_LOG", "error")

# Ids per `IN (...)` list: keeps each SQL statement small for big batches.
_DELETE_CHUNK = 1000


class VectorStoreUnavailable(Exception):
    """The vector store cannot serve; the message says why. `reset()` is the way back."""


class VectorSchemaMismatch(VectorStoreUnavailable):
    """The table was written by another schema version or for vectors of another length: it
    must be rebuilt, not read. The message says which, and is the reason a sync reports."""


class InvalidFilter(ValueError):
    """The caller's filter does not parse (typically a user's path regex using look-around,
    which the Rust regex engine lacks). A user error to show, not a broken store."""


@dataclass(frozen=True)
class VectorRow:
    """One vector of one chunk. A chunk has a `code` vector and, when it leads a definition,
    a `summary` vector; `key` tells them apart."""

    chunk_id: str
    surface: str
    path: str
    lang: str
    kind: str
    text_hash: str
    vector: npt.NDArray[np.float32]

    @property
    def key(self) -> str:
        return row_key(self.chunk_id, self.surface)


def row_key(chunk_id: str, surface: str) -> str:
    return f"{chunk_id}:{surface}"


@dataclass(frozen=True, slots=True)
class VectorMatch:
    chunk_id: str
    surface: str
    similarity: float


def sql_quote(value: str) -> str:
    """A SQL string literal. LanceDB's parser treats backslashes literally, so only quotes
    need doubling."""
    return "'" + value.replace("'", "''") + "'"


def sql_where(
    langs: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    path_regex: str | None = None,
    only_paths: Iterable[str] | None = None,
    skip_paths: Iterable[str] = (),
) -> str | None:
    """A prefilter for `VectorStore.search`, or None when nothing is filtered. `only_paths`
    and `skip_paths` are the split of a team index with local changes (`search.overlay`):
    a vector of a file changed here must not answer for the team index.

    `regexp_like` rather than `regexp_match`: lancedb 0.40 accepts both, but warns that
    `regexp_match`'s coercion to boolean may change.
    """
    clauses: list[str] = []
    if langs:
        clauses.append(f"lang IN ({', '.join(sql_quote(v) for v in langs)})")
    if kinds:
        clauses.append(f"kind IN ({', '.join(sql_quote(v) for v in kinds)})")
    if path_regex:
        clauses.append(f"regexp_like(path, {sql_quote(path_regex)})")
    if only_paths is not None:
        only = sorted(only_paths)
        clauses.append(f"path IN ({', '.join(sql_quote(p) for p in only)})" if only
                       else "false")
    skip = sorted(skip_paths)
    if skip:
        clauses.append(f"path NOT IN ({', '.join(sql_quote(p) for p in skip)})")
    return " AND ".join(clauses) if clauses else None


def _schema(pa: Any, dim: int) -> Any:
    """`indexing.schema`'s columns as Arrow types, stamped with the schema version."""
    types = {"string": pa.string(), "vector": pa.list_(pa.float32(), dim)}
    return pa.schema([(name, types[kind]) for name, kind in VECTOR_COLUMNS],
                     metadata={VECTOR_SCHEMA_KEY: str(VECTOR_SCHEMA_VERSION)})


def schema_version(schema: Any) -> int | None:
    """The version that wrote a table of this Arrow schema: its stamp, or for a table written
    before stamps, the version its columns belong to; None when neither says."""
    stamp = (schema.metadata or {}).get(VECTOR_SCHEMA_KEY.encode())
    if stamp is not None:
        try:
            return int(stamp)
        except ValueError:
            return None
    return UNSTAMPED_VECTOR_VERSIONS.get(tuple(schema.names))


def _check_schema(found: Any, expected: Any, where: Path) -> None:
    """Raise `VectorSchemaMismatch` unless a table of schema `found` reads as `expected`."""
    version = schema_version(found)
    if version != VECTOR_SCHEMA_VERSION:
        written = "an unknown schema version" if version is None else f"schema version {version}"
        raise VectorSchemaMismatch(
            f"vector table {where} was written by {written} (columns "
            f"{', '.join(found.names)}); this version of kebab reads version "
            f"{VECTOR_SCHEMA_VERSION}, so it is rebuilt")
    if not found.equals(expected):  # same version: only the vector length can differ
        raise VectorSchemaMismatch(
            f"vector table {where} has schema {found}, expected vectors of dimension "
            f"{expected.field('vector').type.list_size}; it is rebuilt")


def _import_lancedb() -> tuple[Any, Any]:
    try:
        import lancedb
        import pyarrow as pa
    except ImportError as exc:  # e.g. a wheel built for a newer CPU than this one
        raise VectorStoreUnavailable(f"LanceDB is not importable: {exc}") from exc
    return lancedb, pa


class VectorStore:
    """One LanceDB table of chunk vectors, opened on first use.

    Writes are serialized (LanceDB commits are optimistic; two local writers would just retry)
    and compacted every `optimize_every` write batches, because each add or delete leaves a new
    version and fragment behind and search time grows with the fragment count.

    A local index's table is private (`private`: files 0600, folders 0700) and its only user,
    so compaction drops every old version at once. A team index's table is shared: its
    files keep the permissions the filesystem gives them (the directory's group, the umask),
    and old versions are kept for `keep_versions`, so an editor's search that began on one
    is not pulled from under it.
    """

    def __init__(
        self,
        directory: Path,
        dim: int,
        table: str = "chunks",
        optimize_every: int = 20,
        private: bool = True,
        keep_versions: timedelta = timedelta(0),
    ) -> None:
        self.directory = Path(directory)
        self.dim = dim
        self.table_name = table
        self.optimize_every = optimize_every
        self.private = private
        self.keep_versions = keep_versions
        self._lock = threading.RLock()
        self._table: Any = None  # the public API's handle, for writes
        self._reader: CoreTable | None = None
        # Whether a table was ever opened here: from then on a missing directory is an outage
        # (see the module docstring), not a store that is still empty.
        self._seen = False
        self._pa: Any = None
        self._schema: Any = None
        self._writes_since_optimize = 0

    # -- lifecycle ----------------------------------------------------------------------------

    @property
    def _table_dir(self) -> Path:
        return self.directory / f"{self.table_name}.lance"

    def _check_not_deleted(self) -> None:
        if self._seen and not self._table_dir.is_dir():
            raise VectorStoreUnavailable(
                f"vector table {self._table_dir} was deleted; call reset() to start over"
            )

    def _open(self) -> Any:
        """The live table for writing, after checking its directory still exists (see module
        docstring); created when missing."""
        self._check_not_deleted()
        table = self._table
        if table is not None:
            return table
        with self._lock:
            if self._table is None:
                self._table = self._guard("open", self._open_or_create)
                self._seen = True
            return self._table

    def _read(self) -> CoreTable | None:
        """The read handle, or None while no table has been created yet."""
        self._check_not_deleted()
        if self._reader is not None:
            return self._reader
        if not self._table_dir.is_dir():
            return None
        with self._lock:
            if self._reader is None:
                reader = CoreTable(self.directory, self.table_name)
                schema = self._guard("open", reader.schema)
                import pyarrow as pa

                _check_schema(schema, _schema(pa, self.dim), self._table_dir)
                self._reader = reader
                self._seen = True
            return self._reader

    def close(self) -> None:
        """Drop this process's handles on the table, so none of its files stays open."""
        with self._lock:
            self._table = None
            self._reader = None

    def _open_or_create(self) -> Any:
        lancedb, pa = _import_lancedb()
        self._pa = pa
        self._schema = _schema(pa, self.dim)
        self._make_dir()
        db = lancedb.connect(str(self.directory))
        if self._table_dir.exists():
            table = db.open_table(self.table_name)
        else:
            table = db.create_table(self.table_name, schema=self._schema, exist_ok=True)
            self._narrow()
        _check_schema(table.schema, self._schema, self._table_dir)
        return table

    def _make_dir(self) -> None:
        if self.private:
            private_dir(self.directory)
        else:
            self.directory.mkdir(parents=True, exist_ok=True)

    def _narrow(self) -> None:
        """LanceDB creates its files with the process's umask (typically 0644); vectors and
        the paths in them are as private as the index they belong to, so files it wrote are
        narrowed to 0600 and folders to 0700. A walk of a few dozen entries after each write
        batch: those are seconds of embedding apart. A shared table is left as written."""
        if not self.private:
            return
        for folder, dirs, files in os.walk(self._table_dir):
            for name, mode in [(d, PRIVATE_DIR) for d in dirs] + [(f, PRIVATE_FILE)
                                                                    for f in files]:
                path = os.path.join(folder, name)
                with suppress(OSError):  # compaction may delete it meanwhile
                    if os.stat(path).st_mode & 0o077:
                        os.chmod(path, mode)
        with suppress(OSError):
            if os.stat(self._table_dir).st_mode & 0o077:
                os.chmod(self._table_dir, PRIVATE_DIR)

    def reset(self) -> None:
        """Drop whatever is left of the table and start empty: the recovery path. Whatever
        stands where the table's folder (or the vectors folder) should be goes too: a table
        folder replaced by a plain file, a half-deleted one."""
        with self._lock:
            self._table = None
            self._reader = None
            self._seen = False
            lancedb, _ = _import_lancedb()
            if self.directory.is_symlink() or (self.directory.exists()
                                               and not self.directory.is_dir()):
                self.directory.unlink()
            self._make_dir()

            def drop() -> None:
                table_dir = self._table_dir
                if table_dir.is_symlink() or (table_dir.exists() and not table_dir.is_dir()):
                    table_dir.unlink()
                    return
                db = lancedb.connect(str(self.directory))
                try:
                    db.drop_table(self.table_name)
                except Exception:  # missing or half-deleted: remove the files directly
                    import shutil

                    shutil.rmtree(table_dir, ignore_errors=True)

            self._guard("reset", drop)
            self._writes_since_optimize = 0
            self._open()

    def _guard(self, what: str, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except VectorStoreUnavailable:
            raise
        except ValueError as exc:
            if "filter" in str(exc):
                raise InvalidFilter(str(exc)) from exc
            raise VectorStoreUnavailable(self._failure(what, exc)) from exc
        except Exception as exc:  # lance raises RuntimeError/OSError/ArrowException
            raise VectorStoreUnavailable(self._failure(what, exc)) from exc

    def _failure(self, what: str, exc: Exception) -> str:
        return f"vector store {what} failed ({exc}); reset() rebuilds {self._table_dir} empty"

    # -- writes -------------------------------------------------------------------------------

    def upsert(self, rows: Sequence[VectorRow]) -> None:
        """Replace rows by key.

        Delete-then-add, measured against `merge_insert("chunk_id")` on 20k rows: 6 vs 11 ms for
        50 rows, equal at 500, 44 vs 75 ms at 5000. Not atomic: a concurrent search may briefly
        miss the replaced rows, which costs nothing worse than a stale result.
        """
        if not rows:
            return
        # A batch naming a key twice would otherwise add it twice; the last occurrence wins.
        rows = list({r.key: r for r in rows}.values())
        self._open()  # imports pyarrow and builds the schema that _to_arrow needs
        data = self._to_arrow(rows)
        with self._lock:
            table = self._open()
            if self._guard("count", table.count_rows) > 0:
                self._delete_in_locked(table, "key", [r.key for r in rows])
            self._guard("add", table.add, data)
            self._after_write_locked()

    def delete_keys(self, keys: Iterable[str]) -> None:
        keys = list(dict.fromkeys(keys))
        if not keys:
            return
        with self._lock:
            table = self._open()
            self._delete_in_locked(table, "key", keys)
            self._after_write_locked()

    def optimize(self) -> None:
        """Compact fragments and drop old versions: all of them on a private table, those
        older than `keep_versions` on a shared one.

        `cleanup_older_than=0` is safe only because this process is the table's sole user;
        LanceDB warns about that on every call, so the warning is silenced here.
        """
        with self._lock, warnings.catch_warnings():
            table = self._open()
            warnings.simplefilter("ignore", UserWarning)
            self._guard("optimize", lambda: table.optimize(cleanup_older_than=self.keep_versions))
            self._writes_since_optimize = 0

    def _delete_in_locked(self, table: Any, column: str, values: list[str]) -> None:
        for start in range(0, len(values), _DELETE_CHUNK):
            part = values[start : start + _DELETE_CHUNK]
            where = f"{column} IN ({', '.join(sql_quote(v) for v in part)})"
            self._guard("delete", table.delete, where)

    def _after_write_locked(self) -> None:
        self._writes_since_optimize += 1
        if self.optimize_every > 0 and self._writes_since_optimize >= self.optimize_every:
            self.optimize()
        self._narrow()

    def _to_arrow(self, rows: Sequence[VectorRow]) -> Any:
        pa = self._pa
        vectors = np.stack([np.asarray(r.vector, dtype=np.float32).reshape(-1) for r in rows])
        if vectors.shape[1] != self.dim:
            raise ValueError(f"vector dim {vectors.shape[1]} != store dim {self.dim}")
        flat = pa.array(vectors.reshape(-1), type=pa.float32())
        return pa.table(
            {
                "key": [r.key for r in rows],
                "chunk_id": [r.chunk_id for r in rows],
                "surface": [r.surface for r in rows],
                "path": [r.path for r in rows],
                "lang": [r.lang for r in rows],
                "kind": [r.kind for r in rows],
                "text_hash": [r.text_hash for r in rows],
                "vector": pa.FixedSizeListArray.from_arrays(flat, self.dim),
            },
            schema=self._schema,
        )

    # -- reads --------------------------------------------------------------------------------

    def row_hashes(self) -> dict[str, str]:
        """key -> hash of the text each stored vector was computed from."""
        reader = self._read()
        if reader is None:
            return {}
        found = self._guard("scan", reader.columns, ["key", "text_hash"])
        return dict(zip(found["key"], found["text_hash"], strict=True))

    def vectors_by_hash(self, hashes: Sequence[str]) -> dict[str, bytes]:
        """Embedded-text hash -> a vector stored for that text (float32 bytes), for those of
        `hashes` some row holds: a store that keeps no embedding cache (a team index's) reuses
        its own rows, so a moved chunk is not embedded again."""
        reader = self._read()
        if reader is None or not hashes:
            return {}
        out: dict[str, bytes] = {}
        for start in range(0, len(hashes), _DELETE_CHUNK):
            part = hashes[start : start + _DELETE_CHUNK]
            where = f"text_hash IN ({', '.join(sql_quote(h) for h in part)})"
            found = self._guard("scan", reader.columns, ["text_hash", "vector"], where)
            for h, vec in zip(found["text_hash"], found["vector"], strict=True):
                out.setdefault(h, np.asarray(vec, dtype=np.float32).tobytes())
        return out

    def chunk_ids(self) -> set[str]:
        reader = self._read()
        if reader is None:
            return set()
        return set(self._guard("scan", reader.column, "chunk_id"))

    def count(self) -> int:
        reader = self._read()
        return 0 if reader is None else int(self._guard("count", reader.count))

    def version(self) -> int:
        """The table's version; raises `VectorStoreUnavailable` when there is no table yet."""
        reader = self._read()
        if reader is None:
            raise VectorStoreUnavailable(f"no vector table at {self._table_dir} yet")
        return int(self._guard("version", reader.version))

    def search(
        self, vector: npt.ArrayLike, k: int, where: str | None = None
    ) -> list[VectorMatch]:
        """Top `k` rows by cosine similarity, best first, ties broken by key.

        The filter runs before the top-k (prefilter), so a narrow filter still yields k rows
        when k exist. Identical vectors (duplicated code) tie exactly; LanceDB would cut a tie at
        the k boundary arbitrarily, so we over-fetch until the boundary tie is fully inside.
        """
        if k <= 0:
            return []
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise ValueError(f"query dim {query.shape[0]} != store dim {self.dim}")
        reader = self._read()
        if reader is None:
            return []
        limit = k + 8
        while True:
            rows = self._guard("search", self._query, reader, query, limit, where)
            if len(rows) < limit or rows[-1][3] > rows[min(k, len(rows)) - 1][3]:
                break
            limit *= 4
        # Clamped: float rounding can put an exact duplicate a hair above 1.
        ranked = sorted(((key, cid, surface, min(1.0, max(-1.0, 1.0 - d)))
                         for key, cid, surface, d in rows), key=lambda r: (-r[3], r[0]))
        return [VectorMatch(cid, surface, sim) for _, cid, surface, sim in ranked[:k]]

    @staticmethod
    def _query(
        reader: CoreTable, query: npt.NDArray[np.float32], limit: int, where: str | None
    ) -> list[tuple[str, str, str, float]]:
        columns = ["key", "chunk_id", "surface", "_distance"]
        found = reader.nearest(query, limit, where, "vector", columns)
        return list(zip(*(found[c] for c in columns), strict=True))
