"""The parse workers die with the process that started them (issue 10): after kill -9 of
`kebab index` or of the server while the workers extract, no worker (nor the resource tracker
that spawning them starts) survives it by more than a few seconds."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from e2e_support import StartFn, assert_none_survive, crash_tree, descendants


def pool_up(pid: int, timeout: float = 60.0) -> set[int]:
    """The processes below `pid` once the parse workers run (the resource tracker, the save
    worker and the scan's two workers)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = descendants(pid)
        if len(found) >= 4:
            return found
        time.sleep(0.02)
    raise AssertionError(f"the parse pool did not come up: {descendants(pid)}")


def test_the_parse_pool_dies_with_kebab_index(tmp_path: Path) -> None:
    root = crash_tree(tmp_path / "tree", files=1200)
    proc = _kebab_index(root, tmp_path / "cache")
    children = pool_up(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert_none_survive(children, "kebab index")


async def test_the_parse_pool_dies_with_the_server(start_server: StartFn,
                                                   tmp_path: Path) -> None:
    root = crash_tree(tmp_path / "tree", files=1200)
    s = await start_server([root], init_options={"workers": 2})
    children = await asyncio.to_thread(pool_up, s.pid)
    server = s.client._server
    assert server is not None
    os.kill(s.pid, signal.SIGKILL)
    await server.wait()
    assert_none_survive(children, "the server")


def _kebab_index(root: Path, cache: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "kebab_lsp.cli", "index", str(root), "--index-dir", str(cache),
         "--workers", "2", "--no-embed"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
