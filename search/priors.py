"""Soft priors: small multipliers that re-rank hits and never remove one.

Each factor that changes a hit's score is recorded on the hit, so a user can see why a test
file sits below the code it tests. The values are deliberately mild: they break near-ties, they
do not overturn a clearly better match.
"""

from __future__ import annotations

from search.types import Hit, Prior

DEFINITION = 1.15
TEST_PATH = 0.85
GENERATED = 0.75
DIVERSITY_STEP = 0.1  # the n-th extra hit from one file is scaled by 1/(1 + step * n)

_DEFINITION_KINDS = frozenset({"code", "text", "section"})


def apply(hits: list[Hit]) -> list[Hit]:
    """Re-score `hits` in place and return them re-sorted (score desc, then previous order)."""
    for hit in hits:
        if hit.symbol is not None and hit.kind not in _DEFINITION_KINDS:
            _scale(hit, Prior("definition", DEFINITION))
        if hit.is_test:
            _scale(hit, Prior("test_path", TEST_PATH))
        if hit.is_generated:
            _scale(hit, Prior("generated_or_vendored", GENERATED))
    order = {h.chunk_id: i for i, h in enumerate(hits)}
    hits.sort(key=lambda h: (-h.score, order[h.chunk_id]))
    per_file: dict[str, int] = {}
    for hit in hits:
        seen = per_file.get(hit.path, 0)
        if seen:
            _scale(hit, Prior("file_diversity", round(1.0 / (1.0 + DIVERSITY_STEP * seen), 6)))
        per_file[hit.path] = seen + 1
    hits.sort(key=lambda h: (-h.score, order[h.chunk_id]))
    return hits


def _scale(hit: Hit, prior: Prior) -> None:
    hit.score = round(hit.score * prior.factor, 6)
    hit.retrieval.priors.append(prior)
