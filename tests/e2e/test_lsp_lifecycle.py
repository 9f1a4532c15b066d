"""Start-up, progress, settings, the reindex command, and a clean exit."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from e2e_support import (
    FILES,
    RawClient,
    Session,
    StartFn,
    alive,
    big_tree,
    descendants,
    to_json,
)
from lsprotocol import types


async def eventually(check: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.05)


def index_tokens(s: Session, title: str) -> list[list[Any]]:
    """The work-done reports of every progress token whose begin title starts with `title`
    (pytest-lsp stores the structured begin/report/end values there)."""
    return [reports for reports in s.client.progress_reports.values()
            if reports and getattr(reports[0], "title", "").startswith(title)]


async def test_initialize_reports_progress_and_logs(
    start_server: StartFn, workspace: Path
) -> None:
    s = await start_server([workspace])
    caps = s.init_result.capabilities  # type: ignore[union-attr]
    assert caps.workspace_symbol_provider
    assert list(caps.execute_command_provider.commands) == ["kebab.reindex"]  # type: ignore[union-attr]
    assert caps.text_document_sync.save  # type: ignore[union-attr]
    status = await s.wait_idle()
    await eventually(lambda: bool(index_tokens(s, "Indexing ws"))
                     and index_tokens(s, "Indexing ws")[0][-1].kind == "end")

    [reports] = index_tokens(s, "Indexing ws")
    begin, *middle, end = reports
    assert isinstance(begin, types.WorkDoneProgressBegin) and begin.percentage == 0
    assert isinstance(end, types.WorkDoneProgressEnd)
    assert end.message == f"{len(FILES)} files, {status.folders[0].symbols} symbols"
    assert middle and all(isinstance(r, types.WorkDoneProgressReport) for r in middle)
    percentages = [r.percentage for r in middle]
    assert percentages == sorted(percentages) and percentages[-1] == 100
    assert middle[-1].message == f"{len(FILES)}/{len(FILES)} files"

    logs = [m.message for m in s.client.log_messages]
    assert any(m.startswith(f"indexing {workspace.resolve()}: scanned {len(FILES)}, "
                            f"new {len(FILES)}") for m in logs), logs

    folder = to_json(status)["folders"][0]
    assert folder["root"] == str(workspace.resolve())
    assert folder["files"] == len(FILES) and folder["symbols"] > 10 and folder["chunks"] > 0
    assert folder["building"] is False and folder["progress"] is None
    assert folder["schema_version"] >= 1
    assert Path(folder["index_dir"]).is_relative_to(s.index_dir)


async def test_no_progress_without_client_support(
    start_server: StartFn, workspace: Path
) -> None:
    s = await start_server([workspace], progress=False)
    status = await s.wait_idle()
    assert status.folders[0].files == len(FILES)
    assert s.client.progress_reports == {}


async def test_settings_warnings_and_updates(start_server: StartFn, workspace: Path) -> None:
    s = await start_server([workspace], init_options={
        "symbolLimit": "many", "colour": "blue", "defaultK": 2})
    await s.wait_idle()
    await eventually(lambda: len(s.client.messages) >= 2)
    warnings = sorted(m.message for m in s.client.messages)
    assert all(m.type == types.MessageType.Warning for m in s.client.messages)
    assert "unknown kebab setting 'colour'; ignored" in warnings
    assert any("'symbolLimit' must be an integer" in m for m in warnings), warnings
    # Good settings still apply; bad ones keep their defaults.
    assert len((await s.search({"query": "user"}))["hits"]) == 2
    assert len(await s.symbols("e")) > 2

    s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"kebab": {"defaultK": 1, "maxFileBytes": -5}}))
    await eventually(lambda: any("maxFileBytes" in m.message for m in s.client.messages))
    assert len((await s.search({"query": "user"}))["hits"]) == 1
    assert (await s.status()).folders[0].files == len(FILES)  # still serving the same index


async def test_reindex_command_rebuilds_with_progress(
    start_server: StartFn, workspace: Path
) -> None:
    s = await start_server([workspace])
    await s.wait_idle()
    answer = await s.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="kebab.reindex"))
    assert to_json(answer) == {"queued": [str(workspace.resolve())]}
    await s.wait_idle()
    await eventually(lambda: bool(index_tokens(s, "Rebuilding ws"))
                     and index_tokens(s, "Rebuilding ws")[0][-1].kind == "end")
    [reports] = index_tokens(s, "Rebuilding ws")
    # Every file was re-extracted: an incremental pass would have had nothing to do.
    assert any(getattr(r, "message", None) == f"{len(FILES)}/{len(FILES)} files"
               for r in reports)
    assert [x.name for x in await s.symbols("UserService")] == ["UserService"]


async def test_answers_while_indexing_and_exits_cleanly(
    start_server: StartFn, tmp_path: Path
) -> None:
    s = await start_server([big_tree(tmp_path / "big", 80)])
    # The first index runs in the background: requests are answered meanwhile, and say so.
    started = time.monotonic()
    answer = await s.search({"query": "payload"})
    symbols = await s.symbols("handle")
    assert time.monotonic() - started < 5
    assert answer["meta"]["index"]["building"] is True
    assert answer["meta"]["recall"]["complete"] is False
    assert any("building" in w for w in answer["meta"]["warnings"])
    assert isinstance(symbols, list)
    assert (await s.status()).building is True

    pid = s.pid
    children: set[int] = set()
    with_pool = time.monotonic() + 5
    while time.monotonic() < with_pool and not children:  # the parse pool comes up
        children = descendants(pid)
        await asyncio.sleep(0.05)
    assert children, "the index of 80 files should run in a worker pool"

    code = await s.shutdown()  # shutdown + exit while indexing
    assert code == 0
    assert not alive(pid)
    await eventually(lambda: not any(alive(c) for c in children), timeout=10)



def test_a_command_sent_with_initialized_finds_the_folders(tmp_path: Path,
                                                           workspace: Path) -> None:
    # VS Code runs Rebuild Index as soon as its client is ready, right after `initialized`:
    # both can come in one read. The folders must be open when the command is handled (it
    # answered "rebuilding 0 folder(s)" while `initialized` waited its turn as a task).
    client = RawClient(tmp_path)
    try:
        client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": workspace.as_uri(), "capabilities": {},
            "initializationOptions": {"embed": False}}})
        assert "result" in client.answer(1)
        frames = b""
        for payload in ({"jsonrpc": "2.0", "method": "initialized", "params": {}},
                        {"jsonrpc": "2.0", "id": 2, "method": "workspace/executeCommand",
                         "params": {"command": "kebab.reindex"}}):
            body = json.dumps(payload).encode()
            frames += b"Content-Length: %d\r\n\r\n" % len(body) + body
        client.raw(frames)
        assert client.answer(2)["result"] == {"queued": [str(workspace.resolve())]}
    finally:
        client.proc.kill()
