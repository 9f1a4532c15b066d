"""How a score is kept: short enough to read and to compare across runs, never so short that
a small score loses its order or its priors.

Scores were rounded to six decimals. A query whose every word is in most chunks (a Go
question about "errors returned") has a bm25 near zero, as FTS5 floors a word's inverse
document frequency at 1e-6: every hit scored 2e-06, and a prior (`search.priors`) scaled
2e-06 to 2.3e-06, which rounded back to 2e-06. The hits kept their order by accident, and a
test file or a definition was weighed like any other. Below 0.1 a score keeps six
significant digits instead: from 0.1 up it is rounded as before, and below 0.001 it keeps far
more than it did (between the two, two scores a millionth apart may read the same, which only
ties them in their previous order).
"""

from __future__ import annotations


def kept(score: float) -> float:
    return round(score, 6) if abs(score) >= 0.1 else float(f"{score:.6g}")
