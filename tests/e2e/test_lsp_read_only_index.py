"""The real server over stdio on an index made read-only (chmod), with permissions applying
(as root: without CAP_DAC_OVERRIDE, through `setpriv`; skipped when that cannot be had).

The server takes the index's writer lease through a lock file it may only read, so no other
process writes the index meanwhile; it answers from the index as it is and says that the index
cannot be updated. It does not call the folder unsearched while searching it, nor write an
index whose lease it does not hold."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from e2e_support import FILES, Recorder, capabilities, make_client, to_json, write_tree
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

SETPRIV = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search",
           "--inh-caps", "-dac_override,-dac_read_search", "--"]


def unprivileged() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: chmod would not stop the server")
    probe = subprocess.run([*SETPRIV, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot drop CAP_DAC_OVERRIDE here: {probe.stderr.strip()}")
    return SETPRIV


def set_writable(top: Path, writable: bool) -> None:
    for path in [top, *top.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        path.chmod(mode | 0o200 if writable else mode & ~0o222)


async def test_the_server_answers_from_a_read_only_index_and_says_so(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", FILES)
    index = tmp_path / "index"
    built = subprocess.run([sys.executable, "-m", "kebab_lsp.cli", "index", str(root),
                            "--no-embed", "--index-dir", str(index)],
                           capture_output=True, text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    prefix = unprivileged()
    set_writable(index, False)
    config = ClientServerConfig(
        server_command=[*prefix, sys.executable, "-m", "kebab_lsp.cli", "serve"],
        client_factory=lambda: make_client(recorder),
        server_env=dict(os.environ, KEBAB_INDEX_DIR=str(index), HF_HUB_OFFLINE="1"))
    recorder = Recorder()
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        await client.initialize_session(types.InitializeParams(
            capabilities=capabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options={"indexDir": str(index), "embed": False}))
        status: dict[str, Any] = {}
        for _ in range(200):  # its first scan fails to write; then nothing is queued
            status = to_json(await asyncio.wait_for(
                client.protocol.send_request_async("kebab/status", {}), 10))
            if status["folders"] and not status["building"] and status["folders"][0]["warnings"]:
                break
            await asyncio.sleep(0.05)
        assert status["unopened"] == [], status
        [folder] = status["folders"]
        assert folder["files"] == len(FILES) and folder["writer"]["this_process"], folder
        assert any("cannot be updated" in w and "read-only" in w for w in folder["warnings"]), \
            folder["warnings"]

        answer = to_json(await asyncio.wait_for(client.protocol.send_request_async(
            "kebab/search", {"query": "get_user_by_id", "mode": "lexical"}), 10))
        assert answer["hits"] and answer["hits"][0]["symbol"] == "get_user_by_id", answer
        assert not any("not searched" in w for w in answer["meta"]["warnings"]), answer["meta"]
        # It answers, and does not claim to be complete: changes to the files cannot reach it.
        assert any("cannot be updated" in w for w in answer["meta"]["warnings"]), answer["meta"]
        assert answer["meta"]["recall"]["complete"] is False, answer["meta"]
        shown = [m.message for m in client.messages]
        assert not any("not searched" in m for m in shown), shown
    finally:
        set_writable(index, True)
        try:
            await asyncio.wait_for(client.shutdown_session(), 10)
        except Exception:  # noqa: BLE001 - the test already failed; make sure it ends
            if client._server is not None:
                client._server.kill()
        await client.stop()
