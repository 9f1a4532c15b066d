"""A workspace folder whose index cannot be opened (an `indexDir` that cannot be created) is
still part of the workspace the user asks about: the status lists it with the reason, answers
say it was not searched instead of "no workspace folder is open", and fixing the setting opens
it without a restart."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from e2e_support import FILES, Session, StartFn, span, to_json
from lsprotocol import types


async def open_by(s: Session, timeout: float = 30.0) -> dict:
    """The status once the folder is open and indexed."""
    deadline = time.monotonic() + timeout
    while True:
        status = to_json(await s.status())
        if status["folders"] and not status["building"]:
            return status
        assert time.monotonic() < deadline, f"the folder never opened: {status}"
        await asyncio.sleep(0.1)


async def test_a_folder_whose_index_cannot_be_opened_is_reported_then_opened_once_fixed(
        start_server: StartFn, workspace: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the index folder should go\n")
    s = await start_server([workspace], init_options={"indexDir": str(blocker / "index")})

    status = to_json(await s.status())
    assert status["folders"] == []
    [unopened] = status["unopened"]
    assert unopened["uri"] == workspace.as_uri()
    assert unopened["root"] == str(workspace)
    assert "not-a-dir" in unopened["reason"], unopened
    assert any(f"workspace folder {workspace.as_uri()} is not searched" in m.message
               for m in s.client.messages), [m.message for m in s.client.messages]

    answer = await s.search({"query": "parse_config", "mode": "lexical"})
    assert answer["hits"] == []
    assert answer["meta"]["recall"]["complete"] is False
    warnings = answer["meta"]["warnings"]
    assert not any("no workspace folder is open" in w for w in warnings), warnings
    assert f"workspace folder {workspace} is not searched: {unopened['reason']}" in warnings

    # The user fixes the setting: the folder opens, is indexed and answers, no restart.
    good = tmp_path / "good-index"
    s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"kebab": {"indexDir": str(good), "embed": False}}))
    status = await open_by(s)
    assert status["unopened"] == []
    assert status["folders"][0]["files"] == len(FILES)
    assert status["folders"][0]["index_dir"].startswith(str(good))
    answer = await s.search({"query": "parse_config", "mode": "lexical", "k": 1})
    assert answer["meta"]["recall"]["complete"] is True
    assert not any("is not searched" in w for w in answer["meta"]["warnings"])
    hit = answer["hits"][0]
    (line, _), _ = span("app/users.py", "def parse_config", "return {}\n")
    assert hit["location"]["uri"] == (workspace / "app/users.py").as_uri()
    assert hit["location"]["range"]["start"]["line"] == line


async def test_a_folder_removed_while_unopened_is_forgotten(
        start_server: StartFn, workspace: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x\n")
    s = await start_server([workspace], init_options={"indexDir": str(blocker / "index")})
    assert len(to_json(await s.status())["unopened"]) == 1
    s.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[], removed=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")])))
    deadline = time.monotonic() + 10
    while to_json(await s.status())["unopened"]:
        assert time.monotonic() < deadline, "the removed folder is still listed"
        await asyncio.sleep(0.05)
    answer = await s.search({"query": "parse_config", "mode": "lexical"})
    assert any("no workspace folder is open" in w for w in answer["meta"]["warnings"])
