"""Reading a LanceDB table through lancedb's compiled core, without importing `lancedb`.

`import lancedb` costs about 4 s of CPU on a 2-core machine, three quarters of it in the
generated REST client of `lance_namespace_urllib3_client` and in pydantic models for LanceDB
Cloud, none of which a local read touches. The package's local tables are thin wrappers around
its Rust core, the extension module `lancedb._lancedb`, which loads in about 30 ms. A
command-line query, a no-change `kebab index` and the first vector answer of a server read
through here; writes still use the public API (`indexing.vectors`), where the import is paid
once by a process that is about to spend far longer embedding.

The core is loaded from its file so that `lancedb/__init__.py` does not run, and registered
under its real name: a later `import lancedb` in the same process finds it in `sys.modules` and
wraps the same module (a PyO3 module cannot be initialised twice).

This drives a private API, so it is pinned with the package (`lancedb==0.40.0` in pyproject):
every call here is one the public API makes for the same operation, and
tests/unit/test_vectors.py checks that both return the same rows. An upgrade that moves the
API fails those tests rather than slowing down quietly.

Reads are strongly consistent (`read_consistency_interval=0`): every read looks up the latest
table version, so rows written through the public API, by this process or another, are seen at
once, and a version removed by `optimize` is never read.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # imported on first use: a lexical-only command never pays for asyncio (and ssl)
    import asyncio

import numpy as np
import numpy.typing as npt

T = TypeVar("T")

_CORE = "lancedb._lancedb"
_load_lock = threading.Lock()


def core() -> Any:
    """The `lancedb._lancedb` extension module, loaded without its package's `__init__`."""
    loaded = sys.modules.get(_CORE)
    if loaded is not None:
        return loaded
    with _load_lock:
        loaded = sys.modules.get(_CORE)
        if loaded is not None:
            return loaded
        package = importlib.util.find_spec("lancedb")  # finds, does not import
        if package is None or not package.submodule_search_locations:
            raise ImportError("lancedb is not installed")
        for folder in package.submodule_search_locations:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = Path(folder, "_lancedb" + suffix)
                if path.is_file():
                    return _load_extension(path)
        raise ImportError(f"no compiled lancedb core in {package.submodule_search_locations}")


def _load_extension(path: Path) -> Any:
    loader = importlib.machinery.ExtensionFileLoader(_CORE, str(path))
    spec = importlib.util.spec_from_file_location(_CORE, path, loader=loader)
    if spec is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[_CORE] = module
    try:
        loader.exec_module(module)
    except BaseException:
        del sys.modules[_CORE]
        raise
    return module


class _Loop:
    """One event loop on a daemon thread for the core's coroutines, as lancedb's own
    `background_loop` does: callers may be on any thread, including one that already runs an
    event loop (pygls), where `asyncio.run` would refuse."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None  # started on first use
        self._pid = 0  # a forked child inherits the loop but not its thread: it starts its own
        self._lock = threading.Lock()

    def run(self, make: Callable[[], Awaitable[T]]) -> T:
        """Await `make()` on the loop. The awaitable must be created there: the core binds its
        futures to the running loop when a method is called."""

        import asyncio

        async def call() -> T:
            return await make()

        return asyncio.run_coroutine_threadsafe(call(), self._get()).result()

    def _get(self) -> asyncio.AbstractEventLoop:
        import asyncio

        with self._lock:
            if self._loop is None or self._pid != os.getpid():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="kebab-lance", daemon=True).start()
                self._loop, self._pid = loop, os.getpid()
            return self._loop


_LOOP = _Loop()


class CoreTable:
    """A read handle on one local table. Methods raise whatever the core raises (ValueError
    for a bad filter, RuntimeError/OSError for storage problems); `VectorStore` maps them."""

    def __init__(self, directory: Path, name: str) -> None:
        self.directory = directory
        self.name = name
        self._table: Any = None

    def _open(self) -> Any:
        if self._table is None:
            lance = core()
            uri = str(self.directory)

            async def open_table() -> Any:
                conn = await lance.connect(
                    uri, api_key=None, region=None, host_override=None, sql_host_override=None,
                    read_consistency_interval=0.0, client_config=None, storage_options=None,
                    session=None)
                return await conn.open_table(self.name, namespace_path=[])

            self._table = _LOOP.run(open_table)
        return self._table

    def schema(self) -> Any:
        table = self._open()
        return _LOOP.run(table.schema)

    def count(self) -> int:
        table = self._open()
        return int(_LOOP.run(lambda: table.count_rows(None)))

    def version(self) -> int:
        table = self._open()
        return int(_LOOP.run(table.version))

    def column(self, name: str) -> list[Any]:
        """Every value of one column (a full scan)."""
        return self.columns([name])[name]

    def columns(self, names: list[str], where: str | None = None) -> dict[str, list[Any]]:
        """Every value of some columns (a full scan, of the rows `where` selects), row-aligned."""
        table = self._open()

        def scan() -> Any:
            query = table.query()
            if where:
                query.where(where)
            query.select_columns(names)
            return query.execute(max_batch_length=None, timeout=None)

        batches = self._collect(scan)
        return {n: [v for b in batches for v in b.column(n).to_pylist()] for n in names}

    def nearest(
        self, vector: npt.NDArray[np.float32], limit: int, where: str | None, column: str,
        select: list[str],
    ) -> dict[str, list[Any]]:
        """The `limit` rows nearest to `vector` by cosine distance, best first, with the
        `select`ed columns (`_distance` is one); the filter is applied before the top-k."""
        import pyarrow as pa

        table = self._open()

        def search() -> Any:
            query = table.query().nearest_to(pa.array(vector, type=pa.float32()))
            query.column(column)
            query.distance_type("cosine")
            if where:
                query.where(where)
            query.select([(c, c) for c in select])
            query.limit(limit)
            return query.execute()

        batches = self._collect(search)
        return {c: [v for b in batches for v in b.column(c).to_pylist()] for c in select}

    @staticmethod
    def _collect(execute: Callable[[], Awaitable[Any]]) -> list[Any]:
        async def read() -> list[Any]:
            stream = await execute()
            return [batch async for batch in stream]

        return _LOOP.run(read)
