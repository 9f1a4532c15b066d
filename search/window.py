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

from collections.abc import Iterator

from indexing.settings import MAX_K

#: Candidates every channel reads at least. Fusion 100 deep per arm ranks as 250 deep did
#: (`kebab eval`, 2026-11-24 (b) and 2026-11-29 (b)); on Django, 250 took lexical p50 from
#: 9.5 to 14.3 ms and 100 to 11.1 ms (`docs/bench/quality-2026-11-29b.md`).
FLOOR = 100
#: Candidates per requested hit beyond the floor.
SPREAD = 2


#: How deep the lexical arm reads for the chunks of the definitions a name query names, when
#: its window holds fewer than `DEFINITIONS_SOUGHT` of them
#: (`search.engine.Searcher._to_definitions`); a constant, so every k up to `FLOOR / SPREAD`
#: reads alike. On Django that read costs 6 to 20 ms.
DEFINITION_READ = 4 * FLOOR
DEFINITIONS_SOUGHT = 10


def candidate_window(k: int) -> int:
    return max(FLOOR, SPREAD * k)


def fill_below(plan: str, k: int) -> int | None:
    """How few chunks holding every term call for the any-term fill. It ranks below them
    all, so a lexical answer needs it only while they are fewer than k; fusion reads it as
    deep as the window (`None`)."""
    return k if plan == "lexical" else None


def deeper(first: int) -> Iterator[int]:
    """The k of an answer its caller reads deeper until enough is left after what it drops
    (the code's own range in similar code, the files already paged in a grouped page): `first`,
    then twice as many each time, up to the most any request may ask (MAX_K)."""
    k = min(MAX_K, first)
    while True:
        yield k
        if k == MAX_K:
            return
        k = min(MAX_K, k * 2)
