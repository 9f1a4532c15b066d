"""Open files (issue 10): `Store.close()` releases every thread's connection, and removing a
workspace folder releases every file of its index, counted on /proc/self/fd. Real apsw,
LanceDB and runtime threads."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
from durability_support import make_tree, open_files_under

from indexing.runtime import Runtime
from indexing.runtime.listener import SilentListener
from indexing.settings import Settings
from indexing.store import Store
from indexing.vectors import VectorRow, VectorStore
from search.engine import Searcher
from search.types import SearchRequest


def test_close_releases_every_threads_connection(tmp_path: Path) -> None:
    store = Store(tmp_path / "idx")
    ready, done = threading.Barrier(4), threading.Event()

    def reader() -> None:  # a query thread that is still alive when the store closes
        store.stats()
        ready.wait()
        done.wait(10)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    ready.wait()
    store.stats()
    assert store.open_connections() == 4
    assert open_files_under(tmp_path)
    store.close()
    assert store.open_connections() == 0
    assert open_files_under(tmp_path) == []
    done.set()
    for t in threads:
        t.join()
    assert store.stats().files == 0  # a later use opens a connection again
    store.close()
    assert open_files_under(tmp_path) == []


def test_a_removed_folder_releases_every_file_of_its_index(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree", files=30, defs=3)
    runtime = Runtime(SilentListener(), Settings(index_dir=str(tmp_path / "cache"), workers=1,
                                                 embed=False))
    folder = runtime.add_folder(root.as_uri(), root.name, root)
    runtime.start()
    try:
        assert runtime.wait_idle(30) and runtime.refresher.wait_idle(30)
        searcher = Searcher(folder.root, folder.index.store)
        vectors = VectorStore(folder.index.index_dir / "vectors", 4)
        vectors.upsert([VectorRow("c", "code", "p", "py", "function", "h",
                                  np.ones(4, dtype=np.float32))])

        def query() -> None:  # query threads each open their own connection
            assert searcher.search(SearchRequest(query="payload", mode="lexical")).hits

        threads = [threading.Thread(target=query) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        vectors.search(np.ones(4), 1)
        vectors.close()
        assert folder.index.store.open_connections() >= 4  # writer, refresher, 3 queries
        assert open_files_under(tmp_path / "cache")

        runtime.remove_folder(folder.uri)
        assert runtime.wait_idle(30)  # the writer closes a removed folder's index
        assert folder.index.store.open_connections() == 0
        assert open_files_under(tmp_path / "cache") == []
    finally:
        runtime.stop()
