"""The team index against the embedded one, on one tree of the bench's registry corpora (step
`team_store` of `make bench`; the main tree by default, `KEBAB_BENCH_TEAM_CORPUS` names
another): a cold index into SQLite and into PostgreSQL, the same word and exact-text queries
on both, and many client processes at once against one PostgreSQL.

    python -m bench.team_store [CORPUS] [--store URL] [--clients 20] [--seconds 10] [--json]

Without `--store`, a throwaway server is started from the installed binaries
(`bench/postgres_server.py`), so the figures are those of a server on this machine, sharing
its cores with the bench: a real team server is elsewhere, and its clients' round trips
cross a network this does not have.

The figures follow the bench's rules (bench/stats.py): cold indexes run `COLD_PASSES` times,
each into a fresh SQLite directory and a fresh repository of the team index; query passes are
interleaved (pass 1 of every backend and query set, then pass 2, …) so that a burst of load
from other jobs hits one pass of several figures, not every pass of one. The queries are the
main-tree bench's (`bench/queries.py`: words of definition names, and distinctive source lines
as exact text), drawn from the tree's own SQLite index.

The clients are processes started once, each with its own connection; a barrier starts every
pass on all of them together, and each asks the word and exact queries in turn for the pass's
seconds. Their figures include this machine's Python work per search (snippets, citations),
which shares the CPU with the server. The load average is noted before and after every pass.
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

from bench import corpora
from bench.corpora import Corpus
from bench.postgres_server import OWNER, PgCluster, find_bin_dir
from bench.queries import query_sets
from bench.stats import figure, load, values_figure
from indexing.settings import Settings

BACKENDS = ("sqlite", "postgresql")
KINDS = ("words", "exact")
WARMUP = 3  # untimed searches before each timed run: connection caches, prepared statements
AGREE_K = 100  # hits compared per exact query: every line of a distinctive one
BARRIER_TIMEOUT_S = 300.0  # a client that never arrives is a failed step, not a hung bench


def corpus_named(key: str) -> Corpus:
    for corpus in (*corpora.CORPORA, *corpora.EVAL_CORPORA):
        if corpus.key == key:
            return corpus
    raise ValueError(f"{key!r} is not a bench corpus; known: "
                     f"{', '.join(c.key for c in (*corpora.CORPORA, *corpora.EVAL_CORPORA))}")


def _search(searcher: Any, query: str, k: int | None = None) -> Any:
    from search.types import DEFAULT_K, SearchRequest

    return searcher.search(SearchRequest(query, mode="lexical", k=k or DEFAULT_K))


def exact_agreement(searchers: dict[str, Any], exact: list[str]) -> dict[str, Any]:
    """Exact text is grep's on both backends, so both must find the same lines: the queries
    whose (path, line) sets differ, untimed. A fast wrong answer is not a figure."""
    differ = []
    for query in exact:
        found = [{(h.path, h.span.start_line) for h in _search(searchers[b], query, AGREE_K).hits}
                 for b in BACKENDS]
        if found[0] != found[1]:
            differ.append(query)
    return {"queries": len(exact), "same": len(exact) - len(differ), "differ": differ[:5],
            "k": AGREE_K}


def _timed(searcher: Any, queries: list[str]) -> list[float]:
    for query in queries[:WARMUP]:
        _search(searcher, query)
    times = []
    for query in queries:
        started = time.perf_counter()
        _search(searcher, query)
        times.append(time.perf_counter() - started)
    return times


def _cold_indexes(tree: Path, url: str, scratch: Path, passes: int) -> dict[str, Any]:
    """`passes` cold indexes of `tree` on each backend, alternating, each into a fresh SQLite
    directory (`sqlite_root(scratch, i)`) and a fresh repository (`repo_name(i)`); the first
    pass's are the ones searched after. Times are wall times of `Indexer.index`, the same call
    on both, with the same settings (default workers)."""
    from indexing.postgres.team_index import index_repository
    from kebab_lsp.workspace import Workspace

    seconds: dict[str, list[float]] = {b: [] for b in BACKENDS}
    files: dict[str, int] = {}
    pass_load: list[float] = []
    for i in range(passes):
        pass_load.append(load())
        settings = Settings(index_dir=str(sqlite_root(scratch, i)), embed=False)
        started = time.perf_counter()
        local = Workspace(tree, settings)
        summary = local.indexer.index(rebuild=True)
        seconds["sqlite"].append(time.perf_counter() - started)
        files["sqlite"] = summary.new
        local.close()
        if i:
            shutil.rmtree(sqlite_root(scratch, i), ignore_errors=True)
        empty_repository(url, repo_name(i))
        started = time.perf_counter()
        team = index_repository(tree, url, repo_name(i), settings)
        seconds["postgresql"].append(time.perf_counter() - started)
        files["postgresql"] = team.new
        if i:
            empty_repository(url, repo_name(i))
    index = {b: {"files": files[b], "seconds": values_figure(seconds[b]),
                 "files_per_s": values_figure([files[b] / s for s in seconds[b]])}
             for b in BACKENDS}
    return {**index, "pass_load": pass_load}


def empty_repository(url: str, repo: str) -> None:
    """No rows of `repo`: a cold index starts from none, and a database given with `--store`
    keeps none of the bench's repositories after it."""
    from indexing.postgres.store import PgStore

    store = PgStore.open(url, repo, create=True)
    try:
        store.empty()
    finally:
        store.close()


def sqlite_root(scratch: Path, i: int) -> Path:
    return scratch / f"sqlite-{i}"


def repo_name(i: int) -> str:
    return f"bench-{i}"


def latency(tree: Path, url: str, scratch: Path, words: list[str], exact: list[str],
            passes: int) -> dict[str, Any]:
    """The same queries on both backends, passes interleaved."""
    from kebab_lsp.team import TeamWorkspace
    from kebab_lsp.workspace import Workspace

    local = Workspace(tree, Settings(index_dir=str(sqlite_root(scratch, 0)), embed=False))
    team = TeamWorkspace(url, repo_name(0), Settings(embed=False), tree)
    searchers = {"sqlite": local.searcher, "postgresql": team.searcher}
    sets = {"words": words, "exact": exact}
    runs: dict[str, dict[str, list[list[float]]]] = {b: {k: [] for k in KINDS} for b in BACKENDS}
    pass_load = []
    try:
        agreement = exact_agreement(searchers, exact)
        for _ in range(passes):
            pass_load.append(load())
            for backend in BACKENDS:
                for kind in KINDS:
                    runs[backend][kind].append(_timed(searchers[backend], sets[kind]))
    finally:
        team.close()
        local.close()
    return {**{b: {k: figure(runs[b][k]) for k in KINDS} for b in BACKENDS},
            "pass_load": pass_load, "exact_agreement": agreement}


def _client(url: str, queries: list[str], passes: int, seconds: float, barrier: Any,
            out: Any) -> None:
    """One client process: its own connection; at each pass, the queries in turn until the
    pass's time is up, then its timings and its own elapsed time to the parent."""
    from kebab_lsp.team import TeamWorkspace

    team = TeamWorkspace(url, repo_name(0), Settings(embed=False))
    try:
        for query in queries[:WARMUP]:
            _search(team.searcher, query)
        for _ in range(passes):
            barrier.wait(BARRIER_TIMEOUT_S)
            times: list[float] = []
            began = time.monotonic()
            i = 0
            while time.monotonic() < began + seconds:
                started = time.perf_counter()
                _search(team.searcher, queries[i % len(queries)])
                times.append(time.perf_counter() - started)
                i += 1
            out.put((times, time.monotonic() - began))
    finally:
        team.close()


def concurrent(url: str, queries: list[str], clients: int, seconds: float, passes: int
               ) -> dict[str, Any]:
    """`clients` processes against one PostgreSQL, `passes` runs of `seconds` each. The rate
    of a pass is each client's own rate over its own run, summed (starting a process is not
    searching)."""
    ctx = multiprocessing.get_context("spawn")
    results = ctx.Queue()
    barrier = ctx.Barrier(clients + 1)
    procs = [ctx.Process(target=_client, args=(url, queries[i:] + queries[:i], passes, seconds,
                                                barrier, results), daemon=True)
             for i in range(clients)]
    for proc in procs:
        proc.start()
    runs: list[list[float]] = []
    rates: list[float] = []
    searches: list[int] = []
    load_before: list[float] = []
    load_after: list[float] = []
    try:
        for _ in range(passes):
            load_before.append(load())
            barrier.wait(BARRIER_TIMEOUT_S)
            got = [results.get(timeout=seconds + BARRIER_TIMEOUT_S) for _ in procs]
            load_after.append(load())
            runs.append([t for times, _ in got for t in times])
            rates.append(sum(len(times) / elapsed for times, elapsed in got))
            searches.append(sum(len(times) for times, _ in got))
        for proc in procs:
            proc.join(60)
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
                proc.join(10)
    return {"clients": clients, "seconds": seconds, "latency": figure(runs),
            "per_second": values_figure(rates), "searches": searches,
            "load_before": load_before, "load_after": load_after}


def run(tree: Path, url: str, passes: int, cold_passes: int, clients: int, seconds: float,
        n_names: int) -> dict[str, Any]:
    from kebab_lsp.workspace import Workspace

    scratch = Path(tempfile.mkdtemp(prefix="kebab-team-bench-"))
    try:
        index = _cold_indexes(tree, url, scratch, cold_passes)
        local = Workspace(tree, Settings(index_dir=str(sqlite_root(scratch, 0)), embed=False))
        index_dir = local.index_dir
        local.close()
        sets = query_sets(index_dir, n_names)
        exact = [f'"{q}"' for q in sets.exact]
        report: dict[str, Any] = {
            "tree": str(tree), "passes": passes, "cold_passes": cold_passes, "warmup": WARMUP,
            "index": index,
            "queries": {"words": len(sets.words), "exact": len(exact)},
            "latency": latency(tree, url, scratch, sets.words, exact, passes)}
        if clients:
            report["concurrent"] = concurrent(url, sets.words + exact, clients, seconds,
                                              passes)
        return report
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        empty_repository(url, repo_name(0))


def _server_version(url: str) -> str:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return f"PostgreSQL {row[0] if row else '?'}"


def measure(corpus: Corpus, passes: int, cold_passes: int, clients: int, seconds: float,
            n_names: int, url: str | None = None) -> dict[str, Any]:
    """The step: `corpus` on both backends, on the database at `url` or a throwaway server."""
    tree = corpora.fetch(corpus)
    cluster: PgCluster | None = None
    if url is None:
        bin_dir = find_bin_dir()
        if bin_dir is None:
            raise RuntimeError("no PostgreSQL installed (make tools installs it)")
        cluster = PgCluster(bin_dir)
        cluster.start()
        url = cluster.url(cluster.new_database(), OWNER)
    try:
        report = run(tree, url, passes, cold_passes, clients, seconds, n_names)
        report.update(corpus=corpus.label, server=_server_version(url),
                      throwaway_server=cluster is not None)
        return report
    finally:
        if cluster is not None:
            cluster.stop()


def main(argv: list[str] | None = None) -> int:
    from bench import config
    from bench.report import team_store_section

    parser = argparse.ArgumentParser(prog="python -m bench.team_store", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", nargs="?", default=config.TEAM_CORPUS,
                        help="a bench corpus's key (default: %(default)s)")
    parser.add_argument("--store", default=None, metavar="URL",
                        help="a database to use (default: a throwaway server)")
    parser.add_argument("--passes", type=int, default=config.PASSES)
    parser.add_argument("--cold-passes", type=int, default=config.COLD_PASSES)
    parser.add_argument("--clients", type=int, default=config.TEAM_CLIENTS)
    parser.add_argument("--seconds", type=float, default=config.TEAM_SECONDS)
    parser.add_argument("--names", type=int, default=config.N_NAMES)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = measure(corpus_named(args.corpus), args.passes, args.cold_passes, args.clients,
                     args.seconds, args.names, args.store)
    print(json.dumps(report, sort_keys=True) if args.json
          else "\n".join(team_store_section({"team_store": report})))
    return 0


if __name__ == "__main__":
    sys.exit(main())
