"""A broad any-term ranking split in two halves by rowid, on two connections
(`indexing.store.split_rank`): the same answer as one ranking, one state of the index even
when a save lands between the halves, and a helper thread that `close()` ends. Real apsw,
real files; the size threshold is lowered so that a small tree splits."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_support import indexed_tree

from indexing.filters import Filters
from indexing.indexer import Indexer
from indexing.lexical_query import LexicalQuery
from indexing.store import Store, split_rank

ANY = (("parse", "ledger"), ("render", "invoice", "total"), ("rows", "total", "missing"))
HELPER = "kebab-rank-half"


def _tree(root: Path, files: int = 40) -> Path:
    root.mkdir(parents=True)
    for i in range(files):
        # Every fifth file repeats another's text, so that bm25 ties run across the halves.
        n = i - i % 5
        (root / f"mod_{i:02}.py").write_text(
            f"def parse_ledger_{n}(rows):\n    \"\"\"Parse ledger rows {n}.\"\"\"\n"
            f"    return [r for r in rows]\n\n\n"
            f"def render_invoice_{n}(total):\n    return f'total {{total}} {n}'\n")
    return root


def _answers(store: Store, limit: int = 7, exclude: tuple[int, ...] = ()
             ) -> list[list[tuple[str, str, float]]]:
    return [[(r.chunk_id, r.path, r.rank) for r in
             store.match_chunks(LexicalQuery.any_of(terms), Filters(), limit, exclude)]
            for terms in ANY]


def _helper_alive() -> bool:
    return any(t.name.startswith(HELPER) and t.is_alive() for t in threading.enumerate())


@pytest.fixture()
def indexed(tmp_path: Path) -> Iterator[tuple[Store, Indexer, Path]]:
    root = _tree(tmp_path / "tree")
    with indexed_tree(root, tmp_path / "idx") as (store, indexer):
        yield store, indexer, root


def test_halves_give_the_whole_ranking(indexed: tuple[Store, Indexer, Path],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    store, _, _ = indexed
    whole = _answers(store)
    some = [r.rowid for r in store.match_chunks(LexicalQuery.any_of(ANY[0]), Filters(), 3)]
    whole_excluding = _answers(store, exclude=tuple(some))
    assert not _helper_alive()
    monkeypatch.setattr(split_rank, "MIN_SPLIT_ROWIDS", 0)
    assert _answers(store) == whole
    assert _helper_alive()  # the upper half did run on the helper
    assert _answers(store, exclude=tuple(some)) == whole_excluding
    assert all(len(a) == 7 for a in whole)


def test_a_save_between_the_halves_is_not_mixed_in(indexed: tuple[Store, Indexer, Path],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The save lands after the lower half read the index and before the upper half does:
    the upper half is ranked again in the lower half's state, so the answer is the state
    before the save (its new chunk, with the highest rowid, is not in it), and a match
    whose chunk the caller cannot see is never reported as damage."""
    store, indexer, root = indexed
    before = _answers(store, limit=50)
    monkeypatch.setattr(split_rank, "MIN_SPLIT_ROWIDS", 0)
    elsewhere = store._elsewhere
    saves: list[str] = []

    def save_first(*args: object) -> object:
        if not saves:
            path = root / "zz_new.py"
            path.write_text("def parse_ledger_new(rows, total):\n    return rows\n")
            indexer.update_paths([path])
            saves.append(path.name)
        return elsewhere(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(store, "_elsewhere", save_first)
    during = _answers(store, limit=50)
    assert saves == ["zz_new.py"]
    assert during[0] == before[0]  # the query the save landed in
    assert "zz_new.py" not in {path for _, path, _ in during[0]}
    after = _answers(store, limit=50)
    assert "zz_new.py" in {path for _, path, _ in after[0]}


def test_a_busy_helper_means_the_caller_ranks_alone(indexed: tuple[Store, Indexer, Path],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    store, _, _ = indexed
    whole = _answers(store)
    monkeypatch.setattr(split_rank, "MIN_SPLIT_ROWIDS", 0)
    release = threading.Event()
    held = store._rank_splitter.try_submit(release.wait)
    assert held is not None
    try:
        assert store._rank_splitter.try_submit(lambda: None) is None
        assert _answers(store) == whole  # ranked whole on the caller's thread
    finally:
        release.set()
        held.result(timeout=5)


def test_close_ends_the_helper_and_a_later_query_starts_it_again(
        indexed: tuple[Store, Indexer, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    store, _, _ = indexed
    monkeypatch.setattr(split_rank, "MIN_SPLIT_ROWIDS", 0)
    whole = _answers(store)
    assert _helper_alive()
    store.close()
    assert not _helper_alive()
    assert store.open_connections() == 0
    assert _answers(store) == whole
    assert _helper_alive()
