"""`kebab cache list|prune|clear` and `kebab doctor` as a user runs them: real subprocesses on
real indexes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.subprocess, pytest.mark.slow]  # each runs the CLI on a built index


def kebab(*args: str, index_root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kebab_lsp.cli", *args], capture_output=True, text=True,
        env=dict(os.environ, KEBAB_INDEX_DIR=str(index_root)), stdin=subprocess.DEVNULL,
        check=False, timeout=120,
    )


def listing(index_root: Path) -> dict[str, Any]:
    out = kebab("cache", "list", "--json", index_root=index_root)
    assert out.returncode == 0, out.stderr
    result: dict[str, Any] = json.loads(out.stdout)
    return result


@pytest.fixture
def cache(sample_repo: Path, tmp_path: Path) -> tuple[Path, Path, Path]:
    """(the cache root, a workspace that stays, one that will be deleted), both indexed; the
    root also holds an index from before workspaces were recorded, and a file and a folder
    that are no index at all."""
    root = tmp_path / "cache"
    keep, gone = tmp_path / "keep", tmp_path / "gone"
    shutil.copytree(sample_repo, keep)
    shutil.copytree(sample_repo, gone)
    for ws in (keep, gone):
        out = kebab("index", str(ws), "--no-embed", index_root=root)
        assert out.returncode == 0, out.stderr
    legacy = root / "legacy-0123456789ab"
    legacy.mkdir()
    (legacy / "index.sqlite3").write_bytes(b"x" * 100)
    (root / "notes").mkdir()
    (root / "notes" / "index.sqlite3").write_text("not an index folder: no -<hash> name")
    (root / "README").write_text("mine")
    return root, keep, gone


def test_list_shows_every_index_with_its_size_and_workspace(cache: tuple[Path, Path, Path]
                                                            ) -> None:
    root, keep, gone = cache
    data = listing(root)
    assert data["root"] == str(root)
    by_workspace = {i["workspace"]: i for i in data["indexes"]}
    assert set(by_workspace) == {str(keep), str(gone), None}
    assert all(i["bytes"] > 0 for i in data["indexes"])
    assert by_workspace[str(keep)]["workspace_exists"] is True
    assert by_workspace[None]["path"] == str(root / "legacy-0123456789ab")
    assert data["total_bytes"] == sum(i["bytes"] for i in data["indexes"]) + \
        data["models"]["bytes"]
    human = kebab("cache", "list", index_root=root)
    assert human.returncode == 0, human.stderr
    assert f"cache root: {root}" in human.stdout
    assert str(keep) in human.stdout and "workspace unknown" in human.stdout
    assert "3 index(es)" in human.stdout


def test_prune_removes_only_indexes_of_workspaces_that_are_gone(
        cache: tuple[Path, Path, Path]) -> None:
    root, keep, gone = cache
    shutil.rmtree(gone)
    assert "(gone)" in kebab("cache", "list", index_root=root).stdout
    dry = kebab("cache", "prune", "--dry-run", "--json", index_root=root)
    assert dry.returncode == 0, dry.stderr
    assert [i["workspace"] for i in json.loads(dry.stdout)["removed"]] == [str(gone)]
    assert len(listing(root)["indexes"]) == 3  # a dry run removes nothing
    pruned = kebab("cache", "prune", index_root=root)
    assert pruned.returncode == 0, pruned.stderr
    assert "removed 1 index(es)" in pruned.stdout
    assert "kept 1 index(es) of unknown workspace" in pruned.stdout
    assert {i["workspace"] for i in listing(root)["indexes"]} == {str(keep), None}
    assert (root / "notes").is_dir() and (root / "README").is_file()
    # The workspace that stays still searches from its index.
    found = kebab("search", "get_user_by_id", str(keep), "--json", index_root=root)
    assert found.returncode == 0 and json.loads(found.stdout)["hits"], found.stderr


def test_clear_one_workspace_then_everything(cache: tuple[Path, Path, Path]) -> None:
    root, keep, gone = cache
    one = kebab("cache", "clear", str(gone), index_root=root)
    assert one.returncode == 0, one.stderr
    assert {i["workspace"] for i in listing(root)["indexes"]} == {str(keep), None}
    (root / "_models").mkdir()
    (root / "_models" / "graph.onnx").write_bytes(b"y" * 1000)
    refused = kebab("cache", "clear", index_root=root)  # no terminal to ask, no --yes
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert len(listing(root)["indexes"]) == 2
    cleared = kebab("cache", "clear", "--yes", "--json", index_root=root)
    assert cleared.returncode == 0, cleared.stderr
    report = json.loads(cleared.stdout)
    assert len(report["removed"]) == 2 and report["models_bytes"] == 1000
    assert listing(root)["indexes"] == [] and not (root / "_models").exists()
    # Only index folders and the model cache go; whatever else is there stays.
    assert sorted(p.name for p in root.iterdir()) == ["README", "notes"]


@pytest.mark.model
def test_doctor_reports_python_version_cache_root_and_that_the_model_loads(tmp_path: Path
                                                                          ) -> None:
    out = kebab("doctor", "--json", index_root=tmp_path / "cache")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    import kebab_lsp

    assert report["kebab"] == kebab_lsp.__version__
    assert report["python"] == sys.executable
    assert report["cache_root"] == str(tmp_path / "cache")
    assert report["model"]["ok"] is True and report["model"]["dim"] == 384
    broken = kebab("doctor", "--model-dir", str(tmp_path / "nowhere"), index_root=tmp_path)
    assert broken.returncode == 1
    assert "model       does not load: model directory" in broken.stdout
