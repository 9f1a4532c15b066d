"""A team index on a real PostgreSQL server: grants enforced by the database, the `kebab`
commands that build, search and grant it, and the requests it refuses rather than answer
another way. The behaviour it shares with SQLite is in test_store_backends.py."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import psycopg
import pytest
from jsonschema import Draft202012Validator

import kebab_lsp
from bench.postgres_server import OWNER, READERS, PgCluster
from indexing.filters import Filters
from indexing.postgres.grants import grant, revoke
from indexing.postgres.schema import GIN_INDEXES
from indexing.postgres.store import PgStore, TeamStoreBusy, TeamStoreError
from indexing.postgres.team_index import index_repository
from indexing.settings import Settings
from indexing.store.interface import EXTRACTED_BY_KEY
from kebab_lsp.cli import main
from kebab_lsp.team import TeamWorkspace
from kebab_lsp.workspace import Workspace
from search.types import InvalidQuery, SearchRequest, SearchUnavailable

pytestmark = pytest.mark.postgres

FIXTURES = Path(__file__).parent.parent / "fixtures"
ALICE, BOB = READERS
SETTINGS = Settings(workers=1, embed=False)
SCHEMA = json.loads((Path(kebab_lsp.__file__).parent / "schema" / "search.v1.json").read_text())


@pytest.fixture
def two_repos(tmp_path: Path, pg_cluster: PgCluster, pg_database: str) -> str:
    """Repositories `one` (the sample tree) and `two` (a tree of its own) indexed by the
    owner; ALICE is granted `one`, BOB both. Returns the database's name."""
    one = tmp_path / "one"
    shutil.copytree(FIXTURES / "sample_repo", one)
    two = tmp_path / "two"
    two.mkdir()
    (two / "secret_plans.py").write_text(
        "def get_user_by_id(uid):\n    \"\"\"Only repository two has this.\"\"\"\n"
        "    return launch_codes[uid]\n")
    url = pg_cluster.url(pg_database, OWNER)
    index_repository(one, url, "one", SETTINGS)
    index_repository(two, url, "two", SETTINGS)
    grant(url, "one", ALICE)
    grant(url, "one", BOB)
    grant(url, "two", BOB)
    return pg_database


def _search(url: str, repo: str, query: str, **kw: object) -> tuple[list[str], int]:
    team = TeamWorkspace(url, repo, SETTINGS)
    try:
        mode = "auto" if kw.get("intent") == "usage" else "lexical"  # usage takes no mode
        result = team.searcher.search(SearchRequest(query=query, mode=mode, k=50,
                                                    **kw))  # type: ignore[arg-type]
        return sorted({h.path for h in result.hits}), result.meta.total_matches
    finally:
        team.close()


def test_a_role_reads_only_the_repositories_granted_to_it(
        pg_cluster: PgCluster, two_repos: str) -> None:
    owner, alice, bob = (pg_cluster.url(two_repos, r) for r in (OWNER, ALICE, BOB))
    # BOB sees both, as the owner does.
    for repo in ("one", "two"):
        assert _search(bob, repo, "user by id") == _search(owner, repo, "user by id")
        assert _search(bob, repo, '"user_id"') == _search(owner, repo, '"user_id"')
    # ALICE sees `one` whole, and nothing of `two`: not a hit, not a count. Asking for it
    # is refused, as a misspelt name is, not answered as an empty repository.
    assert _search(alice, "one", "user by id") == _search(owner, "one", "user by id")
    assert _search(owner, "two", "launch codes") == (["secret_plans.py"], 1)
    for repo, near in (("two", ""), ("oen", " (did you mean 'one'?)")):
        with pytest.raises(TeamStoreError) as refused:
            _search(alice, repo, "launch codes")
        assert str(refused.value).endswith(
            f"or this role is not granted it{near}; this role can read 'one'"), refused.value
    assert _search(owner, "two", "launch_codes", intent="usage") == (["secret_plans.py"], 1)
    # Below that check, the database itself shows ALICE nothing of `two`.
    alice_two = PgStore.open(alice, "two", known=False)
    stats = alice_two.stats()
    assert (stats.files, stats.symbols, stats.chunks, stats.langs) == (0, 0, 0, {})
    assert alice_two.lexical_version() == 0 and alice_two.file_states() == {}
    assert alice_two.all_symbols() == []  # workspace/symbol's source
    owner_two = PgStore.open(owner, "two")
    assert [s.symbol.name for s in owner_two.all_symbols()] == ["get_user_by_id"]
    owner_two.close()
    alice_two.close()
    # The database enforces it, whatever SQL the role sends.
    with psycopg.connect(alice) as conn:
        for table in ("files", "chunks", "symbols", "refs", "meta", "repos", "grants"):
            repos = {r[0] for r in conn.execute(f"SELECT DISTINCT repo FROM kebab.{table}")}
            assert repos <= {"one"}, table
        assert conn.execute("SELECT count(*) FROM kebab.files WHERE text LIKE '%launch%'"
                            ).fetchone() == (0,)


def test_revoke_takes_a_repository_away(pg_cluster: PgCluster, two_repos: str) -> None:
    owner, bob = pg_cluster.url(two_repos, OWNER), pg_cluster.url(two_repos, BOB)
    assert revoke(owner, "two", BOB) is True
    with pytest.raises(TeamStoreError, match="'two' is not in the team index"):
        _search(bob, "two", "launch codes")
    assert _search(bob, "one", "user by id")[0]
    assert revoke(owner, "two", BOB) is False  # nothing left to revoke
    assert revoke(owner, "one", BOB) is True
    with pytest.raises(TeamStoreError, match="permission denied"):  # no grant, no access
        PgStore.open(bob, "one")


def test_grant_names_a_role_and_a_repository_that_exist(pg_cluster: PgCluster,
                                                        two_repos: str) -> None:
    owner = pg_cluster.url(two_repos, OWNER)
    with pytest.raises(TeamStoreError, match="no role 'nobody'"):
        grant(owner, "one", "nobody")
    with pytest.raises(TeamStoreError, match="'tow' is not in the team index.*mean 'two'"):
        grant(owner, "tow", ALICE)
    assert revoke(owner, "tow", ALICE) is False  # a grant of no repository can be revoked


def test_kebab_commands_on_a_team_index(pg_cluster: PgCluster, pg_database: str,
                                        sample_repo: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    owner, alice = pg_cluster.url(pg_database, OWNER), pg_cluster.url(pg_database, ALICE)
    team = ["--store", owner, "--repo", "acme/app"]
    assert main(["index", str(sample_repo), *team, "--no-embed", "--workers", "1",
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["new"] == 6 and summary["store"]["repo"] == "acme/app"
    assert main(["index", str(sample_repo), *team, "--no-embed", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["unchanged"] == 6

    assert main(["search", "getUserById", *team, "--mode", "lexical", "--json"]) == 0
    wire = json.loads(capsys.readouterr().out)
    Draft202012Validator(SCHEMA).validate(wire)  # the published schema, as SQLite's answers
    assert wire["hits"][0]["title"] == "getUserById"
    assert wire["meta"]["score"]["backend"] == "postgresql"
    assert wire["meta"]["recall"]["ranking_scope"] == "all_matches"

    assert main(["search", "user", *team, "--mode", "lexical", "--group", "--json"]) == 0
    grouped = json.loads(capsys.readouterr().out)
    assert {f["path"] for f in grouped["files"]} >= {"src/users/store.py", "web/api.ts"}
    assert grouped["definitions"] and grouped["meta"]["score"]["backend"] == "postgresql"

    assert main(["grant", ALICE, *team]) == 0
    capsys.readouterr()
    assert main(["search", '"def get_user_by_id"', "--store", alice, "--repo", "acme/app",
                 "--json"]) == 0
    assert [h["path"] for h in json.loads(capsys.readouterr().out)["hits"]] == [
        "src/users/store.py"]
    # From a subfolder of the checkout: its files only, cited where they are on this disk.
    for under, expected in (("src", ["src/users/store.py"]), ("web", [])):
        assert main(["search", '"get_user_by_id"', str(sample_repo / under), *team,
                     "--json"]) == 0
        out, err = capsys.readouterr()
        hits = json.loads(out)["hits"]
        assert [h["path"] for h in hits] == expected, under
        assert all(h["location"]["uri"] == (sample_repo / h["path"]).as_uri() for h in hits)
        assert f"under {under}/ only" in err
    # A reader that tries to index is told which role can, in one line.
    assert main(["index", str(sample_repo), "--store", alice, "--repo", "acme/app",
                 "--no-embed"]) == 1
    err = capsys.readouterr().err
    assert "this role may not write the team index" in err and "Traceback" not in err
    assert main(["status", "--store", alice, "--repo", "acme/app", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["files"] == 6 and status["backend"] == "postgresql"
    assert status["bm25_extension"] is None  # none is installable here: ts_rank ranks


@pytest.mark.parametrize(("args", "says"), [
    (["search", "users", "--mode", "vector"], "read without vectors"),
    (["search", "how are users stored", "--mode", "hybrid"], "read without vectors"),
    (["search", "'names:user'"], "raw SQLite FTS5"),
    (["index", "--embed"], "read without vectors"),
])
def test_what_a_team_index_cannot_do_fails_and_says_why(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path, args: list[str], says: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    team = ["--store", pg_cluster.url(pg_database, OWNER), "--repo", "app"]
    index_repository(sample_repo, team[1], "app", SETTINGS)
    if args[0] == "index":
        args = [*args, str(sample_repo)]
    assert main([*args, *team]) == 2
    assert says in capsys.readouterr().err


def test_an_index_of_another_schema_version_is_refused(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    index_repository(sample_repo, url, "app", SETTINGS)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE kebab.schema_version SET version = 0")
    with pytest.raises(TeamStoreError, match="schema version 0"):
        PgStore.open(url, "app")


def test_a_missing_team_index_says_how_to_build_one(pg_cluster: PgCluster,
                                                    pg_database: str) -> None:
    with pytest.raises(TeamStoreError, match="kebab index PATH --store URL --repo app"):
        PgStore.open(pg_cluster.url(pg_database, OWNER), "app")


def test_one_writer_per_repository(pg_cluster: PgCluster, pg_database: str,
                                   sample_repo: Path) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    index_repository(sample_repo, url, "app", SETTINGS)
    holder = PgStore.open(url, "app", create=True)
    try:
        with holder.writer_lock():
            with pytest.raises(TeamStoreBusy, match="another `kebab index`"):
                index_repository(sample_repo, url, "app", SETTINGS)
            index_repository(sample_repo, url, "other", SETTINGS)  # not held up
    finally:
        holder.close()
    assert index_repository(sample_repo, url, "app", SETTINGS).unchanged == 6


def test_an_explicit_vector_request_fails_in_the_engine_too(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    index_repository(sample_repo, url, "app", SETTINGS)
    team = TeamWorkspace(url, "app", SETTINGS)
    try:
        with pytest.raises(SearchUnavailable, match="read without vectors"):
            team.searcher.search(SearchRequest("users", mode="vector"))
        with pytest.raises(InvalidQuery, match="raw SQLite FTS5"):
            team.searcher.search(SearchRequest("'user*'", mode="lexical"))
        auto = team.searcher.search(SearchRequest("how are users stored"))
        assert auto.hits and any("read without vectors" in w for w in auto.meta.warnings)
    finally:
        team.close()


@pytest.mark.parametrize("recorded", ["14", None])  # the release before, or none recorded
def test_a_repository_extracted_by_another_version_is_extracted_again(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path, recorded: str | None,
        capsys: pytest.CaptureFixture[str]) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    team = ["--store", url, "--repo", "app", "--no-embed", "--json"]
    assert main(["index", str(sample_repo), *team]) == 0
    capsys.readouterr()
    with psycopg.connect(url, autocommit=True) as conn:
        # What an older release left: other chunks, and its version (or none) on record.
        conn.execute("UPDATE kebab.chunks SET text = 'cut by an older release' "
                     "WHERE repo = 'app'")
        conn.execute("DELETE FROM kebab.meta WHERE repo = 'app' AND key = %s",
                     (EXTRACTED_BY_KEY,))
        if recorded is not None:
            conn.execute("INSERT INTO kebab.meta(repo, key, value) VALUES ('app', %s, %s)",
                         (EXTRACTED_BY_KEY, recorded))
    assert main(["index", str(sample_repo), *team]) == 0
    assert json.loads(capsys.readouterr().out)["changed"] == 6  # no file changed on disk
    with psycopg.connect(url, autocommit=True) as conn:
        stale = conn.execute("SELECT count(*) FROM kebab.chunks WHERE repo = 'app' "
                             "AND text = 'cut by an older release'").fetchone()
    assert stale == (0,)
    assert main(["index", str(sample_repo), *team]) == 0
    assert json.loads(capsys.readouterr().out)["unchanged"] == 6  # once is enough


def _both_indexes(root: Path, url: str, tmp_path: Path) -> tuple[Workspace, TeamWorkspace]:
    """`root` indexed locally and into the team index's repository `app`."""
    index_repository(root, url, "app", SETTINGS)
    local = Workspace(root, Settings(index_dir=str(tmp_path / "cache"), workers=1,
                                     embed=False))
    local.indexer.index()
    return local, TeamWorkspace(url, "app", SETTINGS, root)


def test_a_large_write_refreshes_the_planners_statistics(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from indexing.postgres import team_index

    url = pg_cluster.url(pg_database, OWNER)

    def analyzed() -> bool:
        with psycopg.connect(url) as conn:
            row = conn.execute("SELECT last_analyze FROM pg_stat_user_tables "
                               "WHERE schemaname = 'kebab' AND relname = 'chunks'").fetchone()
            return row is not None and row[0] is not None

    monkeypatch.setattr(team_index, "ANALYZE_AFTER_FILES", 6)
    index_repository(sample_repo, url, "app", SETTINGS)  # 6 files: not past it
    assert not analyzed()
    monkeypatch.setattr(team_index, "ANALYZE_AFTER_FILES", 5)
    index_repository(sample_repo, url, "app", SETTINGS, rebuild=True)
    assert analyzed()


def test_an_index_run_leaves_no_rows_in_the_gin_pending_lists(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path) -> None:
    """Rows a write leaves in a GIN index's pending list are read by every search, of every
    repository, until they are merged: an index run merges them before it ends."""
    url = pg_cluster.url(pg_database, OWNER)
    PgStore.open(url, "app", create=True).close()
    with psycopg.connect(url, autocommit=True) as conn:  # no autovacuum merging them for us
        for table in ("files", "chunks"):
            conn.execute(f"ALTER TABLE kebab.{table} SET (autovacuum_enabled = false)")
    index_repository(sample_repo, url, "app", SETTINGS)
    with psycopg.connect(url) as conn:
        # The number of pending-list pages it merged: none were left to merge.
        assert [conn.execute("SELECT gin_clean_pending_list(%s::regclass)", (index,)
                             ).fetchone()[0] for index in GIN_INDEXES] == [0, 0]
        assert conn.execute("SELECT count(*) FROM kebab.chunks WHERE repo = 'app'"
                            ).fetchone()[0] > 0


def test_ties_break_by_code_point_whatever_the_databases_collation(
        pg_cluster: PgCluster, tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    for name in ("a.py", "B.py", "_c.py", "é.py"):
        (root / name).write_text("token = 'needle'\n")
    url = pg_cluster.url(pg_cluster.new_database(icu_locale="en-US"), OWNER)
    with psycopg.connect(url) as conn:  # the collation that would sort a.py before B.py
        assert [r[0] for r in conn.execute(
            "SELECT p FROM unnest(ARRAY['a.py', 'B.py']) p ORDER BY p")] == ["a.py", "B.py"]
    local, team = _both_indexes(root, url, tmp_path)
    try:
        for query in ('"needle"', "needle", "token"):
            req = SearchRequest(query, mode="lexical")
            expected = [h.path for h in local.searcher.search(req).hits]
            assert expected == ["B.py", "_c.py", "a.py", "é.py"]
            assert [h.path for h in team.searcher.search(req).hits] == expected
    finally:
        team.close()
        local.close()


def test_a_search_reads_one_state_whatever_commits_meanwhile(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path) -> None:
    url = pg_cluster.url(pg_database, OWNER)
    index_repository(sample_repo, url, "app", SETTINGS)
    reader = PgStore.open(url, "app")
    writer = PgStore.open(url, "app", create=True)
    try:
        with reader.reading():
            before = reader.stats()
            with writer.batch():
                writer.delete_file("src/users/store.py")
            assert reader.stats() == before  # the batch committed, but not for this read
            assert reader.file_state("src/users/store.py") is not None
        after = reader.stats()
        assert after.files == before.files - 1
        assert after.lexical_version == before.lexical_version + 1
    finally:
        reader.close()
        writer.close()


@pytest.mark.slow
def test_usages_match_the_embedded_index_on_real_code(
        pg_cluster: PgCluster, pg_database: str, tmp_path: Path) -> None:
    """Every ref of a few names in this repository's `search` package, as both backends
    answer: the same hits, in the same order, with the same totals."""
    root = tmp_path / "search"
    shutil.copytree(Path(__file__).parents[2] / "search", root,
                    ignore=shutil.ignore_patterns("__pycache__"))
    url = pg_cluster.url(pg_database, OWNER)
    local, team = _both_indexes(root, url, tmp_path)
    try:
        for name in ("store", "Filters", "InvalidQuery", "append", "search"):
            want = local.searcher.usages(name, Filters(), 500)
            got = team.searcher.usages(name, Filters(), 500)
            assert got.meta.total_matches == want.meta.total_matches > 0, name
            # Handles hold each store's own row ids; chunk ids are the content's.
            assert [(h.path, h.span, h.ref, h.title, h.chunk_id) for h in got.hits] == [
                (h.path, h.span, h.ref, h.title, h.chunk_id) for h in want.hits], name
    finally:
        team.close()
        local.close()


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_team_bench_measures_both_backends(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path) -> None:
    from bench.team_store import run

    report = run(sample_repo, pg_cluster.url(pg_database, OWNER), passes=1, cold_passes=1,
                 clients=2, seconds=0.5, n_names=10)
    for backend in ("sqlite", "postgresql"):
        assert report["index"][backend]["files"] == 6
        assert report["latency"][backend]["words"]["p50_ms"]["median"] > 0
        assert report["latency"][backend]["exact"]["p50_ms"]["median"] > 0
    assert report["queries"]["words"] > 0 and report["queries"]["exact"] > 0
    assert report["concurrent"]["clients"] == 2 and sum(report["concurrent"]["searches"]) > 0


def test_two_first_indexers_at_once_make_one_schema(pg_cluster: PgCluster,
                                                    pg_database: str) -> None:
    import threading

    url = pg_cluster.url(pg_database, OWNER)
    opened: list[PgStore] = []
    failed: list[BaseException] = []
    gate = threading.Barrier(4)

    def first(repo: str) -> None:
        gate.wait()
        try:
            opened.append(PgStore.open(url, repo, create=True))
        except BaseException as exc:  # reported below
            failed.append(exc)

    threads = [threading.Thread(target=first, args=(f"r{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failed == [] and len(opened) == 4
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM kebab.schema_version").fetchone() == (1,)
        assert {r[0] for r in conn.execute("SELECT repo FROM kebab.repos")} == {
            "r0", "r1", "r2", "r3"}
    for store in opened:
        store.close()


def test_readers_keep_a_whole_repository_during_a_rebuild(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path) -> None:
    """A rebuild writes every file over its old rows: a reader meanwhile finds what it found
    before, told that the index is building (a `kebab index` holds the repository)."""
    url = pg_cluster.url(pg_database, OWNER)
    index_repository(sample_repo, url, "app", SETTINGS)

    def answer() -> tuple[list[str], int, bool, bool, int]:
        team = TeamWorkspace(url, "app", SETTINGS)
        try:
            got = team.searcher.search(SearchRequest(query="user by id", mode="lexical", k=50))
        finally:
            team.close()
        return (sorted({h.path for h in got.hits}), got.meta.total_matches,
                got.meta.index["building"], got.meta.recall["complete"], got.meta.index["files"])

    before = answer()
    assert before[0] and before[2:4] == (False, True)
    during: list[tuple[list[str], int, bool, bool, int]] = []
    summary = index_repository(sample_repo, url, "app", SETTINGS, rebuild=True,
                               progress=lambda done, total: during.append(answer()))
    assert summary.changed == before[4]  # every file extracted again
    assert during[0] == (before[0], before[1], True, False, before[4])
    assert answer() == before


def test_a_team_search_in_a_checkout_names_the_files_the_team_index_lacks(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """`kebab search --store` answers from the team index alone: a file added in the checkout
    (not committed, or not indexed by CI yet) is in no answer, which must not claim to be
    complete, and says which, as a local index's search does of files added since its scan."""
    team = ["--store", pg_cluster.url(pg_database, OWNER), "--repo", "acme/app"]
    index_repository(sample_repo, team[1], "acme/app", SETTINGS)
    assert main(["search", "frobnicate_widgets", str(sample_repo), *team, "--json"]) == 0
    wire = json.loads(capsys.readouterr().out)
    assert wire["meta"]["recall"]["complete"] and wire["meta"]["warnings"] == []

    (sample_repo / "src/new_feature.py").write_text("def frobnicate_widgets():\n    return 1\n")
    for where in (sample_repo, sample_repo / "src"):  # from a subfolder too
        assert main(["search", "frobnicate_widgets", str(where), *team, "--json"]) == 0
        out, err = capsys.readouterr()
        wire = json.loads(out)
        Draft202012Validator(SCHEMA).validate(wire)
        assert wire["hits"] == [] and wire["meta"]["recall"]["complete"] is False
        said = ("1 file(s) of this checkout are not in the team index and are not searched "
                "(src/new_feature.py)")
        assert [w for w in wire["meta"]["warnings"] if w.startswith(said)], wire["meta"]
        assert said in err
    # Outside any checkout there is nothing to compare: no warning.
    assert main(["search", "frobnicate_widgets", str(sample_repo.parent), *team,
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["warnings"] == []


def test_a_team_search_in_a_checkout_names_cited_files_edited_there(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A hit cites the lines of the tree CI indexed: a cited file this checkout has edited may
    have moved them, and the answer says which file, as a local search does of a file changed
    since its scan. CI's file times never match a checkout's, so only the content counts: a
    file merely touched here is not named."""
    team = ["--store", pg_cluster.url(pg_database, OWNER), "--repo", "acme/app"]
    index_repository(sample_repo, team[1], "acme/app", SETTINGS)
    store_py = sample_repo / "src/users/store.py"
    os.utime(store_py, (1, 1))  # another time, the same bytes
    ask = ["search", '"get_user_by_id"', str(sample_repo), *team, "--json"]
    assert main(ask) == 0
    wire = json.loads(capsys.readouterr().out)
    assert "src/users/store.py" in {h["location"]["uri"].split("/repo/")[1]
                                    for h in wire["hits"]}
    assert wire["meta"]["warnings"] == []

    store_py.write_text("# moved down a line\n" + store_py.read_text())
    assert main(ask) == 0
    out, err = capsys.readouterr()
    wire = json.loads(out)
    Draft202012Validator(SCHEMA).validate(wire)
    said = ("1 cited file(s) of this checkout differ from what the team index holds "
            "(src/users/store.py)")
    assert [w for w in wire["meta"]["warnings"] if w.startswith(said)], wire["meta"]
    assert said in err
    assert wire["meta"]["recall"]["complete"]  # every file was searched, as CI indexed it


def test_a_team_search_from_a_subfolder_connects_once(
        pg_cluster: PgCluster, pg_database: str, sample_repo: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The checkout is found from the repository's paths, read over the connection the search
    then uses: finding it is no reason to connect again."""
    from indexing.postgres import store as pg_store

    team = ["--store", pg_cluster.url(pg_database, OWNER), "--repo", "acme/app"]
    index_repository(sample_repo, team[1], "acme/app", SETTINGS)
    connections: list[str] = []
    real = pg_store.connect

    def counted(url: str) -> psycopg.Connection[Any]:
        connections.append(url)
        return real(url)

    monkeypatch.setattr(pg_store, "connect", counted)
    assert main(["search", '"get_user_by_id"', str(sample_repo / "src"), *team,
                 "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert [h["location"]["uri"] for h in hits] == [(sample_repo / "src/users/store.py").as_uri()]
    assert len(connections) == 1
