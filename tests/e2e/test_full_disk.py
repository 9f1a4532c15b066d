"""A full disk (issue 10), for real: the index directory is a small tmpfs. `kebab index` fails
with one clear line and leaves no big WAL; with the disk 100% full the last good index still
answers `kebab search`, `kebab status` and the server (which keeps the folder and says why it
cannot update it); once there is room again, indexing catches up by itself.

Mounting needs root (CAP_SYS_ADMIN); without it these tests are skipped, saying so."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_support import StartFn, big_tree, to_json
from lsprotocol import types

from indexing.store import DB_NAME, Store

Mount = tuple[Path, int]


def _mount(path: Path, size: int) -> None:
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs to fill ({done.stderr.strip() or done.returncode}); "
                    "the full-disk tests need root")


@pytest.fixture
def mounts(tmp_path: Path) -> Iterator[list[Path]]:
    mounted: list[Path] = []
    yield mounted
    for path in mounted:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def small_disk(mounted: list[Path], path: Path, size: int) -> Path:
    _mount(path, size)
    mounted.append(path)
    return path


def fill(disk: Path) -> Path:
    """Fill the disk to the last byte; the filler file is returned, to free the space."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o600)
    try:
        for block in (1 << 20, 1 << 12, 1):
            try:
                while os.write(fd, b"\0" * block):
                    pass
            except OSError:
                pass
    finally:
        os.close(fd)
    assert os.statvfs(disk).f_bavail == 0
    return filler


def kebab(*args: str, index_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kebab_lsp.cli", *args, "--index-dir",
                           str(index_dir)], capture_output=True, text=True, timeout=120)


def index_bytes(root: Path, scratch: Path) -> int:
    """How big an index of `root` is (indexed on an ordinary disk first)."""
    done = kebab("index", str(root), "--no-embed", index_dir=scratch)
    assert done.returncode == 0, done.stderr
    return sum(p.stat().st_size for p in scratch.rglob("*") if p.is_file())


def one_index_dir(disk: Path) -> Path:
    [found] = [p for p in disk.iterdir() if p.is_dir()]
    return found


def test_index_on_a_disk_too_small_fails_with_one_line_and_no_big_wal(
        tmp_path: Path, mounts: list[Path]) -> None:
    root = big_tree(tmp_path / "tree", 300)
    need = index_bytes(root, tmp_path / "scratch")
    disk = small_disk(mounts, tmp_path / "disk", need // 2)

    done = kebab("index", str(root), "--no-embed", index_dir=disk)

    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "disk is full" in lines[0] and "Traceback" not in done.stderr
    index_dir = one_index_dir(disk)
    wal = index_dir / (DB_NAME + "-wal")
    assert not wal.exists() or wal.stat().st_size < 64 * 1024  # the failed batch gave it back
    assert os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize > need // 8
    store = Store(index_dir)  # what was committed before is a sound index
    assert store.verify() is None
    store.close()


def test_a_first_search_on_a_disk_too_small_says_its_answer_is_partial(
        tmp_path: Path, mounts: list[Path]) -> None:
    """`kebab search` indexes a folder it has no index of first; when that index fails for
    room, the answer cannot claim complete recall over what it wrote."""
    root = big_tree(tmp_path / "tree", 300)
    need = index_bytes(root, tmp_path / "scratch")
    disk = small_disk(mounts, tmp_path / "disk", need // 2)

    done = kebab("search", "handle_payload_299_3", str(root), "--json", index_dir=disk)

    assert done.returncode == 0, done.stderr
    meta = json.loads(done.stdout)["meta"]
    assert meta["recall"]["complete"] is False, meta
    assert any("did not finish" in w and "disk is full" in w for w in meta["warnings"]), meta


@pytest.mark.parametrize("wal_files", ["kept", "missing"])
def test_a_full_disk_leaves_the_last_index_searchable_and_indexing_recovers(
        tmp_path: Path, mounts: list[Path], wal_files: str) -> None:
    """`missing`: an index whose WAL and shared-memory files are gone (another version made
    it, or they were deleted) can only be opened read-only on a full disk."""
    root = big_tree(tmp_path / "tree", 60)
    need = index_bytes(root, tmp_path / "scratch")
    disk = small_disk(mounts, tmp_path / "disk", need + (2 << 20))
    assert kebab("index", str(root), "--no-embed", index_dir=disk).returncode == 0
    index_dir = one_index_dir(disk)
    if wal_files == "missing":
        for suffix in ("-wal", "-shm"):
            (index_dir / (DB_NAME + suffix)).unlink(missing_ok=True)
    store = Store(index_dir)
    before = store.snapshot()
    store.close()
    filler = fill(disk)
    (root / "pkg" / "mod_000.py").write_text("def written_while_full():\n    return 1\n")

    found = kebab("search", "handle_payload_7_3", str(root), "--mode", "lexical", "--json",
                  index_dir=disk)
    assert found.returncode == 0, found.stderr
    assert '"path": "pkg/mod_007.py"' in found.stdout
    status = kebab("status", str(root), index_dir=disk)
    assert status.returncode == 0 and "files" in status.stdout, status.stderr

    refused = kebab("index", str(root), "--no-embed", index_dir=disk)
    assert refused.returncode == 1
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "disk is full" in refused.stderr and "Traceback" not in refused.stderr

    filler.unlink()  # room again: the index is as it was, and catches up
    store = Store(index_dir)
    assert store.snapshot() == before
    store.close()
    done = kebab("index", str(root), "--no-embed", index_dir=disk)
    assert done.returncode == 0, done.stderr
    found = kebab("search", "written_while_full", str(root), "--mode", "lexical", "--json",
                  index_dir=disk)
    assert '"path": "pkg/mod_000.py"' in found.stdout


async def _eventually(check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.2)


async def test_the_server_keeps_a_folder_on_a_full_disk_and_catches_up_after(
        start_server: StartFn, tmp_path: Path, mounts: list[Path]) -> None:
    root = big_tree(tmp_path / "tree", 60)
    need = index_bytes(root, tmp_path / "scratch")
    disk = small_disk(mounts, tmp_path / "disk", need + (2 << 20))
    assert kebab("index", str(root), "--no-embed", index_dir=disk).returncode == 0
    filler = fill(disk)

    s = await start_server([root], index_dir=disk)
    await s.wait_idle()
    hits = (await s.search({"query": "handle_payload_7_3", "mode": "lexical"}))["hits"]
    assert hits and hits[0]["path"] == "pkg/mod_007.py"  # the folder is kept, and answers

    path = root / "pkg" / "mod_000.py"
    path.write_text("def written_while_full():\n    return 1\n")
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri())))

    async def told() -> bool:
        return any("disk is full" in m.message for m in s.client.messages)

    await _eventually(told)
    answer = await s.search({"query": "handle_payload_7_3", "mode": "lexical"})
    assert answer["hits"] and answer["hits"][0]["path"] == "pkg/mod_007.py"
    assert any("cannot be updated" in w for w in answer["meta"]["warnings"]), answer["meta"]
    assert answer["meta"]["recall"]["complete"] is False  # the save is not in it
    status = to_json(await s.status())
    assert any("cannot be updated" in w for w in status["folders"][0]["warnings"])

    filler.unlink()

    async def caught_up() -> bool:
        found = await s.search({"query": "written_while_full", "mode": "lexical"})
        return bool(found["hits"]) and not any("cannot be updated" in w
                                               for w in found["meta"]["warnings"])

    await _eventually(caught_up, timeout=60)
    found = await s.search({"query": "written_while_full", "mode": "lexical"})
    assert found["meta"]["recall"]["complete"] is True, found["meta"]
    status = to_json(await s.status())
    assert status["folders"][0]["warnings"] == []
    assert any("can be written again" in m.message for m in s.client.messages)
