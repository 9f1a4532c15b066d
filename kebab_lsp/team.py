"""A team index's repository and its searcher, wired for one-shot callers (`kebab search
--store URL --repo NAME`), as `workspace.py` wires a folder's local index; and for the server,
with the checkout's local changes overlaid (`TeamOverlay`).

The searcher is the one every index answers through, so query syntax, filters, snippets,
highlights, usages and recall meta are the same; what the PostgreSQL store cannot do (vectors,
raw FTS5) fails with a reason when asked for explicitly.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from indexing.postgres.store import PgStore, TeamStoreError
from indexing.settings import Settings
from indexing.store_choice import TeamStore
from indexing.vector_index import VectorIndex
from search import overlay
from search.engine import Searcher
from search.types import SearchRequest, SearchResult, SearchUnavailable

#: Why a team index answers no vector or hybrid request (yet).
NO_TEAM_VECTORS = ("a team index on PostgreSQL holds no vectors yet (vectors in LanceDB at a "
                   "shared URI are not built)")


class _NoVectors:
    vector_error: str | None = NO_TEAM_VECTORS

    def vector_index(self) -> VectorIndex | None:
        return None


class TeamWorkspace:
    """Repository `repo` of the team index at `url`. Hits cite paths relative to `root`, the
    checkout's root when there is one, else the repository's name as a folder: a team index
    is searched with no local checkout."""

    def __init__(self, url: str, repo: str, settings: Settings | None = None,
                 root: Path | None = None) -> None:
        self.settings = settings or Settings()
        self.store = PgStore.open(url, repo)
        self.root = root or Path("/") / repo
        self.searcher = Searcher(self.root, self.store, vectors=_NoVectors(),
                                 settings=lambda: self.settings)

    def close(self) -> None:
        self.store.close()


class TeamOverlay:
    """The server's answer to `store`/`repo` settings: `kebab/search` over repository `repo`
    of the team index, the one open folder being its checkout, with the files changed in
    that checkout answered from its local index (`search.overlay`).

    One connection, so one search at a time (the lock): the query pool's threads take turns
    on it. The changed files are worked out again only when either index's version moves."""

    def __init__(self, choice: TeamStore, root: Path, local_store: Any, status: Any,
                 settings: Callable[[], Settings]) -> None:
        self.choice = choice
        self.root = root
        self._settings = settings
        self._local_store = local_store
        self.store = PgStore.open(choice.url, choice.repo)
        self.team = Searcher(root, self.store, vectors=_NoVectors(), settings=settings)
        # The local side answers lexically too: the team side has no vectors, and the local
        # vector prefilter does not narrow to the changed files.
        self.local = Searcher(root, local_store, vectors=_NoVectors(), status=status,
                              settings=settings)
        self._lock = threading.Lock()
        self._changes: tuple[tuple[int, int], overlay.Changes] | None = None

    def _current_changes(self) -> overlay.Changes:
        key = (self._local_store.lexical_version(), self.store.lexical_version())
        if self._changes is None or self._changes[0] != key:
            self._changes = (key, overlay.Changes.between(
                self._local_store.file_states(), self.store.file_states(),
                lambda path: (self.root / path).is_file()))
        return self._changes[1]

    def search(self, req: SearchRequest, should_stop: Callable[[], bool]) -> SearchResult:
        with self._lock:
            try:
                return overlay.search(self.team, self.local, self._current_changes(), req,
                                      self._settings().rrf_k, should_stop, self.choice.repo)
            except TeamStoreError as exc:
                raise SearchUnavailable(str(exc)) from exc

    def close(self) -> None:
        with self._lock:
            self.store.close()
