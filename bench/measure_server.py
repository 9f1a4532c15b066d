"""Latency through the real server on the main tree, idle: workspace/symbol, kebab/search, exact
text (next to ripgrep) and didSave → visible; then the same server while a second folder
cold-indexes (bench/measure_background.py), and whether a default-`workers` server finishes a
cold index at all.

All idle figures come from one server. Passes are interleaved (pass 1 of every request, then
pass 2, …), so a burst of load from other jobs lands on one pass of several figures rather than
on every pass of one; each pass re-warms with its own untimed requests.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from bench import corpora
from bench.config import N_EDITS, PASSES, SERVER_WORKERS, log, skipped
from bench.corpora import Corpus
from bench.lsp_client import LspClient
from bench.measure_background import background
from bench.measure_peers import exact_vs_rg
from bench.peers import score_symbols
from bench.queries import QuerySets
from bench.server import (
    poll_symbol,
    search_params,
    start_server,
    time_pass,
    wait_ready,
    with_new_function,
)
from bench.stats import figure, load

SEARCH_MODES = ("lexical", "auto")
#: How long after the last save `search_after_saves` begins: a user reading before searching.
AFTER_SAVES_PAUSE_S = 5.0


def server_latency(corpus: Corpus, index_root: Path, qs: QuerySets, work: Path,
                   passes: int = PASSES) -> dict[str, Any]:
    root = corpus.root
    out: dict[str, Any] = {"workers": SERVER_WORKERS, "passes": passes}
    client = start_server([root], index_root, SERVER_WORKERS, 0, work / "server.log")
    try:
        ready_s, status = wait_ready(client, 600)
        out["warm_start_s"] = ready_s
        out["status"] = {k: status["folders"][0][k] for k in ("files", "symbols", "chunks")}
        out.update(idle_queries(client, root, qs, passes))
        out["exact"] = exact_vs_rg(client, root, qs.exact, index_root, passes)
        log("didSave latency")
        out["did_save"] = did_save_latency(client, root, qs.edit_files, N_EDITS, passes)
        log("lexical search after those saves")
        out["search_after_saves"] = search_after_saves(client, qs, passes)
        if not skipped("background"):
            log("queries during a cold index of a second folder")
            out["background"] = background(client, corpus, qs, work)
    finally:
        client.close()
    return out


def idle_queries(client: LspClient, root: Path, qs: QuerySets, passes: int) -> dict[str, Any]:
    symbol_params = [{"query": q.name} for q in qs.names]
    fuzzy_params = [{"query": f} for f in qs.fuzzy]
    search = {mode: [search_params(q, mode) for q in qs.search] for mode in SEARCH_MODES}
    # Usages of the same definition names workspace/symbol is asked for.
    reference_params = [{"name": q.name, "k": 50} for q in qs.names]
    runs: dict[str, list[list[float]]] = {k: [] for k in ("symbol_exact", "symbol_fuzzy",
                                                          "references", *SEARCH_MODES)}
    answers: dict[str, list[Any]] = {}
    loads: list[float] = []
    for i in range(passes):
        loads.append(load())
        t, res = time_pass(client, "workspace/symbol", symbol_params)
        runs["symbol_exact"].append(t)
        answers.setdefault("symbol_exact", res)
        runs["symbol_fuzzy"].append(time_pass(client, "workspace/symbol", fuzzy_params)[0])
        for mode in SEARCH_MODES:
            t, res = time_pass(client, "kebab/search", search[mode])
            runs[mode].append(t)
            if i == 0:
                answers[mode] = res
        t, res = time_pass(client, "kebab/references", reference_params)
        runs["references"].append(t)
        if i == 0:
            answers["references"] = res
    scores = [score_symbols(r, q, root) for q, r in zip(qs.names, answers["symbol_exact"],
                                                         strict=True)]
    asked = max(len(scores), 1)
    out: dict[str, Any] = {
        "pass_load": loads,
        "symbol_exact": figure(runs["symbol_exact"]) | {
            "top1": sum(top1 for top1, _ in scores) / asked,
            "found": sum(found for _, found in scores) / asked},
        "symbol_fuzzy": figure(runs["symbol_fuzzy"]),
        "references": figure(runs["references"]) | {
            "refs_per_name": sorted(r["meta"]["total_matches"] for r in answers["references"])},
    }
    for mode in SEARCH_MODES:
        warnings = sorted({w if isinstance(w, str) else json.dumps(w) for r in answers[mode]
                           for w in (r.get("meta") or {}).get("warnings") or []})
        slowest = sorted(((max(p[j] for p in runs[mode]), q) for j, q in enumerate(qs.search)),
                         reverse=True)
        out[f"search_{mode}"] = figure(runs[mode]) | {
            "warnings": warnings[:5],
            "slowest": [f"{q!r} {s * 1000:.0f} ms" for s, q in slowest[:3]]}
    return out


def did_save_latency(client: LspClient, root: Path, files: list[str], n: int,
                     passes: int, timeout: float = 60.0) -> dict[str, Any]:
    """Append a new function to a file, send didSave, poll workspace/symbol until it shows.

    Each pass edits the same `n` files after one untimed edit of another, so the first timed
    save of a pass does not pay for code paths no save has run yet."""
    token = f"{int(time.time()) % 100000}"
    runs: list[list[float]] = []
    notes: list[str] = []
    loads: list[float] = []
    warm_file = files[n] if len(files) > n else files[0]
    for p in range(passes):
        loads.append(load())
        _timed_save(client, root / warm_file, f"kebab_bench_warm_{token}_{p}", timeout)
        times: list[float] = []
        for i, rel in enumerate(files[:n]):
            seen = _timed_save(client, root / rel, f"kebab_bench_saved_{token}_{p}_{i}", timeout)
            if seen is None:
                notes.append(f"pass {p + 1}, {rel}: not visible after {timeout:.0f} s")
            else:
                times.append(seen)
        runs.append(times)
    return figure(runs) | {"notes": notes[:5], "debounce_ms": 0, "pass_load": loads}


def search_after_saves(client: LspClient, qs: QuerySets, passes: int,
                       pause_s: float = AFTER_SAVES_PAUSE_S) -> dict[str, Any]:
    """The lexical queries again, `pause_s` after the didSave passes: a save replaces a file's
    rows, and an index that replaced rows reads more slowly until the writer merges it in its
    idle time (`indexing.store.writes`), so this is the figure a user who has been editing
    sees."""
    time.sleep(pause_s)
    params = [search_params(q, "lexical") for q in qs.search]
    return figure([time_pass(client, "kebab/search", params)[0] for _ in range(passes)]) | {
        "pause_s": pause_s}


def _timed_save(client: LspClient, path: Path, name: str, timeout: float) -> float | None:
    seen: list[float | None] = [None]

    def wait(t_save: float) -> None:
        seen[0] = poll_symbol(client, name, t_save, timeout)

    with_new_function(client, path, name, wait)
    return seen[0]


def pool_probe(index_root: Path, work: Path) -> dict[str, Any]:
    """Does the server finish a cold index with its default `workers` (a process pool)? A
    yes/no check, not a timing: it runs once."""
    small = corpora.CORPORA[1]  # > 64 files, so the pool is used
    client = start_server([small.root], index_root / "pool-probe", None, 0, work / "probe.log")
    try:
        ready, status = wait_ready(client, 60)
        return {"ok": True, "seconds": ready, "files": status["folders"][0]["files"]}
    except TimeoutError as exc:
        return {"ok": False, "detail": str(exc)[:300]}
    finally:
        client.proc.kill()  # a hung pool would make shutdown wait
        client.proc.wait()
        client.close(timeout=1)
        _reap_orphans()


def _reap_orphans() -> None:
    """Pool workers of a killed probe server are orphans of ours: end exactly those."""
    me = os.getpid()
    for proc_dir in Path("/proc").iterdir():
        if not proc_dir.name.isdigit():
            continue
        try:
            cmd = (proc_dir / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            stat = (proc_dir / "stat").read_text().split()
            environ = (proc_dir / "environ").read_bytes()
        except OSError:
            continue
        if "kebab-lsp" in cmd and stat[3] == "1" and f"KEBAB_BENCH_OWNER={me}".encode() in environ:
            with contextlib.suppress(OSError):
                os.kill(int(proc_dir.name), 9)
