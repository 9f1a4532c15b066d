"""An editor's `kebab serve` and an agent's `kebab mcp` on one workspace share one index, with
exactly one writer: the real servers over stdio (pytest-lsp's client and the MCP SDK's), killed
with -9, and edits on disk that the survivor picks up."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

from e2e_support import Session, StartFn, to_json
from lsprotocol import types
from mcp_support import call, make_workspace, mcp_session

NO_EMBED = "--no-embed"  # the language server's tests index without vectors too: one shape


def _lease_holder(index_dir: str) -> int:
    """The pid the index's writer lease names (`indexing.runtime.lease`)."""
    return int((Path(index_dir) / "writer.lock").read_text())


async def _until(what: str, probe: Any, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = await probe()
        if got:
            return got
        assert time.monotonic() < deadline, f"{what}: not within {timeout}s"
        await asyncio.sleep(0.2)


async def _agent_paths(agent: Any, query: str) -> list[str]:
    found = await call(agent, "codebase_search", query=query, mode="lexical")
    return [h["path"] for h in found["hits"]]


async def _editor_paths(editor: Session, query: str) -> list[str]:
    found = await editor.search({"query": query, "mode": "lexical"})
    return [h["path"] for h in found["hits"]]


def _saved(editor: Session, *paths: Path) -> None:
    """What an editor sends when files change on disk."""
    editor.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Changed)
                 for p in paths]))


async def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        await asyncio.sleep(0.05)


async def test_the_editor_writes_the_agent_reads_and_takes_over(start_server: StartFn,
                                                                tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    index = tmp_path / "index"
    editor = await start_server([ws], index_dir=index)
    status = await editor.wait_idle()
    index_dir = status.folders[0].index_dir
    assert _lease_holder(index_dir) == editor.pid
    async with mcp_session([ws], index, NO_EMBED, errlog=tmp_path / "mcp.log") as agent:
        root = (await call(agent, "get_status"))["roots"][0]
        assert root["writer"] == {"this_process": False, "pid": editor.pid}
        assert root["index_dir"] == index_dir
        assert root["files"] == 7 and root["watcher"].startswith("not here")
        assert "src/users/store.py" in await _agent_paths(agent, "get_user_by_id")

        # The editor reports a change; the language server writes it; the agent sees it.
        extra = ws / "src/users/extra.py"
        extra.write_text("def walrus_tusk_marker():\n    pass\n")
        _saved(editor, extra)
        assert await _until("the agent sees the editor's write", lambda: _agent_paths(
            agent, "walrus_tusk_marker")) == ["src/users/extra.py"]
        assert (await call(agent, "debug_state"))["writing"] == {"ws": False}

        # The writer dies mid-session; an edit on disk that nobody reports reaches the index
        # through the survivor: it takes the lease, catches up, then watches.
        await _kill(editor.pid)
        server = editor.client._server
        assert server is not None
        await server.wait()
        (ws / "web/late.ts").write_text("export function narwhalHornMarker() {}\n")
        assert await _until("the survivor catches up", lambda: _agent_paths(
            agent, "narwhalHornMarker")) == ["web/late.ts"]
        assert (await call(agent, "debug_state"))["writing"] == {"ws": True}
        pid = (await call(agent, "debug_state"))["pid"]
        assert _lease_holder(index_dir) == pid
        extra.unlink()

        async def gone() -> bool:
            return await _agent_paths(agent, "walrus_tusk_marker") == []

        await _until("the survivor's watcher sees the delete", gone)
        root = (await call(agent, "get_status"))["roots"][0]
        assert root["writer"] == {"this_process": True, "pid": pid}
        assert root["watcher"] == "watching"


async def test_the_agent_writes_the_editor_reads_and_takes_over(start_server: StartFn,
                                                                tmp_path: Path) -> None:
    ws = make_workspace(tmp_path)
    index = tmp_path / "index"
    async with mcp_session([ws], index, NO_EMBED, errlog=tmp_path / "mcp.log") as agent:
        assert await _agent_paths(agent, "get_user_by_id")  # opens, takes the lease, indexes
        agent_pid = (await call(agent, "debug_state"))["pid"]
        editor = await start_server([ws], index_dir=index)
        status = await editor.wait_idle()
        index_dir = status.folders[0].index_dir
        assert _lease_holder(index_dir) == agent_pid
        # The editor reads the agent's index: it never scanned, and answers all the same.
        assert status.folders[0].files == 7
        assert to_json(status)["folders"][0]["writer"] == {
            "this_process": False, "pid": agent_pid,
            "changes": f"process {agent_pid} writes this index and follows them"}
        assert not any(m.message.startswith("indexing ") for m in editor.client.log_messages)
        assert await _editor_paths(editor, "get_user_by_id") == await _agent_paths(
            agent, "get_user_by_id")
        # An edit: the agent's watcher writes it; the editor's report of it is left to the
        # writer; the editor sees the commit.
        extra = ws / "src/users/extra.py"
        extra.write_text("def walrus_tusk_marker():\n    pass\n")
        _saved(editor, extra)
        assert await _until("the editor sees the agent's write", lambda: _editor_paths(
            editor, "walrus_tusk_marker")) == ["src/users/extra.py"]
        assert not any(m.message.startswith(("indexing ", "updated "))
                       for m in editor.client.log_messages), "a reader wrote the index"

        # The agent dies; the editor takes the lease over, and its catch-up scan finds what
        # changed on disk meanwhile.
        await _kill(agent_pid)
        (ws / "web/late.ts").write_text("export function narwhalHornMarker() {}\n")
        assert await _until("the editor catches up", lambda: _editor_paths(
            editor, "narwhalHornMarker")) == ["web/late.ts"]
        assert _lease_holder(index_dir) == editor.pid
        assert to_json(await editor.status())["folders"][0]["writer"] == {
            "this_process": True, "pid": editor.pid, "changes": "the editor reports them"}
        # From now on the editor's own reports are applied.
        later = ws / "src/users/later.py"
        later.write_text("def octopus_ink_marker():\n    pass\n")
        _saved(editor, later)
        assert await _until("the new writer applies the editor's report", lambda: _editor_paths(
            editor, "octopus_ink_marker")) == ["src/users/later.py"]
        assert any(m.message.startswith("updated ") for m in editor.client.log_messages)
