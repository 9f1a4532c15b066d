"""The extraction pool: results come back in order, with a bounded number ahead of the writer,
and equal to extracting in this process."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from indexing import indexer
from indexing.indexer import _bounded_map, _Work, build_write, content_hash
from indexing.pool import parse_pool


def test_bounded_map_keeps_order_and_equals_sequential_extraction() -> None:
    work = []
    for i in range(45):
        data = f"def f_{i}(x):\n    return g_{i}(x)\n".encode()
        work.append(_Work(f"pkg/m_{i:02}.py", len(data), 0, data, content_hash(data), True))
    with parse_pool(2) as pool:
        got = list(_bounded_map(pool, work))
    assert [w.path for w in got] == [w.path for w in work]
    assert got == [build_write(w) for w in work]
    calls = [r.name for r in got[7].extraction.refs if r.kind == "call"]
    assert calls == ["g_7"]  # refs cross the process boundary


class CountingPool(ThreadPoolExecutor):
    """A real executor that counts what it was handed."""

    submitted = 0

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        self.submitted += 1
        return super().submit(*args, **kwargs)


def test_the_pool_runs_ahead_of_the_writer_by_a_bounded_amount() -> None:
    n = indexer.POOL_AHEAD * 3
    work = [_Work(f"m_{i}.py", 1, 0, b"x = 1\n", content_hash(b"x = 1\n"), True)
            for i in range(n)]
    with CountingPool(max_workers=2) as pool:
        results = _bounded_map(pool, work)
        next(results)  # the writer has taken one file
        assert pool.submitted * indexer.POOL_CHUNK <= indexer.POOL_AHEAD + indexer.POOL_CHUNK
        assert len(list(results)) == n - 1
    assert pool.submitted == n // indexer.POOL_CHUNK
