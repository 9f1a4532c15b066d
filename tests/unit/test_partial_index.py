"""A partial local index (team mode): the indexer, handed the team index's hashes
(`Baseline`), stores only the files that differ from the team's copy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_runtime_writer import Recorder

from indexing.indexer import Baseline, Indexer, content_hash
from indexing.runtime import Folder, Runtime
from indexing.settings import Settings
from indexing.store import Store

FILES = {
    "app/users.py": "def get_user(user_id: int) -> None:\n    pass\n",
    "app/orders.py": "def place_order(order_id: int) -> None:\n    pass\n",
    "web/api.ts": "export function fetchUser(id: number) { return id; }\n",
}


def _tree(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _team(root: Path) -> Baseline:
    """The team index as CI built it from the tree as it is now."""
    return Baseline("postgresql://db/kebab acme/app",
                    {rel: content_hash((root / rel).read_bytes()) for rel in FILES})


def _indexer(tmp_path: Path) -> tuple[Indexer, Store]:
    store = Store(tmp_path / "index")
    return Indexer(_tree(tmp_path / "src"), store, workers=1), store


def test_a_scan_with_a_baseline_stores_only_the_files_that_differ(tmp_path: Path) -> None:
    indexer, store = _indexer(tmp_path)
    team = _team(indexer.root)
    (indexer.root / "app/users.py").write_text("def archive_user() -> None:\n    pass\n")
    (indexer.root / "app/audit.py").write_text("def record_event() -> None:\n    pass\n")
    summary = indexer.scan(baseline=team).run()
    assert set(store.file_states()) == {"app/users.py", "app/audit.py"}
    assert (summary.same_as_team, summary.new, summary.unchanged) == (2, 2, 0)
    assert "answered by the team index" in summary.describe()
    assert summary.as_json()["same_as_team"] == 2
    again = indexer.scan(baseline=team).run()  # the files left to the team are hashed again
    assert (again.same_as_team, again.unchanged, again.new) == (2, 2, 0)


def test_a_full_index_drops_the_rows_of_files_equal_to_the_team(tmp_path: Path) -> None:
    indexer, store = _indexer(tmp_path)
    indexer.index()
    assert len(store.file_states()) == 3
    team = _team(indexer.root)
    (indexer.root / "web/api.ts").write_text("export const changed = 1;\n")
    summary = indexer.scan(baseline=team).run()
    assert set(store.file_states()) == {"web/api.ts"}
    assert summary.same_as_team == 2
    # Without a baseline again, the index is completed: every file indexed.
    indexer.index()
    assert len(store.file_states()) == 3


def test_a_file_that_became_equal_to_the_team_is_dropped(tmp_path: Path) -> None:
    indexer, store = _indexer(tmp_path)
    team = _team(indexer.root)
    users = indexer.root / "app/users.py"
    users.write_text("def archive_user() -> None:\n    pass\n")
    indexer.scan(baseline=team).run()
    assert set(store.file_states()) == {"app/users.py"}
    # The team index moved to this very content (CI indexed the change): a rescan drops it.
    moved = Baseline(team.source, {**team.hashes,
                                   "app/users.py": content_hash(users.read_bytes())})
    summary = indexer.scan(baseline=moved).run()
    assert store.file_states() == {}
    assert summary.same_as_team == 3


def test_a_save_reverting_to_the_team_content_drops_the_local_rows(tmp_path: Path) -> None:
    indexer, store = _indexer(tmp_path)
    team = _team(indexer.root)
    users = indexer.root / "app/users.py"
    users.write_text("def archive_user() -> None:\n    pass\n")
    edited = indexer.update_paths([users], team)
    assert (edited.new, edited.same_as_team) == (1, 0)
    assert [r.symbol.name for r in store.all_symbols()] == ["archive_user"]
    users.write_text(FILES["app/users.py"])  # reverted
    reverted = indexer.update_paths([users], team)
    assert (reverted.same_as_team, reverted.deleted) == (1, 1)
    assert store.file_states() == {} and list(store.all_symbols()) == []
    # A rename onto the team's copy of the new path is not stored either.
    users.write_text("def archive_user() -> None:\n    pass\n")
    indexer.update_paths([users], team)
    orders = indexer.root / "app/orders.py"
    orders.unlink()
    copied = users.read_bytes()
    users.rename(orders)
    renamed = indexer.rename_path(users, orders, Baseline(team.source, {
        **team.hashes, "app/orders.py": content_hash(copied)}))
    assert renamed.renamed == 0 and store.file_states() == {}


def _runtime(tmp_path: Path) -> tuple[Runtime, Recorder]:
    recorder = Recorder()
    runtime = Runtime(recorder, Settings(index_dir=str(tmp_path / "cache"), workers=1,
                                         embed=False))
    return runtime, recorder


def test_a_partial_index_opened_without_its_team_index_is_completed_and_says_so(
        tmp_path: Path) -> None:
    root = _tree(tmp_path / "src")
    team = _team(root)
    (root / "app/users.py").write_text("def archive_user() -> None:\n    pass\n")

    runtime, recorder = _runtime(tmp_path)
    folder = runtime.add_folder("file:///src", "src", root, scan=False, check=False)
    runtime.set_baseline(folder, team)  # what the server does for a team's checkout
    runtime.start()
    assert runtime.wait_idle(30)
    assert set(folder.index.store.file_states()) == {"app/users.py"}
    assert any("2 answered by the team index" in line for line in recorder.lines)
    # A save is kept to the files that differ too.
    (root / "app/users.py").write_text(FILES["app/users.py"])
    runtime.changed([root / "app/users.py"])
    assert runtime.wait_idle(30)
    assert folder.index.store.file_states() == {}
    runtime.stop()

    runtime, recorder = _runtime(tmp_path)  # the same index, without the team settings
    folder = runtime.add_folder("file:///src", "src", root, check=False)
    runtime.start()
    assert runtime.wait_idle(30)
    assert set(folder.index.store.file_states()) == set(FILES)
    told = [line for line in recorder.lines if line.startswith("warn")]
    assert len(told) == 1 and "holds only the files that differed" in told[0]
    assert team.source in told[0]
    runtime.scan(folder)  # complete now: nothing more to say
    assert runtime.wait_idle(30)
    assert len([line for line in recorder.lines if line.startswith("warn")]) == 1
    runtime.stop()


def _partial_checkout(tmp_path: Path) -> tuple[Path, Baseline, Runtime, Folder]:
    """A team checkout with one file edited, indexed by a running runtime against the team's
    hashes: its index holds that one file."""
    root = _tree(tmp_path / "src")
    team = _team(root)
    (root / "app/users.py").write_text("def archive_user() -> None:\n    pass\n")
    runtime, _ = _runtime(tmp_path)
    folder = runtime.add_folder("file:///src", "src", root, scan=False, check=False)
    runtime.set_baseline(folder, team)
    runtime.start()
    assert runtime.wait_idle(30)
    return root, team, runtime, folder


def test_answers_from_a_partial_index_alone_say_it_lacks_files(tmp_path: Path) -> None:
    """`kebab search` without --store (or any reader not holding the team index) on a team
    checkout's partial index: the answer is not complete, and says where the rest is. The
    server's team overlay reads the same index against its team: no such warning there."""
    from kebab_lsp.workspace import Workspace
    from search.engine import Searcher
    from search.types import SearchRequest

    root, team, runtime, folder = _partial_checkout(tmp_path)
    overlay_side = Searcher(root, folder.index.store, status=folder)
    side = overlay_side.search(SearchRequest("archive user", mode="lexical"))
    assert [h.path for h in side.hits] == ["app/users.py"]
    assert not any("differed from the team index" in w for w in side.meta.warnings)
    runtime.stop()

    ws = Workspace(root, Settings(index_dir=str(tmp_path / "cache"), workers=1, embed=False))
    try:
        result = ws.searcher.search(SearchRequest("place order", mode="lexical"))
        assert result.hits == []  # app/orders.py is the team's to answer
        assert result.meta.recall["complete"] is False
        assert any("holds only the files that differed from the team index "
                   f"{team.source}" in w for w in result.meta.warnings)
    finally:
        ws.close()


def test_kebab_status_names_the_team_index_a_partial_index_belongs_to(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from kebab_lsp import cli

    root, team, runtime, _ = _partial_checkout(tmp_path)
    runtime.stop()
    status = ["status", str(root), "--index-dir", str(tmp_path / "cache"), "--json"]
    assert cli.main(status) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["partial_of"], info["files"]) == (team.source, 1)

    assert cli.main([*status[:2], "--index-dir", str(tmp_path / "full"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["partial_of"] is None
