"""Driving the real `kebab-lsp` process the way an editor does: start it on folders, wait for its
index, time requests in passes, and edit-save-poll until a new symbol is visible."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.config import WARMUP
from bench.lsp_client import LspClient


def start_server(roots: list[Path], index_root: Path, workers: int | None, debounce_ms: int,
                 stderr: Path) -> LspClient:
    """Embeddings are off: embedding the main tree takes many minutes, and a lexical-only
    server is what answers while they run; the vector path is timed by the Quality step and
    the command-line figures."""
    options: dict[str, Any] = {"index_dir": str(index_root), "debounce_ms": debounce_ms,
                               "embed": False}
    if workers is not None:
        options["workers"] = workers
    client = LspClient([str(Path(sys.executable).parent / "kebab-lsp")], stderr_path=stderr,
                       env={"KEBAB_INDEX_DIR": str(index_root)})
    client.initialize(roots, options)
    return client


def wait_ready(client: LspClient, timeout: float, expect_files: bool = True) -> tuple[float, Any]:
    t0 = time.perf_counter()
    status: Any = None
    while time.perf_counter() - t0 < timeout:
        status = client.request("kebab/status", {}, timeout=30)
        folders = status.get("folders") or []
        if (not status["building"] and folders
                and (not expect_files or all(f["files"] > 0 for f in folders))):
            return time.perf_counter() - t0, status
        time.sleep(0.05)
    raise TimeoutError(f"server still building after {timeout:.0f} s: {json.dumps(status)[:400]}")


def search_params(query: str, mode: str, k: int = 20) -> dict[str, Any]:
    return {"query": query, "mode": mode, "k": k}


def time_pass(client: LspClient, method: str, params: Sequence[Any]
              ) -> tuple[list[float], list[Any]]:
    """One pass over a query set, after `WARMUP` untimed requests: (seconds, results)."""
    for p in params[:WARMUP]:
        client.request(method, p)
    times: list[float] = []
    results: list[Any] = []
    for p in params:
        elapsed, result = client.timed(method, p)
        times.append(elapsed)
        results.append(result)
    return times, results


def save(client: LspClient, path: Path) -> None:
    client.notify("textDocument/didSave", {"textDocument": {"uri": path.resolve().as_uri()}})


def has_symbol(client: LspClient, name: str) -> bool:
    result = client.request("workspace/symbol", {"query": name}, timeout=60) or []
    return any(item.get("name") == name for item in result)


def poll_symbol(client: LspClient, name: str, t0: float, timeout: float) -> float | None:
    """Seconds from `t0` until `name` is a workspace symbol, or None after `timeout`."""
    while time.perf_counter() - t0 < timeout:
        if has_symbol(client, name):
            return time.perf_counter() - t0
        time.sleep(0.001)
    return None


def poll_gone(client: LspClient, name: str, timeout: float) -> None:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout and has_symbol(client, name):
        time.sleep(0.005)


def with_new_function(client: LspClient, path: Path, name: str,
                      then: Callable[[float], None]) -> None:
    """Append `def name()` to `path`, save it and call `then(t_save)`; the file is always put
    back, saved again, and the symbol waited out, so the next edit starts from the same index."""
    original = path.read_bytes()
    try:
        path.write_bytes(original + f"\n\ndef {name}():\n    return 0\n".encode())
        t_save = time.perf_counter()
        save(client, path)
        then(t_save)
    finally:
        path.write_bytes(original)
        save(client, path)
        poll_gone(client, name, 60.0)
