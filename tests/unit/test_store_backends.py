"""One behavioural suite, run on both backends of the store interface: the embedded SQLite
index and a repository of a team index on a real PostgreSQL server. Writes, incremental
updates, lexical and exact-text search, filters, snippets and recall meta must come out the
same way whichever store answers."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from wordless_support import BRACE_LINE, RETRIER

from bench.postgres_server import OWNER, PgCluster
from indexing.filters import Filters
from indexing.indexer import IndexSummary
from indexing.postgres.team_index import index_repository
from indexing.records import Span
from indexing.settings import Settings
from kebab_lsp.team import TeamWorkspace
from kebab_lsp.workspace import Workspace
from search import workspace_lookups as lookups
from search.engine import Searcher
from search.grouping import group
from search.handles import StaleHandle
from search.lookups import ContextRequest
from search.symbols import SymbolMatcher
from search.types import SearchRequest, SearchResult
from search.window import candidate_window
from search.workspace_lookups import Indexed

FIXTURES = Path(__file__).parent.parent / "fixtures"


@dataclass
class Backend:
    """A tree indexed into one backend, and its searcher."""

    name: str
    root: Path
    searcher: Searcher
    reindex: Any  # () -> IndexSummary
    store: Any

    def search(self, query: str, **kw: Any) -> SearchResult:
        kw.setdefault("mode", "lexical")
        return self.searcher.search(SearchRequest(query=query, **kw))


def _open(kind: str, root: Path, tmp_path: Path, request: pytest.FixtureRequest
          ) -> Iterator[Backend]:
    settings = Settings(index_dir=str(tmp_path / "index-cache"), workers=1, embed=False)
    if kind == "sqlite":
        ws = Workspace(root, settings)
        ws.indexer.index()
        yield Backend(kind, root, ws.searcher, ws.indexer.index, ws.store)
        ws.close()
        return
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    url = cluster.url(request.getfixturevalue("pg_database"), OWNER)

    def reindex() -> IndexSummary:
        return index_repository(root, url, "sample", settings)

    reindex()
    team = TeamWorkspace(url, "sample", settings, root)
    yield Backend(kind, root, team.searcher, reindex, team.store)
    team.close()


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURES / "sample_repo", root)
    yield from _open(request.param, root, tmp_path, request)


WIDE = candidate_window(1) + 10


@pytest.fixture(params=BACKENDS)
def wide(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """More files that each define a `widget_N` and mention widgets than a search's
    candidate window holds."""
    root = tmp_path / "wide"
    root.mkdir()
    for i in range(WIDE):
        (root / f"w{i:03}.py").write_text(
            f"def widget_{i}():\n    \"\"\"Make widget number {i}.\"\"\"\n    return {i}\n")
    yield from _open(request.param, root, tmp_path, request)


def titles(result: SearchResult) -> list[str]:
    return [h.title for h in result.hits]


def test_identifier_parts_match_across_styles(backend: Backend) -> None:
    found = {h.symbol for h in backend.search("user by id", k=50).hits if h.symbol}
    assert {"get_user_by_id", "getUserById", "GetUserByID"} <= found


def test_the_definition_named_ranks_first(backend: Backend) -> None:
    assert titles(backend.search("getUserById"))[0] == "getUserById"
    assert titles(backend.search("Handler"))[0] == "server.Handler"


def test_a_name_search_shows_the_definition_not_its_closing_brace(backend: Backend) -> None:
    """A chunk with no word in it (`findable_by_words`) is not indexed for words: it had
    matched its class's name and, as the class's shortest chunk, ranked first."""
    (backend.root / "src/retry.ts").write_text(RETRIER)
    backend.reindex()
    for mode in ("lexical", "auto"):
        chunks = [(h.path, h.chunk_lines) for h in backend.search("UploadRetrier", mode=mode).hits]
        assert chunks[0] == ("src/retry.ts", (0, 1)), (mode, chunks)
        assert ("src/retry.ts", (BRACE_LINE, BRACE_LINE)) not in chunks, (mode, chunks)


def test_citation_and_snippet_highlight(backend: Backend) -> None:
    hit = backend.search("get_user_by_id").hits[0]
    assert hit.path == "src/users/store.py"
    assert (hit.span.start_line, hit.span.start_col, hit.span.end_line, hit.span.end_col) == (
        11, 8, 11, 22)
    marked = {hit.snippet.text[a:b].lower() for a, b in hit.snippet.highlights}
    assert "get_user_by_id" in marked


def test_all_terms_first_then_any_term_fill_with_a_warning(backend: Backend) -> None:
    result = backend.search("installer getUserById", k=10)
    assert result.meta.query_plan == "and+or_fill"
    assert any("every term" in w for w in result.meta.warnings)
    assert {"getUserById"} <= set(titles(result))


def test_exact_text_matches_grep(backend: Backend) -> None:
    needle = "user_id"
    expected = sorted(p.relative_to(backend.root).as_posix() for p in backend.root.rglob("*")
                      if p.is_file() and needle in p.read_text(errors="replace"))
    result = backend.search(f'"{needle}"', k=50)
    assert sorted({h.path for h in result.hits}) == expected
    assert result.meta.total_matches == len(expected)
    assert result.meta.score["kind"] == "exact_occurrences+priors"
    assert all(h.retrieval.exact for h in result.hits)
    hit = result.hits[0]
    line = (backend.root / hit.path).read_text().split("\n")[hit.span.start_line]
    assert line[hit.span.start_col : hit.span.end_col] == needle


def test_exact_text_is_case_and_character_exact(backend: Backend) -> None:
    assert backend.search('"USER_ID"').hits == []
    assert backend.search('"user_%"').hits == []  # LIKE's wildcards are characters here


def test_filters_apply_before_the_limit(backend: Backend) -> None:
    result = backend.search("user", k=2, filters=Filters(langs=("go",)))
    assert result.hits and {h.lang for h in result.hits} == {"go"}
    unfiltered = backend.search("user", k=500)
    assert result.meta.total_matches == sum(h.lang == "go" for h in unfiltered.hits)
    globbed = backend.search("user", k=50, filters=Filters(path_glob="src/**"))
    assert globbed.hits and all(h.path.startswith("src/") for h in globbed.hits)
    named = backend.search("user", k=50, filters=Filters(path_glob="*.ts"))
    assert named.hits and all(h.path.endswith(".ts") for h in named.hits)
    kinds = backend.search("user", k=50, filters=Filters(kinds=("class",)))
    assert kinds.hits and all(h.kind == "class" for h in kinds.hits)


def test_path_sets_split_a_folder_before_the_limit(backend: Backend) -> None:
    """What a team index and a local overlay divide between them: counts and hits of one side
    and the other add up to the whole, for words, exact text and usages alike."""
    every = backend.search("user", k=500)
    paths = sorted({h.path for h in every.hits})
    mine = frozenset(paths[:2])
    only = backend.search("user", k=500, filters=Filters(only_paths=mine))
    rest = backend.search("user", k=2, filters=Filters(skip_paths=mine))
    assert {h.path for h in only.hits} == set(mine)
    assert len(rest.hits) == 2 and not {h.path for h in rest.hits} & mine
    assert only.meta.total_matches + rest.meta.total_matches == every.meta.total_matches
    none = backend.search("user", k=50, filters=Filters(only_paths=frozenset()))
    assert none.hits == [] and none.meta.total_matches == 0
    exact_paths = sorted({h.path for h in backend.search('"User"', k=50).hits})
    first = frozenset(exact_paths[:1])
    exact = backend.search('"User"', k=50, filters=Filters(skip_paths=first))
    assert sorted({h.path for h in exact.hits}) == exact_paths[1:] != []
    calls = backend.search("who calls get_user_by_id", k=50)
    store_py = frozenset({"src/users/store.py"})
    assert any(h.path in store_py for h in calls.hits)
    skipped = backend.search("who calls get_user_by_id", k=50,
                             filters=Filters(skip_paths=store_py))
    assert not any(h.path in store_py for h in skipped.hits)


def test_a_ranking_over_every_match_says_so(backend: Backend) -> None:
    everything = backend.search("user", k=500)
    result = backend.search("user", k=2)
    meta = result.meta
    assert meta.total_matches == everything.meta.total_matches == len(everything.hits) > 2
    assert meta.recall == {"complete": True, "ranking_scope": "all_matches", "truncated": True}
    assert meta.count_accuracy == "exact"
    assert meta.score["direction"] == "higher_is_better"
    assert all(0.0 <= h.score < 1.0 for h in everything.hits)


def test_a_ranking_over_a_candidate_window_says_so(wide: Backend) -> None:
    result = wide.search("widget", mode="auto", k=1)  # a definition query: a window
    meta = result.meta
    assert meta.intent == {"name": "definition", "rule": "identifier"}
    assert meta.recall["complete"] is False
    assert meta.recall["ranking_scope"] == "candidate_window"
    assert meta.total_matches == WIDE and meta.count_accuracy == "exact"  # counted apart


def test_scores_name_their_backend_and_kind(backend: Backend) -> None:
    score = backend.search("user").meta.score
    if backend.name == "sqlite":
        assert score == {"kind": "bm25_normalized+priors", "direction": "higher_is_better"}
    else:
        assert score == {"kind": "ts_rank_normalized+priors", "direction": "higher_is_better",
                         "backend": "postgresql"}


def test_incremental_updates(backend: Backend) -> None:
    store_py = backend.root / "src/users/store.py"
    assert backend.reindex().unchanged == 6
    store_py.write_text(store_py.read_text().replace("get_user_by_id", "fetch_member"))
    (backend.root / "docs/guide.md").unlink()
    (backend.root / "server/handler.go").rename(backend.root / "server/routes.go")
    summary = backend.reindex()
    assert (summary.changed, summary.deleted, summary.renamed) == (1, 1, 1)
    assert "UserStore.fetch_member" in titles(backend.search("fetch_member"))
    assert all(h.path != "src/users/store.py" for h in backend.search("get_user_by_id").hits)
    assert backend.search('"installer"').hits == []  # only docs/guide.md said it
    assert {h.path for h in backend.search("GetUserByID").hits} >= {"server/routes.go"}
    assert all(h.path != "server/handler.go" for h in backend.search("Handler", k=50).hits)
    assert backend.store.stats().files == 5


def test_each_write_batch_bumps_the_lexical_version(backend: Backend) -> None:
    before = backend.store.stats()
    version = backend.store.lexical_version()
    (backend.root / "notes.txt").write_text("a new note about gizmos\n")
    summary = backend.reindex()
    assert summary.changed == 1 and backend.store.lexical_version() > version
    assert titles(backend.search("gizmos"))
    assert backend.store.stats().files == before.files


def test_a_bodiless_callable_reads_back_as_one_from_either_store(backend: Backend) -> None:
    (backend.root / "api.go").write_text(
        "package api\n\ntype API interface {\n\tSnapshot() error\n}\n\n"
        "func (a *impl) Snapshot() error { return nil }\n")
    backend.reindex()
    found = {row.symbol.qualified_name: row.symbol.bodiless
             for row in backend.store.all_symbols() if row.path == "api.go"}
    assert found == {"api.API": False, "api.API.Snapshot": True, "api.impl.Snapshot": False}


def test_workspace_symbols_from_either_store(backend: Backend) -> None:
    matcher = SymbolMatcher(backend.store.all_symbols())
    assert len(matcher) == 16  # web/api.ts: User.id and User.name are properties too
    found = matcher.match("gubi")
    assert {m.row.symbol.name for m in found.items} == {
        "getUserById", "GetUserByID", "get_user_by_id", "test_get_user_by_id"}
    assert found.items[-1].row.path == "tests/test_store.py"  # test paths last
    assert [m.row.symbol.qualified_name for m in matcher.match("UserStore").items][:1] == [
        "UserStore"]


def _usages(result: SearchResult) -> list[tuple[str, int, int, str, str]]:
    return [(h.path, h.span.start_line, h.span.start_col, (h.ref or {})["kind"], h.title)
            for h in result.hits]


def test_usages_are_every_ref_of_the_name_calls_first(backend: Backend) -> None:
    calls = backend.search("who calls get_user_by_id", mode="auto")
    assert calls.meta.intent == {"name": "usage", "rule": "who calls X"}
    assert _usages(calls) == [("tests/test_store.py", 6, 17, "call", "test_get_user_by_id")]
    used = backend.search("where is UserStore used", mode="auto")
    assert _usages(used) == [("tests/test_store.py", 4, 12, "call", "test_get_user_by_id"),
                             ("tests/test_store.py", 0, 24, "import", "tests/test_store.py:1")]
    refs = backend.search("references to user_id", mode="auto", k=3)
    assert refs.meta.total_matches == 4 and refs.meta.count_accuracy == "exact"
    assert refs.meta.recall == {"complete": True, "ranking_scope": "all_matches",
                                "truncated": True}
    assert [u[:4] for u in _usages(refs)] == [("src/users/store.py", 11, 29, "identifier"),
                                              ("src/users/store.py", 13, 31, "identifier"),
                                              ("src/users/store.py", 15, 23, "identifier")]
    inside = backend.search("references to user_id", mode="auto",
                            filters=Filters(kinds=("method",)))
    assert inside.meta.total_matches == 4
    assert backend.search("references to user_id", mode="auto",  # innermost: the methods
                          filters=Filters(kinds=("class",))).meta.total_matches == 0
    assert backend.search("references to user_id", mode="auto",
                          filters=Filters(langs=("go",))).meta.total_matches == 0


def test_grouped_answers_show_each_files_facts(backend: Backend) -> None:
    result = backend.search("user", k=50)
    grouped = group(result.hits, lambda root, path: backend.store)
    files = {f.path: (f.lang, f.doc, f.imports, [s.name for _, s in f.defines], f.hits)
             for f in grouped.files}
    assert files["src/users/store.py"] == (
        "python", "User storage backed by a dictionary.", [], ["MAX_USERS", "UserStore"], 5)
    assert files["tests/test_store.py"] == (
        "python", "", ["users", "store", "UserStore"], ["test_get_user_by_id"], 2)
    assert files["web/api.ts"][1:] == ("Fetch a user record from the HTTP API.", [],
                                       ["getUserById", "User", "UserId"], 3)
    assert len(grouped.definitions) + len(grouped.blocks) == len(result.hits)


def test_lookups_by_handle_name_and_place(backend: Backend) -> None:
    """What `kebab/symbol`, `kebab/context`, `kebab/references` by place and the declaration
    half of textDocument/references read: the same answers from either store."""
    folder = [Indexed(backend.root, backend.store, backend.searcher)]
    assert lookups.name_at(folder, backend.root / "tests/test_store.py", 6, 20) == \
        "get_user_by_id"  # a ref
    assert lookups.name_at(folder, backend.root / "src/users/store.py", 11, 10) == \
        "get_user_by_id"  # a definition's name
    assert lookups.name_at(folder, backend.root / "src/users/store.py", 0, 1) is None
    assert lookups.definitions(folder, "get_user_by_id") == [
        (str(backend.root), "src/users/store.py", Span(11, 8, 11, 22))]
    [hit] = [h for h in backend.search("get_user_by_id").hits
             if h.path == "src/users/store.py" and h.symbol == "get_user_by_id"][:1]
    assert hit.symbol_id is not None and hit.chunk_id is not None
    info = lookups.describe_symbol(folder, hit.symbol_id)
    assert (info.path, info.lang, info.symbol.name) == ("src/users/store.py", "python",
                                                        "get_user_by_id")
    assert info.parent is not None and info.parent.symbol.name == "UserStore"
    assert info.children == [] and info.ref_counts == {"call": 1}
    assert info.chunk_id == hit.chunk_id
    shown = lookups.context(folder, ContextRequest(symbol_id=hit.symbol_id, before=1, after=1))
    assert (shown.target.start_line, shown.target.end_line) == (11, 13)
    assert [(c.start_line, c.end_line) for c in (*shown.before, *shown.after)] == [
        (8, 9), (15, 18)]
    assert lookups.context(folder, ContextRequest(chunk_id=hit.chunk_id)).target == \
        shown.target
    with pytest.raises(StaleHandle):
        lookups.describe_symbol(folder, hit.symbol_id.replace(".", ".9", 1))
