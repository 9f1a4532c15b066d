"""Globs and ignore files that pathspec cannot read, through the real server: a filter's glob
is refused as invalid params (-32602, no traceback); a setting's glob is refused with a
`window/showMessage` that names the setting, the others applying; a bad line in a `.gitignore`
and an ignore file that is a FIFO leave the folder indexed, each counted in `kebab/status`
(before, the first made the folder index nothing, the second made it build forever)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from e2e_support import FILES, Session, StartFn, to_json, write_tree
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

ESCAPES_NOTHING = "is not a valid glob: a '\\' at its end or before a '/' escapes nothing"


async def shown(s: Session, count: int) -> list[str]:
    """The first `count` warnings about settings shown with `window/showMessage`, waited
    for."""
    deadline = time.monotonic() + 10
    while len(said := [m.message for m in s.client.messages
                       if m.message.startswith("kebab setting ")]) < count:
        assert time.monotonic() < deadline, [m.message for m in s.client.messages]
        await asyncio.sleep(0.05)
    return said


async def files(s: Session) -> int:
    return int((await s.status()).folders[0].files)


@pytest.mark.parametrize("glob", ["\\", "foo\\", "app/\\"])
async def test_a_path_glob_ending_in_a_backslash_is_invalid_params(
        start_server: StartFn, workspace: Path, glob: str) -> None:
    s = await start_server([workspace])
    await s.wait_idle()
    for method, params in (("kebab/search", {"query": "parse_config"}),
                           ("kebab/references", {"name": "parse_config"})):
        with pytest.raises(JsonRpcInvalidParams) as caught:
            await s.request(method, {**params, "filters": {"path_glob": glob}})
        assert caught.value.code == -32602
        assert f"path_glob {glob!r} {ESCAPES_NOTHING}" in caught.value.message, (
            method, caught.value.message)
    # The server is still up, and an escaped character is a fine glob.
    hits = (await s.search({"query": "parse_config", "filters": {"path_glob": "app/\\*"}}))
    assert hits["hits"] == []
    assert [h["path"] for h in (await s.search({"query": "parse_config"}))["hits"]] == [
        "app/users.py"]


async def test_a_bad_exclude_glob_is_refused_by_name_and_the_rest_applies(
        start_server: StartFn, workspace: Path) -> None:
    s = await start_server([workspace], init_options={"exclude": ["tests/", "!"],
                                                      "defaultK": 1})
    await s.wait_idle()
    assert await shown(s, 1) == [
        "kebab setting 'exclude' holds '!', which is not a valid gitignore pattern: it is "
        "empty without its '!' and '/' (got ['tests/', '!']); ignored"]
    assert await files(s) == len(FILES)  # no exclude in force: every file, none lost
    assert len((await s.search({"query": "user", "mode": "lexical"}))["hits"]) == 1

    # Sent later, it is refused too, and the exclude in force stays.
    s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"kebab": {"exclude": ["tests/"]}}))
    deadline = time.monotonic() + 30
    while await files(s) != len(FILES) - 1:
        assert time.monotonic() < deadline, await s.status()
        await asyncio.sleep(0.05)
    s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"kebab": {"exclude": ["**/[z-a]"], "defaultK": 2}}))
    warned = await shown(s, 2)
    assert warned[1] == ("kebab setting 'exclude' under 'kebab' holds '**/[z-a]', which is not "
                         "a valid gitignore pattern: bad character range z-a (got "
                         "['**/[z-a]']); ignored")
    await s.wait_idle()
    assert await files(s) == len(FILES) - 1
    assert len((await s.search({"query": "user", "mode": "lexical"}))["hits"]) == 2


async def test_a_bad_languages_glob_is_refused_by_name(start_server: StartFn,
                                                       workspace: Path) -> None:
    s = await start_server([workspace], init_options={"languages": {"[z-a]": "python"}})
    await s.wait_idle()
    assert await shown(s, 1) == [
        "kebab setting 'languages' holds '[z-a]', which is not a valid gitignore pattern: bad "
        "character range z-a (got {'[z-a]': 'python'}); ignored"]
    assert await files(s) == len(FILES)
    found = await s.symbols("parse_config")
    assert [x.location.uri for x in found] == [(workspace / "app/users.py").as_uri()]


async def test_a_bad_gitignore_line_leaves_the_folder_indexed_and_is_counted(
        start_server: StartFn, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", FILES)
    (root / "app/.gitignore").write_text("*.log\n[z-a]\n")
    (root / "app/debug.log").write_text("parse_config in a log\n")
    s = await start_server([root])
    folder = to_json(await s.wait_idle())["folders"][0]
    assert folder["files"] == len(FILES) + 1  # and app/.gitignore
    assert folder["skipped"]["by_reason"] == {"bad_ignore_line": 1, "gitignore": 1}
    assert folder.get("error") is None
    result = await s.search({"query": "parse_config", "mode": "lexical"})
    assert [h["path"] for h in result["hits"]] == ["app/users.py"]


async def test_a_fifo_ignore_file_leaves_the_folder_indexed_and_is_counted(
        start_server: StartFn, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "ws", FILES)
    os.mkfifo(root / "tests/.gitignore")
    s = await start_server([root])
    folder = to_json(await s.wait_idle(timeout=30))["folders"][0]
    assert folder["files"] == len(FILES)
    assert folder["skipped"]["by_reason"] == {"ignore_file_unread": 1}
    found = await s.symbols("test_get_user_by_id")
    assert [x.location.uri for x in found] == [(root / "tests/test_users.py").as_uri()]
