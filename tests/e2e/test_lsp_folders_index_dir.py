"""An index folder inside the workspace (`indexDir` there, or the user cache of an opened home
folder) is never indexed, whoever reports its changes: the walk, the editor's watched-file
events, or the server's own watcher. Its files change with every write; indexed, they are
cited as answers and each write comes back as an event that writes again."""

from __future__ import annotations

import asyncio
from pathlib import Path

from e2e_support import FILES, Session, StartFn, to_json
from lsprotocol import types

INDEX = ".kebab-index"


def index_files(workspace: Path) -> list[Path]:
    return sorted(p for p in (workspace / INDEX).rglob("*"))


def scans(s: Session) -> list[str]:
    """The writer's log line at the end of each scan."""
    return [m.message for m in s.client.log_messages if m.message.startswith("indexing ")]


async def assert_only_sources(s: Session, extra: int = 0) -> None:
    """The workspace's files (and `extra` added since) are indexed, none of the index's."""
    status = to_json(await s.wait_idle())
    assert status["folders"][0]["files"] == len(FILES) + extra
    # The marker every index folder holds names its workspace: indexed, it is a hit.
    found = await s.search({"query": "workspace", "mode": "lexical", "k": 50})
    assert [h["path"] for h in found["hits"] if h["path"].startswith(INDEX)] == []


async def test_the_walk_and_the_editors_events_leave_the_index_folder_out(
        start_server: StartFn, workspace: Path) -> None:
    s = await start_server([workspace], index_dir=workspace / INDEX)
    await assert_only_sources(s)
    assert index_files(workspace), "the index is inside the workspace"
    version = (await s.status()).folders[0].lexical_version
    done = len(scans(s))

    # VS Code's `**/*` watcher reports every file and folder the server itself writes.
    changes = [types.FileEvent(uri=p.as_uri(), type=types.FileChangeType.Changed)
               for p in index_files(workspace)]
    changes.append(types.FileEvent(uri=(workspace / INDEX / "new-dir").as_uri(),
                                   type=types.FileChangeType.Created))
    (workspace / INDEX / "new-dir").mkdir()
    s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes))
    await assert_only_sources(s)
    # Nothing was written, and no walk was started for a folder created in the index.
    assert (await s.status()).folders[0].lexical_version == version
    assert len(scans(s)) == done, scans(s)


async def test_the_servers_own_watcher_leaves_the_index_folder_out(
        start_server: StartFn, workspace: Path) -> None:
    s = await start_server([workspace], index_dir=workspace / INDEX, watched_files=False)
    await assert_only_sources(s)
    # Writes into the index folder, as the store makes them: the watcher sees them all.
    for n in range(3):
        (workspace / INDEX / f"note-{n}.txt").write_text(f"workspace note {n}\n")
    (workspace / "app/later.py").write_text("class ArrivedLater:\n    pass\n")
    for _ in range(300):
        if [x.name for x in await s.symbols("ArrivedLater")] == ["ArrivedLater"]:
            break
        await asyncio.sleep(0.1)
    await assert_only_sources(s, extra=1)
