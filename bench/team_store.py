"""The team index against the embedded one, on one tree: index throughput, the same lexical and
exact-text queries on both backends (p50/p95 over passes), and many clients at once against one
PostgreSQL.

    python -m bench.team_store [TREE] [--store URL] [--clients 20] [--seconds 10] [--json]

Without `--store`, a throwaway server is started from the installed binaries
(`bench/postgres_server.py`). The queries are the main-tree bench's (`bench/queries.py`: words
of definition names, and distinctive source lines as exact text), drawn from the tree's own
SQLite index. Not yet a step of `make bench`: run it by hand.

The clients are processes, each with its own connection, asking the word and exact queries in
turn for `--seconds`; their figures include this machine's Python work per search (snippets,
citations), which shares the CPU with the server when both run here.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.postgres_server import OWNER, PgCluster, find_bin_dir
from bench.queries import query_sets
from bench.stats import figure, load, summary
from indexing.settings import Settings

REPO_NAME = "bench"


def _timed_passes(searcher: Any, queries: list[str], passes: int) -> dict[str, Any]:
    from search.types import SearchRequest

    for query in queries[:3]:  # untimed warm-up: connection caches, prepared statements
        searcher.search(SearchRequest(query, mode="lexical"))
    runs: list[list[float]] = []
    for _ in range(passes):
        times = []
        for query in queries:
            started = time.perf_counter()
            searcher.search(SearchRequest(query, mode="lexical"))
            times.append(time.perf_counter() - started)
        runs.append(times)
    return figure(runs)


def _client(url: str, queries: list[str], seconds: float, out: Any) -> None:
    """One client process: its own connection, the queries in turn until the time is up."""
    from kebab_lsp.team import TeamWorkspace
    from search.types import SearchRequest

    team = TeamWorkspace(url, REPO_NAME, Settings())
    times: list[float] = []
    began = time.monotonic()
    i = 0
    while time.monotonic() < began + seconds:
        started = time.perf_counter()
        team.searcher.search(SearchRequest(queries[i % len(queries)], mode="lexical"))
        times.append(time.perf_counter() - started)
        i += 1
    out.put((times, time.monotonic() - began))
    team.close()


def concurrent(url: str, queries: list[str], clients: int, seconds: float) -> dict[str, Any]:
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    procs = [ctx.Process(target=_client, args=(url, queries[i:] + queries[:i], seconds,
                                                results)) for i in range(clients)]
    for proc in procs:
        proc.start()
    runs = [results.get(timeout=seconds + 120) for _ in procs]
    for proc in procs:
        proc.join()
    times = [t for run_times, _ in runs for t in run_times]
    # Each client's own rate over its own run (starting a process is not a search), summed.
    rate = sum(len(run_times) / elapsed for run_times, elapsed in runs)
    return {"clients": clients, "seconds": seconds, "searches": len(times),
            "per_second": round(rate, 1), **summary(times)}


def run(tree: Path, url: str, passes: int, clients: int, seconds: float) -> dict[str, Any]:
    from indexing.postgres.team_index import index_repository
    from kebab_lsp.team import TeamWorkspace
    from kebab_lsp.workspace import Workspace

    scratch = Path(tempfile.mkdtemp(prefix="kebab-team-bench-"))
    settings = Settings(index_dir=str(scratch), embed=False)
    try:
        started = time.perf_counter()
        local = Workspace(tree, settings)
        local_summary = local.indexer.index()
        sqlite_s = time.perf_counter() - started
        started = time.perf_counter()
        team_summary = index_repository(tree, url, REPO_NAME, settings)
        pg_s = time.perf_counter() - started
        sets = query_sets(local.index_dir, 50)
        team = TeamWorkspace(url, REPO_NAME, settings, tree)
        report: dict[str, Any] = {
            "tree": str(tree), "files": local_summary.new, "load_before": load(),
            "index": {"sqlite_s": round(sqlite_s, 2), "postgresql_s": round(pg_s, 2),
                      "sqlite_files_per_s": round(local_summary.new / sqlite_s, 1),
                      "postgresql_files_per_s": round(team_summary.new / pg_s, 1)},
            "queries": {"words": len(sets.words), "exact": len(sets.exact)},
        }
        for name, searcher in (("sqlite", local.searcher), ("postgresql", team.searcher)):
            report[name] = {
                "words": _timed_passes(searcher, sets.words, passes),
                "exact": _timed_passes(searcher, [f'"{q}"' for q in sets.exact], passes)}
        team.close()
        local.close()
        if clients:
            report["concurrent"] = concurrent(
                url, sets.words + [f'"{q}"' for q in sets.exact], clients, seconds)
        report["load_after"] = load()
        return report
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _table(report: dict[str, Any]) -> str:
    idx = report["index"]
    lines = [f"{report['tree']}: {report['files']} files",
             f"index: sqlite {idx['sqlite_s']} s ({idx['sqlite_files_per_s']} files/s), "
             f"postgresql {idx['postgresql_s']} s ({idx['postgresql_files_per_s']} files/s)"]
    for backend in ("sqlite", "postgresql"):
        for kind in ("words", "exact"):
            fig = report[backend][kind]
            lines.append(f"{backend:10} {kind:5} p50 {fig['p50_ms']['median']:.1f} ms "
                         f"p95 {fig['p95_ms']['median']:.1f} ms ({fig['n']} queries, "
                         f"{len(fig['passes'])} passes)")
    if "concurrent" in report:
        c = report["concurrent"]
        lines.append(f"{c['clients']} clients: {c['per_second']} searches/s, p50 "
                     f"{c['p50_ms']:.1f} ms p95 {c['p95_ms']:.1f} ms")
    lines.append(f"load average {report['load_before']:.2f} -> {report['load_after']:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.team_store", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tree", nargs="?", default=".", help="the tree to index")
    parser.add_argument("--store", default=None, metavar="URL",
                        help="a database to use (default: a throwaway server)")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    cluster: PgCluster | None = None
    url = args.store
    if url is None:
        bin_dir = find_bin_dir()
        if bin_dir is None:
            print("no PostgreSQL installed (make tools installs it)", file=sys.stderr)
            return 1
        cluster = PgCluster(bin_dir)
        cluster.start()
        url = cluster.url(cluster.new_database(), OWNER)
    try:
        report = run(Path(args.tree).resolve(), url, args.passes, args.clients, args.seconds)
    finally:
        if cluster is not None:
            cluster.stop()
    print(json.dumps(report, sort_keys=True) if args.json else _table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
