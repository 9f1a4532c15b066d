"""A grammar that crashes or hangs costs its own file: worker processes with deadlines, and the
indexer reading such a file as plain text, counted, while the other files index as usual."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing import indexer, workers
from indexing.pool import pool_context
from indexing.settings import Settings
from indexing.store.rows import CHUNK_TEXT
from indexing.workers import Failed, Workers
from kebab_lsp.workspace import Workspace

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]  # each waits on worker deadlines


def test_results_in_order_with_failures_in_their_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "DEADLINE_S", 2.0)
    pool = Workers(2, pool_context(), "worker_faults:square")
    try:
        got = list(pool.map(range(16), lambda n: 0))
    finally:
        pool.close()
    assert got[13] == Failed("grammar crashed")
    assert got[7] == Failed("parse stalled")
    assert [g for i, g in enumerate(got) if i not in (7, 13)] == [
        i * i for i in range(16) if i not in (7, 13)]


@pytest.mark.parametrize("files", [3, 70])  # a save's worker, and a scan's pool
def test_a_crashing_or_hanging_grammar_costs_its_file(
        files: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "DEADLINE_S", 3.0)
    monkeypatch.setattr(indexer, "WORKER_TARGET", "worker_faults:faulty_build_write")
    monkeypatch.setattr(indexer, "_small_plan_workers", None)
    root = tmp_path / "repo"
    root.mkdir()
    for i in range(files):
        (root / f"ok{i}.py").write_text(f"def fine{i}():\n    return {i}\n")
    (root / "crash.py").write_text("def boom():\n    pass\n")
    (root / "hang.py").write_text("def stuck():\n    pass\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=2, embed=False))
    try:
        summary = ws.indexer.index()
        assert summary.new == files + 2
        assert summary.fallbacks == {"grammar crashed": 1, "parse stalled": 1}
        assert sorted(summary.fallback_paths) == [("crash.py", "grammar crashed"),
                                                  ("hang.py", "parse stalled")]
        assert "read as plain text (grammar crashed)" in summary.describe()
        names = {r.symbol.name for r in ws.store.all_symbols()}
        assert names == {f"fine{i}" for i in range(files)}
        assert ws.store.stats().langs == {"python": files + 2}  # still python, as text
        hits = ws.store.conn.execute(
            "SELECT count(*) FROM chunks c JOIN files f ON f.id = c.file_id "
            f"WHERE f.path = 'crash.py' AND {CHUNK_TEXT} LIKE '%boom%'").fetchone()[0]
        assert hits == 1  # its text is searchable
    finally:
        ws.close()
        if indexer._small_plan_workers is not None:
            indexer._small_plan_workers.close()


def test_a_file_deadline_starts_when_its_worker_has_started(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new worker's imports (3 s here) do not count against the first file it is given (a
    1 s deadline): on a loaded machine the spawn alone can outlast a deadline, and the file
    would be reported as a stalled parse that never was."""
    monkeypatch.setattr(workers, "DEADLINE_S", 1.0)
    pool = Workers(2, pool_context(), "worker_slow_start:double")
    try:
        assert list(pool.map(range(4), lambda n: 0)) == [0, 2, 4, 6]
    finally:
        pool.close()


def test_a_worker_whose_parent_drops_its_pipe_exits_quietly(
        capfd: pytest.CaptureFixture[str]) -> None:
    """The parent abandons a worker with its answer unread (a scan stopped by a full disk or a
    cancel): the worker's next read fails, and it must end without a traceback on the
    stderr it shares with the server, whose one line says what went wrong."""
    worker = workers._Worker(pool_context(), "builtins:len")
    worker.conn.send("abc")
    assert worker.conn.poll(30)  # its answer waits, unread
    worker.conn.close()
    worker.process.join(timeout=30)
    assert worker.process.exitcode == 0
    assert "Traceback" not in capfd.readouterr().err
