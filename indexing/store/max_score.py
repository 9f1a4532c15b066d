"""An any-term ranking that never scores the chunks holding only common words, with the
same answer as scoring them all (the MaxScore idea).

A sentence's any-term fill matches most of a large index: `return` alone is in a quarter of
Django's chunks, and FTS5's bm25 scores every match before keeping the best few. But bm25 is
a sum over the query's phrases, and one phrase adds at most `(k1 + 1) * idf` (k1 = 1.2,
fixed in FTS5) to any chunk, however often the chunk holds it. So with the terms ordered
from most to least common and cut in two, a chunk holding only words of the common side
scores below that side's summed ceiling. Rank only the chunks that hold a rare word, and when
the n-th best of them scores above the common side's ceiling, no chunk left out could have
entered the best n. Otherwise the caller ranks everything, as before.

Exactness rests on two facts of FTS5's bm25, both checked in the tests against a full
ranking: every phrase of an expression gets the idf of its own matches in the whole table,
whatever the expression around it, and a row's score sums its phrases in expression order,
a phrase absent from the row adding exactly 0.0. The full expression is ordered most common
first, whichever path ranks it, so the rare terms' own expression and the expression `common
AND rare` both score a chunk the same bits as the full one does (`AnyTermPlan.best`).

The ceiling needs each phrase's match count and the table's row count: counted once per
state of the index (`TermCounts`), the row count bounded above by the chunks table, which
only loosens the ceiling.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from indexing.lexical_query import fts5_phrases, fts5_term
from indexing.store.split_rank import MIN_SPLIT_ROWIDS

#: Below this many rowids a full ranking takes a few milliseconds, and counting the terms'
#: matches could cost more than skipping saves; `split_rank`'s threshold, not measured apart.
MIN_ROWIDS = MIN_SPLIT_ROWIDS
#: FTS5's bm25 k1 plus one: the most one phrase's term-frequency factor can reach.
K1_PLUS_1 = 2.2
#: FTS5's floor for the idf of a phrase in more than half the rows.
IDF_FLOOR = 1e-6
#: A ceiling must beat the n-th score by this much, so that rounding in SQLite's sum (a few
#: units in the last place) can never let a chunk left out tie with it.
MARGIN = 1e-9
#: Ranking the rare side costs about what its matches number, plus a fixed part (every
#: statement counts each of its phrases' matches again for its idf). A cut whose rare side
#: holds more than this share of all the terms' matches is not ranked: the full ranking costs
#: little more. Measured on Django's docstring sentences, asked as `kebab/search` lexical asks
#: (a window of 100; 300 sentences, two passes, interleaved, every answer the same), p50 / p95
#: in ms: 16.5 / 35.6 never skipping; 14.5 / 29.3 at 0.2; 14.0 / 28.0 at 0.3; 13.7 / 28.0 at
#: 0.5; 13.6 / 28.3 at 0.7.
MAX_RARE_SHARE = 0.3
#: Counts kept for one state of the index; past it, all are dropped and counted again.
MAX_COUNTED_PHRASES = 4096

#: How many more than needed a skip proves, as a share of the need (`proven_depth`). The
#: same measure as above, p50 / p95 in ms: 13.6 / 27.5 at 0; 13.7 / 27.4 at 0.25; 13.9 / 27.7
#: at 0.5; 14.5 / 28.7 at 1 (the full ranking's depth); 16.0 / 35.2 never skipping.
EXTRA_DEPTH = 0.25


def proven_depth(need: int) -> int:
    """How deep a skip proves the ranking when the caller needs `need`: a few more, so that a
    tie at the cut usually ends inside what was proven."""
    return need + max(2, int(EXTRA_DEPTH * need))


Ranker = Callable[[str, int], list[tuple[int, float]]]
#: Two best-n statements at once, on two connections (the store's `_at_once`).
TwoRanker = Callable[[str, str, int],
                     tuple[list[tuple[int, float]], list[tuple[int, float]]]]


class TermCounts:
    """Each phrase's match count and the row ceiling, for one state of the index: any write
    changes the state key and empties them. Shared by the store's threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state: Hashable = None
        self._rows = 0
        self._matches: dict[str, int] = {}

    def for_state(self, state: Hashable, conn: Any, phrases: Sequence[str]
                  ) -> tuple[int, dict[str, int]]:
        """The row ceiling for `state`, and the counts of `phrases` known in it (copied out, so
        that no lock is held while the rest are counted)."""
        with self._lock:
            if state != self._state:
                self._state = state
                self._matches = {}
                # Every full-text row is a chunk's: the chunk count bounds the row count.
                self._rows = int(conn.execute("SELECT count(*) FROM chunks").fetchone()[0])
            known = self._matches
            return self._rows, {p: known[p] for p in phrases if p in known}

    def remember(self, state: Hashable, counted: dict[str, int]) -> None:
        with self._lock:
            if state == self._state:
                if len(self._matches) + len(counted) > MAX_COUNTED_PHRASES:
                    self._matches = {}
                self._matches.update(counted)


@dataclass(frozen=True, slots=True)
class _Term:
    expression: str  # the term as FTS5: any of its phrases
    matches: int  # an upper bound on the chunks it matches (its phrases' counts summed)
    ceiling: float  # the most it adds to any chunk's score


@dataclass(frozen=True, slots=True)
class AnyTermPlan:
    """A query's terms ordered most common first, with what each can add to a score."""

    terms: tuple[_Term, ...]

    @property
    def expression(self) -> str:
        return " OR ".join(t.expression for t in self.terms)

    def best(self, n: int, rank: Ranker, rank_two: TwoRanker | None = None
             ) -> list[tuple[int, float]] | None:
        """The best `n` (rowid, bm25) of the whole expression, ties by rowid, or None when no
        cut proves that the chunks it leaves out rank below them. `rank(expr, n)` is the
        store's best-n statement, `rank_two` the same for two at once.

        The first statement ranks the fewest rare terms that can hold `n` chunks, on their
        own: every chunk scores at least that, so its n-th score is a floor under the answer,
        and the cut moves to the most common terms whose ceiling stays below it. On the rare
        side of that cut, a chunk with no common word scores in the rare terms alone exactly
        what it scores in the whole expression (the common phrases come first and add 0.0);
        the chunks with one are ranked by the whole expression's phrases, common AND rare. A
        chunk of the first kind that the second holds scores more there; one the second left
        out of its best `n` ranks below all `n` of them either way."""
        terms = self.terms
        if len(terms) < 2 or n < 1:
            return None
        rare = [0] * (len(terms) + 1)  # rare[c]: the matches of terms[c:], summed
        for c in range(len(terms) - 1, -1, -1):
            rare[c] = rare[c + 1] + terms[c].matches
        common = [0.0] * (len(terms) + 1)  # common[c]: the ceiling of terms[:c]
        for c, term in enumerate(terms):
            common[c + 1] = common[c] + term.ceiling
        budget = MAX_RARE_SHARE * rare[0]
        # Starting from a wider rare side (4, 8 or 16 times n matches) measured the same.
        first = next((c for c in range(len(terms) - 1, 0, -1) if rare[c] >= n), 1)
        if rare[first] > budget:
            return None
        alone = rank(self._any(first), n)
        while len(alone) < n and first > 1 and rare[first - 1] <= budget:
            first -= 1  # the rare terms' counts overlapped: fewer chunks than they summed to
            alone = rank(self._any(first), n)
        if len(alone) < n:
            return None
        floor = -alone[-1][1]
        cut = next((c for c in range(first, 0, -1) if _below(common[c], floor)), 0)
        if cut < 1 or rare[cut] > budget:
            return None
        both_expr = f"({self._any(0, cut)}) AND ({self._any(cut)})"
        if cut == first:
            both = rank(both_expr, n)
        elif rank_two is None:
            alone, both = rank(self._any(cut), n), rank(both_expr, n)
        else:
            alone, both = rank_two(self._any(cut), both_expr, n)
        held = {rowid for rowid, _ in both}
        found = sorted([*both, *(m for m in alone if m[0] not in held)],
                       key=lambda m: (m[1], m[0]))[:n]
        if len(found) == n and _below(common[cut], -found[-1][1]):
            return found
        return None

    def _any(self, start: int, end: int | None = None) -> str:
        return " OR ".join(t.expression for t in self.terms[start:end])


def _below(ceiling: float, score: float) -> bool:
    return ceiling * (1 + MARGIN) < score


def plan(terms: Sequence[str], state: Hashable, conn: Any, counts: TermCounts) -> AnyTermPlan:
    """`terms` (an any-term query's) with their counts, most common first (ties by text)."""
    phrases_of = {term: fts5_phrases(term) for term in terms}
    rows, known = counts.for_state(state, conn, [p for ps in phrases_of.values() for p in ps])
    counted: dict[str, int] = {}
    planned: list[_Term] = []
    for term in terms:
        matches = 0
        ceiling = 0.0
        for phrase in phrases_of[term]:
            found = known.get(phrase)
            if found is None:
                found = counted[phrase] = int(conn.execute(
                    "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (phrase,)
                ).fetchone()[0])
            matches += found
            if found:  # a phrase in no chunk adds nothing to any
                ceiling += K1_PLUS_1 * idf_ceiling(rows, found)
        planned.append(_Term(fts5_term(term), matches, ceiling))
    counts.remember(state, counted)
    planned.sort(key=lambda t: (-t.matches, t.expression))
    return AnyTermPlan(tuple(planned))


def idf_ceiling(rows: int, matches: int) -> float:
    """FTS5's idf for a phrase in `matches` of `rows` rows; with `rows` an upper bound on the
    table's, an upper bound on its idf."""
    rows = max(rows, matches)  # a damaged count must not take the log of a negative
    return max(math.log((rows - matches + 0.5) / (matches + 0.5)), IDF_FLOOR)
