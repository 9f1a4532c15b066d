"""The runtime's writer: scans interleaved with other folders' saves, the scanning folder's own
events held back, cancellation, and who is building. Real stores and threads; the work is
queued before the writer starts, so the order it runs in is deterministic."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing import indexer as indexer_module
from indexing.runtime import Runtime
from indexing.settings import Settings


class Recorder:
    """A listener that keeps what it was told, in order."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.lock = threading.Lock()
        self.on_report: dict[str, object] = {}  # title -> a callable run on its first report

    def _add(self, line: str) -> None:
        with self.lock:
            self.lines.append(line)

    def begin(self, title: str, unit: str = "files") -> Recorder.Sink:
        self._add(f"begin {title}")
        return Recorder.Sink(self, title)

    def log(self, level: str, message: str) -> None:
        self._add(f"{level} {message}")

    def warn(self, message: str) -> None:
        self._add(f"warn {message}")

    def index_of(self, prefix: str) -> int:
        return next(i for i, line in enumerate(self.lines) if line.startswith(prefix))

    class Sink:
        def __init__(self, recorder: Recorder, title: str) -> None:
            self.recorder, self.title = recorder, title

        def report(self, done: int, total: int) -> None:
            hook = self.recorder.on_report.pop(self.title, None) if done else None
            if callable(hook):
                hook()

        def end(self, message: str) -> None:
            self.recorder._add(f"end {self.title}: {message}")


def make_tree(root: Path, files: int) -> Path:
    root.mkdir(parents=True)
    for i in range(files):
        (root / f"m{i:03}.py").write_text(f"def f_{i}():\n    return {i}\n")
    return root


@pytest.fixture
def small_batches() -> Iterator[None]:
    saved, indexer_module.BATCH_FILES = indexer_module.BATCH_FILES, 5
    yield
    indexer_module.BATCH_FILES = saved


def runtime(tmp_path: Path, recorder: Recorder) -> Runtime:
    return Runtime(recorder, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False,
                                      debounce_ms=0))


def test_a_save_elsewhere_lands_during_a_scan_and_one_here_after_it(
        tmp_path: Path, small_batches: None) -> None:
    recorder = Recorder()
    rt = runtime(tmp_path, recorder)
    big = make_tree(tmp_path / "big", 40)
    small = make_tree(tmp_path / "small", 1)
    b = rt.add_folder(small.as_uri(), "small", small, scan=False)
    a = rt.add_folder(big.as_uri(), "big", big)  # queued: 40 files, 8 batches
    (small / "m000.py").write_text("def saved_elsewhere():\n    return 1\n")
    rt.changed([small / "m000.py"])
    assert a.building and b.building  # queued work counts

    def save_in_big() -> None:  # after the scan committed m000.py: its older read is stale
        (big / "m000.py").write_text("def saved_here():\n    return 1\n")
        rt.changed([big / "m000.py"])

    recorder.on_report["Indexing big"] = save_in_big
    rt.start()
    try:
        assert rt.wait_idle(60)
    finally:
        rt.stop()
    scan_done = recorder.index_of("info indexing " + str(a.root))
    assert recorder.index_of(f"info updated {b.root}") < scan_done  # did not wait for big
    assert recorder.index_of(f"info updated {a.root}") > scan_done  # waited for its own scan
    assert not a.building and not b.building
    names = {r.symbol.name for r in a.index.store.all_symbols()}
    assert "saved_here" in names and "f_0" not in names


def test_removing_a_folder_stops_its_scan(tmp_path: Path, small_batches: None) -> None:
    recorder = Recorder()
    rt = runtime(tmp_path, recorder)
    big = make_tree(tmp_path / "big", 200)
    folder = rt.add_folder(big.as_uri(), "big", big)
    recorder.on_report["Indexing big"] = lambda: rt.remove_folder(folder.uri)  # mid-scan
    rt.start()
    try:
        assert rt.wait_idle(60)
    finally:
        rt.stop()
    assert "end Indexing big: stopped" in recorder.lines
    assert folder.last_scan is not None and folder.last_scan.cancelled
    assert folder.index.store.stats().files == 5 and not folder.building  # one batch landed


def test_a_scan_is_marked_for_readers_while_it_runs(tmp_path: Path,
                                                   small_batches: None) -> None:
    # Readers in other processes answer "still building" from this mark (`runtime.lease`);
    # it names this process while a scan runs, stopped ones included, and is gone after.
    import os

    from indexing.runtime.lease import SCAN_MARK

    recorder = Recorder()
    rt = runtime(tmp_path, recorder)
    big = make_tree(tmp_path / "big", 20)
    folder = rt.add_folder(big.as_uri(), "big", big)
    mark = folder.index.index_dir / SCAN_MARK
    seen: list[str] = []
    recorder.on_report["Indexing big"] = lambda: seen.append(mark.read_text())
    rt.start()
    try:
        assert rt.wait_idle(60)
        assert seen == [str(os.getpid())] and not mark.exists()
        recorder.on_report["Rebuilding big"] = lambda: rt.remove_folder(folder.uri)  # mid-scan
        rt.scan(folder, rebuild=True)
        assert rt.wait_idle(60)
    finally:
        rt.stop()
    assert "end Rebuilding big: stopped" in recorder.lines
    assert not mark.exists()


def test_a_directory_event_becomes_a_scan(tmp_path: Path) -> None:
    recorder = Recorder()
    rt = runtime(tmp_path, recorder)
    tree = make_tree(tmp_path / "tree", 2)
    folder = rt.add_folder(tree.as_uri(), "tree", tree)
    rt.start()
    try:
        assert rt.wait_idle(60)
        (tree / "pkg").mkdir()
        (tree / "pkg" / "new.py").write_text("def in_new_dir():\n    return 1\n")
        rt.changed([tree / "pkg"])  # a client reports the new folder, not its files
        assert rt.wait_idle(60)
    finally:
        rt.stop()
    assert "in_new_dir" in {r.symbol.name for r in folder.index.store.all_symbols()}
    assert sum(line.startswith("begin Indexing tree") for line in recorder.lines) == 2


def test_events_before_the_folder_opens_are_kept(tmp_path: Path) -> None:
    """A save reported before `initialized` (before any folder is open) is applied once the
    folder opens, not dropped for belonging to none. The edit keeps the file's size and mtime,
    so the scan's cheap check cannot see it: only the event can."""
    import os

    tree = make_tree(tmp_path / "tree", 1)
    hour_ago = time.time_ns() - 3600 * 10**9  # not "racily clean": the scan trusts its time
    os.utime(tree / "m000.py", ns=(hour_ago, hour_ago))
    first = runtime(tmp_path, Recorder())
    first.add_folder(tree.as_uri(), "tree", tree)
    first.start()
    assert first.wait_idle(60)
    first.stop()
    path = tree / "m000.py"
    before = path.stat()
    path.write_text(path.read_text().replace("f_0", "g_0"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    rt = runtime(tmp_path, Recorder())
    rt.changed([path])  # no folder yet
    folder = rt.add_folder(tree.as_uri(), "tree", tree)
    rt.start()
    try:
        assert rt.wait_idle(60)
    finally:
        rt.stop()
    assert folder.last_scan is not None and folder.last_scan.unchanged == 1  # the scan missed it
    assert "g_0" in {r.symbol.name for r in folder.index.store.all_symbols()}


def test_an_index_built_with_other_settings_says_so_and_is_brought_in_line(
        tmp_path: Path) -> None:
    tree = make_tree(tmp_path / "tree", 3)
    (tree / "gen").mkdir()
    (tree / "gen" / "out.py").write_text("def generated():\n    return 1\n")
    first = Recorder()
    rt = runtime(tmp_path, first)
    rt.add_folder(tree.as_uri(), "tree", tree)
    rt.start()
    assert rt.wait_idle(60)
    rt.stop()
    assert not [line for line in first.lines if line.startswith("warn")]
    second = Recorder()
    rt = Runtime(second, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False,
                                  exclude=("gen/",)))
    folder = rt.add_folder(tree.as_uri(), "tree", tree)
    assert folder.index.shape_note and "exclude" in folder.index.shape_note
    rt.start()
    assert rt.wait_idle(60)
    rt.stop()
    assert any(line.startswith("warn") and "exclude" in line for line in second.lines)
    assert "generated" not in {r.symbol.name for r in folder.index.store.all_symbols()}
    assert folder.index.shape_note is None  # recorded: the next open is silent


def test_the_writer_checkpoints_only_after_a_quiet_spell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A burst of saves never waits for a checkpoint begun between two of them: the writer
    settles the WAL only once it has had nothing to do for `SETTLE_QUIET_S`."""
    from indexing.runtime import writer as writer_module

    tree = make_tree(tmp_path / "tree", 3)
    rt = runtime(tmp_path, Recorder())
    folder = rt.add_folder(tree.as_uri(), "tree", tree)
    monkeypatch.setattr(writer_module, "SETTLE_QUIET_S", 0.05)
    rt.start()
    try:
        assert rt.wait_idle(60)
        store = folder.index.store
        deadline = time.monotonic() + 10
        while store.unsettled and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not store.unsettled  # the cold index, settled once the writer was idle

        monkeypatch.setattr(writer_module, "SETTLE_QUIET_S", 30.0)
        (tree / "m000.py").write_text("def f_saved():\n    return 0\n")
        rt.changed([tree / "m000.py"])
        assert rt.wait_idle(60)
        time.sleep(0.3)  # idle, but not for long: the save's pages stay in the WAL
        assert store.unsettled

        monkeypatch.setattr(writer_module, "SETTLE_QUIET_S", 0.05)
        rt.changed([tree / "m001.py"])  # any work wakes the writer to look again
        deadline = time.monotonic() + 10
        while store.unsettled and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not store.unsettled
    finally:
        rt.stop()


def test_upkeep_is_not_building(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Merging the full-text index's segments changes no answer: while it runs, the writer
    is busy but the runtime is not building (after a large first index, status said building
    for seconds, and an editor told "index still building" of a finished index)."""
    recorder = Recorder()
    rt = runtime(tmp_path, recorder)
    tree = make_tree(tmp_path / "tree", 12)
    folder = rt.add_folder(tree.as_uri(), "tree", tree)
    rt.start()
    try:
        assert rt.wait_idle(60) and not rt.building
        merging, release = threading.Event(), threading.Event()
        step = folder.index.store.merge_step

        def held_step() -> bool:
            merging.set()
            release.wait(30)
            return step()

        monkeypatch.setattr(folder.index.store, "merge_step", held_step)
        folder.index.store.fragmented = True
        upkept = threading.Thread(target=rt.finish_upkeep, args=(30,))
        upkept.start()
        assert merging.wait(30)
        assert not rt.writer.idle and not rt.building  # busy merging, not building
        rt.scan(folder)  # work that does change the index is building, merge or not
        assert rt.building
        release.set()
        upkept.join(30)
        assert rt.wait_idle(60) and not rt.building
    finally:
        release.set()
        rt.stop()


def test_a_failed_scan_leaves_answers_incomplete_until_one_succeeds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scan that fails (a fallback: nothing known makes one fail today, so the failure is
    made) must not leave answers claiming complete recall over a partial index."""
    from search.engine import Searcher
    from search.types import SearchRequest

    recorder = Recorder()
    rt = runtime(tmp_path, recorder)
    root = make_tree(tmp_path / "ws", 3)
    real_step = indexer_module.ScanJob.step

    def failing(self: indexer_module.ScanJob) -> bool:
        raise RuntimeError("the walk met something it could not read")

    monkeypatch.setattr(indexer_module.ScanJob, "step", failing)
    folder = rt.add_folder(root.as_uri(), "ws", root)
    rt.start()
    try:
        assert rt.wait_idle(30)
        searcher = Searcher(root, folder.index.store, status=folder)
        answer = searcher.search(SearchRequest("f_1", mode="lexical"))
        assert answer.meta.recall["complete"] is False
        assert any("the last scan of" in w and "could not read" in w
                   for w in answer.meta.warnings), answer.meta.warnings
        monkeypatch.setattr(indexer_module.ScanJob, "step", real_step)
        rt.scan(folder)
        assert rt.wait_idle(30)
        answer = searcher.search(SearchRequest("f_1", mode="lexical"))
        assert answer.meta.recall["complete"] is True, answer.meta.warnings
        assert [h.path for h in answer.hits][:1] == ["m001.py"]
    finally:
        rt.stop()
