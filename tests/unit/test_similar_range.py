"""`kebab/similar` on a large range: the chunks nearest to it are mostly inside it, and the
answer still holds k from outside it when they exist."""

from __future__ import annotations

from pathlib import Path

from indexing.filters import Filters
from indexing.records import Span
from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.similar import similar

BODY = "    total = ledger.balance(account) + ledger.pending(account)\n    return total\n"


def test_a_large_range_still_gets_k_hits_from_outside_it(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    inside = "".join(f"def settle_{i}(ledger, account):\n{BODY}\n\n" for i in range(40))
    (root / "big.py").write_text(inside)
    (root / "other.py").write_text(
        "".join(f"def reconcile_{i}(ledger, account):\n{BODY}\n\n" for i in range(6)))
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), workers=1, embed=False))
    try:
        ws.indexer.index()
        text = "".join(inside.split("\n\n\n")[:2])
        result = similar(ws.searcher, text, 5, Filters(), ("big.py", Span(0, 0, 5 * 40, 0)))
    finally:
        ws.close()
    assert [h.path for h in result.hits] == ["other.py"] * 5
    assert result.meta.total_matches == 6  # the range's own chunks are not counted
