"""A folder's index and its searcher, wired together for one-shot callers: `kebab search`,
`kebab eval`, the benchmarks and tests. The language server wires the same two pieces to the
running runtime's folders instead (`kebab_lsp.session`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from indexing.runtime.folder_index import FolderIndex
from indexing.settings import Settings
from indexing.vector_index import SyncSummary, VectorIndex
from search.engine import Searcher

if TYPE_CHECKING:
    from indexing.indexer import Indexer
    from indexing.store import Store


class _OneShot:
    """A one-shot caller's index state: never building here (nothing writes it in this
    process), but building while the process that writes it scans it (a server, `kebab mcp`,
    a `kebab index` in another shell), and possibly partial of a team index, which answers
    must say."""

    def __init__(self, index: FolderIndex) -> None:
        self._index = index

    @property
    def building_anywhere(self) -> bool:
        return self._index.scanning_elsewhere() is not None

    @property
    def incomplete(self) -> str | None:
        return self._index.incomplete()


class Workspace:
    def __init__(self, root: Path, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.index = FolderIndex(root, self.settings)
        self.searcher = Searcher(self.index.root, self.index.store, vectors=self.index,
                                 status=_OneShot(self.index), settings=lambda: self.settings)

    @property
    def root(self) -> Path:
        return self.index.root

    @property
    def index_dir(self) -> Path:
        return self.index.index_dir

    @property
    def store(self) -> Store:
        return self.index.store

    @property
    def indexer(self) -> Indexer:
        return self.index.indexer

    @property
    def vector_error(self) -> str | None:
        return self.index.vector_error

    def vector_index(self) -> VectorIndex | None:
        return self.index.vector_index()

    def sync_vectors(self, **kwargs: object) -> SyncSummary | None:
        return self.index.sync_vectors(**kwargs)

    def close(self) -> None:
        self.index.close()
