"""Refs in the store: written with their file, replaced when it changes, gone when it goes,
kept (under the new path) when it is renamed."""

from __future__ import annotations

import os

from indexing.filters import Filters
from kebab_lsp.workspace import Workspace


def refs_of(ws: Workspace, name: str) -> list[tuple[str, str, int, int, str | None]]:
    keys = ws.store.ref_keys(name, Filters())
    rows = ws.store.refs_by_rowid([k.rowid for k in keys])
    out = []
    for key in keys:
        row = rows[key.rowid]
        out.append((row.path, row.kind, row.span.start_line, row.span.start_col,
                    row.symbol.qualified_name if row.symbol else None))
    return sorted(out)


def test_refs_of_a_name_with_their_definitions(workspace: Workspace) -> None:
    assert refs_of(workspace, "UserStore") == [
        ("tests/test_store.py", "call", 4, 12, "test_get_user_by_id"),
        ("tests/test_store.py", "import", 0, 24, None),
    ]
    assert refs_of(workspace, "add_user") == [
        ("tests/test_store.py", "call", 5, 10, "test_get_user_by_id")]
    assert workspace.store.ref_counts("MAX_USERS") == {"identifier": 1}
    row = workspace.store.refs_by_rowid(
        [workspace.store.ref_keys("add_user", Filters())[0].rowid])
    assert next(iter(row.values())).receiver == "store"
    only_go = workspace.store.ref_keys("UserStore", Filters(langs=("go",)))
    assert only_go == []


def test_refs_follow_their_file(workspace: Workspace) -> None:
    test_file = workspace.root / "tests/test_store.py"
    test_file.write_text(test_file.read_text().replace("store.add_user(1, \"ada\")\n", ""))
    workspace.indexer.index()
    assert refs_of(workspace, "add_user") == []
    assert [r[1] for r in refs_of(workspace, "UserStore")] == ["call", "import"]

    os.rename(test_file, workspace.root / "tests/test_users.py")
    workspace.indexer.index()
    assert {r[0] for r in refs_of(workspace, "UserStore")} == {"tests/test_users.py"}

    (workspace.root / "tests/test_users.py").unlink()
    workspace.indexer.index()
    assert refs_of(workspace, "UserStore") == []
    assert workspace.store.conn.execute("SELECT count(*) FROM refs r LEFT JOIN files f "
                                        "ON f.id = r.file_id WHERE f.id IS NULL"
                                        ).fetchone()[0] == 0
