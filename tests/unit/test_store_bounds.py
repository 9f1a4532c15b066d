"""What the index may grow by (issue 10): the change log keeps one row per recently touched
path, whatever the number of batches or of saves of one file, and the embedding cache keeps
what the chunks need plus a bounded spare. Real apsw."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from indexing.records import Extraction
from indexing.store import CHANGES_KEEP_PATHS, FileWrite, Store, StoreInterrupted
from indexing.store import embed_cache as embed_cache_module


def _write(store: Store, path: str, body: str = "x = 1\n") -> None:
    store.write_file(FileWrite(path=path, size=len(body), mtime_ns=0, hash=path + body,
                               lang="text", text=body, extraction=Extraction(lang="text")))


def test_the_change_log_is_bounded(tmp_path: Path) -> None:
    store = Store(tmp_path / "idx")
    start = store.lexical_version()
    for i in range(3 * CHANGES_KEEP_PATHS // 100):  # batches of 100 new paths each
        with store.batch():
            for j in range(100):
                _write(store, f"f{i}_{j}.txt")
    for _ in range(300):  # one file saved over and over: one row, not 300
        with store.batch():
            _write(store, "hot.txt", f"x = {time.monotonic_ns()}\n")
    assert store.change_log_size() <= CHANGES_KEEP_PATHS + 100
    assert store.changed_paths_since(start) is None  # too far back: reload
    latest = store.lexical_version()
    with store.batch():
        _write(store, "new.txt")
    assert store.changed_paths_since(latest) == {"new.txt"}
    assert store.changed_paths_since(latest - 5) == {"new.txt", "hot.txt"}
    store.close()


@pytest.fixture
def small_spare(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(embed_cache_module, "EMBED_CACHE_MIN_SPARE", 10)
    monkeypatch.setattr(embed_cache_module, "EMBED_CACHE_SPARE_RATIO", 0.5)
    yield


def test_the_embedding_cache_is_pruned_to_what_chunks_need_plus_a_bounded_spare(
        tmp_path: Path, small_spare: None) -> None:
    store = Store(tmp_path / "idx")
    vec = np.ones(4, dtype=np.float32).tobytes()
    store.cache_vectors("model-a", [(f"need{i}", vec) for i in range(40)])
    store.cache_vectors("model-a", [(f"old{i}", vec) for i in range(200)])
    store.cache_vectors("model-b", [(f"other{i}", vec) for i in range(50)])
    with store.writing() as conn:  # the unneeded ones were last used long ago, oldest first
        conn.executemany("UPDATE embed_cache SET used=? WHERE text_hash=?",
                         [(time.time() - 3600 - i, f"old{i}") for i in range(200)])
    needed = {f"need{i}" for i in range(40)}
    gone = store.prune_embed_cache("model-a", needed)
    left = {r[0] for r in store.conn.execute("SELECT text_hash FROM embed_cache")}
    assert needed <= left  # nothing a chunk needs goes
    spare = left - needed
    assert spare == {f"old{i}" for i in range(20)}  # the budget: max(10, 0.5 * 40), newest
    assert gone == 180 + 50  # and every vector of another model
    # Too old to keep, whatever the budget.
    assert store.prune_embed_cache("model-a", needed,
                                   now=time.time() + embed_cache_module.EMBED_CACHE_MAX_AGE_S
                                   + 7200) == 20
    assert store.embed_cache_size() == 40
    store.close()


def test_a_read_told_to_stop_stops_inside_a_statement(tmp_path: Path) -> None:
    """One statement can run for a minute (FTS5 over thousands of terms); a cancelled request
    must stop inside it, not after it."""
    store = Store(tmp_path / "idx")
    endless = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT ?) "
               "SELECT count(*) FROM c")
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    started = time.monotonic()
    with pytest.raises(StoreInterrupted), store.reading(stop):
        store.conn.execute(endless, (10**12,)).fetchone()
    assert time.monotonic() - started < 5
    # The handler is gone with the read: the next statement runs to its end.
    with store.reading():
        assert store.conn.execute(endless, (100_000,)).fetchone()[0] == 100_000
