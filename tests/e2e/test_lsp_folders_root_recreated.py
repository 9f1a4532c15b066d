"""The workspace root deleted and created again (a re-clone, `git worktree remove` and `add`,
an archive extracted again): the index empties with it and then holds the new tree, whether
the editor reports the root's events or the server's own watcher follows it; and the status
never says "watching" while the watcher has nothing to watch."""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from e2e_support import FILES, Session, StartFn, position, range_of, to_json, write_tree
from lsprotocol import types

NEW = {
    "lib/toml_file.py": "class TOMLFile:\n    def read(self) -> str:\n        return ''\n",
    "README.md": "# Recreated\n\nA new tree.\n",
}


async def until(check: Callable[[], Awaitable[bool]], what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen after {timeout}s: {what}")
        await asyncio.sleep(0.1)


def report(s: Session, root: Path, kind: types.FileChangeType) -> None:
    s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=root.as_uri(), type=kind)]))


async def files(s: Session) -> int:
    return int(to_json(await s.status())["folders"][0]["files"])


async def assert_new_tree(s: Session, workspace: Path) -> None:
    assert await files(s) == len(NEW)
    assert await s.symbols("UserService") == []
    assert (await s.search({"query": "UserService", "mode": "lexical"}))["hits"] == []
    found = await s.symbols("TOMLFile")
    assert [(x.name, x.location.uri) for x in found] == [
        ("TOMLFile", (workspace / "lib/toml_file.py").as_uri())]
    assert range_of(found[0].location) == (
        position("lib/toml_file.py", "class TOMLFile", files=NEW),
        position("lib/toml_file.py", "return ''", end=True, files=NEW))


async def test_the_editors_events_on_the_root_empty_then_rebuild_the_index(
        start_server: StartFn, workspace: Path) -> None:
    s = await start_server([workspace])
    await s.wait_idle()
    assert await files(s) == len(FILES)

    shutil.rmtree(workspace)
    report(s, workspace, types.FileChangeType.Deleted)
    await s.wait_idle()
    assert await files(s) == 0
    assert (await s.search({"query": "UserService", "mode": "lexical"}))["hits"] == []

    write_tree(workspace, NEW)
    report(s, workspace, types.FileChangeType.Created)
    await s.wait_idle()
    await assert_new_tree(s, workspace)


async def test_the_servers_watcher_follows_a_root_deleted_and_created_again(
        start_server: StartFn, workspace: Path) -> None:
    s = await start_server([workspace], watched_files=False)
    await s.wait_idle()
    watching = "a watcher in this process: watching"

    async def writer() -> dict[str, object]:
        folder = to_json(await s.status())["folders"][0]
        return {"changes": folder["writer"]["changes"], "warnings": folder["warnings"]}

    assert (await writer())["changes"] == watching
    shutil.rmtree(workspace)
    gone = "the folder is gone; waiting for it to be created again"

    async def emptied() -> bool:
        return await files(s) == 0 and (await writer())["changes"] != watching

    await until(emptied, "the index emptied, the watcher waiting")
    assert await writer() == {"changes": f"a watcher in this process: {gone}",
                              "warnings": [f"{workspace}: {gone}"]}

    write_tree(workspace, NEW)

    async def rebuilt() -> bool:
        return bool(await s.symbols("TOMLFile")) and not (await s.status()).building

    await until(rebuilt, "the new tree indexed")
    await assert_new_tree(s, workspace)
    assert await writer() == {"changes": watching, "warnings": []}

    # The new directory is watched: a file added to it now arrives too.
    (workspace / "lib/later.py").write_text("def arrived_later() -> None:\n    pass\n")

    async def later() -> bool:
        return [x.name for x in await s.symbols("arrived_later")] == ["arrived_later"]

    await until(later, "a file added after the root came back")
