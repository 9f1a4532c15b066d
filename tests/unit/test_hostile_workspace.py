"""Workspaces that fight back: names that are not UTF-8, files that cannot be read, vanish or
change while read, symlinks that lead out, secrets, and build folders that hold real source.

Every test runs the real indexer on real files and a real SQLite store; one bad file must
never stop the rest, and every file left out is counted under a reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from indexing.discover import discover, is_indexable_path
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest

LATIN1_NAME = b"caf\xe9.py"  # "café.py" in Latin-1: not valid UTF-8


def write(root: Path, rel: str | bytes, data: str | bytes = "x = 1\n") -> Path:
    path = Path(os.fsdecode(os.path.join(os.fsencode(root), os.fsencode(rel))))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def open_ws(root: Path, tmp_path: Path, **settings: object) -> Workspace:
    return Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False,
                                    **settings))  # type: ignore[arg-type]


def lexical(ws: Workspace, query: str) -> list[str]:
    result = ws.searcher.search(SearchRequest(query=query, mode="lexical"))
    return [h.path for h in result.hits]


# -- names that are not UTF-8 ----------------------------------------------------------------


def test_a_name_that_is_not_utf8_is_skipped_and_the_rest_indexed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, LATIN1_NAME, "def latin_name_fn():\n    return 1\n")
    write(root, b"d\xe9j\xe0/inner.py", "def inside_bad_dir():\n    pass\n")
    write(root, "ok.py", "def plain_fn():\n    pass\n")
    found = discover(root)
    assert [c.path for c in found.candidates] == ["ok.py"]
    assert sorted(found.skipped) == [("caf\\xe9.py", "undecodable_name"),
                                     ("d\\xe9j\\xe0/", "undecodable_name")]
    ws = open_ws(root, tmp_path)
    try:
        summary = ws.indexer.index()
        assert (summary.new, summary.skipped_by_reason) == (1, {"undecodable_name": 2})
        assert lexical(ws, "plain_fn") == ["ok.py"]
        assert lexical(ws, "latin_name_fn") == []
        # A watcher or a save reporting the file changes nothing and raises nothing.
        bad = Path(os.fsdecode(os.fsencode(root) + b"/" + LATIN1_NAME))
        assert not is_indexable_path(root, bad)
        assert ws.indexer.update_paths([bad]).new == 0
        assert ws.store.stats().files == 1
    finally:
        ws.close()


@pytest.mark.subprocess
def test_kebab_index_and_search_go_on_past_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    write(root, LATIN1_NAME, "def latin_name_fn():\n    return 1\n")
    write(root, "ok.py", "def plain_fn():\n    pass\n")
    env = dict(os.environ, KEBAB_INDEX_DIR=str(tmp_path / "index"))

    def kebab(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kebab_lsp.cli", *args], env=env,
                              capture_output=True, text=True, timeout=120, check=False)

    indexed = kebab("index", str(root), "--no-embed", "--list-skipped")
    assert indexed.returncode == 0, indexed.stderr
    assert "undecodable_name 1" in indexed.stdout
    assert "undecodable_name caf\\xe9.py" in indexed.stdout
    found = kebab("search", "plain_fn", str(root), "--mode", "lexical")
    assert found.returncode == 0, found.stderr
    assert found.stdout.startswith("ok.py:1:5")
