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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import corpora
from bench.config import EVAL_PER_SET
from search.evaluation import PairedDifference, paired_difference

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


@dataclass(frozen=True, slots=True)
class QualityGoal:
    """One goal of the search-by-meaning issue on one set: `ours` against `theirs` (MRR@10),
    and their paired difference over the set's questions when the report has each question's
    score."""

    set: str
    what: str
    ours: float
    theirs: float
    noise: PairedDifference | None

    @property
    def met(self) -> bool:
        return self.ours >= self.theirs - 1e-9

    def judged(self) -> str:
        """The comparison and how it stands against the draw of questions."""
        text = f"{self.ours:.3f} vs {self.theirs:.3f}"
        if self.noise is None:
            return text
        d = self.noise
        where = "beyond noise" if d.beyond_noise else "within noise"
        return f"{text} (Δ {d.mean:+.3f}, 95% CI {d.low:+.3f} to {d.high:+.3f}: {where})"


def quality_goals(sets: dict[str, Any]) -> list[QualityGoal]:
    """Every goal of the search-by-meaning issue, met or not."""
    out: list[QualityGoal] = []
    for name in PROSE_SETS:
        m = sets.get(name)
        if not m or "baseline_dense" not in m:
            continue

        def goal(what: str, ours: str, theirs: str, m: dict[str, Any] = m,
                 name: str = name) -> QualityGoal:
            a, b = m[ours], m[theirs]
            noise = (paired_difference(a["rr"], b["rr"])
                     if a.get("rr") and len(a["rr"]) == len(b.get("rr", ())) else None)
            return QualityGoal(name, what, a["mrr@10"], b["mrr@10"], noise)

        best_arm = max(("lexical", "vector"), key=lambda mode: m[mode]["mrr@10"])
        out += [goal("vector ≥ baseline dense", "vector", "baseline_dense"),
                goal("hybrid ≥ baseline hybrid", "hybrid", "baseline_hybrid"),
                goal("hybrid ≥ best kebab arm", "hybrid", best_arm),
                goal("auto ≥ hybrid", "auto", "hybrid")]
    return out
