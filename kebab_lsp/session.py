"""What a running server holds: the indexing runtime and which of its folders this process
writes (`indexing.runtime.writership`), and for each open folder the searcher and symbol
matcher wired to that folder's index and state. Handlers call these methods and
translate; nothing here knows a protocol type.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from indexing.records import Span
from indexing.runtime import Folder, Listener, Runtime
from indexing.runtime.writership import Writership
from indexing.settings import Settings, parse
from indexing.store import StoreClosed, StoreCorrupt, StoreUnwritable
from indexing.store_choice import InvalidStoreChoice, TeamStore, choose
from kebab_lsp.team_retry import RetryLater
from search import workspace_lookups as lookups
from search.context import Context
from search.describe import SymbolInfo
from search.engine import Cancelled, Searcher, checkpoint
from search.grouping import Grouped, group
from search.lookups import ContextRequest, ReferencesRequest, SimilarRequest
from search.merge import NO_FOLDER_OPEN, FolderMatch, merge_results, merge_symbols
from search.request import MAX_SYMBOL_QUERY_CHARS, check_text
from search.symbols import SymbolIndex
from search.types import MAX_K, InvalidQuery, SearchRequest, SearchResult, SearchUnavailable
from search.workspace_lookups import Indexed, Workspace

if TYPE_CHECKING:
    from kebab_lsp.team import TeamOverlay

ShouldStop = Callable[[], bool]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class WriterStatus:
    """`kebab/status`'s `writer` of a folder: whether this process writes its index, the pid
    of the one that does (None: none does right now), and how changes made outside the editor
    reach the index (`changes`)."""

    this_process: bool
    pid: int | None
    changes: str
    #: Set when changes on disk no longer reach the index: this server's watcher stopped.
    warning: str | None = None


@dataclass(frozen=True, slots=True)
class _View:
    searcher: Searcher
    symbols: SymbolIndex


class Session:
    def __init__(self, listener: Listener) -> None:
        self.runtime = Runtime(listener)
        # One writer per index across processes (`kebab mcp`, another editor): a folder whose
        # index another process writes is only read here, until that process exits. The
        # editor reports file changes, so no watcher of our own unless it cannot
        # (`handlers._register_watchers`).
        self.writership = Writership(self.runtime, watch=False)
        self.runtime.claim = self.writership.claim
        #: Whether the editor reports changes made outside it (None: not settled yet).
        self.editor_reports_changes: bool | None = None
        self._views: weakref.WeakKeyDictionary[Folder, _View] = weakref.WeakKeyDictionary()
        self._team: tuple[TeamStore, Folder, TeamOverlay] | None = None
        #: Opening the team index (for its folder) after it failed: not before the retry is due.
        self._team_retry = RetryLater()
        self._team_lock = threading.Lock()
        #: The settings `initializationOptions` gave over the defaults (`start`).
        self._base = Settings()

    @property
    def settings(self) -> Settings:
        return self.runtime.settings

    def start(self, raw: Any) -> tuple[list[str], list[str]]:
        """Take `initializationOptions`: (warnings about bad entries, names changed). They
        are the base the client gave at start, which its later configuration overlays."""
        self._base, warnings = parse(raw, Settings())
        return warnings, self._apply(self._base)

    def configure(self, raw: Any) -> tuple[list[str], list[str]]:
        """Take the client's configuration (`workspace/didChangeConfiguration`, pushed or
        pulled): (warnings about bad entries, names changed).

        It is the whole current state, not a patch: a setting it names wins over
        `initializationOptions`; one it leaves out returns to the value
        `initializationOptions` gave it, else to its default. So a setting the user removes
        stops being in force, as it would after a restart."""
        new, warnings = parse(raw, self._base, self.settings)
        return warnings, self._apply(new)

    def _apply(self, new: Settings) -> list[str]:
        changed = self.runtime.configure(new)
        if {"store", "repo"} & set(changed):
            # Now, not on the next request: a folder that is no team's checkout any more
            # starts completing its index before anyone asks it (`_close_team`).
            with self._team_lock:
                self._close_team()
                self._team_retry.clear()  # tried at once: the user may have just fixed it
        return changed

    # -- folders -----------------------------------------------------------------------------

    def open_folder(self, uri: str, name: str, path: str | Path | None) -> Folder:
        """Raises (NotADirectoryError, or what opening the index raised) when the folder
        cannot be searched; it is then listed as unopened (`Runtime.unopened_folders`)."""
        if path is None or not Path(path).is_dir():
            reason = "it is not a local directory"
            self.runtime.unopened(uri, name, Path(path) if path else None, reason)
            raise NotADirectoryError(reason)
        return self.runtime.add_folder(uri, name, Path(path))

    def folders(self) -> list[Folder]:
        return self.runtime.folders()

    def follow_changes(self, editor_reports: bool) -> None:
        """How changes made outside the editor (a git checkout, a formatter) reach the indexes
        this process writes: the editor reports them, or, when it cannot, a watcher of ours."""
        self.editor_reports_changes = editor_reports
        if not editor_reports:
            self.writership.watch_changes()

    def writer_status(self, folder: Folder) -> WriterStatus:
        """Who keeps `folder`'s index current, and how changes on disk reach it: a user whose
        index lags the files can see whether this server, or another process, is the one to
        ask, and whether a watcher of ours stopped."""
        if not folder.writes:
            pid = self.writership.holder(folder)
            follows = (f"process {pid} writes this index and follows them" if pid
                       else "no process writes this index right now")
            return WriterStatus(False, pid, follows)
        state = self.writership.watcher_state(folder)
        if state is not None:
            follows = f"a watcher in this process: {state}"
        elif self.editor_reports_changes:
            follows = "the editor reports them"
        else:
            follows = "not yet: the editor's file watching is being set up"
        return WriterStatus(True, os.getpid(), follows, self.writership.watcher_warning(folder))

    def view(self, folder: Folder) -> _View:
        view = self._views.get(folder)
        if view is None:
            index = folder.index
            searcher = Searcher(folder.cited_root, index.store, vectors=index, status=folder,
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
        folders = {uri: f for f in self.folders() for uri in self.runtime.registry.aliases(f)}
        missing = [u for u in uris if u not in folders]
        if missing:
            raise KeyError(", ".join(missing))
        chosen = (list(dict.fromkeys(folders[u] for u in uris)) if uris
                  else list(dict.fromkeys(folders.values())))
        for folder in chosen:
            if not folder.writes:
                self.runtime.listener.warn(
                    f"{folder.root}: process {self.writership.holder(folder)} writes this "
                    "index and keeps it current; rebuild it there, or stop that process")
            self.runtime.scan(folder, rebuild=True)
        return chosen

    # -- answers -----------------------------------------------------------------------------

    def search(self, req: SearchRequest, should_stop: ShouldStop) -> SearchResult:
        team = self._team_overlay()
        if team is not None:
            return team.search(req, should_stop)
        results = []
        for folder in self.folders():
            if should_stop():
                raise Cancelled(f"before searching {folder.root}")
            results.append(self.view(folder).searcher.search(req, should_stop=should_stop))
        return self._unsearched(merge_results(results, req.k, req.mode))

    def _unsearched(self, result: SearchResult) -> SearchResult:
        """Folders that could not be opened are part of the workspace the user asked about:
        an answer without them is incomplete, and says which and why. With none open at all
        it must not say that no folder is open."""
        missing = self.runtime.unopened_folders()
        if missing:
            meta = result.meta
            meta.warnings = [w for w in meta.warnings if w != NO_FOLDER_OPEN]
            meta.warnings.extend(f"workspace folder {u.root or u.uri} is not searched: "
                                 f"{u.reason}" for u in missing)
            meta.recall["complete"] = False
        return result

    def _team_overlay(self) -> TeamOverlay | None:
        """The team index the `store` and `repo` settings name, for the one open folder (its
        checkout), opened on first use and again when the settings or the folder change; None
        on the local index. Raises SearchUnavailable saying what is wrong."""
        try:
            choice = choose(self.settings.store, self.settings.repo, self.settings.team_vectors)
        except InvalidStoreChoice as exc:
            raise SearchUnavailable(f"the store and repo settings: {exc}") from exc
        with self._team_lock:
            folders = self.folders()
            if choice is None or len(folders) != 1:
                self._close_team()
                if choice is None:
                    return None
                raise SearchUnavailable(
                    f"a team index answers for one workspace folder, the checkout of "
                    f"{choice.repo}; {len(folders)} are open")
            folder = folders[0]
            if self._team is not None and self._team[:2] == (choice, folder):
                return self._team[2]
            self._close_team()
            self._team_retry.check((choice, folder))
            from indexing.postgres.store import TeamStoreError
            from kebab_lsp.team import TeamOverlay  # psycopg only for a team index

            try:
                team = TeamOverlay(
                    choice, folder.cited_root, folder.index.store, folder, lambda: self.settings,
                    local_vectors=folder.index,
                    on_baseline=lambda baseline: self.runtime.set_baseline(folder, baseline),
                    settled=lambda: not folder.building)
            except TeamStoreError as exc:
                self._team_retry.failed(str(exc), (choice, folder))
                raise SearchUnavailable(str(exc)) from exc
            self._team = (choice, folder, team)
            self._team_retry.clear()
            return team

    def prepare_team(self) -> str | None:
        """Open the team index the settings name, if any, and hand its baseline to the
        folder before the writer scans it (start-up, a change of settings), so the local
        index never stores the files the team index answers for. Why it failed, if it did:
        the folder is then indexed in full (and its requests say what is wrong)."""
        try:
            team = self._team_overlay()
            if team is not None:
                team.refresh()
        except SearchUnavailable as exc:
            return str(exc)
        return None

    def _close_team(self) -> None:
        """No team index any more (for this folder): its index is completed (`set_baseline`)."""
        if self._team is not None:
            _, folder, team = self._team
            team.close()
            self._team = None
            if not folder.removed:
                self.runtime.set_baseline(folder, None)

    def close(self) -> None:
        """Stop the runtime and close the team index's connection."""
        self.runtime.stop()
        with self._team_lock:
            self._close_team()

    def symbols(self, query: str, should_stop: ShouldStop) -> list[FolderMatch]:
        """Raises InvalidQuery for a query too long or not valid text."""
        check_text(query, MAX_SYMBOL_QUERY_CHARS)
        limit = self.settings.symbol_limit
        team = self._team_overlay()
        if team is not None:  # one folder, the checkout: answered as `search` is
            return [FolderMatch(0, str(team.root), m) for m in team.symbols(query, limit).items]
        per_folder: list[list[FolderMatch]] = []
        for index, folder in enumerate(self.folders()):
            if should_stop():
                raise Cancelled(f"before matching symbols in {folder.root}")
            try:
                result = self.view(folder).symbols.match(query, limit)
            except (StoreCorrupt, StoreClosed, StoreUnwritable):
                continue  # damaged and being rebuilt (the user was told): the other folders
            per_folder.append([FolderMatch(index, str(folder.cited_root), m)
                               for m in result.items])
        return merge_symbols(per_folder, limit)

    def group(self, result: SearchResult, should_stop: ShouldStop) -> Grouped:
        """A search's answer as definitions, files and blocks (`search.grouping`), which
        reads every cited file's text: it stops at the next file once `should_stop` says so.
        Each file's facts come from the index that answers for it, as the lookups' do: on a
        team index, the team's for a file unchanged here, the local index's for one changed
        here, read in the team connection's turn."""
        return self._lookup(lambda ws: group(result.hits, partial(lookups.store_of, ws),
                                             result.files, checkpoint(should_stop)))

    # -- lookups by handle, name or place (`search.workspace_lookups`) ----------------------
    # On a team index, over it and the checkout's local index (`search.overlay`).

    def indexed(self) -> list[Indexed]:
        """The open folders as the lookups see them, in merge order."""
        return [Indexed(f.cited_root, f.index.store, self.view(f).searcher)
                for f in self.folders()]

    def _lookup(self, ask: Callable[[Workspace], T]) -> T:
        team = self._team_overlay()
        return team.lookup(ask) if team is not None else ask(self.indexed())

    def name_at(self, path: Path, line: int, col: int) -> str | None:
        return self._lookup(lambda ws: lookups.name_at(ws, path, line, col))

    def references(self, req: ReferencesRequest, should_stop: ShouldStop) -> SearchResult:
        """Raises InvalidQuery (StaleHandle for a stale handle)."""
        team = self._team_overlay()
        if team is not None:
            return team.references(req, should_stop)
        return self._unsearched(lookups.references(self.indexed(), req, should_stop))

    def references_at(self, path: Path, line: int, col: int, declaration: bool,
                      should_stop: ShouldStop) -> list[tuple[str, str, Span]]:
        """(root, path, span) of every ref of the name at a place, its definitions first when
        `declaration`: `textDocument/references`. Nothing outside an open folder or a name."""
        try:
            name = self.name_at(path, line, col)
        except InvalidQuery:
            return []
        if name is None:
            return []
        found = self.references(ReferencesRequest(name=name, k=MAX_K), should_stop)
        refs = [(h.root, h.path, h.span) for h in found.hits]
        return [*self.definitions(name, should_stop), *refs] if declaration else refs

    def definitions(self, name: str, should_stop: ShouldStop) -> list[tuple[str, str, Span]]:
        """(root, path, name span) of every definition of `name`."""
        return self._lookup(lambda ws: lookups.definitions(ws, name, should_stop))

    def describe_symbol(self, handle: str, should_stop: ShouldStop) -> SymbolInfo:
        return self._lookup(lambda ws: lookups.describe_symbol(ws, handle, should_stop))

    def context(self, req: ContextRequest, should_stop: ShouldStop) -> Context:
        return self._lookup(lambda ws: lookups.context(ws, req, should_stop))

    def similar(self, req: SimilarRequest, should_stop: ShouldStop) -> SearchResult:
        team = self._team_overlay()
        if team is not None:
            return team.similar(req, should_stop)
        return self._unsearched(lookups.similar(self.indexed(), req, should_stop))
