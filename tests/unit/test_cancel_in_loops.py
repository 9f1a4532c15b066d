"""A cancelled search stops inside its long loops, not only between stages: exact text over a
common string reads every file that holds it, and a request given up on must not keep a query
worker busy to the end (the LSP answers RequestCancelled at once either way, so only the
work's own stop shows it). So do the refs of a common name (`kebab/references`,
textDocument/references, who calls X) and a grouped answer, which reads every cited file."""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.filters import Filters
from indexing.runtime import SilentListener
from indexing.settings import Settings
from indexing.store import StoreInterrupted, connection, retrieval
from indexing.store.texts import Packed, unpack_text
from kebab_lsp.session import Session
from kebab_lsp.workspace import Workspace
from search import lexical
from search import workspace_lookups as lookups
from search.engine import Cancelled, checkpoint
from search.grouping import group
from search.lookups import ContextRequest, ReferencesRequest, SimilarRequest
from search.types import SearchRequest
from search.workspace_lookups import Indexed

FILES = 60


def shared_name_tree(root: Path) -> Path:
    """`FILES` files that all hold the text `shared_name_`: an exact search reads them all."""
    for i in range(FILES):
        path = root / f"pkg/mod_{i:03}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def shared_name_{i}(value):\n    return value + {i}\n")
    return root


@pytest.fixture(autouse=True)
def python_checkpoints_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests count the search's own checkpoints. SQLite asks `should_stop` too, every
    `STOP_CHECK_STEPS` steps of a statement (`Store.reading`, tested in test_store_bounds):
    never, here, so the count is of checkpoints alone."""
    monkeypatch.setattr(connection, "STOP_CHECK_STEPS", 2**31 - 1)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    base = tmp_path_factory.mktemp("cancel-loops")
    root = shared_name_tree(base / "repo")
    workspace = Workspace(root, Settings(index_dir=str(base / "idx"), workers=1, embed=False))
    workspace.indexer.index()
    yield workspace
    workspace.close()


class StopAt:
    """A `should_stop` that says stop from its `at`-th call on, counting every call."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.calls = 0

    def __call__(self) -> bool:
        self.calls += 1
        return self.calls >= self.at


def test_exact_text_stops_after_the_file_it_was_reading(ws: Workspace) -> None:
    steps: list[tuple[str, int, int]] = []

    def check(what: str, done: int, total: int) -> None:
        steps.append((what, done, total))
        if done == 1:
            raise Cancelled(what)

    assert lexical.exact(ws.store, "shared_name_", Filters(), 500).total == FILES
    with pytest.raises(Cancelled):
        lexical.exact(ws.store, "shared_name_", Filters(), 500, check)
    # One file read, then the stop: not the other 59.
    assert steps == [("exact text, reading files", 0, FILES),
                     ("exact text, reading files", 1, FILES)]


def test_a_search_cancelled_mid_scan_stops_there(ws: Workspace) -> None:
    req = SearchRequest('"shared_name_"', mode="lexical", k=50)
    whole = ws.searcher.search(req)
    assert whole.meta.total_matches == FILES and len(whole.hits) == 50

    stop = StopAt(5)  # the request is given up on while its 5th file is due
    with pytest.raises(Cancelled) as caught:
        ws.searcher.search(req, should_stop=stop)
    # It stopped at that checkpoint: nothing more was asked, no later file read.
    assert stop.calls == 5
    assert str(caught.value) == f"exact text, reading files (4 of {FILES} done)"


def test_a_search_cancelled_while_building_hits_stops_there(ws: Workspace) -> None:
    req = SearchRequest('"shared_name_"', mode="lexical", k=50)
    counted = StopAt(10**9)
    ws.searcher.search(req, should_stop=counted)
    # The last 50 checks are one per hit built: stop while the 10th is due.
    stop = StopAt(counted.calls - 50 + 10)
    with pytest.raises(Cancelled) as caught:
        ws.searcher.search(req, should_stop=stop)
    assert stop.calls == counted.calls - 40
    assert str(caught.value) == "building hits (9 of 50 done)"


def test_a_search_nobody_cancels_is_unchanged(ws: Workspace) -> None:
    req = SearchRequest('"shared_name_"', mode="lexical", k=50)
    never = StopAt(10**9)
    answer = ws.searcher.search(req, should_stop=never)
    assert [h.path for h in answer.hits] == [h.path for h in ws.searcher.search(req).hits]
    assert never.calls > FILES  # it was asked at every file


class CountingUnpack:
    """The index's own `unpack` SQL function, counting the file texts it inflates: a real
    read of the real index, seen from inside SQLite (the store's own batches say nothing)."""

    def __init__(self, ws: Workspace) -> None:
        self.raw = ws.store.conn.raw  # this thread's connection: the search runs here too
        self.calls = 0

    def __call__(self, blob: Packed | None) -> str | None:
        self.calls += 1
        return unpack_text(blob)

    def __enter__(self) -> CountingUnpack:
        self.raw.create_scalar_function("unpack", self, 1, deterministic=True)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.raw.create_scalar_function("unpack", unpack_text, 1, deterministic=True)


@pytest.mark.parametrize(("needle", "where"), [
    ("shared_name_", "exact text, reading the files the trigram index proposes"),
    ("sh", "exact text, reading every file (a needle under 3 characters)"),
])
def test_a_search_cancelled_while_the_store_reads_texts_stops_there(
        ws: Workspace, monkeypatch: pytest.MonkeyPatch, needle: str, where: str) -> None:
    """The store reads and unpacks every candidate's text before the per-file loop starts (a
    quarter of an exact search on a large tree): a cancel stops that read between batches.
    A batch of 10 stands for the 500 of a real tree, with 60 files standing for thousands."""
    monkeypatch.setattr(retrieval, "EXACT_BATCH", 10)
    req = SearchRequest(f'"{needle}"', mode="lexical", k=50)
    with CountingUnpack(ws) as whole:
        assert ws.searcher.search(req).meta.total_matches == FILES
    assert whole.calls == FILES

    stop = StopAt(2)  # given up on while the third batch of texts is due
    with CountingUnpack(ws) as read, pytest.raises(Cancelled) as caught:
        ws.searcher.search(req, should_stop=stop)
    assert read.calls == 20  # two batches inflated, not all 60
    assert stop.calls == 2
    assert str(caught.value) == f"{where} (20 of {FILES} done)"


#: Every file of `shared_name_tree` uses its parameter `value` twice: a name with refs in
#: every file, as a very common name has.
COMMON = "value"


def refs_of_common(ws: Workspace, stop: StopAt) -> list[str]:
    """The paths of the hits of `kebab/references` for `COMMON`, as the LSP session asks."""
    folder = [Indexed(ws.root, ws.store, ws.searcher)]
    found = lookups.references(folder, ReferencesRequest(name=COMMON, k=50), stop)
    return [h.path for h in found.hits]


def test_references_cancelled_inside_the_statement_listing_them_stop_there(
        ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    """Listing the refs of a name in most files is one long statement, read before any
    checkpoint of the answer's own: SQLite's progress handler stops it midway. A handler
    asked every 20 steps stands for one asked every `STOP_CHECK_STEPS` in a large tree."""
    monkeypatch.setattr(connection, "STOP_CHECK_STEPS", 20)
    assert len(refs_of_common(ws, StopAt(10**9))) == 50

    stop = StopAt(2)  # 1: before the folder; 2: the first time SQLite asks
    with pytest.raises(Cancelled) as caught:
        refs_of_common(ws, stop)
    assert stop.calls == 2
    interrupted = caught.value.__cause__
    assert isinstance(interrupted, StoreInterrupted), caught.value
    # SQLite stopped the statement that lists the refs, while it stepped through its rows.
    where = [frame.name for frame in traceback.extract_tb(interrupted.__cause__.__traceback__)]
    assert "ref_keys" in where and "refs_by_rowid" not in where, where
    assert len(refs_of_common(ws, StopAt(10**9))) == 50  # and nothing of it stayed behind


def test_references_cancelled_between_their_reads_stop_there(ws: Workspace) -> None:
    counted = StopAt(10**9)
    paths = refs_of_common(ws, counted)
    chunks = len(set(paths))  # each file is one chunk: one definition
    assert counted.calls == 1 + 3 + 50  # the folder, three reads, then each hit built
    stops = {2: "usages, reading the rows of the refs shown (0 of 50 done)",
             3: f"usages, reading the chunks around them (0 of {chunks} done)",
             4: f"usages, reading those chunks' texts (0 of {chunks} done)",
             14: "usages, building hits (9 of 50 done)"}
    for at, message in stops.items():
        stop = StopAt(at)
        with pytest.raises(Cancelled) as caught:
            refs_of_common(ws, stop)
        assert (stop.calls, str(caught.value)) == (at, message)
    assert refs_of_common(ws, StopAt(10**9)) == paths  # one nobody cancels is unchanged


def test_a_usage_search_cancelled_between_its_reads_stops_there(ws: Workspace) -> None:
    """`kebab/search` asking who calls a name answers from the refs too."""
    req = SearchRequest(f"usages of {COMMON}", k=50)
    assert ws.searcher.search(req).meta.intent["name"] == "usage"
    stop = StopAt(1)
    with pytest.raises(Cancelled) as caught:
        ws.searcher.search(req, should_stop=stop)
    assert (stop.calls, str(caught.value)) == (
        1, "usages, reading the rows of the refs shown (0 of 50 done)")


def test_a_grouped_answer_cancelled_while_reading_files_stops_there(ws: Workspace) -> None:
    """A grouped answer reads each cited file's text, definitions and imports."""
    hits = ws.searcher.search(SearchRequest('"shared_name_"', mode="lexical", k=50)).hits
    assert len(group(hits, lambda root, path: ws.store).files) == 50
    stop = StopAt(10)
    with pytest.raises(Cancelled) as caught:
        group(hits, lambda root, path: ws.store, (), checkpoint(stop))
    assert stop.calls == 10
    assert str(caught.value) == "grouping, reading each file's facts (9 of 50 done)"


def test_the_lsp_session_stops_references_grouping_and_lookups_at_the_requests_stop(
        tmp_path: Path) -> None:
    """What the handlers run on the query pool (`run_query` hands them the request's stop):
    `kebab/references` and textDocument/references (its definitions too), a grouped
    `kebab/search`, `kebab/similar`, and the lookups by handle (`kebab/symbol`,
    `kebab/context`)."""
    root = shared_name_tree(tmp_path / "repo")
    session = Session(SilentListener())
    session.configure({"indexDir": str(tmp_path / "idx"), "workers": 1, "embed": False})
    try:
        session.open_folder(root.as_uri(), "repo", root)
        assert session.runtime.wait_idle(60)
        never = StopAt(10**9)
        result = session.search(SearchRequest('"shared_name_"', mode="lexical", k=50), never)
        assert len(session.group(result, never).files) == 50
        stop = StopAt(10)
        with pytest.raises(Cancelled) as caught:
            session.group(result, stop)
        assert stop.calls == 10
        assert str(caught.value) == "grouping, reading each file's facts (9 of 50 done)"

        req = ReferencesRequest(name=COMMON, k=50)
        assert len(session.references(req, StopAt(10**9)).hits) == 50
        with pytest.raises(Cancelled) as caught:
            session.references(req, StopAt(2))
        assert str(caught.value) == "usages, reading the rows of the refs shown (0 of 50 done)"
        with pytest.raises(Cancelled):
            session.references_at(root / "pkg/mod_000.py", 1, 11, True, StopAt(2))
        # With the declaration asked for, the definitions are read after the refs: a request
        # cancelled once the refs are in stops there, not after.
        refs_only = StopAt(10**9)
        session.references_at(root / "pkg/mod_000.py", 1, 11, False, refs_only)
        with pytest.raises(Cancelled, match="^before the definitions of value in "):
            session.references_at(root / "pkg/mod_000.py", 1, 11, True,
                                  StopAt(refs_only.calls + 1))
        with pytest.raises(Cancelled, match="^before finding similar code in "):
            session.similar(SimilarRequest(text="return value + 1"), StopAt(1))

        hit = result.hits[0]
        assert hit.symbol_id is not None
        assert session.describe_symbol(hit.symbol_id, never).path == hit.path
        assert session.context(ContextRequest(chunk_id=hit.chunk_id), never).target
        for lookup in (lambda stop: session.describe_symbol(hit.symbol_id, stop),
                       lambda stop: session.context(ContextRequest(chunk_id=hit.chunk_id),
                                                    stop)):
            with pytest.raises(Cancelled, match="^before looking up a"):
                lookup(StopAt(1))
    finally:
        session.close()
        session.writership.close()
