"""The lexical retriever: ranked full-text matches over chunks (FTS5 bm25 on SQLite, a
weighted `ts_rank` on PostgreSQL), and exact text over whole files.

Contract kept here, whichever store answers:
- order is the store's rank, ties by path, line, chunk id: byte-for-byte repeatable;
- a store's raw rank is lower-is-better (bm25; PostgreSQL gives -ts_rank); the score is
  -raw/(1+|raw|), in [0, 1); the raw value never leaves this module, and scores of two
  backends do not compare (`meta.score` names the backend and kind);
- AND of the terms first; when that finds fewer than k, fill with an OR ranking and say so
  (a query of shape `any` is the OR ranking alone);
- filters run in SQL before the LIMIT;
- exact text (quoted, or a code fragment) finds every file containing it, as grep would;
- a long loop (exact text reads every file that holds the text) passes a checkpoint per step,
  so a cancelled request stops there instead of finishing on a query worker that later
  requests wait for; the store's read of the candidates' texts before it takes the same
  checkpoint between its batches of rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from indexing.filters import Filters
from indexing.lexical_query import LexicalQuery
from indexing.positions import utf16_len
from indexing.records import Span
from indexing.store import ChunkRow, QuerySyntaxError, SearchStore
from indexing.store.retrieval import Checkpoint, go_on  # the stores' long reads take it too
from indexing.text import has_unspaced_words
from search.held import held_at
from search.query import ParsedQuery, content_terms, fill_terms
from search.types import InvalidQuery


@dataclass(frozen=True, slots=True)
class RankedChunk:
    """A chunk's place in one channel's ranking (lexical or vector), before fusion."""

    row: ChunkRow
    score: float
    rank: int  # 1-based within this channel
    focus: Span | None = None  # exact-text hits: where the text is, which the citation is
    surface: str | None = None  # which vector surface matched, for vector hits


@dataclass(slots=True)
class LexicalResult:
    ranked: list[RankedChunk]
    total: int
    plan: str
    warnings: list[str] = field(default_factory=list)
    # How many chunks hold every term (or the exact text): they lead `ranked`. Zero for raw
    # FTS5 expressions, whose matches say nothing about completeness.
    complete: int = 0


def normalize_bm25(raw: float) -> float:
    return -raw / (1.0 + abs(raw)) if raw <= 0 else 0.0


def retrieve(store: SearchStore, parsed: ParsedQuery, filters: Filters, limit: int,
             fill_below: int | None = None, check: Checkpoint = go_on) -> LexicalResult:
    """The chunks that hold every term, then (for several terms) the any-term fill up to
    `limit`. The fill ranks below them all, so an answer that shows only the lexical tiers
    needs it only while fewer than `fill_below` hold every term (by default, `limit`): on
    Django, a fill read 250 deep for every lexical request of 20 hits cost p50 17.2 ms where
    reading it only when needed took 15.1 ms."""
    if parsed.shape == "empty":
        return LexicalResult([], 0, "empty")
    if parsed.is_exact:
        found = exact(store, parsed.exact_text, filters, limit, check)
        found.complete = found.total
        return found
    if parsed.shape == "raw":
        if store.capabilities.raw_syntax != "fts5":
            raise InvalidQuery(
                f"a query in single quotes is raw SQLite FTS5 syntax, which the "
                f"{store.capabilities.backend} store does not read; drop the quotes to search "
                "for the words")
        return _ranked_fts(store, LexicalQuery.raw_expression(parsed.fts_raw), filters, limit,
                           "raw")
    if parsed.shape == "any":  # every chunk with any of the words is a match: no AND first
        found = _ranked_fts(store, LexicalQuery.any_of(content_terms(parsed.terms)), filters,
                            limit, "or")
        found.complete = found.total
        return found
    and_expr = LexicalQuery.all_of(parsed.terms)
    result = _ranked_fts(store, and_expr, filters, limit, "and")
    result.complete = result.total
    if len(parsed.terms) > 1 and len(result.ranked) < (fill_below or limit):
        or_expr = LexicalQuery.any_of(fill_terms(parsed.terms))
        seen = [r.row.rowid for r in result.ranked]
        extra = _fts(store, or_expr, filters, limit - len(result.ranked), seen)
        if extra:
            start = len(result.ranked)
            result.ranked.extend(RankedChunk(row, normalize_bm25(row.rank), start + i + 1)
                                 for i, row in enumerate(extra))
            result.total = store.count_matches(or_expr, filters)
            result.plan = "and+or_fill"
            result.warnings.append(
                f"only {start} result(s) contain every term; filled with results that contain "
                "any term (common words such as 'the' aside)"
            )
    if result.total == 0 and has_unspaced_words(parsed.raw):
        found = exact(store, parsed.raw.strip(), filters, limit, check)
        found.complete = found.total
        found.warnings.append(
            "words in a script written without spaces (Chinese, Japanese, Thai, ...) are "
            "indexed as whole runs, so a word inside a run is not a term: answered as exact "
            "text")
        return found
    return result


def _fts(
    store: SearchStore, expr: LexicalQuery, filters: Filters, limit: int,
    exclude: list[int] | None = None
) -> list[ChunkRow]:
    try:
        return store.match_chunks(expr, filters, limit, exclude or ())
    except QuerySyntaxError as exc:
        raise InvalidQuery(f"invalid FTS5 expression: {exc}") from exc


def _ranked_fts(
    store: SearchStore, expr: LexicalQuery, filters: Filters, limit: int, plan: str
) -> LexicalResult:
    rows = _fts(store, expr, filters, limit)
    ranked = [RankedChunk(row, normalize_bm25(row.rank), i + 1) for i, row in enumerate(rows)]
    total = store.count_matches(expr, filters) if len(rows) >= limit else len(rows)
    return LexicalResult(ranked, total, plan)


def exact(store: SearchStore, needle: str, filters: Filters, limit: int,
          check: Checkpoint = go_on) -> LexicalResult:
    """One hit per file that contains `needle`, cited at its first occurrence, or, when the
    needle is a name the file defines, at the definition's name (a private `#fetch` is called
    above the method that defines it, and the hit cited the call; a Makefile target such as
    `build/c/llhttp.o` is a prerequisite of another rule before its own); files with more
    occurrences rank higher, then by path. With a kind filter, only occurrences inside a
    definition of those kinds count, and the first of them is cited: a file whose first
    occurrence is elsewhere still matches, and the total counts the files returned.

    A common needle is in most files, each read whole: `check` runs between the store's
    batches of candidate texts (`files_containing`), then before each file and each hit
    placed, so a cancelled request stops within one batch's or one file's work."""
    if filters.kinds:
        return _exact_in_kinds(store, needle, filters, limit, check)
    found: list[tuple[int, str, Span]] = []  # (-count, path, where the first one is)
    where = _Needle(needle)
    defined: dict[str, set[Span]] = {}  # path -> where the needle is defined there
    for path, place in store.definition_places(needle):
        defined.setdefault(path, set()).add(place)
    files = store.files_containing(needle, filters, check)
    for done, (path, _lang, text) in enumerate(files):
        check("exact text, reading files", done, len(files))
        first = text.find(needle)
        found.append((-text.count(needle), path,
                      _defining(text, needle, first, where, defined.get(path, set()))
                      or where.span(text, first)))
    found.sort(key=lambda f: (f[0], f[1]))
    ranked: list[RankedChunk] = []
    for neg_count, path, span in found:
        if len(ranked) >= limit:
            break
        check("exact text, placing hits", len(ranked), min(limit, len(found)))
        chunk = where.chunk(store, path, span)
        if chunk is None:
            continue
        count = -neg_count
        ranked.append(RankedChunk(chunk, count / (1.0 + count), len(ranked) + 1, span))
    return LexicalResult(ranked, len(found), "exact")


def _defining(text: str, needle: str, at: int, where: _Needle, places: set[Span]
              ) -> Span | None:
    """The first occurrence of `needle` from `at` on that is one of `places`, or None."""
    while places and at >= 0:
        span = where.span(text, at)
        if span in places:
            return span
        at = text.find(needle, at + 1)
    return None


def _exact_in_kinds(store: SearchStore, needle: str, filters: Filters, limit: int,
                    check: Checkpoint) -> LexicalResult:
    """`exact` under a kind filter: every occurrence is placed in its chunk, so the count is
    of the files that hold the text inside such a definition, not of every file with it. An
    occurrence inside a definition of those kinds that has no chunk of its own (a constant,
    a field, a one-line member: `search.held`) counts too, placed in the chunk that holds
    it."""
    where = _Needle(needle)
    files = store.files_containing(needle, filters, check)
    # Each occurrence's chunk, and whether the chunk's own definition is of the kinds.
    placed: list[tuple[str, list[tuple[Span, ChunkRow, bool]]]] = []
    for done, (path, _lang, text) in enumerate(files):
        check("exact text, reading files", done, len(files))
        here: list[tuple[Span, ChunkRow, bool]] = []
        lines: dict[int, list[ChunkRow]] = {}  # a line's chunks, read once for its occurrences
        at = text.find(needle)
        while at >= 0:
            span = where.span(text, at)
            chunk = where.chunk(store, path, span, lines)
            if chunk is not None:
                here.append((span, chunk, chunk.symbol is not None
                             and str(chunk.symbol.kind) in filters.kinds))
            at = text.find(needle, at + max(1, len(needle)))
        if here:
            placed.append((path, here))
    # The rest may sit in a held definition: one whose text spans its line.
    held = store.held_definitions(
        {(path, span.start_line, span.start_line) for path, here in placed
         for span, _chunk, own in here if not own}, filters.kinds, spanning=True)
    found: list[tuple[int, str, Span, ChunkRow]] = []
    for path, here in placed:
        homeless = [symbol for _ord, symbol in held.get(path, [])]
        inside = [(span, chunk) for span, chunk, own in here
                  if own or held_at(homeless, span) is not None]
        if inside:
            found.append((-len(inside), path, *inside[0]))
    found.sort(key=lambda f: (f[0], f[1]))
    ranked = [RankedChunk(chunk, -neg / (1.0 - neg), i + 1, span)
              for i, (neg, _path, span, chunk) in enumerate(found[:limit])]
    return LexicalResult(ranked, len(found), "exact")


class _Needle:
    """Where an occurrence of a needle is, in the lines and UTF-16 columns a hit cites, and
    the chunk that holds it."""

    def __init__(self, needle: str) -> None:
        self.lines = needle.count("\n")
        self.head = utf16_len(needle.split("\n", 1)[0])  # UTF-16 lengths of its first line
        self.last = utf16_len(needle[needle.rfind("\n") + 1 :])  # and of its last

    def span(self, text: str, at: int) -> Span:
        line = text.count("\n", 0, at)
        col = utf16_len(text[text.rfind("\n", 0, at) + 1 : at])
        return Span(line, col, line + self.lines, self.last if self.lines else col + self.last)

    def chunk(self, store: SearchStore, path: str, span: Span,
              lines: dict[int, list[ChunkRow]] | None = None) -> ChunkRow | None:
        line, start = span.start_line, span.start_col
        chunks = None if lines is None else lines.get(line)
        if chunks is None:
            chunks = store.with_texts(store.chunks_at(path, line))
            if lines is not None:
                lines[line] = chunks
        return _holding(chunks, line, start, start + self.head)


def _holding(chunks: list[ChunkRow], line: int, start: int, end: int) -> ChunkRow | None:
    """The chunk to cite for UTF-16 columns [start, end) of `line`: the tightest that holds
    all of it, else one where it starts, else one it overlaps, else the tightest on the line.
    A long line is stored as pieces that each start at their own column (`start_col`), and
    text longer than their overlap is held whole by none of them."""
    spans: list[tuple[ChunkRow, int, int]] = []
    for chunk in chunks:
        base = chunk.start_col if line == chunk.start_line else 0
        text = (chunk.text or "").split("\n")[line - chunk.start_line]
        spans.append((chunk, base, base + utf16_len(text)))
    for holds in (lambda a, b: a <= start and end <= b, lambda a, b: a <= start < b,
                  lambda a, b: a < end and start < b):
        for chunk, a, b in spans:
            if holds(a, b):
                return chunk
    return chunks[0] if chunks else None
