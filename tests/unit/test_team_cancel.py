"""A cancelled exact search on a team index stops inside the store's read of the matching
files, as on SQLite (test_cancel_in_loops.py): the matching files' texts come from PostgreSQL
a batch at a time, and a request given up on leaves the rest unsent rather than fetching every
file's text before its first check."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import psycopg
import pytest
from test_cancel_in_loops import COMMON, FILES, StopAt, shared_name_tree

from bench.postgres_server import OWNER, PgCluster
from indexing.postgres import store as pg_store
from indexing.postgres.team_index import index_repository
from indexing.settings import Settings
from indexing.store import StoreInterrupted
from kebab_lsp.team import TeamWorkspace
from search import workspace_lookups as lookups
from search.engine import Cancelled
from search.lookups import ReferencesRequest
from search.types import SearchRequest
from search.workspace_lookups import Indexed

pytestmark = pytest.mark.postgres

SETTINGS = Settings(workers=1, embed=False)


@pytest.fixture
def team(tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> Iterator[TeamWorkspace]:
    root = shared_name_tree(tmp_path / "repo")
    url = pg_cluster.url(pg_database, OWNER)
    index_repository(root, url, "repo", SETTINGS)
    workspace = TeamWorkspace(url, "repo", SETTINGS)
    yield workspace
    workspace.close()


class FetchedRows:
    """The rows the store's statements brought back from PostgreSQL that hold a file's text
    (path, lang, text): what crossed the wire, whatever the store's batches say."""

    def __init__(self, team: TeamWorkspace, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts = 0
        execute = team.store.execute

        def counting(query: str, params: Sequence[Any] | None = None
                     ) -> psycopg.Cursor[Any]:
            cursor = execute(query, params)
            if "f.text LIKE" in str(query) or "text FROM kebab.files" in str(query):
                rows = cursor.fetchall() if cursor.description else []
                self.texts += sum(1 for r in rows if len(r) == 3)
                return _Rows(rows)  # type: ignore[return-value]
            return cursor

        monkeypatch.setattr(team.store, "execute", counting)


class _Rows:
    """Rows already fetched, read again as the cursor they came from."""

    def __init__(self, rows: list[Any]) -> None:
        self.rows = rows

    def fetchall(self) -> list[Any]:
        return self.rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self.rows)


def test_a_team_search_cancelled_while_reading_matches_stops_there(
        team: TeamWorkspace, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pg_store, "EXACT_BATCH", 10)  # 10 stand for 500, 60 for thousands
    req = SearchRequest('"shared_name_"', mode="lexical", k=50)
    whole = team.searcher.search(req)
    assert whole.meta.total_matches == FILES and len(whole.hits) == 50
    fetched = FetchedRows(team, monkeypatch)
    assert [h.path for h in team.searcher.search(req).hits] == [h.path for h in whole.hits]
    assert fetched.texts == FILES

    fetched.texts = 0
    stop = StopAt(2)  # given up on while the third batch is due
    with pytest.raises(Cancelled) as caught:
        team.searcher.search(req, should_stop=stop)
    assert fetched.texts == 20  # two batches sent, not all 60
    assert stop.calls == 2
    assert str(caught.value) == ("exact text, reading the files that hold it on the team "
                                 f"index (20 of {FILES} done)")
    # The read's transaction is over: the store answers the next request.
    assert team.searcher.search(req).meta.total_matches == FILES


def test_team_references_cancelled_between_their_reads_stop_there(
        team: TeamWorkspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """The refs of a common name on a team index: a request given up on once they are
    listed sends none of the statements that read their rows, chunks and texts. (PostgreSQL
    is not asked to stop a statement under way: `PgStore.reading`.)"""
    folder = [Indexed(team.root, team.store, team.searcher)]
    req = ReferencesRequest(name=COMMON, k=50)
    assert len(lookups.references(folder, req, StopAt(10**9)).hits) == 50
    sent: list[str] = []
    execute = team.store.execute

    def recording(query: str, params: Sequence[Any] | None = None) -> psycopg.Cursor[Any]:
        sent.append(str(query))
        return execute(query, params)

    monkeypatch.setattr(team.store, "execute", recording)
    stop = StopAt(2)  # 1: before the folder; 2: once the refs are listed
    with pytest.raises(Cancelled) as caught:
        lookups.references(folder, req, stop)
    assert (stop.calls, str(caught.value)) == (
        2, "usages, reading the rows of the refs shown (0 of 50 done)")
    assert any("r.name = %s" in q for q in sent)  # the refs were listed
    assert not any("r.id = ANY" in q or "kebab.chunks" in q for q in sent), sent
    # The read's transaction is over: the store answers the next request.
    assert len(lookups.references(folder, req, StopAt(10**9)).hits) == 50


def test_a_team_read_cancelled_inside_a_statement_stops_it_on_the_server(
        team: TeamWorkspace, pg_cluster: PgCluster, pg_database: str) -> None:
    """A statement gives no callback to ask between its steps, as SQLite's does: the server is
    sent a cancel request, the read raises StoreInterrupted (a search turns it into
    Cancelled), the statement is gone from the server, and the connection serves the next
    read."""
    stop = threading.Event()
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    with pytest.raises(StoreInterrupted, match="stopped inside a statement"), \
            team.store.reading(stop.is_set):
        team.store.execute("SELECT pg_sleep(120)")
    timer.join()
    with psycopg.connect(pg_cluster.url(pg_database, OWNER)) as other:
        running = other.execute("SELECT count(*) FROM pg_stat_activity "
                                "WHERE query LIKE 'SELECT pg_sleep%%' AND state = 'active'"
                                ).fetchone()
    assert running == (0,)
    with team.store.reading(lambda: False):
        assert team.store.stats().files == FILES
    # A read whose caller never gives up is left alone.
    with team.store.reading(lambda: False):
        assert team.store.execute("SELECT pg_sleep(0.2), 1").fetchone() == ("", 1)
