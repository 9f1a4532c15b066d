"""A chunk with no word in it (the `}` that closes a long class after its last member) is
embedded as what it is, with no header, and is not in the lexical index. With the header, its
vector was the class's name and doc alone: it ranked next to the class for any question on
it. In the lexical index, it matched the class's name and, as the class's shortest chunk,
ranked first: a search for the name showed a brace (`test_store_backends`, on both stores).
Real model, real LanceDB."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from vector_support import synced_workspace
from wordless_support import BRACE_LINE, RETRIER

from indexing.store import EmbeddingSource
from indexing.vector_index import embedding_text
from kebab_lsp.workspace import Workspace
from search.types import SearchRequest

TREE = {
    "src/retry.ts": RETRIER,
    "src/report.ts": "export function chart(rows: Row[]): Chart {\n  return bars(rows);\n}\n",
}


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    yield from synced_workspace(tmp_path, TREE)


@pytest.mark.model
def test_the_closing_brace_is_a_chunk_embedded_bare(ws: Workspace) -> None:
    brace = [s for s in ws.store.embedding_sources() if s.text.strip() == "}"
             and s.path == "src/retry.ts"]
    assert len(brace) == 1 and brace[0].context == "UploadRetrier"
    assert embedding_text(brace[0]) == brace[0].text
    worded = EmbeddingSource("c", "src/retry.ts", "typescript", "method", "UploadRetrier.step0",
                             "", "", "  step0(batch: Batch): number {")
    assert embedding_text(worded) == "UploadRetrier.step0\n  step0(batch: Batch): number {"


@pytest.mark.model
def test_a_question_on_the_class_finds_it_not_its_brace(ws: Workspace) -> None:
    brace = ("src/retry.ts", (BRACE_LINE, BRACE_LINE))
    for query in ("how are failed uploads retried with backoff?",
                  "retries failed uploads with exponential backoff"):
        found = ws.searcher.search(SearchRequest(query, mode="vector", k=10))
        chunks = [(h.path, h.chunk_lines) for h in found.hits]
        assert ("src/retry.ts", (0, 1)) in chunks, (query, chunks)
        # It ranked second, cited as the class's name line (a chunk with no matching word
        # cites its definition's name): the class again, in a slot another answer needed.
        # Bare, it ranks below every chunk of the class that holds a word.
        worded = [c for c in chunks if c[0] == "src/retry.ts" and c != brace]
        assert len(worded) == 9, (query, chunks)  # the class and its eight methods
        assert brace not in chunks or chunks.index(brace) > max(map(chunks.index, worded)), (
            query, chunks)
