"""The `files` group fuses its two channels by reciprocal rank: the files of the hits and the
files nearest by their file vector (given here as the searcher would pass them)."""

from __future__ import annotations

from pathlib import Path

from indexing.settings import Settings
from kebab_lsp.workspace import Workspace
from search.grouping import group
from search.hybrid import DEFAULT_K_RRF
from search.scores import kept
from search.types import FileMatch, SearchRequest


def test_files_are_fused_by_reciprocal_rank(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("def alpha():\n    return 'needle needle'\n")
    (root / "b.py").write_text("def beta():\n    return 'needle'\n")
    (root / "c.py").write_text('"""Nothing to see."""\n\ndef gamma():\n    return 0\n')
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "idx"), embed=False))
    try:
        ws.indexer.index()
        result = ws.searcher.search(SearchRequest("needle", mode="lexical", group=True))
        assert [h.path for h in result.hits] == ["a.py", "b.py"]
        alone = group(result.hits, lambda _root, _path: ws.store)
        assert [(f.path, f.hit_rank, f.fusion_score) for f in alone.files] == [
            ("a.py", 1, None), ("b.py", 2, None)]
        # b: a hit at 2 and the file vector's best; c: the file vector alone, no hit.
        channel = [FileMatch(str(ws.root), "b.py", 0.7, 1), FileMatch(str(ws.root), "c.py", 0.6, 2)]
        fused = group(result.hits, lambda _root, _path: ws.store, channel).files
        def rrf(*ranks: int) -> float:
            return kept(sum(1.0 / (DEFAULT_K_RRF + r) for r in ranks))

        assert [(f.path, f.hit_rank, f.vector_rank, f.fusion_score, f.hits) for f in fused] == [
            ("b.py", 2, 1, rrf(2, 1), 1),
            ("a.py", 1, None, rrf(1), 1),
            ("c.py", None, 2, rrf(2), 0),
        ]
        c = fused[2]
        assert (c.score, c.vector_score, c.doc) == (0.6, 0.6, "Nothing to see.")
    finally:
        ws.close()
