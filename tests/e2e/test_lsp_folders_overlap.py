"""Folders that overlap: one folder opened under two spellings of its URI is one folder (one
index, one writer), and a folder nested in another (a monorepo and one of its packages)
cites each place once and counts each match once, though both indexes hold the overlap."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from e2e_support import FILES, Session, StartFn, to_json
from lsprotocol import types

QUERY = {"query": "user_id", "mode": "lexical", "k": 20}


def places(answer: dict[str, Any]) -> list[tuple[str, tuple[int, int, int, int]]]:
    out = []
    for hit in answer["hits"]:
        loc = hit["location"]
        r = loc["range"]
        out.append((loc["uri"], (r["start"]["line"], r["start"]["character"],
                                 r["end"]["line"], r["end"]["character"])))
    return out


def change_folders(s: Session, added: Sequence[str] = (), removed: Sequence[str] = ()) -> None:
    def folder(uri: str) -> types.WorkspaceFolder:
        return types.WorkspaceFolder(uri=uri, name="ws")

    s.client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(added=[folder(u) for u in added],
                                                removed=[folder(u) for u in removed])))


async def test_one_folder_under_two_spellings_is_opened_once(
        start_server: StartFn, workspace: Path) -> None:
    s = await start_server([workspace])
    await s.wait_idle()
    alone = await s.search(QUERY)
    assert len(places(alone)) > 1

    slash = workspace.as_uri() + "/"
    change_folders(s, added=[slash])
    status = to_json(await s.wait_idle())
    assert [(f["uri"], f["files"]) for f in status["folders"]] == [
        (workspace.as_uri(), len(FILES))]
    twice = await s.search(QUERY)
    assert places(twice) == places(alone)
    assert twice["meta"]["total_matches"] == alone["meta"]["total_matches"]
    assert [x.location.uri for x in await s.symbols("UserService")] == [
        (workspace / "app/users.py").as_uri()]

    # Either spelling names the folder to rebuild: once.
    answer = await s.client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="kebab.reindex", arguments=[slash, workspace.as_uri()]))
    assert to_json(answer) == {"queued": [str(workspace.resolve())]}
    await s.wait_idle()

    # Closing one spelling leaves the folder open under the other; closing both closes it.
    change_folders(s, removed=[slash])
    assert places(await s.search(QUERY)) == places(alone)
    change_folders(s, removed=[workspace.as_uri()])
    assert to_json(await s.status())["folders"] == []


async def test_a_nested_folder_cites_and_counts_each_match_once(
        start_server: StartFn, workspace: Path, tmp_path: Path) -> None:
    single = await start_server([workspace], index_dir=tmp_path / "single")
    await single.wait_idle()
    alone = await single.search(QUERY)
    first = await single.search({**QUERY, "k": 1})
    assert len(places(alone)) > 1

    s = await start_server([workspace, workspace / "app"])
    await s.wait_idle()
    both = await s.search(QUERY)
    assert sorted(places(both)) == sorted(places(alone))
    # Which matches the two indexes share cannot be told from their answers (a total counts
    # matching chunks; a hit may stand for several): never the sum, and said to be a bound.
    assert (both["meta"]["total_matches"], both["meta"]["count_accuracy"]) == (
        alone["meta"]["total_matches"], "lower_bound")
    assert both["meta"]["recall"]["truncated"] == alone["meta"]["recall"]["truncated"]

    cut = await s.search({**QUERY, "k": 1})
    assert len(places(cut)) == 1
    assert (cut["meta"]["total_matches"], cut["meta"]["count_accuracy"]) == (
        first["meta"]["total_matches"], "lower_bound")
    assert cut["meta"]["recall"]["truncated"] is True

    symbols = await s.symbols("get_user_by_id")
    assert [x.location.uri for x in symbols if x.name == "get_user_by_id"] == [
        (workspace / "app/users.py").as_uri()]
    assert len(symbols) == len(await single.symbols("get_user_by_id"))


async def test_a_nested_folder_by_its_real_path_in_one_opened_through_a_symlink(
        start_server: StartFn, workspace: Path, tmp_path: Path) -> None:
    """The outer folder cites files under the symlink the editor opened, the inner one under
    its real path: the same places by two spellings, still cited and counted once."""
    link = tmp_path / "link"
    link.symlink_to(workspace)
    single = await start_server([link], index_dir=tmp_path / "single")
    await single.wait_idle()
    alone = await single.search(QUERY)
    assert all(uri.startswith(link.as_uri() + "/") for uri, _ in places(alone))

    s = await start_server([link, workspace / "app"])
    await s.wait_idle()
    both = await s.search(QUERY)
    assert len(places(both)) == len(places(alone))
    assert sorted(r for _, r in places(both)) == sorted(r for _, r in places(alone))
    assert (both["meta"]["total_matches"], both["meta"]["count_accuracy"]) == (
        alone["meta"]["total_matches"], "lower_bound")
