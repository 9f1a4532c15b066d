"""The tools a user would pick instead, timed on the main tree in the same run and in passes like
kebab's own figures: ripgrep for exact text, universal-ctags + readtags and pyright for names.
(`bench/peers.py` drives the tools; this module decides what is asked and how often.)"""

from __future__ import annotations

import shutil
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import corpora, peers
from bench.config import N_PYRIGHT, PASSES, WARMUP
from bench.lsp_client import LspClient
from bench.measure_index import indexed_paths
from bench.queries import QuerySets
from bench.server import search_params
from bench.stats import figure, load, values_figure


def _share(count: int, asked: int) -> float:
    return count / max(asked, 1)


def exact_vs_rg(client: LspClient, root: Path, texts: Sequence[str], index_root: Path,
                passes: int = PASSES) -> dict[str, Any]:
    """kebab's `"quoted"` search (a server round trip) and `rg -F -l` (a process over the whole
    tree), query by query, so both see the same moment's load; recall of kebab against rg over
    the files kebab indexes, from the first pass (answers do not change between passes)."""
    from indexing.location import index_dir_for

    rg = corpora.ensure_apt("rg", "ripgrep")
    indexed = set(indexed_paths(index_dir_for(root, index_root)))
    ours_runs: list[list[float]] = []
    rg_runs: list[list[float]] = []
    recalls: list[float] = []
    missed: list[str] = []
    not_indexed = 0
    loads: list[float] = []
    params = [search_params(f'"{text}"', "lexical", 500) for text in texts]
    for p in range(passes):
        loads.append(load())
        for warm in params[:WARMUP]:
            client.request("kebab/search", warm)
        if rg is not None and texts:
            peers.rg_files(rg, root, texts[0])
        ours_t: list[float] = []
        rg_t: list[float] = []
        for text, param in zip(texts, params, strict=True):
            elapsed, result = client.timed("kebab/search", param)
            ours_t.append(elapsed)
            if rg is None:
                continue
            rt, files = peers.rg_files(rg, root, text)
            rg_t.append(rt)
            if p:
                continue
            ours = {h["path"] for h in result.get("hits", [])}
            not_indexed += len(files - indexed)
            want = files & indexed
            if want:
                recalls.append(len(ours & want) / len(want))
                if ours & want != want:
                    missed.append(text)
        ours_runs.append(ours_t)
        rg_runs.append(rg_t)
    return {"ours": figure(ours_runs), "rg": figure(rg_runs) if rg is not None else None,
            "recall": statistics.fmean(recalls) if recalls else None, "queries": len(texts),
            "missed": missed[:5], "rg_files_not_indexed": not_indexed, "pass_load": loads}


def ctags_peer(root: Path, qs: QuerySets, work: Path, passes: int = PASSES
               ) -> dict[str, Any] | None:
    """`ctags -R` then one `readtags` process per name, as an editor's tag jump costs it."""
    ctags = corpora.ensure_apt("ctags", "universal-ctags")
    readtags = shutil.which("readtags")
    if ctags is None or readtags is None:
        return None
    tags = work / "tags"
    builds: list[float] = []
    runs: list[peers.LookupFigures] = []
    loads: list[float] = []
    for _ in range(passes):
        loads.append(load())
        builds.append(peers.ctags_build(ctags, root, tags, "Python"))
        peers.ctags_lookup(readtags, tags, qs.names[:WARMUP])
        runs.append(peers.ctags_lookup(readtags, tags, qs.names))
    first = runs[0]
    return {"build_s": values_figure(builds),
            "lookup": figure([r.latencies for r in runs]),
            "top1": _share(first.top1, first.asked), "found": _share(first.found, first.asked),
            "tags_mb": tags.stat().st_size / 1e6, "pass_load": loads}


def pyright_peer(root: Path, qs: QuerySets, work: Path, passes: int = PASSES
                 ) -> dict[str, Any] | None:
    """pyright-langserver's workspace/symbol: one server, `passes` passes over the first
    `N_PYRIGHT` names (each answer takes about a second, so fewer names than kebab's)."""
    if N_PYRIGHT <= 0:
        return None
    server = corpora.ensure_pyright()
    if server is None:
        return {"error": "pyright could not be installed from npm"}
    run = peers.pyright_symbols(server, root, qs.names[:N_PYRIGHT], passes, ready_timeout=300,
                                stderr_path=work / "pyright.log")
    if not run.passes:
        return {"error": "; ".join(run.notes) or "pyright never answered"}
    first = run.passes[0]
    return {"version": corpora.PYRIGHT_VERSION, "first_answer_s": run.first_answer_s,
            "lookup": figure([p.latencies for p in run.passes]),
            "top1": _share(first.top1, first.asked), "found": _share(first.found, first.asked),
            "asked": first.asked, "notes": run.notes[:5], "pass_load": run.pass_load}
