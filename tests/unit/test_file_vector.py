"""The file vector: one vector per file from its path, top doc and outline, which finds
"the file that handles X" when no snippet of it says X, and follows the file's edits.
Real model, real LanceDB."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from indexing.settings import Settings
from indexing.vector_index import FILE
from kebab_lsp.workspace import Workspace
from search.grouping import group
from search.types import Hit, SearchRequest

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
    root = tmp_path / "repo"
    for rel, text in TREE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1))
    ws.indexer.index()
    assert ws.sync_vectors() is not None
    yield ws
    ws.close()


def search(ws: Workspace, query: str, mode: str = "vector") -> list[Hit]:
    return ws.searcher.search(SearchRequest(query, mode=mode, k=10, explain=True)).hits


def file_rows(ws: Workspace) -> dict[str, str]:
    vindex = ws.vector_index()
    assert vindex is not None
    return {k: h for k, h in vindex.vectors.row_hashes().items() if k.endswith(f":{FILE}")}


def test_a_file_is_found_by_what_it_is_about_though_no_snippet_says_it(ws: Workspace) -> None:
    words = QUESTION.split()
    assert not any(w in text for text in TREE.values() for w in words)
    assert search(ws, QUESTION, "lexical") == []  # no snippet matches
    top = search(ws, QUESTION)[0]
    assert top.path == "kitchen/recipe.py"
    assert top.retrieval.vector_surface == FILE  # the file vector found it
    assert top.span.start_line == 0  # cited at the top of the file
    hybrid = search(ws, QUESTION, "hybrid")
    assert hybrid[0].path == "kitchen/recipe.py" and hybrid[0].retrieval.vector_surface == FILE
    grouped = group(hybrid, lambda _root: ws.store)
    assert grouped.files[0].path == "kitchen/recipe.py"


def test_every_file_has_one_vector_and_coverage_counts_it(ws: Workspace) -> None:
    assert len(file_rows(ws)) == len(TREE)
    vindex = ws.vector_index()
    assert vindex is not None
    have, total = vindex.coverage()
    assert have == total == len(vindex.vectors.row_hashes())


def test_the_file_vector_follows_the_file(ws: Workspace) -> None:
    before = file_rows(ws)
    was = search(ws, QUESTION)[0]
    (ws.root / "kitchen" / "recipe.py").write_text(RENAMED_TOPIC)
    ws.indexer.index()
    synced = ws.sync_vectors()
    assert synced is not None and synced.embedded > 0
    after = file_rows(ws)
    assert len(after) == len(TREE) and after != before
    top = search(ws, "invoicing and collecting payments")[0]
    assert (top.path, top.retrieval.vector_surface) == ("kitchen/recipe.py", FILE)
    now = next(h for h in search(ws, QUESTION) if h.path == "kitchen/recipe.py")
    assert now.score < was.score - 0.1  # its old subject is no longer what it is about

    (ws.root / "garden" / "plants.py").unlink()
    ws.indexer.index()
    assert ws.sync_vectors() is not None
    gone = file_rows(ws)
    assert len(gone) == len(TREE) - 1
    vindex = ws.vector_index()
    assert vindex is not None and vindex.expected() == vindex.vectors.row_hashes()
