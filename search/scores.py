"""How a score is kept: short enough to read and to compare across runs, never so short that
a small score loses its order or its priors.

Scores were rounded to six decimals. A query whose every word is in most chunks (a Go
question about "errors returned") has a bm25 near zero, as FTS5 floors a word's inverse
document frequency at 1e-6: every hit scored 2e-06, and a prior (`search.priors`) scaled
2e-06 to 2.3e-06, which rounded back to 2e-06. The hits kept their order by accident, and a
test file or a definition was weighed like any other. Below 0.1 a score keeps six
significant digits instead, so it is never coarser than before.
"""

from __future__ import annotations


def kept(score: float) -> float:
    return round(score, 6) if abs(score) >= 0.1 else float(f"{score:.6g}")
