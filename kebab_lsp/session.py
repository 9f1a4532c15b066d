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
from urllib.parse import urlparse
from urllib.request import url2pathname

from indexing.records import Span
from indexing.runtime import Folder, Listener, Runtime
from indexing.settings import Settings, parse
from indexing.store import StoreClosed, StoreCorrupt, StoreUnwritable
from search import handles
from search.context import Context, around
from search.describe import SymbolInfo, describe
from search.engine import Cancelled, Searcher
from search.grouping import Grouped, group
from search.lookups import ContextRequest, ReferencesRequest, SimilarRequest
from search.merge import FolderMatch, merge_results, merge_symbols
from search.request import MAX_SYMBOL_QUERY_CHARS, check_text
from search.similar import similar
from search.symbols import SymbolIndex
from search.types import Hit, InvalidQuery, SearchRequest, SearchResult
from search.usage import usage_name

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
        return warnings, self.runtime.configure(new)

    # -- folders -----------------------------------------------------------------------------

    def open_folder(self, uri: str, name: str, root: Path) -> Folder:
        return self.runtime.add_folder(uri, name, root)

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
            try:
                result = self.view(folder).symbols.match(query, limit)
            except (StoreCorrupt, StoreClosed, StoreUnwritable):
                continue  # damaged and being rebuilt (the user was told): the other folders
            per_folder.append([FolderMatch(index, str(folder.root), m) for m in result.items])
        return merge_symbols(per_folder, limit)

    def group(self, hits: list[Hit]) -> Grouped:
        """A search's hits as definitions, files and blocks (`search.grouping`)."""
        stores = {str(f.root): f.index.store for f in self.folders()}
        return group(hits, stores.get)

    # -- lookups by handle, name or place ----------------------------------------------------

    def _symbol(self, handle: str) -> tuple[Folder, handles.ResolvedSymbol]:
        for folder in self.folders():
            found = handles.resolve_symbol(folder.index.store, handle)
            if found is not None:
                return folder, found
        raise handles.stale("symbol", handle)

    def _place(self, path: Path) -> tuple[Folder, str]:
        resolved = path.resolve()
        for folder in self.folders():
            rel = folder.relative(resolved)
            if rel is not None:
                return folder, rel
        raise InvalidQuery(f"{path} is not in an open workspace folder")

    def name_at(self, path: Path, line: int, col: int) -> str | None:
        folder, rel = self._place(path)
        return folder.index.store.name_at(rel, line, col)

    def references(self, req: ReferencesRequest, should_stop: ShouldStop) -> SearchResult:
        """Raises InvalidQuery (StaleHandle for a stale handle)."""
        name = req.name
        if req.symbol_id is not None:
            name = self._symbol(req.symbol_id)[1].symbol.name
        elif req.place is not None:
            span = req.place.span
            path = fs_path(req.place.uri)
            name = self.name_at(path, span.start_line, span.start_col)
            if name is None:
                raise InvalidQuery(f"no name at line {span.start_line}, character "
                                   f"{span.start_col} of {path} in the index")
        name = usage_name(name or "")
        results = []
        for folder in self.folders():
            if should_stop():
                raise Cancelled()
            results.append(self.view(folder).searcher.usages(name, req.filters, req.k,
                                                             req.kinds))
        return merge_results(results, req.k, "auto")

    def definitions(self, name: str) -> list[tuple[str, str, Span]]:
        """(root, path, name span) of every definition of `name`."""
        return [(str(f.root), path, sym.selection) for f in self.folders()
                for path, sym in f.index.store.definitions_named(name)]

    def describe_symbol(self, handle: str) -> SymbolInfo:
        folder, found = self._symbol(handle)
        return describe(folder.index.store, str(folder.root), found)

    def context(self, req: ContextRequest) -> Context:
        for folder in self.folders():
            store = folder.index.store
            if req.chunk_id is not None:
                chunk = handles.resolve_chunk(store, req.chunk_id)
            else:
                assert req.symbol_id is not None
                found = handles.resolve_symbol(store, req.symbol_id)
                chunk = store.chunk_of_symbol(found.file.rowid, found.ord) if found else None
                if found is not None and chunk is None:
                    raise InvalidQuery(f"the definition {req.symbol_id!r} has no block of its "
                                       "own (a value or a one-line definition): ask for the "
                                       "context of the hit's chunk_id instead")
            if chunk is not None:
                return around(store, str(folder.root), chunk, req.before, req.after)
        if req.chunk_id is not None:
            raise handles.stale("chunk", req.chunk_id)
        assert req.symbol_id is not None
        raise handles.stale("symbol", req.symbol_id)

    def similar(self, req: SimilarRequest, should_stop: ShouldStop) -> SearchResult:
        text = req.text
        owner: Folder | None = None
        exclude: tuple[str, Span] | None = None
        if req.place is not None:
            owner, rel = self._place(fs_path(req.place.uri))
            text = _range_text(owner, rel, req.place.span)
            exclude = (rel, req.place.span)
        if not text or not text.strip():
            raise InvalidQuery("kebab/similar needs some code: the text (or range) is empty")
        results = []
        for folder in self.folders():
            if should_stop():
                raise Cancelled()
            results.append(similar(self.view(folder).searcher, text, req.k, req.filters,
                                   exclude if folder is owner else None, should_stop))
        return merge_results(results, req.k, "auto")


def fs_path(uri: str) -> Path:
    """A file: URI as a path (what `search.lookups` checked it is)."""
    parsed = urlparse(uri)
    return Path(url2pathname(parsed.path))


def _range_text(folder: Folder, rel: str, span: Span) -> str:
    """The text of a range, as indexed (or from disk when the file is not indexed)."""
    store = folder.index.store
    file = store.file_by_path(rel)
    text = store.file_text_of(file.rowid) if file else None
    if text is None:
        try:
            text = (folder.root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise InvalidQuery(f"cannot read {rel}: {exc}") from exc
    lines = text.split("\n")[span.start_line : span.end_line + 1]
    if not lines:
        return ""
    if len(lines) == 1:
        return _utf16_slice(lines[0], span.start_col, span.end_col)
    return "\n".join([_utf16_slice(lines[0], span.start_col, None), *lines[1:-1],
                      _utf16_slice(lines[-1], 0, span.end_col)])


def _utf16_slice(line: str, start: int, end: int | None) -> str:
    data = line.encode("utf-16-le", "surrogatepass")
    return data[2 * start : None if end is None else 2 * end].decode("utf-16-le", "replace")
