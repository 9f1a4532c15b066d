"""`make bench`: speed and cost of kebab-lsp on real trees, with peers measured in the same run.

Writes bench/results/report.md (also printed) and bench/results/report.json. This module only
orders the steps; what each measures is in bench/measure_*.py, bench/cli_latency.py and
bench/quality.py, how figures are made in bench/stats.py, the goals in bench/goals.py, and the
report in bench/report.py. The knobs are listed in bench/config.py and bench/README.md.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import cli_latency, compare_ctags, config, corpora, measure_languages, team_store
from bench.config import (
    COLD_PASSES,
    EMBED_SAMPLE,
    N_NAMES,
    PASSES,
    QUICK,
    REPO,
    RESULTS,
    SEED,
    TEAM_CLIENTS,
    TEAM_CORPUS,
    TEAM_SECONDS,
    log,
    skipped,
)
from bench.goals import goals
from bench.measure_embed import embedding
from bench.measure_index import cold_index, save_profile
from bench.measure_peers import ctags_peer, pyright_peer
from bench.measure_server import pool_probe, server_latency
from bench.quality import quality
from bench.queries import query_sets
from bench.report import render
from bench.stats import load


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_kb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_kb = int(line.split()[1])
    except OSError:
        pass
    return {
        "cpu": cpu, "cores": os.cpu_count(), "ram_gib": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(), "os": platform.platform(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }


def synthetic_symbols() -> dict[str, Any]:
    """The 100k-symbol matcher benchmark, in a child so that the bench's own heap (query sets,
    results) does not slow its garbage collector."""
    proc = subprocess.run([sys.executable, "-m", "bench.bench_symbols", "--json"], cwd=REPO,
                          capture_output=True, text=True, timeout=900, check=True)
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def _step(r: dict[str, Any], key: str, fn: Callable[[], Any]) -> None:
    """Run one step, recording its time and the load around it; a failed step is reported, not
    fatal, because one failed section must not lose the others."""
    record: dict[str, Any] = {"load_before": load()}
    r.setdefault("steps", {})[key] = record
    if skipped(key):
        log(f"{key}: skipped (KEBAB_BENCH_SKIP)")
        record.update(seconds=0.0, load_after=record["load_before"], skipped=True)
        return
    t0 = time.perf_counter()
    log(f"{key} …")
    try:
        r[key] = fn()
    except Exception as exc:  # noqa: BLE001 - see the docstring
        log(f"{key} failed: {type(exc).__name__}: {exc}")
        r.setdefault("errors", []).append(f"{key}: {type(exc).__name__}: {exc}")
    record.update(seconds=time.perf_counter() - t0, load_after=load())


def measure(r: dict[str, Any], work: Path) -> None:
    index_root = work / "index"
    log("fetching corpora")
    for c in corpora.CORPORA:
        corpora.fetch(c)

    def index_all() -> list[dict[str, Any]]:
        out = []
        for c in corpora.CORPORA:
            log(f"cold index {c.key}")
            out.append(cold_index(c, index_root, work, COLD_PASSES))
        return out

    _step(r, "index", index_all)
    if "index" not in r:
        return  # every other step reads this index
    main_corpus = corpora.CORPORA[0]
    main_dir = Path(r["index"][0]["index_dir"])
    qs = query_sets(main_dir, N_NAMES)
    r["query_counts"] = qs.counts()
    _step(r, "embedding", lambda: embedding(main_dir, EMBED_SAMPLE))
    _step(r, "cli", lambda: cli_latency.run(work))
    _step(r, "server", lambda: server_latency(main_corpus, index_root, qs, work))
    _step(r, "pool_probe", lambda: pool_probe(index_root, work))
    _step(r, "ctags", lambda: ctags_peer(main_corpus.root, qs, work))
    _step(r, "pyright", lambda: pyright_peer(main_corpus.root, qs, work))
    _step(r, "synthetic_symbols", synthetic_symbols)
    _step(r, "save_profile", lambda: save_profile(main_corpus, index_root, qs.edit_files[0]))
    _step(r, "languages", lambda: measure_languages.measure(
        measure_languages.BASELINE, PASSES, 0.5 if QUICK else 3.0))
    _step(r, "ctags_languages", lambda: [compare_ctags.compare(c, work / "ctags-languages")
                                         for c in compare_ctags.CORPORA])
    _step(r, "team_store", lambda: team_store.measure(
        team_store.corpus_named(TEAM_CORPUS), PASSES, COLD_PASSES, TEAM_CLIENTS, TEAM_SECONDS,
        N_NAMES))
    _step(r, "quality", lambda: quality(work))


def main() -> int:
    os.environ["KEBAB_BENCH_OWNER"] = str(os.getpid())  # marks our servers' pool workers
    started = time.perf_counter()
    RESULTS.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="kebab-bench-"))
    os.environ["KEBAB_INDEX_DIR"] = str(work / "index")  # never the user cache
    r: dict[str, Any] = {"machine": machine(), "quick": QUICK, "seed": SEED, "passes": PASSES,
                         "cold_passes": COLD_PASSES, "skipped": sorted(config.SKIP)}
    try:
        measure(r, work)
    finally:
        if not os.environ.get("KEBAB_BENCH_KEEP_INDEX"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            log(f"kept {work}")
    r["wall_s"] = time.perf_counter() - started
    r["goals"] = [dataclasses.asdict(g) for g in goals(r)]  # for readers of report.json
    report = render(r)
    (RESULTS / "report.md").write_text(report + "\n")
    (RESULTS / "report.json").write_text(json.dumps(r, indent=2, default=str) + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
