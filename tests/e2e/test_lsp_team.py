"""The server on a team index: `kebab/search` answered from PostgreSQL for the checkout's
repository, with the files changed locally (edited, added, deleted on disk since CI built the
team index) answered from the local index, over stdio on a real PostgreSQL server."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from e2e_support import (
    FILES,
    Session,
    StartFn,
    big_tree,
    load_schema,
    range_of,
    span,
    to_json,
    write_tree,
)
from jsonschema import Draft202012Validator
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from bench.postgres_server import OWNER, PgCluster
from indexing.postgres.team_index import index_repository, update_repository
from indexing.runtime.folder_index import shared_embedder
from indexing.settings import Settings
from indexing.store import Store
from indexing.store_choice import safe_url

pytestmark = pytest.mark.postgres
REPO = "acme/app"
VALIDATOR = Draft202012Validator(load_schema())


def _save(s: Session, path: Path) -> None:
    s.client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri())))


def _indexed_by_ci(tmp_path: Path, url: str) -> Path:
    """The tree as CI indexed it into the team index. It holds a definition nobody has
    locally (`TeamOnlyHelper`): proof that the team index answers."""
    ci = write_tree(tmp_path / "ci", FILES)
    (ci / "svc/only_in_ci.go").write_text("package svc\n\nfunc TeamOnlyHelper() {}\n")
    index_repository(ci, url, REPO, Settings(workers=1, embed=False))
    return ci


async def test_search_answers_from_the_team_index_with_local_changes_overlaid(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    ci = _indexed_by_ci(tmp_path, url)
    checkout = tmp_path / "checkout"
    shutil.copytree(ci, checkout)
    (checkout / "svc/only_in_ci.go").unlink()  # deleted here: the team's copy must not show

    s = await start_server([checkout], init_options={"store": url, "repo": REPO})
    await s.wait_idle()
    team = (await s.search({"query": "get_user_by_id", "mode": "lexical"}))
    assert team["hits"][0]["path"] == "app/users.py"
    assert team["meta"]["index"]["team"] == {"backend": "postgresql", "repo": REPO,
                                             "overlay_files": 0, "hidden_files": 1}
    assert team["meta"]["score"]["backend"] == "postgresql"
    assert (await s.search({"query": "TeamOnlyHelper", "mode": "lexical"}))["hits"] == []

    # A saved edit is searchable at once, and the team index's stale version never shows.
    users = checkout / "app/users.py"
    users.write_text(FILES["app/users.py"].replace("delete_user", "archive_user"))
    _save(s, users)
    added = checkout / "app/audit.py"
    added.write_text("def record_user_event(user_id: int) -> None:\n    pass\n")
    _save(s, added)
    await s.wait_idle()
    edited = await s.search({"query": "archive_user", "mode": "lexical"})
    assert [h["path"] for h in edited["hits"]][:1] == ["app/users.py"]
    assert edited["meta"]["index"]["team"]["overlay_files"] == 2
    assert (await s.search({"query": "delete_user", "mode": "lexical"}))["hits"] == []
    new = await s.search({"query": "record_user_event", "mode": "lexical"})
    assert [h["path"] for h in new["hits"]] == ["app/audit.py"]
    # Words found in both halves: the team's unchanged files and the local edits, counted
    # exactly on each side, and every hit of a changed file comes from its local version.
    both = await s.search({"query": "user", "mode": "lexical", "k": 50})
    paths = {h["path"] for h in both["hits"]}
    assert {"app/users.py", "app/audit.py", "web/api.ts"} <= paths
    assert both["meta"]["total_matches"] == len(both["hits"])
    assert both["meta"]["count_accuracy"] == "exact"
    assert both["meta"]["score"]["kind"] == "rank_merged_team_and_local"
    for answer in (team, edited, both):
        assert not list(VALIDATOR.iter_errors(answer))
    assert all(h["path"] != "app/users.py" or "delete_user" not in h["snippet"]["text"]
               for h in both["hits"])

    # What the team index cannot serve fails, as `kebab search --store` does.
    for mode in ("vector", "hybrid"):
        with pytest.raises(JsonRpcException, match="team index"):
            await s.search({"query": "user", "mode": mode})


async def test_workspace_symbol_answers_from_the_team_index_with_local_changes_overlaid(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    """The team index answers `workspace/symbol` for the files unchanged here (proved by one
    the local index leaves out, by its `exclude` setting), never for a file edited or deleted
    here, and the local index answers for the edited and added ones, at their exact places."""
    url = pg_cluster.url(pg_database, OWNER)
    ci = _indexed_by_ci(tmp_path, url)
    (ci / "svc/gone.go").write_text("package svc\n\nfunc GoneHelper() {}\n")
    index_repository(ci, url, REPO, Settings(workers=1, embed=False))
    checkout = tmp_path / "checkout"
    shutil.copytree(ci, checkout)
    (checkout / "svc/gone.go").unlink()
    s = await start_server([checkout], init_options={
        "store": url, "repo": REPO, "exclude": ["svc/only_in_ci.go"]})
    await s.wait_idle()

    [team_only] = await s.symbols("TeamOnlyHelper")
    assert team_only.location.uri == (checkout / "svc/only_in_ci.go").as_uri()
    assert range_of(team_only.location) == ((2, 0), (2, 24))
    assert await s.symbols("GoneHelper") == []  # deleted here
    before = [x.location.uri for x in await s.symbols("delete_user")]
    assert before == [(checkout / "app/users.py").as_uri()]

    users = checkout / "app/users.py"
    edited = FILES["app/users.py"].replace("delete_user", "archive_user")
    users.write_text(edited)
    _save(s, users)
    added = checkout / "app/audit.py"
    added.write_text("def record_user_event(user_id: int) -> None:\n    pass\n")
    _save(s, added)
    await s.wait_idle()
    assert await s.symbols("delete_user") == []  # the team index's copy is stale here
    [archive] = await s.symbols("archive_user")
    assert archive.location.uri == users.as_uri()
    assert range_of(archive.location) == span("app/users.py", "def archive_user", "        pass",
                                              files={"app/users.py": edited})
    [event] = await s.symbols("record_user_event")
    assert event.location.uri == added.as_uri()
    assert range_of(event.location) == ((0, 0), (1, 8))
    # The rest of the edited file comes from its local version, the rest of the tree from
    # the team index: one answer of both.
    names = {(x.name, x.location.uri) for x in await s.symbols("user")}
    assert ("get_user_by_id", users.as_uri()) in names
    assert ("record_user_event", added.as_uri()) in names
    assert not any(name == "delete_user" for name, _ in names)


async def test_team_settings_change_at_run_time_and_say_what_is_wrong(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    _indexed_by_ci(tmp_path, url)
    checkout = write_tree(tmp_path / "checkout", FILES)
    s = await start_server([checkout])  # the local index, as before the settings
    await s.wait_idle()
    query = {"query": "TeamOnlyHelper", "mode": "lexical"}
    assert (await s.search(query))["hits"] == []

    def configure(**settings: object) -> None:
        s.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"kebab": settings}))

    configure(store=url)  # no repository named
    with pytest.raises(JsonRpcException, match="--repo NAME"):
        await s.search(query)
    configure(store=url, repo=REPO)
    found = await s.search(query)
    # The team index answers; its file that this checkout does not have stays hidden.
    assert found["hits"] == [] and found["meta"]["score"]["backend"] == "postgresql"
    assert found["meta"]["index"]["team"] == {"backend": "postgresql", "repo": REPO,
                                              "overlay_files": 0, "hidden_files": 1}
    configure(store="sqlite", repo=None)
    # On the team index the local one held only what differs from it (nothing here): it is
    # completed now, and answers once that is done.
    await s.wait_idle()
    back = await s.search({"query": "getUserById", "mode": "lexical"})
    assert back["hits"] and "team" not in back["meta"]["index"]
    assert "backend" not in back["meta"]["score"]


async def test_a_team_index_answers_for_one_folder(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    one, two = write_tree(tmp_path / "one", FILES), write_tree(tmp_path / "two", FILES)
    index_repository(one, url, REPO, Settings(workers=1, embed=False))
    s = await start_server([one, two], init_options={"store": url, "repo": REPO})
    await s.wait_idle()
    with pytest.raises(JsonRpcException, match="one workspace folder.*2 are open"):
        await s.search({"query": "user", "mode": "lexical"})


def _held(index_dir: str) -> set[str]:
    """The files the server's local index holds, read from it as another process would."""
    store = Store(Path(index_dir))
    try:
        return set(store.file_states())
    finally:
        store.close()


async def test_the_local_index_holds_only_what_differs_from_the_team_index(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    """The checkout's local index stores only its edited and added files; when CI indexes a
    new commit, the server, on its next request, hides the team's new copy of a file this
    checkout still has the old one of, then answers it from the local index, and drops the
    local copy of a file the team index now holds as it is here."""
    url = pg_cluster.url(pg_database, OWNER)
    ci = _indexed_by_ci(tmp_path, url)
    checkout = tmp_path / "checkout"
    shutil.copytree(ci, checkout)
    edited = FILES["app/users.py"].replace("delete_user", "archive_user")
    (checkout / "app/users.py").write_text(edited)
    (checkout / "app/audit.py").write_text("def record_user_event(user_id: int) -> None:\n"
                                           "    pass\n")
    s = await start_server([checkout], init_options={"store": url, "repo": REPO})
    [folder] = to_json(await s.wait_idle())["folders"]
    assert folder["files"] == 2
    assert folder["partial"] == {"team": f"{safe_url(url)} {REPO}", "answered_by_team": 5}
    assert _held(folder["index_dir"]) == {"app/users.py", "app/audit.py"}
    # Both halves answer, at their exact places.
    found = await s.search({"query": "archive_user", "mode": "lexical"})
    assert [h["path"] for h in found["hits"]][:1] == ["app/users.py"]
    assert (await s.search({"query": "delete_user", "mode": "lexical"}))["hits"] == []
    [team_only] = await s.symbols("TeamOnlyHelper")
    assert team_only.location.uri == (checkout / "svc/only_in_ci.go").as_uri()
    assert range_of(team_only.location) == ((2, 0), (2, 24))
    [archive] = await s.symbols("archive_user")
    assert archive.location.uri == (checkout / "app/users.py").as_uri()
    assert range_of(archive.location) == span("app/users.py", "def archive_user", "        pass",
                                              files={"app/users.py": edited})

    # CI indexes a new commit: the edit made here, and a change this checkout does not have.
    (ci / "app/users.py").write_text(edited)
    (ci / "web/api.ts").write_text(FILES["web/api.ts"].replace("greet(name", "salute(name"))
    index_repository(ci, url, REPO, Settings(workers=1, embed=False))
    assert (await s.search({"query": "salute", "mode": "lexical"}))["hits"] == []
    assert await s.symbols("salute") == []
    [folder] = to_json(await s.wait_idle())["folders"]
    assert _held(folder["index_dir"]) == {"web/api.ts", "app/audit.py"}
    assert (await s.search({"query": "salute", "mode": "lexical"}))["hits"] == []
    greet = await s.search({"query": "greet", "mode": "lexical"})
    assert greet["hits"] and {h["path"] for h in greet["hits"]} == {"web/api.ts"}
    assert not any("salute" in h["snippet"]["text"] for h in greet["hits"])
    [method] = [x for x in await s.symbols("greet") if x.name == "greet"]
    assert method.location.uri == (checkout / "web/api.ts").as_uri()
    assert range_of(method.location) == span("web/api.ts", "greet(name", "  }")
    archived = await s.search({"query": "archive_user", "mode": "lexical"})
    assert [h["path"] for h in archived["hits"]][:1] == ["app/users.py"]  # from the team now
    assert archived["meta"]["index"]["team"]["overlay_files"] == 2


@pytest.mark.model
async def test_team_vectors_answer_by_meaning_and_local_changes_by_words(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    """`teamVectors`: vector and hybrid requests answered from the team's vectors, with the
    file changed here searched in the local index, by words when it has no vectors (the
    server's local index embeds nothing here), and the answer says so."""
    url, shared = pg_cluster.url(pg_database, OWNER), tmp_path / "shared-vectors"
    ci = write_tree(tmp_path / "ci", FILES)
    update_repository(ci, url, REPO, Settings(workers=1), vectors=shared,
                      embedder=shared_embedder(None, None))
    checkout = tmp_path / "checkout"
    shutil.copytree(ci, checkout)
    users = checkout / "app/users.py"
    users.write_text(FILES["app/users.py"].replace("delete_user", "archive_user"))

    s = await start_server([checkout], init_options={"store": url, "repo": REPO,
                                                     "teamVectors": str(shared)})
    await s.wait_idle()
    for mode, kind in (("vector", "cosine_similarity+priors"), ("hybrid", "rrf_normalized+priors")):
        answer = await s.search({"query": "remove a user for good", "mode": mode, "k": 50})
        assert not list(VALIDATOR.iter_errors(answer))
        assert answer["meta"]["score"]["sides"]["team"] == kind, answer["meta"]
        assert answer["meta"]["score"]["sides"]["local"] != kind
        assert answer["meta"]["index"]["team"]["overlay_files"] == 1
        assert any("searched by words" in w for w in answer["meta"]["warnings"])
        assert {h["path"] for h in answer["hits"]} - {"app/users.py"}  # the team's, by meaning
        assert all(h["path"] != "app/users.py" or "delete_user" not in h["snippet"]["text"]
                   for h in answer["hits"])
    # `kebab/similar` the same way: by the team's vectors, the edited file by words.
    similar = to_json(await s.request("kebab/similar", {"text": FILES["app/users.py"].split(
        "    def delete_user")[1], "k": 20}))
    sides = similar["meta"]["score"]["sides"]
    assert sides["team"].startswith("rrf_normalized"), similar["meta"]  # words and meaning
    assert not sides["local"].startswith("rrf_normalized")
    assert any("lexical" in w for w in similar["meta"]["warnings"])
    assert {h["path"] for h in similar["hits"]} - {"app/users.py"}
    assert all(h["path"] != "app/users.py" or "delete_user" not in h["snippet"]["text"]
               for h in similar["hits"])


async def test_the_team_connection_is_opened_again_after_the_database_drops_it(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    """A restart or failover of the database ends the server's connection: the next
    request opens a new one and is answered, as is every one after it."""
    url = pg_cluster.url(pg_database, OWNER)
    ci = _indexed_by_ci(tmp_path, url)
    s = await start_server([ci], init_options={"store": url, "repo": REPO})
    await s.wait_idle()
    first = await s.search({"query": "TeamOnlyHelper", "mode": "lexical"})
    assert [h["path"] for h in first["hits"]] == ["svc/only_in_ci.go"]
    for _ in range(2):
        with pg_cluster.admin() as admin:  # what a restart does to every client
            dropped = admin.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = %s AND usename = %s", (pg_database, OWNER)).fetchone()
        assert dropped is not None and dropped[0] >= 1
        again = await s.search({"query": "TeamOnlyHelper", "mode": "lexical"})
        assert [h["path"] for h in again["hits"]] == ["svc/only_in_ci.go"]
        [found] = await s.symbols("TeamOnlyHelper")
        assert found.location.uri == (ci / "svc/only_in_ci.go").as_uri()


async def test_answers_say_so_while_the_checkout_is_first_scanned(
        start_server: StartFn, tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> None:
    """Until the checkout's first scan is done, the files changed here are not known: the
    team index answers for them, from its older copy, and the answer says it may be
    incomplete (it said complete, and a function added here looked absent)."""
    url = pg_cluster.url(pg_database, OWNER)
    ci = big_tree(tmp_path / "ci", 80)
    index_repository(ci, url, REPO, Settings(workers=1, embed=False))
    checkout = tmp_path / "checkout"
    shutil.copytree(ci, checkout)
    for path in sorted(checkout.glob("pkg/*.py")):  # every file edited here: a long scan
        path.write_text(path.read_text() + f"\ndef added_here_{path.stem}():\n    pass\n")
    s = await start_server([checkout], init_options={"store": url, "repo": REPO})
    early = await s.search({"query": "added_here_mod_079", "mode": "lexical"})
    if early["hits"]:
        pytest.skip("the checkout's scan was done before the first request")
    assert early["meta"]["index"]["building"] is True
    assert early["meta"]["recall"]["complete"] is False
    assert any("still being scanned" in w for w in early["meta"]["warnings"]), early["meta"]
    await s.wait_idle()
    done = await s.search({"query": "added_here_mod_079", "mode": "lexical"})
    assert [h["path"] for h in done["hits"]][:1] == ["pkg/mod_079.py"]
    assert done["meta"]["index"]["building"] is False
    assert done["meta"]["recall"]["complete"] is True
