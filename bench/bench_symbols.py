"""Latency of the workspace/symbol matcher on a synthetic 100k-symbol workspace.

Run: .venv/bin/python bench/bench_symbols.py [n]

The identifiers are synthesized (fixed seed) to look like a mixed Python/TypeScript/Go/Rust
code base: camelCase, PascalCase, snake_case and SCREAMING_CASE names built from a shared
vocabulary, so short queries hit tens of thousands of names, as they would in a real repo.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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


def bench_symbols(n: int = 100_000, repeats: int = 15) -> dict[str, tuple[float, float]]:
    rows = synth_rows(n)
    t0 = time.perf_counter()
    matcher = SymbolMatcher(rows)
    print(f"built {n} symbols in {(time.perf_counter() - t0) * 1000:.0f} ms")
    figures: dict[str, tuple[float, float]] = {}
    every: list[float] = []
    for query in QUERIES:
        times: list[float] = []
        for _ in range(repeats):
            t = time.perf_counter()
            result = matcher.match(query, 100)
            times.append((time.perf_counter() - t) * 1000)
        every.extend(times)
        times.sort()
        p50 = statistics.median(times)
        p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
        figures[query] = (p50, p95)
        top = result.items[0].row.symbol.name if result.items else "-"
        bound = "+" if result.total_is_lower_bound else ""
        print(
            f"{query!r:24} p50 {p50:6.2f} ms  p95 {p95:6.2f} ms  "
            f"total {result.total}{bound:1} first {top}"
        )
    every.sort()
    overall = (statistics.median(every), every[int(0.95 * (len(every) - 1))])
    print(f"all queries: p50 {overall[0]:.2f} ms  p95 {overall[1]:.2f} ms")
    figures["*"] = overall
    return figures


if __name__ == "__main__":
    bench_symbols(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
