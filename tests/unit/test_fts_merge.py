"""The full-text index is merged back into one piece after saves replaced rows in it
(`Store.merge_step`, why in `indexing.store.writes`): by the writer in its idle time, and by
`kebab index` before it exits. Merging never changes an answer. Real apsw, real files."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from indexing.filters import Filters
from indexing.lexical_query import LexicalQuery
from indexing.runtime import Runtime
from indexing.settings import Settings
from indexing.store import Store
from tests.unit.store_support import indexed_tree
from tests.unit.test_runtime_writer import Recorder

QUERIES = (("parse", "ledger"), ("ledger",), ("render", "invoice", "total"), ("total",))


def _module(i: int, variant: str = "") -> str:
    return (f"def parse_ledger_{i}{variant}(rows):\n    \"\"\"Parse ledger rows {i}.\"\"\"\n"
            f"    return [r for r in rows]\n\n\n"
            f"def render_invoice_{i}{variant}(total):\n    return f'total {{total}}'\n")


def _tree(root: Path, files: int = 12) -> Path:
    root.mkdir(parents=True)
    for i in range(files):
        (root / f"mod_{i:02}.py").write_text(_module(i))
    return root


def _answers(store: Store) -> list[list[tuple[str, int, float]]]:
    """Every query's ranked chunks: path, first line, bm25."""
    out = []
    for terms in QUERIES:
        for query in (LexicalQuery.all_of(terms), LexicalQuery.any_of(terms)):
            rows = store.match_chunks(query, Filters(), 50)
            out.append([(r.path, r.start_line, round(r.rank, 9)) for r in rows])
    return out


def _merge_all(store: Store) -> int:
    steps = 0
    while store.merge_step():
        steps += 1
        assert steps < 10_000
    return steps


def test_a_save_leaves_work_for_a_merge_that_changes_no_answer(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
    with indexed_tree(root, tmp_path / "idx") as (store, indexer):
        _merge_all(store)
        assert not store.fragmented
        assert not store.merge_step(), "one piece: a further step has nothing to do"

        for i in (2, 5, 7):
            (root / f"mod_{i:02}.py").write_text(_module(i, "_v2"))
        changed = indexer.update_paths([root / f"mod_{i:02}.py" for i in (2, 5, 7)]).changed
        assert changed == 3
        assert store.fragmented, "the save replaced rows of the full-text index"
        before = _answers(store)
        assert any(before), "the queries must find something for the comparison to mean much"
        assert _merge_all(store) >= 1, "the replaced rows left nothing to merge"
        assert not store.fragmented
        assert _answers(store) == before


def test_a_new_store_does_not_know_and_finds_out_in_one_step(tmp_path: Path) -> None:
    with indexed_tree(_tree(tmp_path / "tree"), tmp_path / "idx") as (store, _indexer):
        _merge_all(store)
    reopened = Store(tmp_path / "idx")
    assert reopened.fragmented  # unknown until asked
    assert not reopened.merge_step()
    assert not reopened.fragmented
    reopened.close()


def _runtime(tmp_path: Path) -> Runtime:
    return Runtime(Recorder(), Settings(index_dir=str(tmp_path / "idx"), workers=1,
                                        embed=False, debounce_ms=0))


def _wait(condition: object, seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.01)
    return False


def test_the_writer_merges_in_its_idle_time_and_only_then(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from indexing.runtime import writer as writer_module

    root = _tree(tmp_path / "tree")
    rt = _runtime(tmp_path)
    folder = rt.add_folder(root.as_uri(), "tree", root)
    monkeypatch.setattr(writer_module, "SETTLE_QUIET_S", 0.05)
    monkeypatch.setattr(writer_module, "MERGE_COST_FACTOR", 0.0)
    rt.start()
    try:
        assert rt.wait_idle(60)
        store = folder.index.store
        assert _wait(lambda: not store.fragmented), "the cold index was never merged"

        monkeypatch.setattr(writer_module, "SETTLE_QUIET_S", 30.0)
        (root / "mod_03.py").write_text(_module(3, "_saved"))
        rt.changed([root / "mod_03.py"])
        assert rt.wait_idle(60)
        time.sleep(0.3)  # idle, but not for long: a burst of saves may go on
        assert store.fragmented

        monkeypatch.setattr(writer_module, "SETTLE_QUIET_S", 0.05)
        rt.changed([root / "mod_04.py"])  # any work wakes the writer to look again
        assert _wait(lambda: not store.fragmented), "the save's tombstones were never merged"
        assert not store.merge_step()
    finally:
        rt.stop()


def test_a_merge_waits_its_cost_times_over_before_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from indexing.runtime import writer as writer_module

    root = _tree(tmp_path / "tree")
    rt = _runtime(tmp_path)
    folder = rt.add_folder(root.as_uri(), "tree", root)
    monkeypatch.setattr(writer_module, "SETTLE_QUIET_S", 0.05)
    monkeypatch.setattr(writer_module, "MERGE_COST_FACTOR", 1e6)
    rt.start()
    try:
        assert rt.wait_idle(60)
        store = folder.index.store
        assert _wait(lambda: not store.fragmented)  # the first merge: nothing to wait for
        (root / "mod_03.py").write_text(_module(3, "_saved"))
        rt.changed([root / "mod_03.py"])
        assert rt.wait_idle(60)
        time.sleep(0.5)  # ten quiet spells: the budget, not the quiet rule, holds it back
        assert store.fragmented
    finally:
        rt.stop()


def test_kebab_index_leaves_the_index_in_one_piece(tmp_path: Path) -> None:
    from kebab_lsp.cli import index_folder

    root = _tree(tmp_path / "tree")
    settings = Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False)
    index_folder(root, settings)
    for i in range(0, 12, 2):
        (root / f"mod_{i:02}.py").write_text(_module(i, "_edited"))
    folder = index_folder(root, settings)
    assert folder.last_scan is not None and folder.last_scan.changed == 6
    store = Store(folder.index.index_dir)
    try:
        assert not store.merge_step(), "kebab index exited with the saves' tombstones left"
    finally:
        store.close()
