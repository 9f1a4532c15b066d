"""Shared fixtures: a real sample tree copied to a temp dir, and an index dir outside it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from kebab_lsp.workspace import Workspace, WorkspaceOptions

FIXTURES = Path(__file__).parent / "fixtures"


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
    ws = Workspace(sample_repo, WorkspaceOptions(index_dir=str(index_root), workers=1))
    ws.indexer.index()
    yield ws
    ws.close()
