"""How deep each channel is read before fusion and the priors re-rank what it found.

The window does not shrink with k. Fusion and priors reorder candidates, so a window cut at k
gives a small request a different top from a large one: asked for 10 hits, a test file that
bm25 ranks first stays first, because the definition the priors would lift was never read.
The same index and query must give the same order whatever k is, so every k up to
`FLOOR / SPREAD` reads the same window and its hits are a prefix of a larger request's;
beyond that the window grows with k, since cutting an arm at k loses answers the other arm
would have lifted. `kebab eval` asks with k = 50, so its figures are what any k up to 50 gets.
"""

from __future__ import annotations

#: Candidates every channel reads at least (what `kebab eval`'s k = 50 has always read).
FLOOR = 250
#: Candidates per requested hit beyond the floor.
SPREAD = 5


def candidate_window(k: int) -> int:
    return max(FLOOR, SPREAD * k)
