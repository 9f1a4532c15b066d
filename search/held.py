"""What a kind filter's hit cites when its chunk is kept for a definition it holds.

Definitions of value kinds (constant, variable, field, enum member, property) and one-line
members of a longer definition have no chunk of their own: they are lines of the chunk of the
definition that holds them (`indexing.extract.code_chunks`). A kind filter (`kebab search
--kind K`, `filters.kind`) keeps the chunks of definitions of those kinds, and the chunks that
hold such a definition of those kinds, its name's line among the chunk's lines (the stores'
`_filter_sql`); without the second, none of them could ever be found by kind, and the answer
was an empty one by accident.

A hit kept for what it holds stands for that definition: its title, kind, symbol, container
and handle are the held definition's, its location is the held definition's range and its
selection its name (exact text stays cited where it is, and the hit stands for the held
definition the text is in), and its explanation says so (a prior
of factor 1, which re-ranks nothing: `holds_<kind>_definition`). Until 2026-11-30 only the
selection moved: `--kind constant` listed hits titled `Logger`, of kind `class`.

Among several held definitions of the kinds, the one whose name shares the most words with
the query (identifier parts, case-insensitive) is cited, then the one whose whole name the
query holds, then the first.
"""

from __future__ import annotations

from collections.abc import Sequence

from indexing.records import Span, Symbol
from indexing.store import SearchStore
from indexing.text import token_parts, tokens
from search.types import Candidate, Prior


def cite_held(store: SearchStore, candidates: Sequence[Candidate], kinds: Sequence[str],
              query: str) -> None:
    """Make each candidate that a kind filter keeps only for a definition it holds stand for
    that definition (`Candidate.held`), cite its name (`Candidate.focus`, unless the hit has
    one already: exact text is cited where it is), and record why it is there."""
    if not kinds:
        return
    wanted = set(kinds)
    holders = [c for c in candidates
               if c.row.symbol is None or str(c.row.symbol.kind) not in wanted]
    if not holders:
        return
    defined = store.held_definitions(
        {(c.row.path, c.row.start_line, c.row.end_line) for c in holders}, tuple(kinds))
    parts = set(token_parts(query))
    whole = {t.lower() for t in tokens(query)}
    for cand in holders:
        row = cand.row
        held = [(o, d) for o, d in defined.get(row.path, ())
                if row.start_line <= d.selection.start_line <= row.end_line]
        if not held:
            continue
        ord_, best = min(held, key=lambda h: _order(h[1], parts, whole))
        if cand.focus is None:
            cand.focus = best.selection
            cand.held = (ord_, best)
        else:  # exact text: the held definition it is in, whatever the query's words say
            inside = held_at([d for _o, d in held], cand.focus)
            if inside is not None:
                best = inside
                cand.held = next(h for h in held if h[1] is inside)
        cand.retrieval.priors.append(Prior(f"holds_{best.kind}_definition", 1.0))


def _order(d: Symbol, parts: set[str], whole: set[str]) -> tuple[int, int, int, int]:
    shared = len(parts & set(token_parts(d.name)))
    return (-shared, -(d.name.lower() in whole), d.selection.start_line, d.selection.start_col)


def held_at(defined: Sequence[Symbol], span: Span) -> Symbol | None:
    """The innermost of `defined` whose text holds where `span` starts, or None."""
    at = (span.start_line, span.start_col)
    inside = [d for d in defined
              if (d.range.start_line, d.range.start_col) <= at
              < (d.range.end_line, d.range.end_col)]
    return min(inside, key=lambda d: (d.range.end_line - d.range.start_line,
                                      -d.range.start_line, -d.range.start_col), default=None)
