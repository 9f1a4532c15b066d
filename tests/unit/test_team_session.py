"""The server's session on a team index (`Session` over `TeamOverlay`), in process, on a real
PostgreSQL server: what reaches the handlers beyond a flat search."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.postgres_server import OWNER, PgCluster
from indexing.postgres.team_index import index_repository
from indexing.runtime import SilentListener
from indexing.settings import Settings
from kebab_lsp.session import Session
from search.types import SearchRequest

pytestmark = pytest.mark.postgres

FIXTURES = Path(__file__).parent.parent / "fixtures"
REPO = "acme/app"


@pytest.fixture
def checkout(tmp_path: Path, pg_cluster: PgCluster, pg_database: str
             ) -> Iterator[tuple[Session, Path]]:
    """The sample tree indexed by CI into the team index, and a session on its checkout,
    scanned against it: its local index holds only what differs."""
    url = pg_cluster.url(pg_database, OWNER)
    ci = tmp_path / "ci"
    shutil.copytree(FIXTURES / "sample_repo", ci)
    index_repository(ci, url, REPO, Settings(workers=1, embed=False))
    root = tmp_path / "checkout"
    shutil.copytree(ci, root)
    session = Session(SilentListener())
    session.configure({"indexDir": str(tmp_path / "idx"), "workers": 1, "embed": False,
                       "store": url, "repo": REPO})
    try:
        session.open_folder(root.as_uri(), "checkout", root)
        assert session.prepare_team() is None
        session.runtime.start()
        assert session.runtime.wait_idle(60)
        yield session, root
    finally:
        session.close()
        session.writership.close()


def never() -> bool:
    return False


def test_a_grouped_answer_reads_each_files_facts_from_the_index_that_answered_it(
        checkout: tuple[Session, Path]) -> None:
    """Grouped, a hit of a file unchanged here is described by the team index (the local
    index does not hold it), and one of a file changed here by the local index's version."""
    session, root = checkout
    store = root / "src/users/store.py"
    store.write_text(store.read_text() + "\n\ndef archive_user(user_id):\n    return user_id\n")
    session.runtime.changed([store])
    assert session.runtime.wait_idle(60)
    result = session.search(SearchRequest("user", mode="lexical", k=50), never)
    assert result.meta.index["team"]["overlay_files"] == 1
    cited = {h.path for h in result.hits}
    assert {"src/users/store.py", "web/api.ts"} <= cited
    grouped = session.group(result, never)
    rows = {row.path: row for row in grouped.files}
    assert set(rows) == cited  # every cited file has its row
    assert "archive_user" in [s.name for _, s in rows["src/users/store.py"].defines]
    assert rows["web/api.ts"].lang == "typescript" and rows["web/api.ts"].defines
