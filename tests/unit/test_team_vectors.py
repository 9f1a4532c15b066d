"""A team index's vectors in a LanceDB dataset per repository under a shared directory: the
indexing job writes them, another process reads them, an edit embeds only the text that
changed, a deleted file's vectors go, row-level security still decides what a role sees, and
a vector request with no vectors to answer it fails with the reason. Real PostgreSQL, real
LanceDB in a temporary directory, the real model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from bench.postgres_server import OWNER, READERS, PgCluster
from indexing.postgres.grants import grant
from indexing.postgres.store import PgStore, TeamStoreError
from indexing.postgres.team_index import TeamIndexRun, update_repository
from indexing.postgres.team_vectors import DATASET_KEY, MARKER, dataset_dir, open_vectors
from indexing.runtime.folder_index import shared_embedder
from indexing.settings import Settings
from indexing.store_choice import TeamStore
from indexing.vectors import VectorStore
from kebab_lsp.cli import main
from kebab_lsp.team import TeamOverlay, TeamWorkspace
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest, SearchResult, SearchUnavailable

pytestmark = [pytest.mark.postgres, pytest.mark.model]

FIXTURES = Path(__file__).parent.parent / "fixtures"
REPO_ROOT = Path(__file__).parents[2]
ALICE, BOB = READERS
SETTINGS = Settings(workers=1)
QUESTION = "where are users kept in memory"


def _index(root: Path, url: str, repo: str, vectors: Path) -> TeamIndexRun:
    return update_repository(root, url, repo, SETTINGS, vectors=vectors,
                             embedder=shared_embedder(None, None))


def _rows(vectors: Path, repo: str) -> dict[str, str]:
    """key -> path of every vector in the repository's dataset, read as a reader would."""
    store = VectorStore(dataset_dir(vectors, repo), 384)
    try:
        reader = store._read()
        assert reader is not None
        found = reader.columns(["key", "path"])
        return dict(zip(found["key"], found["path"], strict=True))
    finally:
        store.close()


def _expected(url: str, repo: str, vectors: Path) -> dict[str, str]:
    """Row key -> embedded-text hash of every vector the repository's rows want."""
    store = PgStore.open(url, repo)
    try:
        return open_vectors(store, vectors, shared_embedder(None, None)).expected()
    finally:
        store.close()


def _search(url: str, repo: str, vectors: Path | None, query: str, mode: str,
            **kw: Any) -> SearchResult:
    team = TeamWorkspace(url, repo, SETTINGS, vectors=vectors)
    try:
        return team.searcher.search(SearchRequest(query=query, mode=mode, **kw))
    finally:
        team.close()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURES / "sample_repo", root)
    return root


def test_the_indexing_job_writes_vectors_that_another_process_reads(
        pg_cluster: PgCluster, pg_database: str, tree: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    owner, alice = pg_cluster.url(pg_database, OWNER), pg_cluster.url(pg_database, ALICE)
    shared = tmp_path / "shared-vectors"
    team = ["--store", owner, "--repo", "acme/app", "--team-vectors", str(shared)]
    assert main(["index", str(tree), *team, "--workers", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["new"] == 6 and out["embedding"]["embedded"] > 0
    assert out["store"]["vectors"] == str(shared / "acme%2Fapp")
    assert (shared / "acme%2Fapp" / "chunks.lance").is_dir()  # one dataset per repository
    assert main(["grant", ALICE, "--store", owner, "--repo", "acme/app"]) == 0
    capsys.readouterr()
    # Nothing changed: no text is embedded again.
    assert main(["index", str(tree), *team, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["embedding"]["embedded"] == 0

    reader = ["--store", alice, "--repo", "acme/app", "--team-vectors", str(shared)]
    assert main(["status", *reader, "--json"]) == 0
    vectors = json.loads(capsys.readouterr().out)["vectors"]
    assert vectors["vectors"] == vectors["total"] > 0
    assert vectors["dataset"] == str(shared / "acme%2Fapp") and vectors["model"]
    for mode, kind in (("vector", "cosine_similarity+priors"), ("hybrid", "rrf_normalized+priors")):
        done = subprocess.run(
            [sys.executable, "-m", "kebab_lsp.cli", "search", QUESTION, str(tmp_path),
             *reader, "--mode", mode, "--json"],
            capture_output=True, text=True, timeout=120, env=os.environ.copy(), check=False)
        assert done.returncode == 0, done.stderr
        wire = json.loads(done.stdout)
        assert wire["hits"] and wire["hits"][0]["path"] == "src/users/store.py", mode
        assert wire["meta"]["score"] == {"kind": kind, "direction": "higher_is_better",
                                         "backend": "postgresql"}
        embedded = wire["meta"]["index"]["embedded"]
        assert embedded["vectors"] == embedded["total"] > 0
        assert wire["meta"]["index"]["vector_lexical_version"] == wire["meta"]["index"][
            "lexical_version"]
        assert not [w for w in wire["meta"]["warnings"] if "vector" in w], wire["meta"]


def test_an_edit_embeds_only_the_text_that_changed_and_a_deleted_files_vectors_go(
        pg_cluster: PgCluster, pg_database: str, tree: Path, tmp_path: Path) -> None:
    url, shared = pg_cluster.url(pg_database, OWNER), tmp_path / "shared"
    first = _index(tree, url, "app", shared)
    assert first.vectors is not None and first.vectors.embedded > 0
    before = _expected(url, "app", shared)
    assert set(_rows(shared, "app")) == set(before)

    # A line added at the top moves every chunk of the file (their ids hold their lines), but
    # changes the text of few: only those are embedded again; the rest are found by text.
    store_py = tree / "src/users/store.py"
    store_py.write_text("# edited\n" + store_py.read_text().replace(
        "too many users", "the user store is full"))
    second = _index(tree, url, "app", shared)
    after = _expected(url, "app", shared)
    assert second.files.changed == 1 and second.vectors is not None
    new_texts = set(after.values()) - set(before.values())
    moved = {k for k in after if k not in before} - {
        k for k, h in after.items() if h in new_texts}
    assert moved, "the edit moved chunks whose text did not change"
    assert second.vectors.embedded == len(new_texts) > 0
    assert second.vectors.embedded < len([k for k in after if k not in before])
    assert set(_rows(shared, "app")) == set(after)

    (tree / "web/api.ts").unlink()
    third = _index(tree, url, "app", shared)
    assert third.files.deleted == 1 and third.vectors is not None
    assert third.vectors.embedded == 0 and third.vectors.deleted > 0
    rows = _rows(shared, "app")
    assert set(rows) == set(_expected(url, "app", shared))
    assert "web/api.ts" not in rows.values() and "src/users/store.py" in rows.values()

    # The files moved on without the vectors: a search says they are stale.
    update_repository(tree, url, "app", SETTINGS)  # no vectors named: files only
    (tree / "notes.txt").write_text("notes, changed\n")
    update_repository(tree, url, "app", SETTINGS)
    result = _search(url, "app", shared, QUESTION, "hybrid")
    assert any("vector index is stale" in w for w in result.meta.warnings), result.meta.warnings


def test_a_role_granted_one_repository_never_sees_anothers_chunks_by_vector(
        pg_cluster: PgCluster, pg_database: str, tree: Path, tmp_path: Path) -> None:
    owner = pg_cluster.url(pg_database, OWNER)
    alice, bob = pg_cluster.url(pg_database, ALICE), pg_cluster.url(pg_database, BOB)
    two = tmp_path / "two"
    two.mkdir()
    (two / "secret_plans.py").write_text(
        "class UserVault:\n    \"\"\"Where users are kept in memory, for repository two.\"\"\"\n"
        "    def keep(self, user):\n        self.launch_codes[user.id] = user\n")
    shared = tmp_path / "shared"
    _index(tree, owner, "one", shared)
    _index(two, owner, "two", shared)
    grant(owner, "one", ALICE)
    grant(owner, "one", BOB)
    grant(owner, "two", BOB)

    def paths(url: str, repo: str, mode: str) -> tuple[set[str], int]:
        result = _search(url, repo, shared, QUESTION, mode, k=50)
        return {h.path for h in result.hits}, result.meta.total_matches

    assert paths(bob, "two", "vector")[0] == {"secret_plans.py"}
    for mode in ("vector", "hybrid", "auto"):
        seen, _ = paths(alice, "one", mode)
        assert seen and "secret_plans.py" not in seen, mode
    # Repository two's dataset is readable here, but the repository is not this role's.
    for mode in ("vector", "auto"):
        with pytest.raises(TeamStoreError, match="'two' is .* not granted it"):
            paths(alice, "two", mode)

    # A dataset of repository two in repository one's place (a shared directory mixed up)
    # is refused as two's, not counted as one's complete vectors that find nothing. Even
    # unmarked, its vectors name chunks of two, which resolve through one's rows only:
    # nothing of two shows, neither to ALICE nor to BOB, who may read two.
    shutil.rmtree(dataset_dir(shared, "one"))
    shutil.copytree(dataset_dir(shared, "two"), dataset_dir(shared, "one"))
    for url in (alice, bob):
        with pytest.raises(SearchUnavailable, match="not the ones `kebab index` wrote for "
                           "repository 'one' \\(they are those of repository 'two'\\)"):
            paths(url, "one", "vector")
    with pytest.raises(TeamStoreError, match="holds the vectors of repository 'two'"):
        _index(tree, owner, "one", shared)  # nor written over by one's next sync
    (dataset_dir(shared, "one") / MARKER).unlink()
    with psycopg.connect(owner, autocommit=True) as conn:  # as before datasets were marked
        conn.execute("DELETE FROM kebab.meta WHERE repo = 'one' AND key = %s", (DATASET_KEY,))
    for url in (alice, bob):
        seen, total = paths(url, "one", "vector")
        assert seen == set() and total == 0


def test_a_vector_request_with_no_vectors_to_answer_it_fails_with_the_reason(
        pg_cluster: PgCluster, pg_database: str, tree: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    team = ["--store", url, "--repo", "app"]
    # --embed without a directory to put the vectors in: refused, not quietly skipped.
    assert main(["index", str(tree), *team, "--embed", "--workers", "1"]) == 2
    assert "--team-vectors DIR" in capsys.readouterr().err
    assert main(["index", str(tree), *team, "--workers", "1"]) == 0  # files only
    capsys.readouterr()
    # No directory named: an explicit mode fails, auto answers by words and says so.
    for mode in ("vector", "hybrid"):
        assert main(["search", QUESTION, *team, "--mode", mode]) == 2
        assert "read without vectors" in capsys.readouterr().err
    auto = _search(url, "app", None, QUESTION, "auto")
    assert auto.hits and any("read without vectors" in w for w in auto.meta.warnings)
    # A directory named, but no sync has written the repository's vectors there.
    with pytest.raises(SearchUnavailable, match="has no vectors under"):
        _search(url, "app", tmp_path / "empty", QUESTION, "vector")
    # An object store's URI is refused with the reason, not misread as a folder.
    with pytest.raises(SystemExit, match="only a directory"):
        main(["search", QUESTION, *team, "--team-vectors", "s3://bucket/vectors"])


def test_the_servers_overlay_answers_by_meaning_without_the_teams_stale_files(
        pg_cluster: PgCluster, pg_database: str, tree: Path, tmp_path: Path) -> None:
    url, shared = pg_cluster.url(pg_database, OWNER), tmp_path / "shared"
    _index(tree, url, "app", shared)
    # Changed here: the team's copy of store.py must never answer.
    store_py = tree / "src/users/store.py"
    store_py.write_text(store_py.read_text().replace(
        "Keeps users in memory, keyed by id.", "Keeps accounts in a dict, keyed by number."))
    choice = TeamStore(url, "app", shared)

    team_ids = _chunk_ids(PgStore.open(url, "app"))

    def overlay_search(embed: bool, mode: str) -> tuple[SearchResult, set[str]]:
        local = Workspace(tree, Settings(index_dir=str(tmp_path / f"cache-{embed}"),
                                         workers=1, embed=embed))
        local.indexer.index()
        if embed:
            local.sync_vectors()
        team = TeamOverlay(choice, local.root, local.store, None,
                           lambda: local.settings, local_vectors=local)
        try:
            local_ids = {s.chunk_id for s in local.store.embedding_sources()
                         if s.path == "src/users/store.py"}
            req = SearchRequest(QUESTION, mode=mode, k=50, group=True)
            return team.search(req, lambda: False), local_ids
        finally:
            team.close()
            local.close()

    stale = team_ids["src/users/store.py"]
    for mode in ("vector", "hybrid"):
        result, fresh = overlay_search(True, mode)
        kind = ("cosine_similarity" if mode == "vector" else "rrf_normalized") + "+priors"
        assert result.meta.score["sides"] == {"team": kind, "local": kind}
        assert result.meta.index["team"]["overlay_files"] == 1
        shown = {h.chunk_id for h in result.hits}
        assert not shown & (stale - fresh), mode  # the team's version of the edited chunk
        assert fresh - stale <= shown, mode  # this checkout's version of it, by meaning
        assert {h.path for h in result.hits} - {"src/users/store.py"}  # the team answered
        # The files group's own channel, by file vector, merges both sides: the team's files
        # (without its copy of store.py) and this checkout's store.py, each once.
        files = [f.path for f in result.files]
        assert "src/users/store.py" in files and set(files) - {"src/users/store.py"}, mode
        assert len(files) == len(set(files)) and [f.rank for f in result.files] == list(
            range(1, len(files) + 1))
    # The local index has no vectors: its changed files are searched by words, and it says so.
    result, _ = overlay_search(False, "hybrid")
    assert result.meta.score["sides"]["team"] == "rrf_normalized+priors"
    assert result.meta.score["sides"]["local"] != "rrf_normalized+priors"
    assert any("searched by words" in w for w in result.meta.warnings), result.meta.warnings


def _chunk_ids(store: PgStore) -> dict[str, set[str]]:
    """Chunk ids by path; closes the store."""
    try:
        out: dict[str, set[str]] = {}
        for src in store.embedding_sources():
            out.setdefault(src.path, set()).add(src.chunk_id)
        return out
    finally:
        store.close()
