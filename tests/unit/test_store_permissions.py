"""Who may read an index (issue 10): it holds the text of every indexed file, so the index
folder (and any folder created on the way to it, a fresh cache root included) is 0700 and
every file in it 0600, LanceDB's included; an index an older version made wider is narrowed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest
from durability_support import make_tree

from indexing.settings import Settings
from indexing.store import Store
from indexing.vectors import VectorRow, VectorStore
from kebab_lsp.workspace import Workspace


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.slow
def test_index_folders_are_0700_and_files_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        root = make_tree(tmp_path / "tree", files=3, defs=2)
        cache = tmp_path / "fresh" / "cache"  # neither exists yet
        ws = Workspace(root, Settings(index_dir=str(cache), workers=1, embed=False))
        ws.indexer.index()
        vectors = VectorStore(ws.index_dir / "vectors", 4)
        for i in range(3):
            vectors.upsert([VectorRow(f"c{i}", "code", "p", "py", "function", "h",
                                      np.ones(4, dtype=np.float32))])
        ws.close()
    finally:
        os.umask(old)
    assert _mode(tmp_path / "fresh") == 0o700 and _mode(cache) == 0o700
    everything = [ws.index_dir, *ws.index_dir.rglob("*")]
    assert len(everything) > 8  # the database, its WAL files, the vector table's files
    wrong = {str(p): oct(_mode(p)) for p in everything
             if _mode(p) != (0o700 if p.is_dir() else 0o600)}
    assert wrong == {}


def test_an_index_made_world_readable_is_narrowed(tmp_path: Path) -> None:
    store = Store(tmp_path / "idx")
    store.close()
    os.chmod(tmp_path / "idx", 0o755)
    for p in (tmp_path / "idx").iterdir():
        os.chmod(p, 0o644)
    store = Store(tmp_path / "idx")
    store.stats()
    assert _mode(tmp_path / "idx") == 0o700
    assert {_mode(p) for p in (tmp_path / "idx").iterdir()} == {0o600}
    store.close()
