"""The extraction workers: results come back in order, equal to extracting in this process,
with a bounded number of files extracted ahead of the writer."""

from __future__ import annotations

import pytest

from indexing.indexer import WORKER_TARGET, _Work, _work_size, build_write, content_hash
from indexing.pool import pool_context
from indexing.workers import Workers

pytestmark = pytest.mark.subprocess


def test_workers_keep_order_and_equal_sequential_extraction() -> None:
    work = []
    for i in range(45):
        data = f"def f_{i}(x):\n    return g_{i}(x)\n".encode()
        work.append(_Work(f"pkg/m_{i:02}.py", len(data), 0, data, content_hash(data), True))
    pool = Workers(2, pool_context(), WORKER_TARGET, ahead=8)
    try:
        got = list(pool.map(work, _work_size))
    finally:
        pool.close()
    assert [w.path for w in got] == [w.path for w in work]
    assert got == [build_write(w) for w in work]
    calls = [r.name for r in got[7].extraction.refs if r.kind == "call"]
    assert calls == ["g_7"]  # refs cross the process boundary


def test_the_workers_run_ahead_of_the_writer_by_a_bounded_amount() -> None:
    handed_out: list[int] = []

    def size_of(n: int) -> int:  # asked once per item, as it is handed to a worker
        handed_out.append(n)
        return 0

    pool = Workers(2, pool_context(), "builtins:abs", ahead=3)
    try:
        results = pool.map(range(-20, 0), size_of)
        assert next(results) == 20  # the writer has taken one item
        assert len(handed_out) <= 1 + 3
        assert list(results) == list(range(19, 0, -1))
    finally:
        pool.close()
    assert handed_out == list(range(-20, 0))
