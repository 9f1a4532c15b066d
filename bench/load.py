"""Load: a flood of mixed requests against the real server while files are edited and saved,
some requests cancelled. Every request must end in an answer or a cancellation (no error, no
deadlock), and afterwards the index must equal a fresh index of the final tree: no save lost,
none applied twice or out of order.

`python -m bench.load [--requests N] [--saves N] [--clients N] [--tree DIR]` prints the
figures as JSON; tests/e2e/test_lsp_load.py runs a smaller load as a test.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.lsp_client import LspClient, LspError
from search.evaluation import percentile

_NAME = re.compile(r"^\s*(?:def|func|function|class|fn)\s+([A-Za-z_]\w{3,})", re.M)
_WORD = re.compile(r"[a-z]{4,}")


@dataclass
class LoadFigures:
    requests: int = 0
    answered: int = 0
    cancelled: int = 0
    errors: list[str] = field(default_factory=list)
    saves: int = 0
    seconds: float = 0.0
    requests_per_s: float = 0.0
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    max_ms: float = 0.0
    index_equals_fresh: bool = False
    difference: str = ""


def _plan(root: Path, n: int, rng: random.Random) -> list[tuple[str, Any, bool]]:
    """(method, params, cancel) for `n` requests drawn from the tree's own names and words."""
    text = "\n".join(p.read_text(errors="replace") for p in sorted(root.rglob("*.py"))[:400])
    names = sorted(set(_NAME.findall(text))) or ["main"]
    words = sorted(set(_WORD.findall(text))) or ["value"]
    plan: list[tuple[str, Any, bool]] = []
    for i in range(n):
        roll = rng.random()
        name, word = rng.choice(names), rng.choice(words)
        if roll < 0.35:
            call: tuple[str, Any] = ("kebab/search", {"query": name, "mode": "lexical"})
        elif roll < 0.55:
            call = ("kebab/search", {"query": f"how does {word} {rng.choice(words)} work",
                                     "mode": "auto", "k": 50, "explain": True})
        elif roll < 0.65:
            call = ("kebab/search", {"query": f'"{word}"', "mode": "lexical", "k": 100})
        elif roll < 0.9:
            call = ("workspace/symbol", {"query": name[: rng.randint(2, len(name))]})
        else:
            call = ("kebab/status", None)
        plan.append((*call, i % 10 == 7))  # every tenth request is cancelled as it is sent
    return plan


class _Saver(threading.Thread):
    """Edits random files and sends didSave, `saves` times, while requests run: appends a
    function, changes a line, or takes an earlier edit back."""

    def __init__(self, client: LspClient, root: Path, saves: int, rng: random.Random,
                 stop: threading.Event) -> None:
        super().__init__(name="load-saver", daemon=True)
        self.client, self.root, self.saves, self.rng, self.stop = client, root, saves, rng, stop
        self.files = sorted(root.rglob("*.py"))
        self.done = 0
        self.failure: str | None = None

    def run(self) -> None:
        try:
            for i in range(self.saves):
                if self.stop.is_set():
                    return
                path = self.rng.choice(self.files)
                text = path.read_text()
                roll = self.rng.random()
                if roll < 0.5:
                    text += f"\n\ndef load_edit_{i}(value):\n    return value + {i}\n"
                elif roll < 0.8 and "load_edit_" in text:
                    text = re.sub(r"\n\ndef load_edit_\d+\(value\):\n    return value \+ \d+\n",
                                  "", text, count=1)
                else:
                    text = text.replace("return", f"return  # edited {i}\n    return", 1)
                path.write_text(text)
                self.client.notify("textDocument/didSave",
                                   {"textDocument": {"uri": path.as_uri()}})
                self.done += 1
                time.sleep(self.rng.uniform(0.0, 0.02))
        except Exception as exc:  # noqa: BLE001 - reported as a failure of the run
            self.failure = f"{type(exc).__name__}: {exc}"


def _wait_idle(client: LspClient, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline:
        status = client.request("kebab/status", None)
        quiet = quiet + 1 if not status["building"] else 0
        if quiet >= 3:  # idle three polls in a row: nothing left in flight
            return
        time.sleep(0.2)
    raise TimeoutError(f"the server was still building after {timeout:.0f} s")


def _snapshot(root: Path, index_root: Path) -> dict[str, Any]:
    from indexing.location import index_dir_for
    from indexing.store import Store

    store = Store(index_dir_for(root, index_root))
    try:
        return store.snapshot()
    finally:
        store.close()


def _fresh(root: Path, scratch: Path) -> dict[str, Any]:
    from indexing.settings import Settings
    from kebab_lsp.workspace import Workspace

    ws = Workspace(root, Settings(index_dir=str(scratch), workers=1, embed=False))
    try:
        ws.indexer.index()
        return ws.store.snapshot()
    finally:
        ws.close()


def _difference(got: dict[str, Any], want: dict[str, Any]) -> str:
    for table in want:
        a, b = set(got[table]), set(want[table])
        if a != b:
            only_got, only_want = sorted(a - b, key=repr)[:2], sorted(b - a, key=repr)[:2]
            return f"{table}: served index has {only_got}, a fresh one {only_want}"
    return ""


def run_load(root: Path, work: Path, requests: int = 2000, saves: int = 300,
             clients: int = 4, seed: int = 7) -> LoadFigures:
    """Run the load on a copy of `root` (its files are edited)."""
    rng = random.Random(seed)
    tree = work / "tree"
    shutil.copytree(root, tree)
    index_root = work / "index"
    client = LspClient([sys.executable, "-m", "kebab_lsp.cli", "serve", "--log-file",
                        str(work / "server.log")], env={"KEBAB_INDEX_DIR": str(index_root)})
    figures = LoadFigures(requests=requests)
    try:
        client.initialize([tree], {"embed": False, "debounceMs": 50, "workers": 1})
        _wait_idle(client, 600)
        plan = _plan(tree, requests, rng)
        lock = threading.Lock()
        latencies: list[float] = []
        stop = threading.Event()
        saver = _Saver(client, tree, saves, random.Random(seed + 1), stop)

        def worker(calls: Iterator[tuple[str, Any, bool]]) -> None:
            for method, params, cancel in calls:
                try:
                    if cancel:
                        outcome = client.cancelled(method, params)
                        with lock:
                            if outcome == "cancelled":
                                figures.cancelled += 1
                            else:
                                figures.answered += 1
                        continue
                    elapsed, _ = client.timed(method, params)
                    with lock:
                        figures.answered += 1
                        latencies.append(elapsed)
                except (LspError, TimeoutError, ConnectionError) as exc:
                    with lock:
                        figures.errors.append(f"{method}: {exc}")

        shared = iter(plan)
        lock_iter = threading.Lock()

        def calls() -> Iterator[tuple[str, Any, bool]]:
            while True:
                with lock_iter:
                    item = next(shared, None)
                if item is None:
                    return
                yield item

        threads = [threading.Thread(target=worker, args=(calls(),), daemon=True)
                   for _ in range(clients)]
        started = time.perf_counter()
        saver.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        figures.seconds = time.perf_counter() - started
        saver.join()
        stop.set()
        if saver.failure:
            figures.errors.append(f"saver: {saver.failure}")
        figures.saves = saver.done
        _wait_idle(client, 600)
    finally:
        client.close()
    figures.requests_per_s = figures.requests / figures.seconds if figures.seconds else 0.0
    ordered = sorted(latencies)
    figures.p50_ms = percentile(ordered, 50) * 1000
    figures.p95_ms = percentile(ordered, 95) * 1000
    figures.max_ms = (ordered[-1] if ordered else 0.0) * 1000
    got, want = _snapshot(tree, index_root), _fresh(tree, work / "fresh")
    figures.difference = _difference(got, want)
    figures.index_equals_fresh = not figures.difference
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--saves", type=int, default=300)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--tree", type=Path, default=None,
                        help="the tree to copy and load (default: click 8.1.7 from PyPI)")
    args = parser.parse_args(argv)
    tree = args.tree
    if tree is None:
        from bench import corpora

        tree = corpora.fetch(corpora.EVAL_CORPORA[0])
    with tempfile.TemporaryDirectory(prefix="kebab-load-") as tmp:
        figures = run_load(tree, Path(tmp), args.requests, args.saves, args.clients)
    print(json.dumps(asdict(figures), indent=2))
    ok = figures.index_equals_fresh and not figures.errors
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
