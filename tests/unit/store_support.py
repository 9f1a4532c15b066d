"""A real SQLite store indexed from a tree the test writes, closed after it: the setup the
tests of the store's rankings share."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from indexing.discover import DiscoveryOptions
from indexing.indexer import Indexer
from indexing.store import Store


@contextmanager
def indexed_tree(root: Path, index_dir: Path) -> Iterator[tuple[Store, Indexer]]:
    store = Store(index_dir)
    try:
        indexer = Indexer(root, store, DiscoveryOptions(), workers=1)
        indexer.index()
        yield store, indexer
    finally:
        store.close()
