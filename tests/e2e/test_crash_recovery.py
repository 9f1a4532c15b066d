"""kill -9 (issue 10): `kebab index` and the server are killed at random points of a cold index
and of incremental updates, then restarted; the index must then equal a fresh index of the
same tree (files, symbols, chunks and texts: `Store.snapshot`), hold no row the vector table
should not (no orphan vectors), and no process the parse pool started may outlive the one
killed.

`KEBAB_CRASH_ITERATIONS` (default 3) sets how many kills each test makes, `KEBAB_CRASH_SEED`
replays a run (the seed is in every failure message)."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from e2e_support import (
    Session,
    StartFn,
    assert_none_survive,
    crash_tree,
    descendants,
    write_module,
)
from lsprotocol import types

from indexing.location import index_dir_for
from indexing.settings import Settings
from indexing.store import Store
from kebab_lsp.workspace import Workspace

ITERATIONS = int(os.environ.get("KEBAB_CRASH_ITERATIONS", "3"))
SEED = int(os.environ.get("KEBAB_CRASH_SEED", str(random.SystemRandom().randrange(1 << 30))))


def mutate(root: Path, rnd: random.Random, defs: int) -> list[Path]:
    """Edit, delete, add and rename some files, as a branch switch would; returns every path
    touched (gone ones included)."""
    existing = sorted(root.rglob("*.py"))
    touched: list[Path] = []
    for path in rnd.sample(existing, max(1, len(existing) // 8)):
        i = int(path.stem.rsplit("_", 1)[1])
        touched.append(write_module(root, i, defs, variant=rnd.randrange(1, 1000)))
    for path in rnd.sample(existing, max(1, len(existing) // 30)):
        if path.exists():
            path.unlink()
            touched.append(path)
    top = max(int(p.stem.rsplit("_", 1)[1]) for p in existing)
    for k in range(max(1, len(existing) // 30)):
        touched.append(write_module(root, top + 1 + k, defs, variant=0))
    for path in rnd.sample(sorted(root.rglob("*.py")), 3):
        target = path.with_name(f"moved_{path.name}")
        path.rename(target)
        touched.extend([path, target])
    return touched


def fresh_snapshot(root: Path, scratch: Path) -> dict[str, Any]:
    ws = Workspace(root, Settings(index_dir=str(scratch), workers=1, embed=False))
    ws.indexer.index()
    snapshot = ws.store.snapshot()
    ws.close()
    shutil.rmtree(scratch)
    return snapshot


def stored(root: Path, cache: Path) -> tuple[dict[str, Any], str | None]:
    """(snapshot, damage found by a full read) of the index in `cache`."""
    store = Store(index_dir_for(root.resolve(), cache))
    try:
        return store.snapshot(), store.verify()
    finally:
        store.close()


def kebab_index(root: Path, cache: Path, embed: bool = False) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "kebab_lsp.cli", "index", str(root), "--index-dir", str(cache),
         "--workers", "2", "--embed" if embed else "--no-embed"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def run_index(root: Path, cache: Path, embed: bool = False) -> None:
    proc = kebab_index(root, cache, embed)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()


def kill_after(proc: subprocess.Popen[bytes], delay: float) -> set[int]:
    """kill -9 `proc` after `delay` seconds (or when it ends first); returns the processes it
    had started, as they were just before the kill."""
    deadline = time.monotonic() + delay
    children: set[int] = set()
    while time.monotonic() < deadline and proc.poll() is None:
        children |= descendants(proc.pid)
        time.sleep(0.02)
    children |= descendants(proc.pid)
    with_signal = proc.poll() is None
    if with_signal:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return children


def context(what: str, i: int, delay: float) -> str:
    return f"{what}, iteration {i}, killed after {delay:.2f}s (KEBAB_CRASH_SEED={SEED})"


def test_kebab_index_killed_during_a_cold_index(tmp_path: Path) -> None:
    rnd = random.Random(SEED)
    root = crash_tree(tmp_path / "tree")
    reference = fresh_snapshot(root, tmp_path / "ref")
    for i in range(ITERATIONS):
        cache = tmp_path / f"cache{i}"
        delay = rnd.uniform(0.3, 6.0)
        children = kill_after(kebab_index(root, cache), delay)
        assert_none_survive(children, context("cold index", i, delay))
        run_index(root, cache)
        snapshot, damage = stored(root, cache)
        assert damage is None, context("cold index", i, delay)
        assert snapshot == reference, context("cold index", i, delay)


def test_kebab_index_killed_during_incremental_updates(tmp_path: Path) -> None:
    rnd = random.Random(SEED + 1)
    root = crash_tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    run_index(root, cache)
    for i in range(ITERATIONS):
        mutate(root, rnd, defs=4)
        delay = rnd.uniform(0.3, 4.0)
        children = kill_after(kebab_index(root, cache), delay)
        assert_none_survive(children, context("incremental", i, delay))
        run_index(root, cache)
        snapshot, damage = stored(root, cache)
        assert damage is None, context("incremental", i, delay)
        assert snapshot == fresh_snapshot(root, tmp_path / "ref"), \
            context("incremental", i, delay)


@pytest.mark.model
def test_kebab_index_killed_while_embedding_leaves_no_orphan_vectors(tmp_path: Path) -> None:
    rnd = random.Random(SEED + 2)
    root = crash_tree(tmp_path / "tree", files=80, defs=2)
    cache = tmp_path / "cache"
    for i in range(max(2, ITERATIONS - 1)):
        if i:
            mutate(root, rnd, defs=2)
        delay = rnd.uniform(1.0, 8.0)
        kill_after(kebab_index(root, cache, embed=True), delay)
        run_index(root, cache, embed=True)
        snapshot, damage = stored(root, cache)
        assert damage is None and snapshot == fresh_snapshot(root, tmp_path / "ref"), \
            context("embedding", i, delay)
        ws = Workspace(root, Settings(index_dir=str(cache), workers=1))
        vindex = ws.vector_index()
        assert vindex is not None
        assert vindex.vectors.row_hashes() == vindex.expected(), context("embedding", i, delay)
        ws.close()


# -- the server ------------------------------------------------------------------------------------


async def kill_server(s: Session, delay: float) -> set[int]:
    server = s.client._server
    assert server is not None
    deadline = time.monotonic() + delay
    children: set[int] = set()
    while time.monotonic() < deadline:
        children |= descendants(s.pid)
        await asyncio.sleep(0.02)
    children |= descendants(s.pid)
    os.kill(s.pid, signal.SIGKILL)
    await server.wait()
    return children


OPTIONS = {"workers": 2}


async def test_the_server_killed_during_a_cold_index(start_server: StartFn,
                                                     tmp_path: Path) -> None:
    rnd = random.Random(SEED + 3)
    root = crash_tree(tmp_path / "tree")
    reference = fresh_snapshot(root, tmp_path / "ref")
    for i in range(ITERATIONS):
        cache = tmp_path / f"cache{i}"
        s = await start_server([root], index_dir=cache, init_options=OPTIONS)
        delay = rnd.uniform(0.2, 5.0)
        children = await kill_server(s, delay)
        assert_none_survive(children, context("server cold index", i, delay))
        again = await start_server([root], index_dir=cache, init_options=OPTIONS)
        await again.wait_idle(timeout=120)
        assert await again.shutdown() == 0
        snapshot, damage = stored(root, cache)
        assert damage is None, context("server cold index", i, delay)
        assert snapshot == reference, context("server cold index", i, delay)


async def test_the_server_killed_during_incremental_updates(start_server: StartFn,
                                                            tmp_path: Path) -> None:
    rnd = random.Random(SEED + 4)
    root = crash_tree(tmp_path / "tree")
    cache = tmp_path / "cache"
    run_index(root, cache)
    for i in range(ITERATIONS):
        s = await start_server([root], index_dir=cache, init_options=OPTIONS)
        await s.wait_idle(timeout=120)
        touched = mutate(root, rnd, defs=4)
        for start in range(0, len(touched), 10):  # in bursts, as an editor reports a checkout
            s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                changes=[types.FileEvent(uri=p.resolve().as_uri(),
                                         type=types.FileChangeType.Changed)
                         for p in touched[start : start + 10]]))
        delay = rnd.uniform(0.0, 2.0)
        children = await kill_server(s, delay)
        assert_none_survive(children, context("server incremental", i, delay))
        again = await start_server([root], index_dir=cache, init_options=OPTIONS)
        await again.wait_idle(timeout=120)
        assert await again.shutdown() == 0
        snapshot, damage = stored(root, cache)
        assert damage is None, context("server incremental", i, delay)
        assert snapshot == fresh_snapshot(root, tmp_path / "ref"), \
            context("server incremental", i, delay)
