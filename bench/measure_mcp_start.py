"""How fast `kebab mcp` starts: spawn → `initialize` answered, `tools/list`, and the first
`codebase_search` (index already built), with the MCP SDK's client over stdio.

Run: `python -m bench.measure_mcp_start [ROOT] [--runs 5]`. Prints the median (min–max) of each
in milliseconds. The goal is `initialize` and `tools/list` under 300 ms once the interpreter
and the SDK are loaded; the spawn figure includes Python and the `mcp` package importing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


async def one_run(root: Path, index_dir: Path) -> dict[str, float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = dict(os.environ, HF_HUB_OFFLINE="1",
               PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH"))
                                          if p))
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "kebab_lsp.cli", "mcp", str(root), "--index-dir", str(index_dir),
              "--no-embed"], env=env)
    out: dict[str, float] = {}
    with open(os.devnull, "w") as devnull:
        t0 = time.perf_counter()
        async with stdio_client(params, errlog=devnull) as (read, write), \
                ClientSession(read, write) as session:
            t1 = time.perf_counter()
            await session.initialize()
            t2 = time.perf_counter()
            await session.list_tools()
            t3 = time.perf_counter()
            await session.call_tool("codebase_search", {"query": "get_user_by_id"})
            t4 = time.perf_counter()
            await session.call_tool("codebase_search", {"query": "add_user"})
            t5 = time.perf_counter()
    out["spawn_to_initialized_ms"] = (t2 - t0) * 1000
    out["initialize_ms"] = (t2 - t1) * 1000
    out["tools_list_ms"] = (t3 - t2) * 1000
    out["first_search_ms"] = (t4 - t3) * 1000
    out["second_search_ms"] = (t5 - t4) * 1000
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default=str(REPO / "tests" / "fixtures" /
                                                       "sample_repo"))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory(prefix="kebab-mcp-start-") as index_dir:
        asyncio.run(one_run(Path(args.root), Path(index_dir)))  # builds the index once
        for _ in range(args.runs):
            runs.append(asyncio.run(one_run(Path(args.root), Path(index_dir))))
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(f"{key:26} {statistics.median(values):8.1f}  "
              f"({min(values):.1f}–{max(values):.1f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
