"""Writership: of two runtimes sharing one index (flock is per open file, so two in one process
behave as two processes), exactly one writes; the other reads, leaves the index alone, and
takes over once the writer has stopped. Real stores, leases and threads."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.location import UnusableIndexDir
from indexing.runtime import Runtime, SilentListener
from indexing.runtime.writership import Writership
from indexing.settings import Settings


def _runtime(index: Path, poll_s: float = 0.1) -> tuple[Runtime, Writership]:
    runtime = Runtime(SilentListener(), Settings(index_dir=str(index), workers=1, embed=False))
    writership = Writership(runtime, watch=False, poll_s=poll_s)
    runtime.claim = writership.claim
    return runtime, writership


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    pass\n")
    yield root


def _names(runtime: Runtime) -> set[str]:
    return set(runtime.folders()[0].index.store.file_states())


@pytest.mark.slow
def test_one_writes_the_other_reads_then_takes_over(tree: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    first, first_ship = _runtime(index)
    second, second_ship = _runtime(index)
    try:
        writer = first.add_folder(tree.as_uri(), "ws", tree)
        assert writer.writes
        assert first.wait_idle(30)
        second.start()  # as a language server's is, reading or not
        reader = second.add_folder(tree.as_uri(), "ws", tree)
        assert not reader.writes and not reader.building  # no scan was queued
        assert second_ship.holder(reader) == first_ship.holder(writer)
        assert second_ship.watcher_state(reader) is None

        # The reader's runtime leaves the index alone: a change it hears of is not written,
        # a rebuild asked of it is not queued; the writer's commit is what it reads.
        (tree / "b.py").write_text("def beta():\n    pass\n")
        second.changed([tree / "b.py"])
        second.scan(reader, rebuild=True)
        assert second.wait_idle(5) and not reader.building
        assert _names(second) == {"a.py"}
        first.changed([tree / "b.py"])
        deadline = time.monotonic() + 30
        while _names(second) != {"a.py", "b.py"}:
            assert time.monotonic() < deadline, "the reader never saw the writer's commit"
            time.sleep(0.05)

        # The writer stops (its lease goes with it); the reader takes over and catches up.
        (tree / "c.py").write_text("def gamma():\n    pass\n")
        first.stop()
        first_ship.close()
        deadline = time.monotonic() + 10
        while not reader.writes:
            assert time.monotonic() < deadline, "the reader never took over"
            time.sleep(0.05)
        assert second.wait_idle(30)
        assert _names(second) == {"a.py", "b.py", "c.py"}
        (tree / "a.py").unlink()
        second.changed([tree / "a.py"])
        assert second.wait_idle(30)
        deadline = time.monotonic() + 10
        while _names(second) != {"b.py", "c.py"}:
            assert time.monotonic() < deadline, "the new writer did not apply the event"
            time.sleep(0.05)
    finally:
        for runtime, ship in ((first, first_ship), (second, second_ship)):
            runtime.stop()
            ship.close()


@pytest.mark.slow
def test_a_stopped_runtime_lets_its_leases_go(tree: Path, tmp_path: Path) -> None:
    """A language server between `shutdown` and `exit`: its runtime stopped, so another
    process may write at once, without waiting for this one to exit."""
    index = tmp_path / "index"
    runtime, ship = _runtime(index)
    try:
        folder = runtime.add_folder(tree.as_uri(), "ws", tree)
        assert folder.writes and runtime.wait_idle(30)
        runtime.stop()
        other, other_ship = _runtime(index, poll_s=60)  # no takeover by polling here
        try:
            opened = other.add_folder(tree.as_uri(), "ws", tree)
            deadline = time.monotonic() + 5
            while not other_ship.claim(opened):
                assert time.monotonic() < deadline, "the stopped runtime kept its lease"
                time.sleep(0.1)
        finally:
            other.stop()
            other_ship.close()
    finally:
        runtime.stop()
        ship.close()


def test_a_watcher_that_cannot_watch_says_so(tmp_path: Path) -> None:
    """A root the kernel will not watch (here: gone before the watch began) must not leave the
    user believing outside changes are followed: the failure is reported, once."""
    from indexing.runtime.writership import Watcher

    told: list[str] = []
    watcher = Watcher(tmp_path / "gone", lambda _paths: None, None, told.append)
    watcher.start()
    deadline = time.monotonic() + 10
    while not told and time.monotonic() < deadline:
        time.sleep(0.05)
    watcher.stop()
    assert told == ["failed: FileNotFoundError: No path was found."]
    assert watcher.state == told[0]


def test_a_claim_that_fails_leaves_the_folder_unopened(tree: Path, tmp_path: Path) -> None:
    # The lease's folder cannot be made (`UnusableIndexDir` from `WriterLease.try_acquire`):
    # the folder stayed registered, writing (`Folder.writes` defaults to true), while the
    # caller was told it could not be opened.
    runtime = Runtime(SilentListener(), Settings(index_dir=str(tmp_path / "index"), workers=1,
                                                 embed=False))

    def refuse(_folder: object) -> bool:
        raise UnusableIndexDir(f"{tmp_path / 'index'} cannot be written")

    runtime.claim = refuse
    try:
        with pytest.raises(UnusableIndexDir):
            runtime.add_folder(tree.as_uri(), "ws", tree)
        assert runtime.folders() == []
        assert [(u.uri, u.reason) for u in runtime.unopened_folders()] == [
            (tree.as_uri(), f"{tmp_path / 'index'} cannot be written")]
    finally:
        runtime.stop()


class _Told(SilentListener):
    def __init__(self) -> None:
        self.warned: list[str] = []

    def warn(self, message: str) -> None:
        self.warned.append(message)


def test_a_lease_that_cannot_be_taken_is_told_once(tree: Path, tmp_path: Path) -> None:
    # A `writer.lock` that is a directory: no process can take the lease, and the runtime
    # read the index in silence, as if another process wrote it. The poller tries again
    # every 0.1 s; the reason is told once.
    first, first_ship = _runtime(tmp_path / "index")
    index_dir = first.add_folder(tree.as_uri(), "ws", tree).index.index_dir
    first.stop()
    first_ship.close()
    (index_dir / "writer.lock").unlink()
    (index_dir / "writer.lock").mkdir()
    told = _Told()
    runtime = Runtime(told, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False))
    ship = Writership(runtime, watch=False, poll_s=0.1)
    runtime.claim = ship.claim
    try:
        folder = runtime.add_folder(tree.as_uri(), "ws", tree)
        time.sleep(0.5)
        assert not folder.writes
        refused = (f"{index_dir / 'writer.lock'} is a directory, not a file, so no process "
                   "can take the index's writer lock and keep it current; remove it")
        assert told.warned == [
            f"{index_dir}: this process reads the index but cannot write it: {refused}"]
        # Answers from it are not complete, and say why (as the status does).
        assert folder.incomplete == f"the index of {tree} is not kept current: {refused}"
        (index_dir / "writer.lock").rmdir()  # the user removes it: the poller takes over
        deadline = time.monotonic() + 10
        while not folder.writes and time.monotonic() < deadline:
            time.sleep(0.05)
        assert folder.writes and folder.incomplete is None
    finally:
        runtime.stop()
        ship.close()
