"""A small tree of files, indexed and embedded: the workspace the vector surface tests ask."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from indexing.settings import Settings
from kebab_lsp.workspace import Workspace


def synced_workspace(tmp_path: Path, tree: dict[str, str]) -> Iterator[Workspace]:
    """`tree` (relative path -> text) under `tmp_path`/repo, indexed with vectors synced, and
    closed after: a fixture yields from it."""
    root = tmp_path / "repo"
    for rel, text in tree.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    ws.indexer.index()
    try:
        assert ws.sync_vectors() is not None
        yield ws
    finally:
        ws.close()
