"""Latency while the server cold-indexes another folder: what an editor sees when a second large
folder is added to a workspace it already serves.

Each pass adds a fresh copy of the main tree (a new path, so its index is cold) as a second
workspace folder through `workspace/didChangeWorkspaceFolders`, asks the first folder a round
of workspace/symbol, lexical and auto requests in a loop until `kebab/status` says nothing is
building, and sends one didSave in the first folder as the cold index starts. The copy is then
removed as a folder and from disk.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from bench import corpora
from bench.config import COLD_PASSES
from bench.corpora import Corpus
from bench.lsp_client import LspClient
from bench.queries import QuerySets
from bench.server import has_symbol, poll_symbol, search_params, with_new_function
from bench.stats import figure, load, values_figure

TIMEOUT_S = 900


def background(client: LspClient, corpus: Corpus, qs: QuerySets, work: Path,
               passes: int = COLD_PASSES) -> dict[str, Any]:
    runs = [_one_pass(client, corpus, qs, work / f"background-copy-{p}", p)
            for p in range(passes)]
    return {
        "passes": passes,
        "pass_load": [r["load"] for r in runs],
        "cold_index_in_server_s": values_figure([r["cold_s"] for r in runs]),
        "save_visible_s": values_figure([r["save_visible_s"] for r in runs]),
        "rounds": [r["rounds"] for r in runs],
        "rounds_while_building": [r["building"] for r in runs],
        "symbol": figure([r["symbol"] for r in runs]),
        "search_lexical": figure([r["lexical"] for r in runs]),
        "search_auto": figure([r["auto"] for r in runs]),
    }


def _one_pass(client: LspClient, corpus: Corpus, qs: QuerySets, copy_at: Path,
              p: int) -> dict[str, Any]:
    pass_load = load()
    copy = corpora.copy_tree(corpus.root, copy_at)
    folder = {"uri": copy.resolve().as_uri(), "name": copy.name}
    saved_name = f"kebab_bench_bg_{int(time.time()) % 100000}_{p}"
    out: dict[str, Any] = {"load": pass_load, "symbol": [], "lexical": [], "auto": [],
                           "cold_s": None, "save_visible_s": None, "rounds": 0, "building": 0}

    def query_until_built(t_save: float) -> None:
        t0 = time.perf_counter()
        i = 0
        while time.perf_counter() - t0 < TIMEOUT_S:
            status = client.request("kebab/status", {})
            if not status["building"] and _serves(status, copy) and i > 0:
                out["cold_s"] = time.perf_counter() - t0
                break
            out["building"] += status["building"]
            out["symbol"].append(client.timed("workspace/symbol",
                                              {"query": qs.names[i % len(qs.names)].name})[0])
            sq = qs.search[i % len(qs.search)]
            out["lexical"].append(client.timed("kebab/search", search_params(sq, "lexical"))[0])
            out["auto"].append(client.timed("kebab/search", search_params(sq, "auto"))[0])
            if out["save_visible_s"] is None and has_symbol(client, saved_name):
                out["save_visible_s"] = time.perf_counter() - t_save
            i += 1
        out["rounds"] = i
        if out["save_visible_s"] is None:
            out["save_visible_s"] = poll_symbol(client, saved_name, t_save, 120)

    try:
        client.notify("workspace/didChangeWorkspaceFolders",
                      {"event": {"added": [folder], "removed": []}})
        with_new_function(client, corpus.root / qs.edit_files[-1], saved_name, query_until_built)
    finally:
        client.notify("workspace/didChangeWorkspaceFolders",
                      {"event": {"added": [], "removed": [folder]}})
        _wait_removed(client, copy)
        shutil.rmtree(copy, ignore_errors=True)
    return out


def _serves(status: dict[str, Any], root: Path) -> bool:
    return any(Path(f["root"]).resolve() == root.resolve() for f in status.get("folders") or [])


def _wait_removed(client: LspClient, root: Path, timeout: float = 60.0) -> None:
    """The next pass must start with one folder, or it could take the old copy for its own."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout and _serves(client.request("kebab/status", {}),
                                                           root):
        time.sleep(0.05)
