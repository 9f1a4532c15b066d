"""Staying current: didSave, watched files, file operations, and a restart over an existing
index after files changed while the server was down."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

from e2e_support import FILES, Session, StartFn, big_tree, position, range_of, to_json
from lsprotocol import types


def uri(root: Path, rel: str) -> str:
    return (root / rel).resolve().as_uri()


async def ready(start_server: StartFn, folder: Path, **kwargs: object) -> Session:
    session = await start_server([folder], **kwargs)
    await session.wait_idle()
    return session


def update_logs(s: Session) -> list[str]:
    return [m.message for m in s.client.log_messages if m.message.startswith("updated ")]


async def test_did_save_reindexes_the_file(start_server: StartFn, workspace: Path) -> None:
    s = await ready(start_server, workspace)
    writer = to_json(await s.status())["folders"][0]["writer"]
    assert writer == {"this_process": True, "pid": s.pid, "changes": "the editor reports them"}
    assert [x.name for x in await s.symbols("delete_user")] == ["delete_user"]
    before = await s.status()

    new_text = FILES["app/users.py"].replace(
        "def delete_user(self, user_id: int) -> None:\n        pass",
        "def archive_user(self, user_id: int) -> bool:\n        return True")
    (workspace / "app/users.py").write_text(new_text, encoding="utf-8")
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(workspace, "app/users.py"))))
    await s.wait_idle()

    found = await s.symbols("archive_user")
    assert [(x.name, x.container_name) for x in found] == [("archive_user", "UserService")]
    files = {"app/users.py": new_text}
    assert range_of(found[0].location) == (
        position("app/users.py", "def archive_user", files=files),
        position("app/users.py", "return True", end=True, files=files))
    assert await s.symbols("delete_user") == []
    hits = (await s.search({"query": "archive_user", "mode": "lexical"}))["hits"]
    assert hits and hits[0]["path"] == "app/users.py"

    # Saving an unchanged file is a no-op after the hash check: nothing is written.
    version = (await s.status()).folders[0].lexical_version
    assert version > before.folders[0].lexical_version
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri(workspace, "app/users.py"))))
    await s.wait_idle()
    assert (await s.status()).folders[0].lexical_version == version


async def test_watched_files_delete_and_rename(start_server: StartFn, workspace: Path) -> None:
    s = await ready(start_server, workspace)
    assert s.recorder.registrations[0].method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
    assert [x.name for x in await s.symbols("NewServer")] == ["NewServer"]

    (workspace / "svc/server.go").unlink()
    (workspace / "web/api.ts").rename(workspace / "web/client.ts")
    shutil.rmtree(workspace / "docs")  # a directory: one event for all of its files
    # Three separate notifications in a burst: debounced into one batch.
    s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(workspace, "svc/server.go"), type=types.FileChangeType.Deleted)]))
    s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(workspace, "web/api.ts"), type=types.FileChangeType.Deleted),
        types.FileEvent(uri=uri(workspace, "web/client.ts"), type=types.FileChangeType.Created),
    ]))
    s.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(workspace, "docs"), type=types.FileChangeType.Deleted)]))
    await s.wait_idle()

    assert await s.symbols("NewServer") == []
    assert await s.symbols("Installing") == []
    moved = await s.symbols("getUserById")
    assert [x.location.uri for x in moved if x.name == "getUserById"] == [
        uri(workspace, "web/client.ts")]
    status = await s.status()
    assert status.folders[0].files == len(FILES) - 2  # server.go and docs/guide.md gone
    logs = update_logs(s)
    assert len(logs) == 1 and "deleted 3" in logs[0], logs


async def test_a_client_that_cannot_report_file_changes_gets_a_watcher_of_ours(
        start_server: StartFn, workspace: Path) -> None:
    """Neovim on Linux cannot register file watchers; changes made outside the editor (a git
    checkout, a formatter, another editor's save) must still reach the index, with no
    notification from the client at all."""
    s = await ready(start_server, workspace, watched_files=False)
    assert s.recorder.registrations == []  # nothing was asked of the client
    writer = to_json(await s.status())["folders"][0]["writer"]
    assert writer == {"this_process": True, "pid": s.pid,
                      "changes": "a watcher in this process: watching"}
    assert [x.name for x in await s.symbols("NewServer")] == ["NewServer"]

    later = {"app/later.py": "import os\n\n\nclass ArrivedLater:\n    size = 3\n"}
    (workspace / "app/later.py").write_text(later["app/later.py"], encoding="utf-8")
    (workspace / "svc/server.go").unlink()
    deadline = time.monotonic() + 30
    found: list[types.SymbolInformation] = []
    while time.monotonic() < deadline:
        found = await s.symbols("ArrivedLater")
        if found and not await s.symbols("NewServer"):
            break
        await asyncio.sleep(0.2)
    assert [(x.name, x.location.uri) for x in found] == [
        ("ArrivedLater", uri(workspace, "app/later.py"))]
    assert range_of(found[0].location) == (
        position("app/later.py", "class ArrivedLater", files=later),
        position("app/later.py", "size = 3", end=True, files=later))
    assert await s.symbols("NewServer") == []


async def test_file_operation_notifications(start_server: StartFn, workspace: Path) -> None:
    s = await ready(start_server, workspace)
    ops = s.init_result.capabilities.workspace.file_operations  # type: ignore[union-attr]
    assert ops is not None
    assert ops.did_create and ops.did_delete and ops.did_rename

    (workspace / "app/users.py").rename(workspace / "app/accounts.py")
    s.client.workspace_did_rename_files(types.RenameFilesParams(files=[types.FileRename(
        old_uri=uri(workspace, "app/users.py"), new_uri=uri(workspace, "app/accounts.py"))]))
    (workspace / "lib").mkdir()
    (workspace / "lib/retry.py").write_text("def retry_request(url):\n    return url\n")
    s.client.workspace_did_create_files(types.CreateFilesParams(
        files=[types.FileCreate(uri=uri(workspace, "lib/retry.py"))]))
    (workspace / "tests/test_users.py").unlink()
    s.client.workspace_did_delete_files(types.DeleteFilesParams(
        files=[types.FileDelete(uri=uri(workspace, "tests/test_users.py"))]))
    await s.wait_idle()

    found = await s.symbols("UserService")
    assert [x.location.uri for x in found] == [uri(workspace, "app/accounts.py")]
    assert range_of(found[0].location)[0] == position("app/users.py", "class UserService")
    retry = await s.symbols("retry_request")
    assert [x.location.uri for x in retry] == [uri(workspace, "lib/retry.py")]
    assert await s.symbols("test_get_user_by_id") == []
    # The rename moved rows without re-extracting (content unchanged).
    assert any("renamed 1" in m for m in update_logs(s)), update_logs(s)


async def test_restart_finds_changes_made_while_down(
    start_server: StartFn, workspace: Path, tmp_path: Path
) -> None:
    index = tmp_path / "shared-index"
    first = await ready(start_server, workspace, index_dir=index)
    assert await first.shutdown() == 0

    (workspace / "svc/server.go").unlink()
    (workspace / "app/users.py").write_text(
        FILES["app/users.py"].replace("def parse_config", "def load_settings"))
    (workspace / "app/extra.py").write_text("class LateAddition:\n    pass\n")

    second = await ready(start_server, workspace, index_dir=index)
    summary = next(m.message for m in second.client.log_messages
                   if m.message.startswith("indexing "))
    # Incremental over the old index: only what changed is re-read.
    assert "new 1, changed 1, unchanged 3, deleted 1" in summary, summary
    assert (await second.status()).folders[0].index_dir.startswith(str(index))
    assert [x.name for x in await second.symbols("LateAddition")] == ["LateAddition"]
    assert [x.name for x in await second.symbols("load_settings")] == ["load_settings"]
    assert await second.symbols("parse_config") == []
    assert await second.symbols("NewServer") == []


async def test_save_in_one_folder_does_not_wait_for_another_folders_cold_index(
    start_server: StartFn, workspace: Path, tmp_path: Path
) -> None:
    s = await start_server([workspace], init_options={"workers": 1, "debounceMs": 50})
    await s.wait_idle()
    big = big_tree(tmp_path / "big", 1200)
    s.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=big.as_uri(), name="big")], removed=[])))
    deadline = time.monotonic() + 20
    while not (await s.status()).building:  # the big folder's cold index is under way
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    path = workspace / "app/users.py"
    path.write_text(path.read_text() + "\n\ndef saved_during_scan():\n    return 1\n")
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri())))
    while not [x for x in await s.symbols("saved_during_scan") if x.name == "saved_during_scan"]:
        assert time.monotonic() < deadline + 60, "the save waited too long"
        await asyncio.sleep(0.05)
    assert (await s.status()).building, "the save should land while the big scan still runs"
