"""Two commits through the real server, alternating: the check that a change made searches
slower where a user feels it, idle and while a second folder cold-indexes.

One `make bench` run per commit cannot tell: this host's p95 over a pass moves by a fifth
from run to run, with the same code. Here the bench's own server steps (`idle_queries`,
`background`) run on each commit in turn, `--rounds` times, each on an index its own code
built, so a difference must hold in every round to count. `bench.against_commit` times the
same queries in-process, without the server and the wire.

    git worktree add /tmp/old OLD && git worktree add /tmp/new NEW
    python -m bench.server_ab /tmp/old /tmp/new OUT.json [--rounds 3]

Each checkout's code serves (it is put first on the server's PYTHONPATH); this checkout's
bench drives both, on the main corpus (Django) and its query sets.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import corpora
from bench.config import PASSES, log
from bench.measure_background import background
from bench.measure_server import idle_queries
from bench.queries import QuerySets, query_sets
from bench.server import start_server, wait_ready

#: The figures printed for each run: (label, path into its record).
SHOWN = (("idle lexical p95", ("idle", "search_lexical")),
         ("idle auto p95", ("idle", "search_auto")),
         ("idle symbol p95", ("idle", "symbol_exact")),
         ("cold-indexing lexical p95", ("background", "search_lexical")),
         ("cold-indexing auto p95", ("background", "search_auto")))


def build_index(checkout: Path, root: Path, index_root: Path) -> None:
    """The index `kebab index` of that commit builds, as the bench's index step does."""
    subprocess.run([sys.executable, "-m", "bench.measure_index", str(root), str(index_root)],
                   cwd=checkout, env={**os.environ, "PYTHONPATH": str(checkout)}, check=True,
                   capture_output=True)


def one_run(checkout: Path, index_root: Path, qs: QuerySets, work: Path) -> dict[str, Any]:
    """The server of `checkout` on a copy of its index (the second folder's index lands
    there too, and must not be warm in the next run): idle passes, then the cold index."""
    corpus = corpora.CORPORA[0]
    run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=work))
    shutil.copytree(index_root, run_dir / "index")
    os.environ["PYTHONPATH"] = str(checkout)  # the server's code; this process keeps its own
    client = start_server([corpus.root], run_dir / "index", 1, 0, run_dir / "server.log")
    try:
        wait_ready(client, 3600)
        return {"checkout": str(checkout), "idle": idle_queries(client, corpus.root, qs, PASSES),
                "background": background(client, corpus, qs, run_dir)}
    finally:
        client.close()
        shutil.rmtree(run_dir, ignore_errors=True)


def _folder_index(index_root: Path) -> Path:
    """The folder's own index under `index_root` (not the shared `_models`)."""
    return next(p for p in sorted(index_root.iterdir())
                if p.is_dir() and not p.name.startswith("_"))


def table(runs: list[dict[str, Any]]) -> str:
    """A line per run: each figure's median over its passes, and the query rounds the client
    got through while the copy indexed."""
    lines = ["| run | checkout | " + " | ".join(label for label, _ in SHOWN) + " | rounds |",
             "|---|---|" + "---|" * (len(SHOWN) + 1)]
    for n, run in enumerate(runs, start=1):
        cells = [f"{run[a][b]['p95_ms']['median']:.1f} ms" for _, (a, b) in SHOWN]
        lines.append(f"| {n} | {Path(run['checkout']).name} | " + " | ".join(cells)
                     + f" | {sum(run['background']['rounds'])} |")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.server_ab")
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    corpus = corpora.CORPORA[0]
    corpora.fetch(corpus)
    work = Path(tempfile.mkdtemp(prefix="kebab-server-ab-"))
    try:
        indexes = {}
        for checkout in (args.old, args.new):
            indexes[checkout] = work / f"index-{checkout.name}"
            log(f"indexing {corpus.key} with {checkout}")
            build_index(checkout.resolve(), corpus.root, indexes[checkout])
        # One query set for both, read from the new commit's index by this checkout's code.
        qs = query_sets(_folder_index(indexes[args.new]), 100)
        runs: list[dict[str, Any]] = []
        for n in range(args.rounds):
            for checkout in (args.old, args.new):
                log(f"round {n + 1}: {checkout}")
                runs.append(one_run(checkout.resolve(), indexes[checkout], qs, work))
                args.out.write_text(json.dumps(runs, indent=1))
        print(table(runs))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
