"""What a running server holds: the indexing runtime, and for each open folder the searcher and
symbol matcher wired to that folder's index and state. Handlers call these methods and
translate; nothing here knows a protocol type.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from indexing.runtime import Folder, Listener, Runtime
from indexing.settings import Settings, parse
from kebab_lsp.cache import remember_workspace
from search.engine import Cancelled, Searcher
from search.merge import FolderMatch, merge_results, merge_symbols
from search.request import MAX_SYMBOL_QUERY_CHARS, check_text
from search.symbols import SymbolIndex
from search.types import SearchRequest, SearchResult

ShouldStop = Callable[[], bool]


@dataclass(frozen=True, slots=True)
class _View:
    searcher: Searcher
    symbols: SymbolIndex


class Session:
    def __init__(self, listener: Listener) -> None:
        self.runtime = Runtime(listener)
        self._views: weakref.WeakKeyDictionary[Folder, _View] = weakref.WeakKeyDictionary()

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    def configure(self, raw: Any) -> tuple[list[str], list[str]]:
        """Apply settings from the client: (warnings about bad entries, names changed)."""
        new, warnings = parse(raw, self.settings)
        changed = self.runtime.configure(new)
        if "index_dir" in changed:  # the folders were reopened under another root
            for folder in self.folders():
                remember_workspace(folder.index.index_dir, folder.root)
        return warnings, changed

    # -- folders -----------------------------------------------------------------------------

    def open_folder(self, uri: str, name: str, root: Path) -> Folder:
        folder = self.runtime.add_folder(uri, name, root)
        remember_workspace(folder.index.index_dir, folder.root)
        return folder

    def folders(self) -> list[Folder]:
        return self.runtime.folders()

    def view(self, folder: Folder) -> _View:
        view = self._views.get(folder)
        if view is None:
            index = folder.index
            searcher = Searcher(folder.root, index.store, vectors=index, status=folder,
                                settings=lambda: self.settings)
            # The lexical version moves on every committed batch: one cheap read per query.
            symbols = SymbolIndex(index.store, index.store.lexical_version,
                                  may_serve_stale=lambda: folder.building,
                                  schedule=self.runtime.refresher.submit)
            view = self._views.setdefault(folder, _View(searcher, symbols))
        return view

    def reindex(self, uris: list[str]) -> list[Folder]:
        """Rebuild the named folders (every folder when none is named) from scratch; raises
        KeyError naming the URIs that are not open folders."""
        folders = {f.uri: f for f in self.folders()}
        missing = [u for u in uris if u not in folders]
        if missing:
            raise KeyError(", ".join(missing))
        chosen = [folders[u] for u in uris] if uris else list(folders.values())
        for folder in chosen:
            self.runtime.scan(folder, rebuild=True)
        return chosen

    # -- answers -----------------------------------------------------------------------------

    def search(self, req: SearchRequest, should_stop: ShouldStop) -> SearchResult:
        results = []
        for folder in self.folders():
            if should_stop():
                raise Cancelled()
            results.append(self.view(folder).searcher.search(req, should_stop=should_stop))
        return merge_results(results, req.k, req.mode)

    def symbols(self, query: str, should_stop: ShouldStop) -> list[FolderMatch]:
        """Raises InvalidQuery for a query too long or not valid text."""
        check_text(query, MAX_SYMBOL_QUERY_CHARS)
        limit = self.settings.symbol_limit
        per_folder: list[list[FolderMatch]] = []
        for index, folder in enumerate(self.folders()):
            if should_stop():
                raise Cancelled()
            result = self.view(folder).symbols.match(query, limit)
            per_folder.append([FolderMatch(index, str(folder.root), m) for m in result.items])
        return merge_symbols(per_folder, limit)
