"""Ignore files and folder trees that fight the walk: an ignore file that is a FIFO, a device,
a link out of the workspace or huge; a line pathspec cannot read; a
chain of folders deeper than Python's recursion limit. None of them may hang the walk or lose
the rest of the folder, and each is counted under a reason. (Bad globs in the settings and in
filters: test_bad_globs.py.)

Every test walks real files (real FIFOs, real links, real folders thousands deep).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from indexing.discover import (
    IGNORE_FILE_MAX_BYTES,
    Discovery,
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


def in_time(fn: Callable[[], Any], fifos: list[Path]) -> Any:
    """`fn()` within `HUNG_S`, else fail. A walk blocked opening one of `fifos` (as the old
    code was) is set free by a writer that opens it and closes it, so no thread is left."""
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    thread.join(HUNG_S)
    hung = thread.is_alive()
    if hung:
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(5)
    assert not hung, f"the walk hung on a FIFO for {HUNG_S}s"
    return out[0]


# -- ignore files that are not regular files (bug: a FIFO hung the walk forever) ---------------


@pytest.mark.parametrize("rel", ["sub/.gitignore", ".kebabignore", ".git/info/exclude"])
def test_an_ignore_file_that_is_a_fifo_is_not_read_and_is_counted(tmp_path: Path,
                                                                   rel: str) -> None:
    root = tree(tmp_path / "ws")
    fifo = root / rel
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    found: Discovery = in_time(lambda: discover(root), [fifo])
    assert [c.path for c in found.candidates] == ["a.py", "sub/b.py", "sub/x.log"]
    skipped = [(p, why) for p, why in found.skipped if p != ".git/"]
    # Counted once, as an ignore file whose rules were not read (not again as not_regular).
    assert skipped == [(rel, "ignore_file_unread")]
    # A changed file's own check reads the same rules: it must not hang either.
    assert in_time(lambda: is_indexable_path(root, root / "sub/b.py"), [fifo]) is True


def test_an_ignore_file_linked_to_dev_zero_is_not_read(tmp_path: Path) -> None:
    """Read to its end, /dev/zero fills memory: run in a child with 1 GB of address space,
    so the old code's failure is a MemoryError there, not here."""
    root = tree(tmp_path / "ws")
    os.symlink("/dev/zero", root / "sub/.gitignore")
    code = ("import resource, sys\n"
            "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
            "from pathlib import Path\n"
            "from indexing.discover import discover\n"
            "found = discover(Path(sys.argv[1]))\n"
            "print([c.path for c in found.candidates], found.skipped)\n")
    run = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True,
                         text=True, timeout=HUNG_S * 3, check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == (
        "['a.py', 'sub/b.py', 'sub/x.log'] [('sub/.gitignore', 'ignore_file_unread')]")


def test_an_ignore_file_linked_out_of_the_workspace_is_not_followed(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    write(tmp_path, "elsewhere/rules", "*.py\n")
    os.symlink(tmp_path / "elsewhere/rules", root / "sub/.gitignore")
    found = discover(root)
    assert [c.path for c in found.candidates] == ["a.py", "sub/b.py", "sub/x.log"]
    assert found.skipped == [("sub/.gitignore", "ignore_file_unread")]
    # A link to rules inside the workspace is read as before.
    (root / "sub/.gitignore").unlink()
    write(root, "rules.txt", "*.log\n")
    os.symlink(root / "rules.txt", root / "sub/.gitignore")
    found = discover(root)
    assert [c.path for c in found.candidates] == ["a.py", "rules.txt", "sub/.gitignore",
                                                  "sub/b.py"]
    assert found.skipped == [("sub/x.log", "gitignore")]


def test_an_ignore_file_past_the_size_limit_is_not_read(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    rules = "*.py\n" + "# padding\n" * (IGNORE_FILE_MAX_BYTES // 10 + 1)
    assert len(rules) > IGNORE_FILE_MAX_BYTES
    write(root, "sub/.gitignore", rules)
    found = discover(root, DiscoveryOptions(max_bytes=2 * IGNORE_FILE_MAX_BYTES))
    assert [c.path for c in found.candidates] == ["a.py", "sub/.gitignore", "sub/b.py",
                                                  "sub/x.log"]
    assert found.skipped == [("sub/.gitignore", "ignore_file_unread")]


def test_a_scan_with_a_fifo_ignore_file_indexes_the_rest_and_says_so(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    fifo = root / "sub/.gitignore"
    os.mkfifo(fifo)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False))
    try:
        summary = in_time(ws.indexer.index, [fifo])
        assert (summary.new, summary.skipped_by_reason) == (3, {"ignore_file_unread": 1})
        hits = ws.searcher.search(SearchRequest(query="below_fn", mode="lexical")).hits
        assert [h.path for h in hits] == ["sub/b.py"]
    finally:
        ws.close()


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


# -- folder chains deeper than the recursion limit (bug: RecursionError lost the folder) ----


def deep_chain(root: Path, depth: int, leaf: str) -> None:
    """`root/d/d/.../d/<leaf>`, `depth` folders deep, made through folder descriptors so a
    chain past PATH_MAX can be made at all."""
    fd = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            below = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = below
        out = os.open(leaf, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, b"def deepest_fn():\n    pass\n")
        os.close(out)
    finally:
        os.close(fd)


def remove_chain(root: Path) -> None:
    """Undo `deep_chain` without recursion (shutil.rmtree recurses, and names past PATH_MAX
    can only be reached through descriptors): the chain's second folder moves up to `root`
    in place of the first, until none is left."""
    fd = os.open(root, os.O_RDONLY)
    try:
        while "d" in os.listdir(fd):
            first = os.open("d", os.O_RDONLY, dir_fd=fd)
            try:
                for name in os.listdir(first):
                    if name == "d":
                        os.rename("d", "d.next", src_dir_fd=first, dst_dir_fd=fd)
                    else:
                        os.unlink(name, dir_fd=first)
            finally:
                os.close(first)
            os.rmdir("d", dir_fd=fd)
            if "d.next" in os.listdir(fd):
                os.rename("d.next", "d", src_dir_fd=fd, dst_dir_fd=fd)
    finally:
        os.close(fd)


def test_a_chain_deeper_than_the_recursion_limit_is_walked(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, "top.py", "def top_level_fn():\n    pass\n")
    depth = sys.getrecursionlimit() + 200
    assert len(str(root)) + 2 * depth + 10 < 4000  # the whole path still fits PATH_MAX
    deep_chain(root, depth, "deep.py")
    try:
        found = discover(root)
        assert [c.path for c in found.candidates] == ["d/" * depth + "deep.py", "top.py"]
        assert found.skipped == []
    finally:
        remove_chain(root)


def test_a_chain_past_path_max_is_counted_and_the_rest_indexed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, "top.py", "def top_level_fn():\n    pass\n")
    deep_chain(root, 2100, "deep.py")
    try:
        ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1,
                                      embed=False))
        try:
            summary = ws.indexer.index()
            assert summary.skipped_by_reason == {"path_too_long": 1}
            [(where, _)] = summary.skipped_paths
            assert where.startswith("d/d/") and where.endswith("/")
            assert len(str(root / where)) >= 4000  # where the system stops taking the path
            hits = ws.searcher.search(SearchRequest(query="top_level_fn",
                                                    mode="lexical")).hits
            assert [h.path for h in hits] == ["top.py"]
            assert set(ws.store.file_states()) == {"top.py"}
        finally:
            ws.close()
    finally:
        remove_chain(root)


# -- the same through the CLI: one line, no traceback, the folder indexed -------------------


def kebab(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, KEBAB_INDEX_DIR=str(tmp_path / "index"))
    return subprocess.run([sys.executable, "-m", "kebab_lsp.cli", *args], env=env,
                          capture_output=True, text=True, timeout=HUNG_S * 3, check=False)


@pytest.mark.subprocess
def test_the_cli_indexes_past_a_fifo_and_a_bad_line_and_lists_them(tmp_path: Path) -> None:
    root = tree(tmp_path / "ws")
    os.mkfifo(root / ".kebabignore")
    write(root, "sub/.gitignore", "*.log\nfoo\\\n")
    run = kebab(tmp_path, "index", str(root), "--no-embed", "--list-skipped")
    assert run.returncode == 0, run.stderr
    assert "skipped by reason: bad_ignore_line 1, gitignore 1, ignore_file_unread 1" \
        in run.stdout
    assert "ignore_file_unread .kebabignore\n" in run.stdout
    assert "sub/.gitignore:2\n" in run.stdout
    found = kebab(tmp_path, "search", "below_fn", str(root), "--mode", "lexical")
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith("sub/b.py:1:5")
