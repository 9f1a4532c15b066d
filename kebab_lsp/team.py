"""A team index's repository and its searcher, wired for one-shot callers (`kebab search
--store URL --repo NAME`), as `workspace.py` wires a folder's local index; and for the server,
with the checkout's local changes overlaid (`TeamOverlay`).

The searcher is the one every index answers through, so query syntax, filters, snippets,
highlights, usages and recall meta are the same. Vectors come from the repository's dataset
under the `team_vectors` directory (`indexing.postgres.team_vectors`); without one, or when
what the store cannot do (raw FTS5) is asked for explicitly, the request fails with a reason.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from indexing.embed import Embedder
from indexing.indexer import Baseline
from indexing.postgres.store import PgStore, TeamStoreError
from indexing.postgres.team_vectors import TeamVectors
from indexing.settings import Settings
from indexing.store.catalog import FileState
from indexing.store_choice import TeamStore, safe_url
from indexing.vector_index import VectorIndex
from kebab_lsp.team_retry import RetryLater
from search import overlay
from search.engine import Searcher, VectorSource
from search.lookups import ReferencesRequest, SimilarRequest
from search.symbols import MatchResult, SymbolIndex, SymbolMatcher
from search.types import SearchRequest, SearchResult, SearchUnavailable
from search.workspace_lookups import Indexed, Workspace

T = TypeVar("T")

#: Why a team index answers no vector or hybrid request when no directory of vectors is named.
NO_TEAM_VECTORS = ("this team index is read without vectors: name the directory they are "
                   "in with --team-vectors DIR (the teamVectors setting), as `kebab index "
                   "--store URL --repo NAME --team-vectors DIR` writes them")


class _NoVectors:
    def __init__(self, reason: str = NO_TEAM_VECTORS) -> None:
        self.vector_error: str | None = reason

    def vector_index(self) -> VectorIndex | None:
        return None


class TeamStatus:
    """A team repository's building state, for the searcher's answers: building while a
    `kebab index` writes it (CI's run, a rebuild), since readers then see some files in their
    new state and some in their old. A team index is never partial."""

    incomplete: str | None = None

    def __init__(self, store: PgStore) -> None:
        self._store = store

    @property
    def building_anywhere(self) -> bool:
        return self._store.being_written()


def team_vectors(store: PgStore, vectors: Path | None, settings: Callable[[], Settings]
                 ) -> TeamVectors | _NoVectors:
    """Where a searcher of `store` gets its vectors: the dataset under `vectors`, read with
    the model the settings name (loaded on the first vector request), or none, saying why.
    The `embed` setting is not asked: it turns off computing this checkout's embeddings,
    while the team's were computed by the indexing job and only a query is embedded here."""
    if vectors is None:
        return _NoVectors()

    def embedder() -> Embedder:
        from indexing.location import model_cache_dir
        from indexing.runtime.folder_index import shared_embedder

        now = settings()
        return shared_embedder(now.model_dir, now.embed_threads,
                               model_cache_dir(now.index_dir))

    return TeamVectors(store, vectors, embedder)


class TeamWorkspace:
    """Repository `repo` of the team index at `url`, with its vectors under `vectors` when
    named. Hits cite paths relative to `root`, the checkout's root when there is one, else
    the repository's name as a folder: a team index is searched with no local checkout."""

    def __init__(self, url: str, repo: str, settings: Settings | None = None,
                 root: Path | None = None, vectors: Path | None = None) -> None:
        self.settings = settings or Settings()
        self.store = PgStore.open(url, repo)
        self.vectors = team_vectors(self.store, vectors, lambda: self.settings)
        self.cite_under(root or Path("/") / repo)

    def cite_under(self, root: Path) -> None:
        """Cite hits under `root` from now on: the checkout is found from the repository's
        paths, which are read over this connection, so it is known only once it is open."""
        self.root = root
        self.searcher = Searcher(root, self.store, vectors=self.vectors,
                                 status=TeamStatus(self.store), settings=lambda: self.settings)

    def close(self) -> None:
        if isinstance(self.vectors, TeamVectors):
            self.vectors.close()
        self.store.close()


class TeamOverlay:
    """The server's answer to `store`/`repo` settings: `kebab/search` over repository `repo`
    of the team index, the one open folder being its checkout, with the files changed in
    that checkout answered from its local index (`search.overlay`); `workspace/symbol` and
    the lookups by handle, name or place the same way.

    One connection, so one search at a time (the lock): the query pool's threads take turns
    on it. The changed files, and the matcher of their definitions, are worked out again only
    when either index's version moves; the team's matcher is rebuilt when its version moves
    (`PgStore` keeps no change log).

    The local index is partial: it holds only the files that differ from the team's copy.
    The team's hashes go to `on_baseline` (the runtime rescans by them) when first read and
    whenever the team's version moves (CI indexed a new commit). That is seen when a request
    comes in, as the changes are: no thread polls PostgreSQL. Until `settled()` says the
    rescan is done, the files whose team copy moved and that the local index does not hold
    are answered by neither index (`Changes.between`'s `unindexed`)."""

    def __init__(self, choice: TeamStore, root: Path, local_store: Any, status: Any,
                 settings: Callable[[], Settings],
                 local_vectors: VectorSource | None = None,
                 on_baseline: Callable[[Baseline], None] = lambda baseline: None,
                 settled: Callable[[], bool] = lambda: True) -> None:
        self.choice = choice
        #: The team index, as a partial local index records it: no credentials.
        self.source = f"{safe_url(choice.url)} {choice.repo}"
        self._on_baseline = on_baseline
        self._settled = settled
        self._team_states: tuple[int, dict[str, FileState]] | None = None
        self._moved: frozenset[str] = frozenset()
        self.root = root
        self._settings = settings
        self._local_store = local_store
        self._local_status = status
        self.store = PgStore.open(choice.url, choice.repo)
        self.vectors = team_vectors(self.store, choice.vectors, settings)
        self.team = Searcher(root, self.store, vectors=self.vectors,
                             status=TeamStatus(self.store), settings=settings)
        # With the team's vectors, the files changed here are searched by the folder's own
        # (`local_vectors`, narrowed to them); without, lexically, as the team side is.
        local = local_vectors if choice.vectors is not None and local_vectors else _NoVectors()
        self.local = Searcher(root, local_store, vectors=local, status=status,
                              settings=settings)
        self.team_symbols = SymbolIndex(self.store)
        self._team_side = Indexed(root, self.store, self.team)
        self._local_side = Indexed(root, local_store, self.local)
        self._lock = threading.Lock()
        self._retry = RetryLater()
        self._changes: tuple[tuple[int, int], overlay.Changes] | None = None
        self._changed_symbols: tuple[tuple[int, int], SymbolMatcher] | None = None

    def _team_now(self) -> tuple[int, dict[str, FileState]]:
        """The team's version and file states; a new version is a new baseline for the
        local index, and its moved files are unindexed until the rescan is done."""
        version = self.store.lexical_version()
        known = self._team_states
        if known is None or known[0] != version:
            states = self.store.file_states()
            if known is not None:
                old = known[1]
                self._moved |= {p for p in old.keys() | states.keys()
                                if (p in old and old[p].hash) != (p in states and states[p].hash)}
            self._team_states = known = (version, states)
            self._on_baseline(Baseline(self.source, {p: s.hash for p, s in states.items()}))
        elif self._moved and self._settled():
            self._moved, self._changes = frozenset(), None
        return known

    def _current_changes(self) -> tuple[tuple[int, int], overlay.Changes]:
        """(both indexes' versions, the changes between them at those versions)."""
        team_version, team_states = self._team_now()
        key = (self._local_store.lexical_version(), team_version)
        if self._changes is None or self._changes[0] != key:
            self._changes = (key, overlay.Changes.between(
                self._local_store.file_states(), team_states,
                lambda path: (self.root / path).is_file(), self._moved))
        return self._changes

    def _answer(self, work: Callable[[tuple[int, int], overlay.Changes], T]) -> T:
        """`work` on the current changes, in the connection's turn. A team index that fails
        is a search that is unavailable, saying why; when its connection broke (the
        database restarted), `work` is tried once more on a new one, so the first request
        after a restart is answered, not failed. When the new one cannot be opened either,
        the next requests fail at once until a retry is due (`team_retry`)."""
        with self._lock:
            self._retry.check()  # down a moment ago: not waited for again before it is due
            for attempt in (1, 2):
                try:
                    answer = work(*self._current_changes())
                    self._retry.clear()
                    return answer
                except TeamStoreError as exc:
                    try:
                        again = attempt == 1 and self.store.reconnect()
                    except TeamStoreError as down:  # still down: say that
                        self._retry.failed(str(down))
                        raise SearchUnavailable(str(down)) from exc
                    if not again:
                        raise SearchUnavailable(str(exc)) from exc
        raise AssertionError("unreachable")

    def refresh(self) -> None:
        """Read the team's version now (and hand on its baseline): at start-up, so the
        checkout's first scan already leaves the team's files to it."""
        self._answer(lambda key, changes: None)

    def symbols(self, query: str, limit: int) -> MatchResult:
        def work(key: tuple[int, int], changes: overlay.Changes) -> MatchResult:
            if self._changed_symbols is None or self._changed_symbols[0] != key:
                self._changed_symbols = (key, SymbolMatcher(
                    self._local_store.symbols_in(changes.here)))
            return overlay.symbols(self.team_symbols.current(), self._changed_symbols[1],
                                   changes, query, limit)
        return self._answer(work)

    def _told(self, result: SearchResult) -> SearchResult:
        """`result`, incomplete while this checkout's own index is still being built."""
        building = self._local_status is not None and self._local_status.building_anywhere
        return overlay.scanning_here(result) if building else result

    def search(self, req: SearchRequest, should_stop: Callable[[], bool]) -> SearchResult:
        return self._told(self._answer(lambda _, changes: overlay.search(
            self.team, self.local, changes, req, self._settings().rrf_k, should_stop,
            self.choice.repo)))

    def lookup(self, ask: Callable[[Workspace], T]) -> T:
        """`ask` (a lookup of `search.workspace_lookups`) over the two indexes, each
        answering for its part of the checkout."""
        return self._answer(lambda _, changes: ask(
            changes.split(self._team_side, self._local_side)))

    def references(self, req: ReferencesRequest, should_stop: Callable[[], bool]
                   ) -> SearchResult:
        return self._told(self._answer(lambda _, changes: overlay.references(
            self._team_side, self._local_side, changes, req, should_stop, self.choice.repo)))

    def similar(self, req: SimilarRequest, should_stop: Callable[[], bool]) -> SearchResult:
        return self._told(self._answer(lambda _, changes: overlay.similar(
            self._team_side, self._local_side, changes, req, self._settings().rrf_k,
            should_stop, self.choice.repo)))

    def close(self) -> None:
        with self._lock:
            if isinstance(self.vectors, TeamVectors):
                self.vectors.close()
            self.store.close()
