"""The writer lease: one holder at a time, dropped by the kernel when its holder dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from indexing.runtime.lease import SCAN_MARK, WriterLease, mark_scan, scanning_elsewhere
from indexing.settings import Settings
from kebab_lsp.cli import index_folder, main
from kebab_lsp.workspace import Workspace
from search.types import Meta, SearchRequest

HOLD = """
import sys, time
from pathlib import Path
from indexing.runtime.lease import WriterLease
lease = WriterLease(Path(sys.argv[1]))
assert lease.try_acquire()
print("held", flush=True)
time.sleep(60)
"""


def _holder(index_dir: Path) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(index_dir)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_one_holder_per_process_and_release(tmp_path: Path) -> None:
    first, second = WriterLease(tmp_path), WriterLease(tmp_path)
    assert first.holder() is None
    assert first.try_acquire() and first.try_acquire()
    assert not second.try_acquire()  # flock is per open file: a second lease is refused
    assert second.holder() == os.getpid()
    first.release()
    assert second.holder() is None
    assert second.try_acquire()
    second.release()


@pytest.mark.subprocess
def test_a_killed_holder_frees_the_lease(tmp_path: Path) -> None:
    proc = _holder(tmp_path)
    try:
        lease = WriterLease(tmp_path)
        assert not lease.try_acquire()
        assert lease.holder() == proc.pid
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(5)
        deadline = time.monotonic() + 5
        while not lease.try_acquire():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert lease.holder() == os.getpid()
        lease.release()
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.subprocess
def test_kebab_index_does_not_write_an_index_another_process_writes(
        tmp_path: Path, sample_repo: Path) -> None:
    from indexing.location import index_dir_for

    index_root = tmp_path / "indexes"
    proc = _holder(index_dir_for(sample_repo.resolve(), str(index_root)))
    try:
        with pytest.raises(SystemExit, match=f"process {proc.pid} is writing the index"):
            main(["index", str(sample_repo), "--index-dir", str(index_root), "--no-embed"])
    finally:
        proc.kill()
        proc.wait()
    assert main(["index", str(sample_repo), "--index-dir", str(index_root), "--no-embed",
                 "--json"]) == 0


@pytest.mark.subprocess
def test_kebab_eval_does_not_write_an_index_another_process_writes(
        tmp_path: Path, sample_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`kebab eval` indexes the tree it scores; on the index a running server keeps, that
    would be a second writer. It refuses before writing, names the holder and says how to go
    on; once the holder is gone it indexes, and lets the lease go when it is done."""
    from indexing.location import index_dir_for
    from indexing.settings import Settings
    from kebab_lsp.evaluate import _indexed
    from kebab_lsp.workspace import Workspace

    index_root = tmp_path / "indexes"
    index_dir = index_dir_for(sample_repo.resolve(), str(index_root))
    settings = Settings(index_dir=str(index_root), embed=False)
    proc = _holder(index_dir)
    try:
        assert main(["eval", str(sample_repo), "--index-dir", str(index_root), "--json"]) == 2
        err = capsys.readouterr().err
        assert f"process {proc.pid} is writing the index of {sample_repo.resolve()}" in err
        assert "--index-dir" in err
    finally:
        proc.kill()
        proc.wait()
    ws = Workspace(sample_repo, settings)
    assert ws.store.stats().files == 0  # refused before it wrote anything
    ws.close()
    with _indexed(sample_repo, settings, lambda _message: None) as ws:
        assert ws.store.stats().files > 0
        assert WriterLease(index_dir).holder() == os.getpid()
    assert WriterLease(index_dir).holder() is None


SCANNER = """
import sys
from pathlib import Path
from indexing.runtime.lease import WriterLease, mark_scan
index_dir = Path(sys.argv[1])
lease = WriterLease(index_dir)
assert lease.try_acquire()
mark_scan(index_dir, True)
print("scanning", flush=True)
if sys.stdin.readline().strip() == "done":
    mark_scan(index_dir, False)
    print("done", flush=True)
sys.stdin.readline()
"""


@pytest.mark.subprocess
def test_a_reader_sees_the_holder_scanning_and_a_dead_one_not(tmp_path: Path) -> None:
    # An index built by another process: its answers here must say it is still building.
    sample = Path(__file__).resolve().parents[1] / "fixtures" / "sample_repo"
    root = tmp_path / "tree"
    subprocess.run(["cp", "-r", str(sample), str(root)], check=True)
    settings = Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False)
    index_dir = index_folder(root, settings).index.index_dir
    assert not (index_dir / SCAN_MARK).exists()  # the scan that built it took its mark away
    proc = subprocess.Popen([sys.executable, "-c", SCANNER, str(index_dir)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "scanning"
        assert scanning_elsewhere(index_dir) == proc.pid
        meta = _search(root, settings)
        assert meta.index["building"] is True and meta.recall["complete"] is False
        assert "the index is still building: results may be incomplete" in meta.warnings
        proc.stdin.write("done\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "done"
        assert scanning_elsewhere(index_dir) is None
        assert _search(root, settings).index["building"] is False
    finally:
        proc.kill()
        proc.wait(5)
    # Killed mid-scan: the mark stays, but its pid no longer holds the lease.
    (index_dir / SCAN_MARK).write_text(str(proc.pid))
    assert scanning_elsewhere(index_dir) is None
    mark_scan(index_dir, True)  # this process's own mark is not "elsewhere"
    assert scanning_elsewhere(index_dir) is None


def _search(root: Path, settings: Settings) -> Meta:
    ws = Workspace(root, settings)
    try:
        return ws.searcher.search(SearchRequest("user", mode="lexical")).meta
    finally:
        ws.close()


@pytest.mark.subprocess
def test_kebab_search_answers_from_an_index_another_process_is_building(
        tmp_path: Path, sample_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A first search builds a folder's index, unless another process writes it: then it
    # answers from what is there, saying the index is still building, instead of failing
    # with "process N is writing the index".
    import json

    from indexing.location import index_dir_for

    index_root = tmp_path / "indexes"
    index_dir = index_dir_for(sample_repo.resolve(), str(index_root))
    index_dir.mkdir(parents=True)
    proc = subprocess.Popen([sys.executable, "-c", SCANNER, str(index_dir)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        assert proc.stdout.readline().strip() == "scanning"
        assert main(["search", "user", str(sample_repo), "--index-dir", str(index_root),
                     "--json"]) == 0
        answer = json.loads(capsys.readouterr().out)
        assert main(["status", str(sample_repo), "--index-dir", str(index_root),
                     "--json"]) == 0
        status = json.loads(capsys.readouterr().out)
        assert (status["writer"], status["scanning"]) == (proc.pid, proc.pid)
    finally:
        proc.kill()
        proc.wait(5)
    assert answer["hits"] == [] and answer["meta"]["index"]["building"] is True
    assert answer["meta"]["recall"]["complete"] is False
