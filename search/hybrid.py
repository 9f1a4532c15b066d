"""Reciprocal-rank fusion of the lexical and vector arms.

Both arms rank the same unit, chunks keyed by `chunk_id`, so a chunk found by both fuses
into one hit. The fused score is normalized by `n_arms/(k_rrf+1)` so that a chunk ranked first
by every arm scores exactly 1.0. Ties break by lexical rank (a found-by-words hit before one
that was not), then by chunk id: deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_K_RRF = 60


def oversample(k: int) -> int:
    """How many candidates each arm contributes before fusion: cutting an arm at k loses
    answers that the other arm would have lifted."""
    return max(50, 5 * k)


@dataclass(frozen=True, slots=True)
class Fused:
    chunk_id: str
    score: float
    lexical_rank: int | None
    vector_rank: int | None


def rrf(
    lexical: Mapping[str, int], vector: Mapping[str, int], k_rrf: int = DEFAULT_K_RRF,
    n_arms: int = 2,
) -> list[Fused]:
    """`lexical` and `vector` map chunk id to 1-based rank within that arm."""
    norm = n_arms / (k_rrf + 1)
    fused: list[Fused] = []
    for cid in set(lexical) | set(vector):
        lr, vr = lexical.get(cid), vector.get(cid)
        raw = (1.0 / (k_rrf + lr) if lr else 0.0) + (1.0 / (k_rrf + vr) if vr else 0.0)
        fused.append(Fused(cid, raw / norm, lr, vr))
    big = 1 << 30
    fused.sort(key=lambda f: (-f.score, f.lexical_rank or big, f.chunk_id))
    return fused
