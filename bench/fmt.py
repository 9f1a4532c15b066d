"""How numbers look in the report and the goals table, so that a figure reads the same in both."""

from __future__ import annotations

import math
from typing import Any


def f1(x: float | None, unit: str = "") -> str:
    """One decimal below 1,000, none above (1,106 ms, not 1106.3 ms)."""
    if x is None or math.isnan(x):
        return "n/a"
    return f"{x:,.1f}{unit}" if abs(x) < 1000 else f"{x:,.0f}{unit}"


def f2(x: float | None, unit: str = "") -> str:
    """Two decimals, for seconds and ratios near 1."""
    if x is None or math.isnan(x):
        return "n/a"
    return f"{x:,.2f}{unit}"


def ratio(a: float | None, b: float | None) -> str:
    if not a or not b or math.isnan(a) or math.isnan(b):
        return "n/a"
    x = a / b
    return f"{x:.2f}×" if x >= 0.1 else f"{x:.3f}×"


def spread(s: dict[str, Any] | None, unit: str = "", digits: int = 1) -> str:
    """A figure over passes as "median (min–max)" with the unit last; just the value when the
    passes agree or there was one pass."""
    if not s:
        return "n/a"
    num = f1 if digits == 1 else f2
    median, lo, hi = num(s["median"]), num(s["min"]), num(s["max"])
    if median == "n/a":
        return median
    return f"{median}{unit}" if lo == hi else f"{median} ({lo}–{hi}){unit}"


def ratio_spread(s: dict[str, Any] | None) -> str:
    """A per-pass ratio (bench.stats.per_pass_ratio) as "3.9× (3.1–4.4×)"."""
    if not s or math.isnan(s["median"]):
        return "n/a"
    digits = 2 if s["min"] >= 0.1 else 3
    median, lo, hi = (f"{s[k]:.{digits}f}" for k in ("median", "min", "max"))
    return f"{median}×" if lo == hi else f"{median}× ({lo}–{hi}×)"


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("**met**" if ok else "**not met**")


def loads(values: list[float] | None) -> str:
    """The 1-minute load average at the start of each pass."""
    return ", ".join(f"{v:.1f}" for v in values) if values else "n/a"
