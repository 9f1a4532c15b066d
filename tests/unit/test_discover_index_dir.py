"""The folder where indexes live is never indexed when the workspace holds it: an `indexDir`
inside the workspace, or the user cache under an opened home folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexing.discover import DiscoveryOptions, discover, is_indexable_path
from indexing.settings import Settings


def write(root: Path, rel: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x = 1\n", encoding="utf-8")
    return path


def test_an_index_dir_setting_inside_the_workspace_is_skipped(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    note = write(tmp_path, "cache/kebab/ws-0123/workspace.json")
    write(tmp_path, "cache/other.py")
    options = DiscoveryOptions.from_settings(Settings(index_dir=str(tmp_path / "cache/kebab")))
    found = discover(tmp_path, options)
    assert [c.path for c in found.candidates] == ["a.py", "cache/other.py"]
    assert dict(found.skipped) == {"cache/kebab/": "index_dir"}
    assert not is_indexable_path(tmp_path, note, options)
    assert is_indexable_path(tmp_path, tmp_path / "cache/other.py", options)


def test_the_default_cache_under_an_opened_home_folder_is_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the platform's cache is depends on the environment (`XDG_CACHE_HOME` here)."""
    monkeypatch.delenv("KEBAB_INDEX_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / ".cache"))
    write(tmp_path, "src/a.py")
    note = write(tmp_path, ".cache/kebab-lsp/home-0123/workspace.json")
    write(tmp_path, ".cache/pip/log.txt")
    options = DiscoveryOptions.from_settings(Settings())
    found = discover(tmp_path, options)
    assert [c.path for c in found.candidates] == [".cache/pip/log.txt", "src/a.py"]
    assert dict(found.skipped) == {".cache/kebab-lsp/": "index_dir"}
    assert not is_indexable_path(tmp_path, note, options)
