"""`kebab/status`'s `writer`: who keeps a folder's index current and how changes made outside
the editor reach it, including a watcher of ours that stopped. Real runtime, leases, watchers
(watchfiles) and stores."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

from indexing.runtime import SilentListener
from kebab_lsp.convert import folder_status_wire
from kebab_lsp.session import Session, WriterStatus


def _session(index: Path) -> Session:
    session = Session(SilentListener())
    session.configure({"indexDir": str(index), "workers": 1, "embed": False})
    return session


def _tree(root: Path) -> Path:
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    pass\n")
    return root


def test_the_writer_says_how_changes_reach_the_index(tmp_path: Path) -> None:
    session = _session(tmp_path / "index")
    try:
        root = _tree(tmp_path / "ws")
        folder = session.open_folder(root.as_uri(), "ws", root)
        assert session.writer_status(folder).changes.startswith("not yet")
        session.follow_changes(editor_reports=True)
        assert session.writer_status(folder) == WriterStatus(True, os.getpid(),
                                                             "the editor reports them")
        # Another editor's server on the same index only reads it, and says who writes.
        reader = _session(tmp_path / "index")
        try:
            other = reader.open_folder(root.as_uri(), "ws", root)
            assert reader.writer_status(other) == WriterStatus(
                False, os.getpid(), f"process {os.getpid()} writes this index and follows them")
        finally:
            reader.close()
            reader.writership.close()
    finally:
        session.close()
        session.writership.close()


def test_a_watcher_that_stopped_is_a_warning_in_the_status(tmp_path: Path) -> None:
    session = _session(tmp_path / "index")
    try:
        root = _tree(tmp_path / "ws")
        folder = session.open_folder(root.as_uri(), "ws", root)
        assert session.runtime.wait_idle(30)
        shutil.rmtree(root)  # the watcher starts on a root that is gone, and stops
        session.follow_changes(editor_reports=False)
        deadline = time.monotonic() + 10
        status = session.writer_status(folder)
        while status.warning is None and time.monotonic() < deadline:
            time.sleep(0.05)
            status = session.writer_status(folder)
        assert status.this_process and status.changes.startswith(
            "a watcher in this process: failed: FileNotFoundError")
        assert status.warning is not None
        wire = folder_status_wire(folder, status)
        assert wire["writer"]["changes"] == status.changes
        assert [w for w in wire["warnings"] if "outside the editor" in w] == [status.warning]
    finally:
        session.close()
        session.writership.close()


def test_a_scan_still_finding_its_files_is_at_0_percent_not_100(tmp_path: Path) -> None:
    """The writer marks a scan (0, 0) until its walk has found the files to write."""
    session = _session(tmp_path / "index")
    try:
        root = _tree(tmp_path / "ws")
        folder = session.open_folder(root.as_uri(), "ws", root)
        assert session.runtime.wait_idle(30)
        status = session.writer_status(folder)
        for progress, percent in (((0, 0), 0), ((3, 12), 25), ((12, 12), 100)):
            folder.progress = progress
            wire = folder_status_wire(folder, status)["progress"]
            assert wire == {"done": progress[0], "total": progress[1], "percentage": percent}
        folder.progress = None
        assert folder_status_wire(folder, status)["progress"] is None
    finally:
        session.close()
        session.writership.close()
