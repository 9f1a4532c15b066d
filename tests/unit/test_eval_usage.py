"""The usage set of `kebab eval`: "who calls X" questions answered by every call of X, with
Recall@50 and Hit@20, scored for the usage route against plain lexical search."""

from __future__ import annotations

from pathlib import Path

from indexing.settings import Settings
from kebab_lsp.evaluate import _call_sites, _kebab, _timed, format_table
from kebab_lsp.workspace import Workspace
from search.evaluation import Target, usage_queries


def test_usage_set_and_its_scores(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "lib").mkdir(parents=True)
    (root / "lib/core.py").write_text(
        "def normalize_path(p):\n    return p\n\n\n"
        "def single_use(x):\n    return x\n")
    # Many files mention normalize_path in words and strings; two call it.
    for i in range(30):
        (root / f"lib/mention_{i:02}.py").write_text(
            f'"""normalize_path helpers {i}."""\nNAME = "normalize_path"\n'
            f"# normalize_path is documented here\n")
    (root / "lib/a.py").write_text("from lib.core import normalize_path\n\n\n"
                                   "def use_a(p):\n    return normalize_path(p)\n")
    (root / "lib/b.py").write_text("import lib.core\n\n\n"
                                   "def use_b(p):\n    return lib.core.normalize_path(p) + "
                                   "single_use(p)\n")
    ws = Workspace(root, Settings(index_dir=str(tmp_path / "index"), workers=1, embed=False))
    ws.indexer.index()
    queries = usage_queries(ws.store.all_symbols(), _call_sites(ws))
    assert [(q.text, q.targets) for q in queries] == [
        ("who calls normalize_path", (Target("lib/a.py", 4, 4), Target("lib/b.py", 4, 4)))]
    auto = _timed(queries, _kebab(ws, "auto")).as_json()
    lexical = _timed(queries, _kebab(ws, "lexical")).as_json()
    assert (auto["recall@50"], auto["hit@20"], auto["hit@1"]) == (1.0, 1.0, 1.0)
    assert lexical["hit@1"] == 0.0  # words find the mentions before the calls
    table = format_table({"sets": {"usage": {"auto": auto, "lexical": lexical}}})
    assert "hit@20" in table.splitlines()[0]
    ws.close()
