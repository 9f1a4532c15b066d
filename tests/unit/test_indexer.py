"""Incremental indexing by content hash, renames, deletions, skips, and store recovery."""

from __future__ import annotations

import os
import time
from pathlib import Path

import apsw
import pytest

from indexing.records import Span
from indexing.schema import EMBED_CACHE_KEPT_SINCE, SCHEMA_VERSION
from indexing.settings import Settings
from indexing.store import Store
from indexing.store.carry import CARRY_NAME
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest


def symbols_of(ws: Workspace, path: str) -> list[str]:
    return [r.symbol.qualified_name for r in ws.store.all_symbols() if r.path == path]


def test_first_index_counts(workspace: Workspace) -> None:
    stats = workspace.store.stats()
    assert stats.files == 6
    assert stats.langs == {"go": 1, "markdown": 1, "python": 2, "txt": 1, "typescript": 1}
    assert "UserStore.get_user_by_id" in symbols_of(workspace, "src/users/store.py")


def test_second_index_reparses_nothing(workspace: Workspace) -> None:
    summary = workspace.indexer.index()
    assert (summary.scanned, summary.unchanged, summary.new, summary.changed) == (6, 6, 0, 0)
    assert summary.written_paths == []


def test_touched_but_unchanged_file_is_not_rewritten(workspace: Workspace) -> None:
    path = workspace.root / "web/api.ts"
    future = time.time() + 10
    os.utime(path, (future, future))
    summary = workspace.indexer.index()
    assert summary.unchanged == 6 and summary.written_paths == []
    again = workspace.indexer.index()  # the new mtime was recorded: not even hashed now
    assert again.unchanged == 6


def chunk_ids(workspace: Workspace, path: str) -> set[str]:
    return {r[0] for r in workspace.store.conn.execute(
        "SELECT c.chunk_id FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path=?",
        (path,))}


def test_changed_file_rows_are_replaced(workspace: Workspace) -> None:
    path = workspace.root / "src/users/store.py"
    old_ids = chunk_ids(workspace, "src/users/store.py")
    path.write_text(path.read_text().replace("def add_user", "def insert_user"))
    summary = workspace.indexer.index()
    assert (summary.changed, summary.unchanged) == (1, 5)
    assert summary.written_paths == ["src/users/store.py"]
    names = symbols_of(workspace, "src/users/store.py")
    assert "UserStore.insert_user" in names and "UserStore.add_user" not in names
    new_ids = chunk_ids(workspace, "src/users/store.py")
    assert old_ids - new_ids  # the changed chunk's old row is gone


def test_deleted_file_rows_go(workspace: Workspace) -> None:
    (workspace.root / "server/handler.go").unlink()
    summary = workspace.indexer.index()
    assert summary.deleted == 1
    assert symbols_of(workspace, "server/handler.go") == []
    assert workspace.store.stats().files == 5


def test_rename_moves_rows_without_extraction(workspace: Workspace) -> None:
    before = {r.symbol.qualified_name for r in workspace.store.all_symbols()
              if r.path == "web/api.ts"}
    old_ids = chunk_ids(workspace, "web/api.ts")
    os.rename(workspace.root / "web/api.ts", workspace.root / "web/client.ts")
    summary = workspace.indexer.index()
    assert (summary.renamed, summary.new, summary.deleted) == (1, 0, 0)
    assert summary.written_paths == []
    assert set(symbols_of(workspace, "web/client.ts")) == before
    hit = workspace.searcher.search(SearchRequest("getUserById")).hits[0]
    assert hit.path == "web/client.ts"
    new_ids = chunk_ids(workspace, "web/client.ts")  # ids derive from the path
    assert new_ids and len(new_ids) == len(old_ids) and not new_ids & old_ids


def file_row(ws: Workspace, path: str) -> tuple[str, int] | None:
    row = ws.store.conn.execute("SELECT lang, is_test FROM files WHERE path=?",
                                (path,)).fetchone()
    return None if row is None else (row[0], row[1])


def test_a_rename_is_read_again_where_the_new_path_reads_it_otherwise(
        workspace: Workspace) -> None:
    """Equal content at a path of another language (or test-ness) is not a rename: the moved
    rows would keep the old reading (hypothesis found `soup.md` then `soup.py`, both
    "#  soupneedle ", cited at the Markdown heading's span)."""
    root = workspace.root
    text = "#  soupneedle \n"
    (root / "soup.md").write_text(text)
    workspace.indexer.index()
    assert file_row(workspace, "soup.md") == ("markdown", 0)
    assert symbols_of(workspace, "soup.md") == ["soupneedle"]
    os.rename(root / "soup.md", root / "soup.py")
    summary = workspace.indexer.index()
    assert (summary.renamed, summary.new, summary.deleted) == (0, 1, 1)
    assert file_row(workspace, "soup.py") == ("python", 0)
    assert symbols_of(workspace, "soup.py") == []  # a comment, not a heading
    hits = workspace.searcher.search(SearchRequest("soupneedle", mode="lexical")).hits
    assert [(h.path, h.span) for h in hits] == [("soup.py", Span(0, 3, 0, 13))]
    # Into a test folder: same language, but its rows would still say it is no test.
    os.rename(root / "soup.py", root / "tests/soup.py")
    summary = workspace.indexer.index()
    assert (summary.renamed, summary.new, summary.deleted) == (0, 1, 1)
    assert file_row(workspace, "tests/soup.py") == ("python", 1)
    # A client's rename is held to the same rule.
    os.rename(root / "tests/soup.py", root / "soup.md")
    workspace.indexer.rename_path(root / "tests/soup.py", root / "soup.md")
    assert file_row(workspace, "tests/soup.py") is None
    assert file_row(workspace, "soup.md") == ("markdown", 0)
    assert symbols_of(workspace, "soup.md") == ["soupneedle"]
    # Where the reading is the same, rows still move without extraction.
    os.rename(root / "soup.md", root / "docs/soup.md")
    summary = workspace.indexer.index()
    assert (summary.renamed, summary.new, summary.deleted) == (1, 0, 0)
    assert symbols_of(workspace, "docs/soup.md") == ["soupneedle"]


def test_update_paths_for_saved_and_vanished_files(workspace: Workspace) -> None:
    path = workspace.root / "web/api.ts"
    same = workspace.indexer.update_paths([path])
    assert same.unchanged == 1 and same.written_paths == []
    path.write_text(path.read_text() + "\nexport function retryLimit(): number { return 3; }\n")
    changed = workspace.indexer.update_paths([path])
    assert changed.written_paths == ["web/api.ts"]
    assert "retryLimit" in symbols_of(workspace, "web/api.ts")
    path.unlink()
    gone = workspace.indexer.update_paths([path])
    assert gone.deleted == 1 and symbols_of(workspace, "web/api.ts") == []


def test_binary_and_broken_links_are_counted(sample_repo: Path, index_root: Path) -> None:
    (sample_repo / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    os.symlink(sample_repo / "missing.py", sample_repo / "dangling.py")
    ws = Workspace(sample_repo)
    summary = ws.indexer.index()
    assert summary.skipped_by_reason == {"binary": 1, "unreadable": 1}
    assert sorted(summary.skipped_paths) == [("dangling.py", "unreadable"),
                                             ("image.png", "binary")]
    assert summary.as_json()["skipped"] == 2
    ws.close()


def test_other_schema_version_is_rebuilt(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.set_meta("schema_version", str(SCHEMA_VERSION - 1))
    store.close()
    reopened = Store(tmp_path)
    assert reopened.rebuilt_reason and "rebuilding" in reopened.rebuilt_reason
    assert reopened.meta_value("schema_version") == str(SCHEMA_VERSION)


@pytest.mark.parametrize("version", [EMBED_CACHE_KEPT_SINCE, SCHEMA_VERSION - 1])
def test_a_schema_bump_keeps_the_cached_vectors(tmp_path: Path, version: int) -> None:
    vector = bytes(range(16))
    store = Store(tmp_path)
    store.cache_vectors("some-model:4d", [("hash-a", vector), ("hash-b", vector[::-1])])
    store.set_meta("schema_version", str(version))
    store.close()
    reopened = Store(tmp_path)
    assert reopened.rebuilt_reason is not None
    assert reopened.rebuilt_reason.endswith("rebuilding (its 2 cached vectors are kept)")
    assert reopened.meta_value("schema_version") == str(SCHEMA_VERSION)
    assert reopened.cached_vectors("some-model:4d", ["hash-a", "hash-b", "hash-c"]) == {
        "hash-a": vector, "hash-b": vector[::-1]}
    assert [p.name for p in tmp_path.iterdir() if "carry" in p.name] == []
    reopened.close()

    # An index from before the cache had its present form keeps nothing.
    again = Store(tmp_path)
    again.set_meta("schema_version", str(EMBED_CACHE_KEPT_SINCE - 1))
    again.close()
    older = Store(tmp_path)
    assert older.rebuilt_reason is not None and "kept" not in older.rebuilt_reason
    assert older.cached_vectors("some-model:4d", ["hash-a"]) == {}
    older.close()


def test_a_carry_left_by_a_crash_is_deleted(tmp_path: Path) -> None:
    Store(tmp_path).close()
    (tmp_path / CARRY_NAME).write_bytes(b"left over")
    Store(tmp_path).close()
    assert not (tmp_path / CARRY_NAME).exists()


def test_corrupt_index_is_rebuilt(tmp_path: Path) -> None:
    (tmp_path / "index.sqlite3").write_bytes(b"this is not a database" * 100)
    store = Store(tmp_path)
    assert store.rebuilt_reason and "unreadable" in store.rebuilt_reason
    assert store.stats().files == 0


def test_index_lives_outside_the_workspace(workspace: Workspace, index_root: Path) -> None:
    assert workspace.index_dir.parent == index_root
    assert not any(p.name.endswith(".sqlite3") for p in workspace.root.rglob("*"))
    conn = apsw.Connection(str(workspace.index_dir / "index.sqlite3"))
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_scan_is_a_job_its_owner_steps_and_can_stop(sample_repo: Path, index_root: Path) -> None:
    """The first step walks the tree, each later one commits at most one batch; a cancelled
    scan keeps what it committed, and the next scan (incremental) finishes the rest."""
    from indexing import indexer as indexer_module

    for i in range(5):
        (sample_repo / f"gen_{i}.py").write_text(f"def generated_{i}():\n    return {i}\n")
    ws = Workspace(sample_repo, Settings(index_dir=str(index_root), workers=1))
    batch, indexer_module.BATCH_FILES = indexer_module.BATCH_FILES, 4
    try:
        job = ws.indexer.scan()
        assert job.progress == (0, 0)
        assert job.step() and job.progress == (0, 0)  # walked, nothing read yet
        assert job.step() and job.progress == (0, 11)  # planned, nothing written yet
        assert job.step() and job.progress == (4, 11)
        assert ws.store.stats().files == 4
        job.cancel()
        assert not job.step() and job.summary.cancelled
        assert ws.store.stats().files == 4  # what was committed stays
        rest = ws.indexer.index()
        assert (rest.new, rest.unchanged) == (7, 4) and ws.store.stats().files == 11
    finally:
        indexer_module.BATCH_FILES = batch
        ws.close()
