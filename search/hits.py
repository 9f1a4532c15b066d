"""Turning a stored chunk into a hit a person can read and jump to.

A hit cites its definition when its chunk holds all of it, else its chunk (`citation`, the
wire's `location.range`); inside that, the best match (`span`, the wire's `selection`) is the
most precise span we can justify: the definition's name when the query names it, else the
first matched word, else the chunk's first line. Snippets are cut around
the best line so the matched words are visible, and highlight offsets are given so clients do
not need to re-run matching.
"""

from __future__ import annotations

from dataclasses import replace

from indexing.positions import char_index, utf16_len
from indexing.records import Span, Symbol
from indexing.store import ChunkRow
from search.handles import chunk_handles
from search.types import Hit, Retrieval, Snippet


def _matches(line: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """Non-overlapping [start, end) of `words` in `line`, case-insensitive, longest first."""
    lowered = line.lower()
    taken: list[tuple[int, int]] = []
    for word in words:
        start = lowered.find(word)
        while start != -1:
            end = start + len(word)
            if all(end <= a or start >= b for a, b in taken):
                taken.append((start, end))
            start = lowered.find(word, end)
    return sorted(taken)


def _best_line(lines: list[str], words: tuple[str, ...]) -> tuple[int, list[tuple[int, int]]]:
    """The first line that holds the most of `words`, a word counted as held when a match
    contains it: `parse_config(` holds `parse_config`, `parse` and `config`, so it outranks a
    comment that says "Parse the config" (two parts of the name, not the name)."""
    best, best_matches, best_score = 0, [], 0
    for i, line in enumerate(lines):
        found = _matches(line, words)
        if not found:
            continue
        texts = {line[a:b].lower() for a, b in found}
        held = sum(1 for word in words if any(word in text for text in texts))
        if held > best_score:
            best, best_matches, best_score = i, found, held
    return best, best_matches


def make_snippet(
    lines: list[str], first_line: int, index: int, matches: list[tuple[int, int]],
    words: tuple[str, ...], limit: int
) -> Snippet:
    """The best line (from its first non-blank character), then following lines, capped at
    `limit` characters; a very long line is windowed around its first match."""
    line = lines[index] if lines else ""
    start = len(line) - len(line.lstrip())
    if matches and matches[0][0] - start > limit // 2:
        start = max(0, matches[0][0] - limit // 4)
    pieces = [line[start:]]
    size = len(pieces[0])
    for follow in lines[index + 1 :]:
        if size >= limit:
            break
        pieces.append(follow)
        size += len(follow) + 1
    text = "\n".join(pieces)[:limit].rstrip()
    highlights: list[tuple[int, int]] = []
    offset = 0
    for piece in text.split("\n"):
        highlights.extend((offset + a, offset + b) for a, b in _matches(piece, words))
        offset += len(piece) + 1
    return Snippet(text=text, highlights=tuple(highlights), start_line=first_line + index)


def _focus_chars(line: str, base: int, focus: Span) -> list[tuple[int, int]]:
    """The characters of `line` (a chunk's line that starts at UTF-16 column `base`) that
    `focus` covers, or none when the chunk does not hold where it starts."""
    length = utf16_len(line)
    if not base <= focus.start_col < base + length:
        return []
    end = focus.end_col if focus.end_line == focus.start_line else base + length
    a = char_index(line, focus.start_col - base)
    return [(a, max(a + 1, char_index(line, min(end, base + length) - base)))]


def named_definition(row: ChunkRow, words: tuple[str, ...]) -> Span | None:
    """Where the chunk's definition is named, when the query names it: each piece of a long
    definition stands for the definition, so a search shows it once."""
    sym = row.symbol
    return sym.selection if sym is not None and words and sym.name.lower() in words else None


def holds_its_name(row: ChunkRow) -> bool:
    """The chunk holds the line that names its definition: a long definition's later pieces
    do not, and cite what they hold, not a line outside them."""
    sym = row.symbol
    return sym is not None and row.start_line <= sym.selection.start_line <= row.end_line


def _names_symbol(row: ChunkRow, words: tuple[str, ...]) -> bool:
    """The query names the chunk's definition, and the chunk holds that name."""
    return named_definition(row, words) is not None and holds_its_name(row)


def chunk_span(row: ChunkRow) -> Span:
    """The chunk's own span; a piece of a long line starts and ends inside its line."""
    last = (row.text or "").rsplit("\n", 1)[-1]
    base = row.start_col if row.start_line == row.end_line else 0
    return Span(row.start_line, row.start_col, row.end_line, base + utf16_len(last))


def citation(row: ChunkRow) -> Span:
    """What a hit cites: its definition when the chunk holds all of it (from the chunk's
    first line when leading comments or decorators come first), else the chunk."""
    sym = row.symbol
    if sym is not None:
        r = sym.range
        last = r.end_line - (1 if r.end_col == 0 and r.end_line > r.start_line else 0)
        if row.start_line <= r.start_line and last <= row.end_line:
            if row.start_line < r.start_line:
                return Span(row.start_line, 0, r.end_line, r.end_col)
            return r
    return chunk_span(row)


def build_hit(
    row: ChunkRow, root: str, words: tuple[str, ...], score: float, retrieval: Retrieval,
    snippet_chars: int, focus: Span | None = None, held: tuple[int, Symbol] | None = None
) -> Hit:
    """`focus` is the citation when it is known already (exact-text hits); the snippet then
    shows it where the chunk holds it. A chunk that is a piece of a long line starts at
    column `row.start_col` of its first line, which citations on that line add. `row` must
    carry its text (`Store.with_texts`). `held`: the definition the chunk was kept for
    (`search.held`), which the hit then stands for, cited at its range."""
    assert row.text is not None, "a hit is built from a row with its text"
    lines = row.text.split("\n")
    if focus is not None:
        index = max(0, min(focus.start_line - row.start_line, len(lines) - 1))
        matches = _focus_chars(lines[index], row.start_col if index == 0 else 0, focus)
    else:
        index, matches = _best_line(lines, words)
    snippet = make_snippet(lines, row.start_line, index, matches, words, snippet_chars)
    sym = row.symbol
    if focus is not None:
        span = focus
    elif sym is not None and _names_symbol(row, words):
        span = sym.selection
    elif matches:
        line_text = lines[index]
        a, b = matches[0]
        line_no = row.start_line + index
        base = row.start_col if index == 0 else 0
        span = Span(line_no, base + utf16_len(line_text[:a]),
                    line_no, base + utf16_len(line_text[:b]))
    elif sym is not None and holds_its_name(row):
        span = sym.selection
    else:
        end = row.start_col + (utf16_len(lines[0]) if lines else 0)
        span = Span(row.start_line, row.start_col, row.start_line, end)
    if held is not None:
        ord_, sym = held
        row = replace(row, symbol=sym, symbol_ord=ord_)
        cited = sym.range
    else:
        cited = citation(row)
    if focus is not None and (focus.end_line, focus.end_col) > (cited.end_line, cited.end_col):
        # Exact text that runs on past the definition it starts in: the location holds all of
        # it, so the selection (the text) stays inside the range it is a part of.
        cited = Span(cited.start_line, cited.start_col, focus.end_line, focus.end_col)
    file_id, symbol_id = chunk_handles(row)
    return Hit(
        citation=cited,
        chunk_kind=row.chunk_kind,
        chunk_id=row.chunk_id,
        file_id=file_id,
        symbol_id=symbol_id,
        root=root,
        path=row.path,
        lang=row.lang,
        span=span,
        chunk_lines=(row.start_line, row.end_line),
        title=sym.qualified_name if sym else (row.context or f"{row.path}:{row.start_line + 1}"),
        kind=str(sym.kind) if sym else row.chunk_kind,
        symbol=sym.name if sym else None,
        container=sym.container if sym else None,
        snippet=snippet,
        score=score,
        retrieval=retrieval,
    )
