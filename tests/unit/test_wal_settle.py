"""A save never waits for a checkpoint: the sync of the database file (`Store.settle`) is left
to the writer's idle time, even for a save of a large file, while a write far larger than any
save (a scan's batch) is checkpointed at once so that the WAL stays bounded. Real apsw."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.store.connection import CHECKPOINT_AFTER_PAGES
from tests.unit.store_support import indexed_tree


def _big_module(seed: int, functions: int = 2000) -> str:
    """A module of many distinct names, like the largest files of a real tree: each save of
    it rewrites hundreds of pages (names, refs, trigrams)."""
    return "".join(
        f"def handler_{seed}_{i}(request_{i}, value_{i}):\n"
        f"    \"\"\"Handle case {i} of {seed}.\"\"\"\n"
        f"    return process_{i}(request_{i}, 'literal {i}') + value_{i}\n\n"
        for i in range(functions))


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "big.py").write_text(_big_module(0))
    return root


@pytest.mark.slow
def test_saving_a_large_file_leaves_the_checkpoint_to_idle_time(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with indexed_tree(root, tmp_path / "idx") as (store, indexer):
        store.settle()
        (root / "big.py").write_text(_big_module(1))
        summary = indexer.update_paths([root / "big.py"])
        assert summary.changed == 1
        pages = store._wal_pages  # what the save's commit left in the WAL
        assert pages > 256, f"the fixture should rewrite hundreds of pages, rewrote {pages}"
        assert pages <= CHECKPOINT_AFTER_PAGES
        assert store.unsettled, "the save checkpointed inline: it waited for a sync"
        store.settle()
        assert not store.unsettled


@pytest.mark.slow
def test_a_write_larger_than_any_save_is_checkpointed_at_once(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    with indexed_tree(root, tmp_path / "idx") as (store, indexer):
        store.settle()
        for n in range(1, 9):
            (root / f"more_{n}.py").write_text(_big_module(n))
        indexer.update_paths([root / f"more_{n}.py" for n in range(1, 9)])
        assert store._wal_pages > CHECKPOINT_AFTER_PAGES
        assert not store.unsettled, "a write past the bound must not leave the WAL growing"
