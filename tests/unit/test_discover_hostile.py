"""Ignore files and folder trees that fight the walk: an ignore file that is a FIFO, a device,
a link out of the workspace or huge; a line pathspec cannot read; a
chain of folders deeper than Python's recursion limit. None of them may hang the walk or lose
the rest of the folder, and each is counted under a reason. (Bad globs in the settings and in
filters: test_bad_globs.py.)

Every test walks real files (real FIFOs, real links, real folders thousands deep).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.discover import (
    DiscoveryOptions,
    discover,
    is_indexable_path,
)
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest

#: Seconds a walk of a handful of files may take before it counts as hung.
HUNG_S = 20


def write(root: Path, rel: str, data: str = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data, encoding="utf-8")
    return path


def tree(root: Path) -> Path:
    """a.py, sub/b.py and sub/x.log: what an ignore file of `sub` would speak of."""
    write(root, "a.py", "def top_level_fn():\n    return 1\n")
    write(root, "sub/b.py", "def below_fn():\n    return 2\n")
    write(root, "sub/x.log", "a log line\n")
    return root


# -- a line pathspec cannot read (bug: it threw out the whole scan) ----------------------------


@pytest.mark.parametrize("bad", ["[z-a]", "!", "\\", "foo\\", "**/[z-a]", "a/\\/b"])
def test_a_bad_ignore_line_is_dropped_and_named_and_the_rest_applies(tmp_path: Path,
                                                                     bad: str) -> None:
    root = tree(tmp_path / "ws")
    write(root, "sub/gone.py")
    write(root, "sub/.gitignore", f"*.log\n{bad}\n/gone.py\n")
    found = discover(root)
    assert [c.path for c in found.candidates] == ["a.py", "sub/.gitignore", "sub/b.py"]
    assert found.skipped == [("sub/.gitignore:2", "bad_ignore_line"),
                             ("sub/gone.py", "gitignore"), ("sub/x.log", "gitignore")]
    assert is_indexable_path(root, root / "sub/b.py")
    assert not is_indexable_path(root, root / "sub/gone.py")


def test_a_scan_past_a_bad_ignore_line_indexes_the_folder(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    write(root, "sub/.gitignore", "*.log\n[z-a]\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False))
    try:
        summary = ws.indexer.index()
        assert summary.new == 3  # a.py, sub/b.py, sub/.gitignore
        assert summary.skipped_by_reason == {"bad_ignore_line": 1, "gitignore": 1}
        assert ("sub/.gitignore:2", "bad_ignore_line") in summary.skipped_paths
        hits = ws.searcher.search(SearchRequest(query="top_level_fn", mode="lexical")).hits
        assert [h.path for h in hits] == ["a.py"]
    finally:
        ws.close()


def test_a_bad_exclude_pattern_given_to_discovery_is_dropped(tmp_path: Path) -> None:
    """The settings refuse it (below); a caller that builds options itself still gets a
    walk, and the pattern is named."""
    root = tree(tmp_path / "ws")
    found = discover(root, DiscoveryOptions(extra_excludes=("[z-a]", "*.log")))
    assert [c.path for c in found.candidates] == ["a.py", "sub/b.py"]
    assert found.skipped == [("exclude setting:1", "bad_ignore_line"),
                             ("sub/x.log", "exclude")]
