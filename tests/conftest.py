"""Shared fixtures: a real sample tree copied to a temp dir, an index dir outside it, and a
real PostgreSQL server for the team-index tests."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.postgres_server import PgCluster, find_bin_dir
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace

FIXTURES = Path(__file__).parent / "fixtures"
OFFLINE_GUARD = Path(__file__).parent / "offline_guard"


REPO = Path(__file__).parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """Block the network for this process and every Python subprocess the tests start, and
    make those subprocesses run this checkout's code (a second worktree's, say), not whatever
    an editable install points at."""
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(OFFLINE_GUARD), str(REPO), os.environ.get("PYTHONPATH")) if p)
    os.environ["HF_HUB_OFFLINE"] = "1"
    sys.path.insert(0, str(OFFLINE_GUARD))
    import sitecustomize  # noqa: F401  (the guard installs itself on import)


#: Markers by directory: every test there is of that kind (unit modules mark themselves).
_DIRECTORY_MARKS = {"e2e": ("slow", "subprocess"), "editors": ("slow", "subprocess", "editor")}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for marker in _DIRECTORY_MARKS.get(item.path.parent.name, ()):
            item.add_marker(marker)


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "sample_repo", root)
    return root


@pytest.fixture
def index_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "index-cache"
    monkeypatch.setenv("KEBAB_INDEX_DIR", str(path))
    return path


@pytest.fixture
def workspace(sample_repo: Path, index_root: Path) -> Iterator[Workspace]:
    ws = Workspace(sample_repo, Settings(index_dir=str(index_root), workers=1))
    ws.indexer.index()
    yield ws
    ws.close()


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """One real PostgreSQL server for the session (`tests/postgres_support.py`)."""
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.fail("PostgreSQL is not installed (`make tools` installs it): the tests marked "
                    "postgres need /usr/lib/postgresql/*/bin/initdb")
    cluster = PgCluster(bin_dir)
    cluster.start()
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_database(pg_cluster: PgCluster) -> str:
    """A fresh database of that server, owned by the indexing role."""
    return pg_cluster.new_database()
