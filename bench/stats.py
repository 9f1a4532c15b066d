"""How the bench turns timings into figures, in one place: one percentile definition, passes, and
the rule that a goal is met only when every pass meets it.

A *pass* is one run over a query set; it has its own p50, p95 and max. A *figure* is several
passes of the same thing: each statistic is reported as the median of the passes and their
spread (min–max), so one lucky or unlucky pass on a shared machine can neither make nor break a
goal. Percentiles are nearest-rank (`search.evaluation.percentile`, the one `kebab eval` uses):
the value at rank ⌈p/100 · n⌉ of the n sorted values, so every reported figure is a time that
was actually measured. The median of passes is the same nearest-rank p50: for three passes,
the middle one.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from search.evaluation import percentile

NAN = float("nan")
STATS = ("p50_ms", "p95_ms", "max_ms")


def nearest_rank(values: Sequence[float], pct: float) -> float:
    """`percentile` on unsorted input; NaN for no values, because 0 ms would pass any goal."""
    return percentile(sorted(values), pct) if values else NAN


def summary(seconds: Sequence[float]) -> dict[str, Any]:
    """One pass: how many timings, and p50/p95/max in milliseconds."""
    return {"n": len(seconds), "p50_ms": nearest_rank(seconds, 50) * 1000,
            "p95_ms": nearest_rank(seconds, 95) * 1000,
            "max_ms": max(seconds) * 1000 if seconds else NAN}


def spread(values: Sequence[float | None]) -> dict[str, float]:
    """Median and range of one statistic over passes; passes with nothing timed (NaN, None)
    are left out."""
    real = [v for v in values if v is not None and not math.isnan(v)]
    if not real:
        return {"median": NAN, "min": NAN, "max": NAN}
    return {"median": nearest_rank(real, 50), "min": min(real), "max": max(real)}


def figure(passes: Sequence[Sequence[float]]) -> dict[str, Any]:
    """Several passes of one latency measurement (seconds in, milliseconds out).

    `passes` keeps each pass's summary, so report.json shows every run; `p50_ms`, `p95_ms` and
    `max_ms` are spreads; `n` is the number of timings per pass (the largest, if they differ).
    """
    runs = [summary(p) for p in passes]
    return {"n": max((r["n"] for r in runs), default=0), "passes": runs,
            **{key: spread([r[key] for r in runs]) for key in STATS}}


def values_figure(passes: Sequence[float | None]) -> dict[str, Any]:
    """Several passes of a single measurement (a cold index, a time to 50% embedded): one value
    per pass, reported as a spread that also keeps the passes."""
    return {**spread(passes), "passes": list(passes)}


def every_pass_below(fig: dict[str, Any], stat: str, limit: float) -> bool:
    """A goal's verdict: true only if each pass's `stat` is below `limit` (NaN never is)."""
    runs = fig.get("passes") or []
    return bool(runs) and all(r[stat] < limit for r in runs)


def worst(fig: dict[str, Any], stat: str) -> float:
    """The pass that decides a goal: the largest `stat` over the passes."""
    return float(fig[stat]["max"])


def per_pass_ratio(a: dict[str, Any], b: dict[str, Any], stat: str = "p50_ms"
                   ) -> dict[str, float]:
    """a / b pass by pass (pass i of one against pass i of the other), as a spread."""
    return spread([x[stat] / y[stat] if y[stat] else NAN
                   for x, y in zip(a["passes"], b["passes"], strict=False)])


def per_pass_value_ratio(a: dict[str, Any], b: dict[str, Any]) -> dict[str, float]:
    """a / b pass by pass for figures of one value per pass (`values_figure`), as a spread."""
    return spread([x / y if x is not None and y else NAN
                   for x, y in zip(a["passes"], b["passes"], strict=False)])


def load() -> float:
    """The 1-minute load average, noted next to every figure: other jobs share this machine
    (and the bench's own processes count too)."""
    return os.getloadavg()[0]


def cold_passes(passes: int, first: Path, scratch: Callable[[int], Path],
                one: Callable[[Path], dict[str, Any]]) -> tuple[list[dict[str, Any]], list[float]]:
    """Run a step that starts from cold `passes` times: the first into `first`, where later
    steps read its result, the others into scratch roots removed after (so each is cold).
    Returns each pass's result and the load average at its start."""
    runs: list[dict[str, Any]] = []
    loads: list[float] = []
    for i in range(passes):
        target = first if i == 0 else scratch(i)
        loads.append(load())
        runs.append(one(target))
        if i:
            shutil.rmtree(target, ignore_errors=True)
    return runs, loads
