"""A team index's repository and its searcher, wired for one-shot callers (`kebab search
--store URL --repo NAME`), as `workspace.py` wires a folder's local index.

The searcher is the one every index answers through, so query syntax, filters, snippets,
highlights, usages and recall meta are the same; what the PostgreSQL store cannot do (vectors,
raw FTS5) fails with a reason when asked for explicitly.
"""

from __future__ import annotations

from pathlib import Path

from indexing.postgres.store import PgStore
from indexing.settings import Settings
from indexing.vector_index import VectorIndex
from search.engine import Searcher

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
