"""Today's code against an older commit, in-process, on the same queries: the check that a
change of the house did not make search, symbol lookup or a save slower.

Through the server, a pass's p95 over 20-50 requests moves with the host (this machine's speed
varies by up to 2x for seconds at a time), so a server figure cannot tell a 20% regression
from noise. Here each query's time is its best of `PASSES` runs, old and new run one after the
other, and only what both versions have is timed: `Workspace`, `Searcher.search`,
`SymbolIndex.match`, `Indexer.update_paths`.

    python -m bench.against_commit queries INDEX_DIR OUT.json      # today's code
    python bench/against_commit.py measure CODE_DIR INDEX_DIR QUERIES.json TREE

`measure` puts CODE_DIR (a checkout of either commit) first on the import path, so it must
run as a file, from CODE_DIR, with that commit's dependencies importable.
"""

from __future__ import annotations

import importlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PASSES = 5
SAVES = 10  # files edited, each saved twice


def dump_queries(index_dir: Path, out: Path) -> None:
    from bench.queries import query_sets

    qs = query_sets(next(p for p in index_dir.iterdir() if p.is_dir()), 100)
    out.write_text(json.dumps({"names": [n.name for n in qs.names], "fuzzy": qs.fuzzy,
                               "search": qs.search, "edit": qs.edit_files}))


def _workspace(root: Path, index_dir: Path) -> Any:
    """Either version's workspace: the settings model is newer than the commit compared."""
    workspace = importlib.import_module("kebab_lsp.workspace")
    if hasattr(workspace, "WorkspaceOptions"):
        settings: Any = workspace.WorkspaceOptions
    else:
        settings = importlib.import_module("indexing.settings").Settings
    return workspace.Workspace(root, settings(index_dir=str(index_dir), workers=1, embed=False))


def _best_of(fn: Callable[[str], object], items: list[str]) -> dict[str, float]:
    best: dict[str, float] = {}
    for _ in range(PASSES):
        for item in items:
            started = time.perf_counter()
            fn(item)
            ms = (time.perf_counter() - started) * 1000
            best[item] = min(best.get(item, ms), ms)
    return best


def _summary(times: list[float]) -> dict[str, float]:
    """p50 as the median, p95 nearest-rank (`search.evaluation.percentile`'s rule). Computed
    here: importing the project's `search` before `measure` puts CODE_DIR first would load
    today's package in place of the compared commit's."""
    ordered = sorted(times)
    return {"p50": round(statistics.median(ordered), 1),
            "p95": round(ordered[max(0, -(-95 * len(ordered) // 100) - 1)], 1)}


def measure(index_dir: Path, queries: Path, root: Path) -> dict[str, Any]:
    ws = _workspace(root, index_dir)
    ws.indexer.index()
    if hasattr(ws.store, "merge_step"):  # as `kebab index` leaves it
        while ws.store.merge_step():
            pass
        ws.store.settle()
    request = importlib.import_module("search.types").SearchRequest
    symbols = importlib.import_module("search.symbols").SymbolIndex(ws.store)
    symbols.match("warm", 100)
    q = json.loads(queries.read_text())
    lexical = _best_of(lambda s: ws.searcher.search(request(query=s, mode="lexical", k=20),
                                                    should_stop=lambda: False), q["search"])
    out: dict[str, Any] = {"lexical": _summary(list(lexical.values())), "per_query": lexical}
    for key in ("names", "fuzzy"):
        out[f"symbol_{key}"] = _summary(list(_best_of(lambda s: symbols.match(s, 100),
                                                      q[key]).values()))
    out["save"] = _summary(_saves(ws, symbols, root, q["edit"][:SAVES]))
    return out


def _saves(ws: Any, symbols: Any, root: Path, files: list[str]) -> list[float]:
    """A new function appended to a file, re-indexed and found by name; files restored after."""
    saved = {f: (root / f).read_bytes() for f in files}
    times: list[float] = []
    try:
        for round_ in range(2):
            for i, rel in enumerate(files):
                name = f"kebab_against_{round_}_{i}"
                (root / rel).write_bytes(saved[rel] + f"\n\ndef {name}():\n    return 0\n".encode())
                started = time.perf_counter()
                ws.indexer.update_paths([root / rel])
                symbols.match(name, 100)
                times.append((time.perf_counter() - started) * 1000)
    finally:
        for rel, data in saved.items():
            (root / rel).write_bytes(data)
        ws.indexer.update_paths([root / rel for rel in files])
    return times


def main(argv: list[str]) -> None:
    if argv[0] == "queries":
        dump_queries(Path(argv[1]), Path(argv[2]))
        return
    code, index_dir, queries, root = argv[1:5]
    sys.path.insert(0, code)
    print(json.dumps(measure(Path(index_dir), Path(queries), Path(root))))


if __name__ == "__main__":
    main(sys.argv[1:])
