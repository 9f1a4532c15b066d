"""Cancellation stops the search work itself: the engine consults `should_stop` between its
stages, and once it says stop, no later stage runs. (pygls answers RequestCancelled whenever
the asyncio task is cancelled, so an LSP-level test alone cannot tell whether work stopped.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from indexing.settings import Settings
from indexing.vector_index import VectorIndex
from kebab_lsp.workspace import Workspace
from search.engine import Cancelled, Searcher
from search.types import SearchRequest

pytestmark = pytest.mark.model


class RecordingVectors:
    """The workspace's real vector side, counting the searches that reach it."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.searches = 0
        self.vector_error: str | None = None

    def vector_index(self) -> VectorIndex | None:
        real = self.ws.vector_index()
        assert real is not None
        outer = self

        class Counting:
            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

            def search(self, *args: Any) -> Any:
                outer.searches += 1
                return real.search(*args)

        return Counting()  # type: ignore[return-value]


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    import shutil

    base = tmp_path_factory.mktemp("cancel")
    root = base / "repo"
    shutil.copytree(Path(__file__).parent.parent / "fixtures" / "sample_repo", root)
    workspace = Workspace(root, Settings(index_dir=str(base / "idx"), workers=1))
    workspace.indexer.index()
    workspace.sync_vectors()
    yield workspace
    workspace.close()


def test_a_stop_after_the_lexical_arm_skips_the_vector_arm(ws: Workspace) -> None:
    vectors = RecordingVectors(ws)
    searcher = Searcher(ws.root, ws.store, vectors=vectors)
    req = SearchRequest("how are users stored", mode="hybrid")
    assert searcher.search(req).hits and vectors.searches == 1  # both arms ran

    checks: list[int] = []

    def stop_after_lexical() -> bool:
        checks.append(1)
        return True  # the first checkpoint comes right after the lexical arm

    with pytest.raises(Cancelled):
        searcher.search(req, should_stop=stop_after_lexical)
    assert checks == [1] and vectors.searches == 1  # stopped there: no vector search


def test_a_stop_after_the_vector_arm_skips_building_hits(ws: Workspace) -> None:
    vectors = RecordingVectors(ws)
    searcher = Searcher(ws.root, ws.store, vectors=vectors)
    checks: list[int] = []

    def stop_second_time() -> bool:
        checks.append(1)
        return len(checks) >= 2

    with pytest.raises(Cancelled):
        searcher.search(SearchRequest("how are users stored", mode="hybrid"),
                        should_stop=stop_second_time)
    assert checks == [1, 1] and vectors.searches == 1
