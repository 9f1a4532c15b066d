"""`kebab eval`: how well each search mode answers questions drawn from the tree itself.

The nl set is also scored on a copy of the tree whose doc text is blanked (same lines and
columns, docs replaced by spaces): with the docs in the index, "search by meaning" would just
be searching for the docstring's own words.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kebab_lsp.workspace import Workspace, WorkspaceOptions
from search.evaluation import (
    SETS,
    EvalQuery,
    Scores,
    aggregate,
    blank_docs,
    generate,
    score_ranking,
)
from search.symbols import SymbolIndex
from search.types import SearchRequest

MODES = ("lexical", "vector", "hybrid", "auto")
K = 50
Log = Callable[[str], None]


def _score_modes(ws: Workspace, queries: Sequence[EvalQuery], modes: Sequence[str]
                 ) -> dict[str, Scores]:
    out: dict[str, Scores] = {}
    for mode in modes:
        per_query, latencies = [], []
        for q in queries:
            t0 = time.perf_counter()
            result = ws.searcher.search(SearchRequest(q.text, mode=mode, k=K))
            latencies.append((time.perf_counter() - t0) * 1000)
            ranked = [(h.path, h.span.start_line, h.chunk_lines) for h in result.hits]
            per_query.append(score_ranking(ranked, q.targets))
        out[mode] = aggregate(per_query, latencies)
    return out


def _score_symbols(ws: Workspace, queries: Sequence[EvalQuery]) -> Scores:
    index = SymbolIndex(ws.store)
    per_query, latencies = [], []
    for q in queries:
        t0 = time.perf_counter()
        result = index.match(q.text, K)
        latencies.append((time.perf_counter() - t0) * 1000)
        ranked = [(m.row.path, m.row.symbol.selection.start_line) for m in result.items]
        per_query.append(score_ranking(ranked, q.targets))
    return aggregate(per_query, latencies)


def _blanked_copy(ws: Workspace, dest: Path) -> None:
    docs: dict[str, list[str]] = {}
    for row in ws.store.all_symbols():
        if row.symbol.doc:
            docs.setdefault(row.path, []).append(row.symbol.doc)
    for path, text, _ in ws.store.file_texts():
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(blank_docs(text, docs.get(path, [])), encoding="utf-8")


def run_eval(root: Path, options: WorkspaceOptions, seed: int, per_set: int,
             blanked: bool, log: Log) -> dict[str, Any]:
    ws = Workspace(root, options)
    log("indexing")
    ws.indexer.index()
    log("embedding")
    ws.sync_vectors()
    queries = generate(ws.store.all_symbols(), ws.store.file_texts(), seed, per_set)
    report: dict[str, Any] = {"root": str(ws.root), "seed": seed, "k": K, "sets": {}}
    for name in SETS:
        subset = [q for q in queries if q.set == name]
        log(f"scoring {name} ({len(subset)} queries)")
        scores = {m: s.as_json() for m, s in _score_modes(ws, subset, MODES).items()}
        if name in ("name", "fuzzy"):
            scores["workspace_symbol"] = _score_symbols(ws, subset).as_json()
        report["sets"][name] = scores
    if blanked:
        nl = [q for q in queries if q.set == "nl"]
        with tempfile.TemporaryDirectory(prefix="kebab-eval-") as tmp:
            copy = Path(tmp) / ws.root.name
            _blanked_copy(ws, copy)
            log(f"scoring nl_blanked ({len(nl)} queries) on a doc-blanked copy")
            blank_ws = Workspace(copy, WorkspaceOptions(
                index_dir=str(Path(tmp) / "index"), model_dir=options.model_dir,
                embed_threads=options.embed_threads))
            blank_ws.indexer.index()
            blank_ws.sync_vectors()
            report["sets"]["nl_blanked"] = {
                m: s.as_json() for m, s in _score_modes(blank_ws, nl, MODES).items()}
            blank_ws.close()
            shutil.rmtree(copy, ignore_errors=True)
    ws.close()
    return report


def format_table(report: dict[str, Any]) -> str:
    cols = ("n", "mrr@10", "hit@1", "hit@5", "recall@20", "recall@50", "p50_ms", "p95_ms")
    lines = [f"{'set':11} {'mode':17} " + " ".join(f"{c:>9}" for c in cols)]
    for set_name, modes in report["sets"].items():
        for mode, scores in modes.items():
            lines.append(f"{set_name:11} {mode:17} " +
                         " ".join(f"{scores[c]:>9}" for c in cols))
    return "\n".join(lines)
