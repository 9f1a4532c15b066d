"""The file vector: one vector per file from its path, top doc and outline, which finds
"the file that handles X" when no snippet of it says X, and follows the file's edits.
Real model, real LanceDB."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from vector_support import synced_workspace

from indexing.filters import Filters
from indexing.vector_index import CHUNK_SURFACES, FILE, SENTENCE_SURFACES
from indexing.vectors import sql_where
from kebab_lsp.workspace import Workspace
from search.grouping import FileGroup, group
from search.types import SearchRequest, SearchResult

pytestmark = pytest.mark.model

# Each file is about one thing as a whole, while each of its definitions is generic code.
TREE = {
    "kitchen/recipe.py": (
        "def flour(grams):\n    return grams * 2\n\n\n"
        "def sugar(grams):\n    return grams // 3\n\n\n"
        "def eggs(count):\n    return [None] * count\n\n\n"
        "def butter(grams):\n    return grams + 10\n\n\n"
        "def oven(minutes):\n    return minutes * 60\n"),
    "bank/ledger.py": (
        "def post_entry(book, amount):\n    book.append(amount)\n\n\n"
        "def balance(book):\n    return sum(book)\n\n\n"
        "def overdraft(book, limit):\n    return balance(book) < -limit\n"),
    "garden/plants.py": (
        "def water(pot, litres):\n    pot.level += litres\n\n\n"
        "def prune(branches):\n    return branches[:3]\n\n\n"
        "def repot(pot, size):\n    pot.size = size\n"),
}
# The question names the file's subject in words that occur in no file of the tree.
QUESTION = "dessert preparation"
RENAMED_TOPIC = (
    "def invoice_total(lines):\n    return sum(lines)\n\n\n"
    "def tax_due(total, rate):\n    return total * rate\n\n\n"
    "def payment_reminder(days_late):\n    return days_late > 30\n")


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    yield from synced_workspace(tmp_path, TREE)


def search(ws: Workspace, query: str, mode: str = "vector", group: bool = False
           ) -> SearchResult:
    return ws.searcher.search(SearchRequest(query, mode=mode, k=10, explain=True, group=group))


def files_of(ws: Workspace, query: str, mode: str = "vector") -> list[FileGroup]:
    result = search(ws, query, mode, group=True)
    return group(result.hits, lambda _root, _path: ws.store, result.files).files


def file_rows(ws: Workspace) -> dict[str, str]:
    vindex = ws.vector_index()
    assert vindex is not None
    return {k: h for k, h in vindex.vectors.row_hashes().items() if k.endswith(f":{FILE}")}


def test_a_file_is_found_by_what_it_is_about_though_no_snippet_says_it(ws: Workspace) -> None:
    words = QUESTION.split()
    assert not any(w in text for text in TREE.values() for w in words)
    assert search(ws, QUESTION, "lexical").hits == []  # no snippet matches
    for mode in ("vector", "hybrid", "auto"):
        top = files_of(ws, QUESTION, mode)[0]
        assert (top.path, top.vector_rank) == ("kitchen/recipe.py", 1), mode
        assert top.fusion_score is not None and top.vector_score is not None, mode


def test_the_file_channel_ranks_files_only(ws: Workspace) -> None:
    """Chunks are ranked by their own vectors: the file vector is no surface of theirs, and
    an ungrouped answer carries no file channel."""
    plain = search(ws, QUESTION)
    assert plain.files == []
    assert {h.retrieval.vector_surface for h in plain.hits} <= {"code", "summary"}
    grouped = search(ws, QUESTION, group=True)
    assert [m.rank for m in grouped.files] == list(range(1, len(TREE) + 1))
    assert [h.chunk_id for h in grouped.hits] == [h.chunk_id for h in plain.hits]


def test_a_chunk_search_without_a_filter_reads_what_the_filtered_one_reads(ws: Workspace
                                                                          ) -> None:
    """An unfiltered chunk search reads the table without LanceDB's prefilter and drops the
    other surfaces' rows itself: file vectors are the nearest rows here, and every depth still
    gives the filtered read's chunks in its order."""
    vindex = ws.vector_index()
    assert vindex is not None
    nearest = vindex.vectors.search(vindex.embedder.embed_query(QUESTION), 1)
    assert nearest[0].surface == FILE
    every_python_row = sql_where(langs=["python"])
    for surfaces in (CHUNK_SURFACES, SENTENCE_SURFACES):
        chunks = len(vindex.search(QUESTION, 100, every_python_row, surfaces))
        assert chunks > 10
        for k in range(1, chunks + 2):
            unfiltered = vindex.search(QUESTION, k, None, surfaces)
            assert unfiltered == vindex.search(QUESTION, k, every_python_row, surfaces), k
            assert len(unfiltered) == min(k, chunks)
            assert {m.surface for m in unfiltered} <= set(surfaces)


def test_an_explicit_lexical_search_runs_no_file_channel(ws: Workspace) -> None:
    result = search(ws, "grams", "lexical", group=True)
    assert result.hits and result.files == []
    files = group(result.hits, lambda _root, _path: ws.store, result.files).files
    assert [(f.path, f.hit_rank, f.vector_rank, f.fusion_score) for f in files] == [
        ("kitchen/recipe.py", 1, None, None)]


def test_a_kind_filter_runs_no_file_channel(ws: Workspace) -> None:
    result = ws.searcher.search(SearchRequest(QUESTION, mode="vector", k=10, group=True,
                                              filters=Filters(kinds=("function",))))
    assert result.hits and result.files == []


def test_every_file_has_one_vector_and_coverage_counts_it(ws: Workspace) -> None:
    assert len(file_rows(ws)) == len(TREE)
    vindex = ws.vector_index()
    assert vindex is not None
    have, total = vindex.coverage()
    assert have == total == len(vindex.vectors.row_hashes())


def test_the_file_vector_follows_the_file(ws: Workspace) -> None:
    before = file_rows(ws)
    was = files_of(ws, QUESTION)[0]
    assert was.path == "kitchen/recipe.py"
    (ws.root / "kitchen" / "recipe.py").write_text(RENAMED_TOPIC)
    ws.indexer.index()
    synced = ws.sync_vectors()
    assert synced is not None and synced.embedded > 0
    after = file_rows(ws)
    assert len(after) == len(TREE) and after != before
    top = files_of(ws, "invoicing and collecting payments")[0]
    assert (top.path, top.vector_rank) == ("kitchen/recipe.py", 1)
    now = next(f for f in files_of(ws, QUESTION) if f.path == "kitchen/recipe.py")
    assert now.vector_score is not None and was.vector_score is not None
    assert now.vector_score < was.vector_score - 0.1  # its old subject is no longer its topic

    (ws.root / "garden" / "plants.py").unlink()
    ws.indexer.index()
    assert ws.sync_vectors() is not None
    gone = file_rows(ws)
    assert len(gone) == len(TREE) - 1
    vindex = ws.vector_index()
    assert vindex is not None and vindex.expected() == vindex.vectors.row_hashes()


# Every file opens with the same license header and a build constraint, as in most Go
# projects; what each file is for is the package doc below them.
HEADER = ("// Copyright 2021 The Kebab Authors\n"
          '// Licensed under the Apache License, Version 2.0 (the "License");\n'
          "// you may not use this file except in compliance with the License.\n\n"
          "//go:build linux\n// +build linux\n\n")
GO_TREE = {
    "pkg/a/a.go": HEADER + "// Package a predicts rain and snowfall for the coming week.\n"
                  "package a\n\nfunc Next(days int) int {\n\treturn days * 2\n}\n",
    "pkg/b/b.go": HEADER + "// Package b sends invoices and collects overdue payments.\n"
                  "package b\n\nfunc Send(n int) int {\n\treturn n + 1\n}\n",
    "pkg/c/c.go": HEADER + "package c\n\nfunc Zero() int {\n\treturn 0\n}\n",
    # A doc below a license longer than the head the file vector reads: neither the vector
    # nor the files group sees it, so the group never shows a doc the vector did not embed.
    "pkg/d/d.go": "".join(f"// Copyright {2000 + n} contributor number {n} of the Kebab Authors, "
                          "all rights reserved.\n" for n in range(60))
                  + "\n// Package d tracks parcels from the depot to the door.\npackage d\n",
}


@pytest.fixture
def go_ws(tmp_path: Path) -> Iterator[Workspace]:
    yield from synced_workspace(tmp_path, GO_TREE)


def test_a_file_is_read_by_its_own_doc_not_its_license_header(go_ws: Workspace) -> None:
    """The files group shows, and the file vector reads, the package doc below the license
    and the build lines; a file without one shows no doc rather than the license."""
    docs = {f.path: f.doc for f in files_of(go_ws, "weather forecast", "hybrid")}
    assert docs == {
        "pkg/a/a.go": "Package a predicts rain and snowfall for the coming week.",
        "pkg/b/b.go": "Package b sends invoices and collects overdue payments.",
        "pkg/c/c.go": "",
        "pkg/d/d.go": "",
    }
    for question, path in (("weather forecast", "pkg/a/a.go"),
                           ("billing customers", "pkg/b/b.go")):
        top = files_of(go_ws, question)[0]
        assert (top.path, top.vector_rank) == (path, 1), question
