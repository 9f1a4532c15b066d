"""Quality: the real `kebab eval` on each quality corpus, with its hand-written questions and the
plain baseline, and the goals of the search-by-meaning issue read off its report.

Ranking quality is deterministic for a given index, so it runs once; its in-process latency
columns come from `kebab eval` itself (one pass, the same nearest-rank percentile) and are not
goals.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench import corpora
from bench.config import EVAL_PER_SET

MODES = ("lexical", "vector", "hybrid", "auto")
COLUMNS = (*MODES, "baseline_dense", "baseline_bm25", "baseline_hybrid")
PROSE_SETS = ("nl", "nl_blanked", "hand")


def quality(work: Path) -> list[dict[str, Any]]:
    out = []
    for c in corpora.EVAL_CORPORA:
        corpora.fetch(c)
        t0 = time.perf_counter()
        argv = [sys.executable, "-m", "kebab_lsp.cli", "eval", str(c.root), "--json",
                "--per-set", str(EVAL_PER_SET), "--index-dir", str(work / f"eval-{c.key}")]
        questions = corpora.questions_file(c)
        if questions is not None:
            argv += ["--questions", str(questions)]
        proc = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=7200)
        out.append({"corpus": c.label, "key": c.key, "seconds": time.perf_counter() - t0,
                    "report": json.loads(proc.stdout)})
    return out


def quality_goals(sets: dict[str, Any]) -> list[tuple[str, str, float, float]]:
    """(set, goal, ours, theirs) for every goal of the search-by-meaning issue, met or not."""
    out: list[tuple[str, str, float, float]] = []
    for name in PROSE_SETS:
        m = sets.get(name)
        if not m or "baseline_dense" not in m:
            continue
        mrr = {mode: v["mrr@10"] for mode, v in m.items()}
        out.append((name, "vector ≥ baseline dense", mrr["vector"], mrr["baseline_dense"]))
        out.append((name, "hybrid ≥ baseline hybrid", mrr["hybrid"], mrr["baseline_hybrid"]))
        out.append((name, "hybrid ≥ best kebab arm", mrr["hybrid"],
                    max(mrr["lexical"], mrr["vector"])))
        out.append((name, "auto ≥ hybrid", mrr["auto"], mrr["hybrid"]))
    return out


def at_least(ours: float, theirs: float) -> bool:
    return ours >= theirs - 1e-9
