"""Latency of the workspace/symbol matcher on a synthetic 100k-symbol workspace.

Run: .venv/bin/python -m bench.bench_symbols [N] [--json]

The identifiers are synthesized (fixed seed) to look like a mixed Python/TypeScript/Go/Rust
code base: camelCase, PascalCase, snake_case and SCREAMING_CASE names built from a shared
vocabulary, so short queries hit tens of thousands of names, as they would in a real repo.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # also runs as a script

from bench.config import PASSES  # noqa: E402
from bench.stats import figure  # noqa: E402
from indexing.records import Span, Symbol, SymbolKind  # noqa: E402
from indexing.store import SymbolRow  # noqa: E402
from search.symbols import SymbolMatcher  # noqa: E402

VOCAB = [
    "get",
    "set",
    "user",
    "by",
    "id",
    "name",
    "parse",
    "json",
    "http",
    "client",
    "server",
    "request",
    "response",
    "handle",
    "handler",
    "config",
    "load",
    "save",
    "file",
    "path",
    "index",
    "search",
    "query",
    "result",
    "error",
    "cache",
    "manager",
    "service",
    "factory",
    "build",
    "create",
    "delete",
    "update",
    "list",
    "map",
    "item",
    "node",
    "tree",
    "token",
    "stream",
    "reader",
    "writer",
    "buffer",
    "encode",
    "decode",
    "session",
    "auth",
    "login",
    "logout",
    "render",
    "view",
    "model",
    "store",
    "state",
    "event",
    "listener",
    "emit",
    "dispatch",
    "action",
    "reducer",
    "router",
    "route",
    "match",
    "symbol",
    "kind",
    "span",
    "range",
    "line",
    "column",
    "offset",
    "text",
    "chunk",
    "vector",
    "embed",
    "score",
    "rank",
    "merge",
    "sort",
    "filter",
    "limit",
    "count",
    "total",
    "init",
    "start",
    "stop",
    "run",
    "task",
    "worker",
    "pool",
    "queue",
    "lock",
    "mutex",
    "channel",
    "async",
    "await",
    "future",
]

QUERIES = (
    "a",
    "g",
    "x",
    "ge",
    "us",
    "get",
    "user",
    "gubi",
    "GUBI",
    "getUserById",
    "get_user",
    "userby",
    "parseJson",
    "HttpClient",
    "handler",
    "cfg",
    "zzqq",
    "SearchQueryResult",
    "renderview",
    "Service",
    "tokenStreamReader",
    "qwertyuiopas",
    "UserService.get",
    "http::client::send",
    "Manager.",
    "srv.hr",
)


def _name(rng: random.Random) -> tuple[str, SymbolKind]:
    words = rng.sample(VOCAB, rng.choice((1, 2, 2, 3, 3, 3, 4)))
    style = rng.random()
    if style < 0.3:
        return words[0] + "".join(w.title() for w in words[1:]), SymbolKind.METHOD
    if style < 0.5:
        return "".join(w.title() for w in words), SymbolKind.CLASS
    if style < 0.8:
        return "_".join(words), rng.choice((SymbolKind.FUNCTION, SymbolKind.VARIABLE))
    if style < 0.9:
        return "_".join(words).upper(), SymbolKind.CONSTANT
    return "".join(w.title() for w in words), SymbolKind.FIELD


def synth_rows(n: int, seed: int = 7) -> list[SymbolRow]:
    rng = random.Random(seed)
    rows: list[SymbolRow] = []
    classes = ["".join(w.title() for w in rng.sample(VOCAB, 2)) for _ in range(2000)]
    for i in range(n):
        name, kind = _name(rng)
        container = rng.choice(classes) if kind in (SymbolKind.METHOD, SymbolKind.FIELD) else None
        module = "/".join(rng.sample(VOCAB, 2))
        path = f"src/{module}/{rng.choice(VOCAB)}_{i % 97}.py"
        is_test = rng.random() < 0.15
        if is_test:
            path = "tests/" + path
        # As the extractor spells it: scopes joined by ".", a package prefix only for Go.
        package = module.split("/")[0] + "." if i % 5 == 0 else ""
        qualified = f"{package}{container + '.' if container else ''}{name}"
        line = rng.randrange(5000)
        span = Span(line, 0, line + 3, 0)
        sym = Symbol(name, kind, container, qualified, span, span)
        rows.append(SymbolRow(i + 1, path, is_test, sym))
    return rows


def time_queries(matcher: SymbolMatcher, repeats: int
                 ) -> tuple[dict[str, list[float]], dict[str, str]]:
    """One pass: every query `repeats` times (seconds each), and what each query found, so that
    a query that got fast by matching nothing shows it."""
    times: dict[str, list[float]] = {}
    found: dict[str, str] = {}
    for query in QUERIES:
        times[query] = []
        for _ in range(repeats):
            t = time.perf_counter()
            result = matcher.match(query, 100)
            times[query].append(time.perf_counter() - t)
        top = result.items[0].row.symbol.name if result.items else "-"
        bound = "+" if result.total_is_lower_bound else ""
        found[query] = f"{result.total:,}{bound} matches, first {top}"
    return times, found


def bench_symbols(n: int = 100_000, repeats: int = 15, passes: int = PASSES) -> dict[str, Any]:
    """`passes` passes over every query on one matcher; per query and over all queries, a
    figure (bench/stats.py: each pass its own p50/p95, reported as median and spread)."""
    rows = synth_rows(n)
    t0 = time.perf_counter()
    matcher = SymbolMatcher(rows)
    build_ms = (time.perf_counter() - t0) * 1000
    runs: list[dict[str, list[float]]] = []
    found: dict[str, str] = {}
    for _ in range(passes):
        times, found = time_queries(matcher, repeats)
        runs.append(times)
    return {
        "symbols": n, "repeats": repeats, "build_ms": build_ms, "found": found,
        "all": figure([[t for q in QUERIES for t in run[q]] for run in runs]),
        "queries": {q: figure([run[q] for run in runs]) for q in QUERIES},
    }


def _ms(spread: dict[str, float]) -> str:
    return f"{spread['median']:6.2f} ({spread['min']:.2f}–{spread['max']:.2f})"


def main(argv: list[str]) -> None:
    as_json = "--json" in argv
    args = [a for a in argv if a != "--json"]
    result = bench_symbols(int(args[0]) if args else 100_000)
    if as_json:
        print(json.dumps(result))
        return
    print(f"built {result['symbols']} symbols in {result['build_ms']:.0f} ms; "
          f"ms as median (min–max) of {PASSES} passes")
    for query in QUERIES:
        fig = result["queries"][query]
        print(f"{query!r:22} {result['found'][query]:42} p50 {_ms(fig['p50_ms'])}  "
              f"p95 {_ms(fig['p95_ms'])}")
    print(f"all queries: p50 {_ms(result['all']['p50_ms'])}  p95 {_ms(result['all']['p95_ms'])}")


if __name__ == "__main__":
    main(sys.argv[1:])
