"""How a team index ranks lexical matches, and the seam for a BM25 extension.

Today: native full-text search, `ts_rank` over a weighted tsvector, computed for every match
the role may see, so the ranking is over all matches and the count is exact. Its scores are
not bm25's and do not compare with SQLite's: the capabilities name the kind
(`SCORE_KIND`), and search reports it with the backend in `meta.score`.

A BM25 extension (ParadeDB's `pg_search`, VectorChord's `vchord_bm25`) would rank better and
report another score kind, and may rank over a bounded candidate window (then search must
say `ranking_scope: "candidate_window"`). None is installable here, so none is used: a
database that has one is detected and reported (`kebab status --store`), and ranking stays
`ts_rank` until a path that uses it can be tested.
"""

from __future__ import annotations

from typing import Any

#: What `meta.score.kind` says of a lexical answer's scores.
SCORE_KIND = "ts_rank_normalized"

#: ts_rank's weights for D, C, B, A (unused, body, path and container, names): names weigh
#: most, as on SQLite (whose bm25 weights are 10, 4, 2, 1 for names, parts, path, body).
RANK_WEIGHTS = "{0.05, 0.2, 0.4, 1.0}"
#: ts_rank's normalization: divide by 1 + log(words in the chunk), so a long chunk that
#: mentions a word once does not outrank a short one about it.
RANK_NORMALIZATION = 1

#: BM25 extensions for PostgreSQL that a later ranking could use, by extension name.
BM25_EXTENSIONS = ("pg_search", "vchord_bm25")


def rank_sql(tsvector: str, tsquery: str) -> str:
    """The SQL expression of a chunk's rank (higher is better)."""
    return f"ts_rank('{RANK_WEIGHTS}', {tsvector}, {tsquery}, {RANK_NORMALIZATION})"


def bm25_extension(execute: Any) -> str | None:
    """The BM25 extension installed in the database, if any (`execute` runs one statement
    and returns a cursor). Reported, not used (see the module docstring)."""
    row = execute("SELECT extname FROM pg_catalog.pg_extension WHERE extname = ANY(%s) "
                  "ORDER BY extname LIMIT 1", (list(BM25_EXTENSIONS),)).fetchone()
    return str(row[0]) if row else None
