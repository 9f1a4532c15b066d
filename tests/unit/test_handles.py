"""Stable handles: they resolve while their file is unchanged, and never to another entity."""

from __future__ import annotations

import pytest

from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search import handles
from search.request import build
from search.types import InvalidQuery


def test_handles_resolve_until_their_file_changes(workspace: Workspace) -> None:
    hit = workspace.searcher.search(build("add_user", Settings(), mode="lexical")).hits[0]
    assert hit.symbol_id is not None and hit.symbol == "add_user"
    found = handles.resolve_symbol(workspace.store, hit.symbol_id)
    assert found is not None and found.symbol.qualified_name == "UserStore.add_user"
    assert handles.resolve_file(workspace.store, hit.file_id) is not None
    assert handles.resolve_chunk(workspace.store, hit.chunk_id) is not None

    # Another file's row with this file's digest (or the reverse) resolves to nothing.
    other = workspace.store.file_by_path("web/api.ts")
    assert other is not None
    _, ord_, digest = handles.check_symbol_handle(hit.symbol_id)
    assert handles.resolve_symbol(workspace.store, f"S{other.rowid}.{ord_}.{digest}") is None

    path = workspace.root / "src/users/store.py"
    path.write_text("# moved down a line\n" + path.read_text())
    workspace.indexer.index()
    assert handles.resolve_symbol(workspace.store, hit.symbol_id) is None
    assert handles.resolve_file(workspace.store, hit.file_id) is None
    assert handles.resolve_chunk(workspace.store, hit.chunk_id) is None
    fresh = workspace.searcher.search(build("add_user", Settings(), mode="lexical")).hits[0]
    assert fresh.symbol_id != hit.symbol_id
    assert handles.resolve_symbol(workspace.store, fresh.symbol_id or "") is not None
    assert "is stale" in str(handles.stale("symbol", hit.symbol_id))


@pytest.mark.parametrize("bad", ["", "S1.2", "S1.2.xyz", "F1.0123456789", 12, None])
def test_malformed_symbol_handles_are_refused(bad: object) -> None:
    with pytest.raises(InvalidQuery, match="must be a symbol handle"):
        handles.check_symbol_handle(bad)
