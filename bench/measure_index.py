"""The lexical index itself: a cold index and no-change re-indexes of each corpus, each in a child
process so that its peak RSS is its own, and a profile of what one didSave runs.

`python -m bench.measure_index ROOT INDEX_ROOT` is the child: it prints one JSON line.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import corpora
from bench.config import REPO
from bench.corpora import Corpus
from bench.stats import load, values_figure

REINDEXES = 3  # no-change re-indexes after each cold index


def index_child(root: str, index_root: str) -> None:
    from indexing.settings import Settings
    from kebab_lsp.workspace import Workspace

    ws = Workspace(Path(root), Settings(index_dir=str(index_root)))
    cold = ws.indexer.index(rebuild=True)
    rss_cold = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    again = [ws.indexer.index() for _ in range(REINDEXES)]
    stats = ws.store.stats()
    out = {
        "cold_s": cold.seconds, "scanned": cold.scanned, "new": cold.new,
        "skipped": cold.skipped, "skipped_by_reason": cold.skipped_by_reason,
        "reindex_s": [a.seconds for a in again],
        "reindex_unchanged": again[-1].unchanged, "reindex_changed": again[-1].changed,
        "files": stats.files, "symbols": stats.symbols, "chunks": stats.chunks,
        "langs": stats.langs,
        "peak_rss_self_mb": rss_cold / 1024,
        "peak_rss_children_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
        "index_dir": str(ws.index_dir), "workers": ws.indexer.workers,
    }
    ws.close()
    print(json.dumps(out))


def _one_cold_index(corpus: Corpus, index_root: Path) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, "-m", "bench.measure_index", str(corpus.root),
                           str(index_root)], cwd=REPO, capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"index child failed for {corpus.key}: {proc.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def cold_index(corpus: Corpus, index_root: Path, work: Path, passes: int) -> dict[str, Any]:
    """`passes` cold indexes of one corpus. The first goes to `index_root`, where every later
    step reads it; the others go to scratch roots (so each is cold) that are removed after."""
    root = corpus.root
    files, size = corpora.tree_size(root)
    runs: list[dict[str, Any]] = []
    loads: list[float] = []
    for i in range(passes):
        scratch = index_root if i == 0 else work / f"cold-{corpus.key}-{i}"
        loads.append(load())
        runs.append(_one_cold_index(corpus, scratch))
        if i:
            shutil.rmtree(scratch, ignore_errors=True)
    first = runs[0]
    index_dir = Path(first["index_dir"])
    indexed_mb = sum((root / p).stat().st_size for p in indexed_paths(index_dir)) / 1e6
    cold = [r["cold_s"] for r in runs]
    return {
        **{k: first[k] for k in ("scanned", "new", "skipped", "skipped_by_reason", "files",
                                 "symbols", "chunks", "langs", "index_dir", "workers",
                                 "reindex_unchanged", "reindex_changed")},
        "corpus": corpus.label, "lang": corpus.lang, "tree_files": files, "tree_mb": size / 1e6,
        "indexed_mb": indexed_mb, "index_mb": dir_bytes(index_dir) / 1e6,
        "cold_s": values_figure(cold),
        "files_per_s": values_figure([first["scanned"] / s if s else None for s in cold]),
        "mb_per_s": values_figure([indexed_mb / s if s else None for s in cold]),
        # Every re-index of every pass: the no-change goal is met only if each one is.
        "reindex_s": values_figure([s for r in runs for s in r["reindex_s"]]),
        "peak_rss_self_mb": values_figure([r["peak_rss_self_mb"] for r in runs]),
        "peak_rss_children_mb": values_figure([r["peak_rss_children_mb"] for r in runs]),
        "load": loads,
    }


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def indexed_paths(index_dir: Path) -> list[str]:
    from indexing.store import Store

    store = Store(index_dir)
    try:
        return [f.path for f in store.file_texts()]
    finally:
        store.close()


def save_profile(corpus: Corpus, index_root: Path, rel: str) -> dict[str, Any]:
    """cProfile of one in-process `Indexer.update_paths` (what a didSave runs), to say where a
    slow save goes; a profile, not a timing, so it runs once."""
    import cProfile
    import pstats

    from indexing.settings import Settings
    from kebab_lsp.workspace import Workspace

    ws = Workspace(corpus.root, Settings(index_dir=str(index_root), workers=1))
    path = corpus.root / rel
    original = path.read_bytes()
    prof = cProfile.Profile()
    try:
        path.write_bytes(original + b"\n\ndef kebab_bench_profiled():\n    return 0\n")
        t0 = time.perf_counter()
        prof.enable()
        ws.indexer.update_paths([path.resolve()])
        prof.disable()
        seconds = time.perf_counter() - t0
    finally:
        path.write_bytes(original)
        ws.indexer.update_paths([path.resolve()])
        ws.close()
    stats = pstats.Stats(prof)
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    top = sorted(table.items(), key=lambda kv: kv[1][2], reverse=True)[:4]
    return {"file": rel, "seconds": seconds,
            "top_tottime": [f"{fn[0].split('/')[-1]}:{fn[1]}({fn[2]}) {v[2]:.2f} s"
                            for fn, v in top]}


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: python -m bench.measure_index ROOT INDEX_ROOT")
    index_child(sys.argv[1], sys.argv[2])
