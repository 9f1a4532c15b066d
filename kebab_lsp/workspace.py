"""One workspace folder's index, indexer and searcher, wired together.

Both the CLI and the server open workspaces through here, so they find the same index for the
same folder and configure it the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from indexing.discover import DEFAULT_MAX_BYTES, DiscoveryOptions
from indexing.indexer import Indexer
from indexing.location import index_dir_for
from indexing.store import Store
from search.engine import Searcher


@dataclass(frozen=True, slots=True)
class WorkspaceOptions:
    index_dir: str | None = None
    max_file_bytes: int = DEFAULT_MAX_BYTES
    exclude: tuple[str, ...] = ()
    workers: int | None = None


class Workspace:
    def __init__(self, root: Path, options: WorkspaceOptions | None = None) -> None:
        self.options = options or WorkspaceOptions()
        self.root = root.resolve()
        self.index_dir = index_dir_for(self.root, self.options.index_dir)
        self.store = Store(self.index_dir)
        self.building = False
        self.indexer = Indexer(
            self.root,
            self.store,
            DiscoveryOptions(self.options.max_file_bytes, self.options.exclude),
            workers=self.options.workers,
        )
        self.searcher = Searcher(self.root, self.store, building=lambda: self.building)

    def close(self) -> None:
        self.store.close()
