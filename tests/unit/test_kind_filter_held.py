"""A kind filter keeps the chunks that hold a definition of its kinds which has no chunk of
its own (constants, properties, fields, one-line members): through the real `kebab` command,
on both store backends (SQLite and a team index on a real PostgreSQL), with exact counts, and
in the vector arm's LanceDB prefilter, whose list of such chunks is bounded and says so when
it leaves some out. The end-to-end tests over the server are `tests/e2e/test_lsp_kind_filter.py`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_store_backends import Backend, _open

from indexing.filters import Filters
from indexing.records import Span
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search import vector

E2E = Path(__file__).parent.parent / "e2e"
sys.path.insert(0, str(E2E))
from test_lsp_kind_filter import FILES  # noqa: E402  (the same excerpts of real code)

sys.path.remove(str(E2E))


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    yield from _open(request.param, _tree(tmp_path / "repo", FILES), tmp_path, request)


def _cited(result: Any) -> list[tuple[str, Span]]:
    return [(h.path, h.span) for h in result.hits]


def test_both_backends_find_held_definitions_by_kind_with_exact_counts(
        backend: Backend) -> None:
    debug = backend.search("debug information", filters=Filters(kinds=("constant",)))
    assert _cited(debug) == [("src/Logger.php", Span(12, 17, 12, 22))]
    assert debug.meta.total_matches == 1 and debug.meta.recall["complete"] is True
    keys = backend.search("keys list", filters=Filters(kinds=("method",)))
    assert _cited(keys) == [("android/AsyncStorageAccess.kt", Span(9, 16, 9, 23))]
    # Two kinds, and a match in a chunk of its own kind (getName) besides the held ones.
    both = backend.search("name", k=10, filters=Filters(kinds=("property", "method")))
    assert sorted(_cited(both), key=str) == [("src/Logger.php", Span(24, 15, 24, 19)),
                                    ("src/Logger.php", Span(33, 23, 33, 27))]
    assert both.meta.total_matches == 2
    # Exact text: inside a held constant it counts; inside the class, outside any, it does not.
    exact = backend.search('"DEBUG = 100"', filters=Filters(kinds=("constant",)))
    assert _cited(exact) == [("src/Logger.php", Span(12, 17, 12, 28))]
    assert exact.meta.total_matches == 1
    assert backend.search('"Monolog log channel"',
                          filters=Filters(kinds=("constant",))).meta.total_matches == 0
    # No definition of the kind anywhere: empty, and truly so.
    none = backend.search("debug information", filters=Filters(kinds=("enum_member",)))
    assert none.hits == [] and none.meta.total_matches == 0
    # The store's own answer for the vector arm: the chunk that holds them, once.
    held, total = backend.store.held_chunk_ids(Filters(kinds=("constant", "property")), 10)
    assert total == 1 and [c for c in held] == [h.chunk_id for h in debug.hits]
    assert backend.store.held_chunk_ids(
        Filters(kinds=("constant",), langs=("kotlin",)), 10) == ([], 0)


def kebab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kebab_lsp.cli", *args], capture_output=True,
                          text=True, env=os.environ.copy(), check=False, timeout=120)


@pytest.mark.subprocess
def test_the_command_line_finds_what_the_hunt_could_not(tmp_path: Path, index_root: Path
                                                        ) -> None:
    root = _tree(tmp_path / "repo", FILES)
    assert kebab("index", "--no-embed", str(root)).returncode == 0
    for query, kind, path, line, col in [("DEBUG", "constant", "src/Logger.php", 12, 17),
                                         ("handlers", "property", "src/Logger.php", 31, 15),
                                         ("getKeys", "method", "android/AsyncStorageAccess.kt",
                                          9, 16),
                                         ("interesting events info", "constant",
                                          "src/Logger.php", 19, 17)]:
        done = kebab("search", query, str(root), "--kind", kind, "--json", "--explain")
        assert done.returncode == 0, done.stderr
        wire = json.loads(done.stdout)
        assert wire["meta"]["total_matches"] == 1, (query, wire["meta"])
        hit = wire["hits"][0]
        assert (hit["path"], hit["selection"]["start"]) == (
            path, {"line": line, "character": col}), (query, hit)
        human = kebab("search", query, str(root), "--kind", kind)
        assert f"{path}:{line + 1}:{col + 1}" in human.stdout, human.stdout


def test_the_vector_prefilter_names_held_chunks_and_says_when_it_leaves_some_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {f"src/Level{i}.php": f"<?php\nclass Level{i}\n{{\n    public const DEBUG = {i};\n"
             "    public const INFO = 200;\n}\n" for i in range(3)}
    ws = Workspace(_tree(tmp_path / "repo", files),
                   Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False))
    try:
        ws.indexer.index()
        store = ws.store
        where, warnings = vector._where(store, Filters(kinds=("constant",)))
        held, total = store.held_chunk_ids(Filters(kinds=("constant",)), 10)
        assert total == 3 and len(held) == 3 and warnings == []
        assert where == ("(kind IN ('constant') OR chunk_id IN ("
                         + ", ".join(f"'{c}'" for c in held) + "))")
        assert vector._where(store, Filters(kinds=("class",))) == ("kind IN ('class')", [])
        monkeypatch.setattr(vector, "MAX_HELD_IDS", 2)
        where, warnings = vector._where(store, Filters(kinds=("constant",), langs=("php",)))
        assert where == ("(lang IN ('php')) AND (kind IN ('constant') OR chunk_id IN ("
                         + ", ".join(f"'{c}'" for c in held[:2]) + "))")
        assert warnings == ["vector search under the kind filter looked at 2 of the 3 chunks "
                            "that hold a constant with no chunk of its own (the first by "
                            "path); the others can still be found by words (mode 'lexical')"]
    finally:
        ws.close()
