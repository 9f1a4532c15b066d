"""Resolved definitions to chunks: one per definition that owns one, windows over long ones
(only the lines outside chunked children), and windows over the code between them. Windows
follow the syntax tree (`syntax_windows`), so none cuts a construct.

A line longer than `MAX_DEF_CHARS` that holds whole definitions (minified code) is not cut
into lines but into text: each definition's own text, and the code between them on that line,
each as pieces that record the column they start at."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexing.chunking import (
    MAX_DEF_CHARS,
    LineSpan,
    gaps,
    pieces,
    too_long,
    window_chunks,
)
from indexing.extract.definition import VALUE_KINDS, Definition
from indexing.extract.syntax_windows import SyntaxWindows
from indexing.positions import SourceText
from indexing.records import Chunk, ChunkKind
from indexing.text import has_word

if TYPE_CHECKING:
    from tree_sitter import Node


def _owns_chunk(d: Definition) -> bool:
    if d.kind in VALUE_KINDS:
        return False
    return d.parent is None or d.lead_row != d.end_row


def code_chunks(
    src: SourceText, defs: list[Definition], root: Node, span: LineSpan | None = None,
    reserved: list[LineSpan] | tuple[LineSpan, ...] = (),
) -> list[Chunk]:
    """Chunks of the lines in `span` (the whole file by default), but for the `reserved`
    spans, which other chunks cover (embedded code)."""
    owners = sorted(
        (i for i, d in enumerate(defs) if _owns_chunk(d)),
        key=lambda i: (defs[i].lead_row, -defs[i].end_row, i),
    )
    children: dict[int, list[tuple[int, int]]] = {i: [] for i in owners}
    roots: list[tuple[int, int]] = []
    stack: list[int] = []
    for i in owners:
        d = defs[i]
        while stack and defs[stack[-1]].end_row < d.end_row:
            stack.pop()
        (children[stack[-1]] if stack else roots).append((d.lead_row, d.end_row))
        stack.append(i)
    chunks: list[Chunk] = []
    syntax = SyntaxWindows(src.lines, root)
    for i in owners:
        chunks.extend(_definition_chunks(src, syntax, defs[i], i, children[i]))
    lo, hi = span if span is not None else (0, len(src.lines) - 1)
    for run in gaps(lo, hi, [*roots, *reserved]):
        chunks.extend(syntax.chunks(run, ChunkKind.CODE))
    chunks.extend(_between_on_long_lines(src, [defs[i] for i in owners]))
    chunks.sort(key=lambda c: (c.start_line, -c.end_line, -1 if c.symbol is None else c.symbol))
    return _drop_repeats(chunks)


def _between_on_long_lines(src: SourceText, owners: list[Definition]) -> list[Chunk]:
    """The code between definitions on a long line that only definitions on that line cover
    (a line that a longer definition also covers is in that one's windows whole). Without
    these pieces a statement between two functions of a minified file was unsearchable. Text
    with no word in it (`;`, `},{`) gets no chunk: no term could find it."""
    by_row: dict[int, list[Definition]] = {}
    spanned: set[int] = set()
    for d in owners:
        if d.lead_row == d.end_row:
            by_row.setdefault(d.lead_row, []).append(d)
        else:
            spanned.update(range(d.lead_row, d.end_row + 1))
    chunks: list[Chunk] = []
    for row, on_row in sorted(by_row.items()):
        if row in spanned or len(src.lines[row]) <= MAX_DEF_CHARS:
            continue
        line_start = src.data.rfind(b"\n", 0, on_row[0].lead_byte) + 1
        line_end = line_start + len(src.lines[row].encode("utf-8", "surrogatepass"))
        cursor = line_start
        for a, b in sorted((d.lead_byte, d.node.end_byte) for d in on_row) + [(line_end, 0)]:
            if a > cursor:
                text = src.slice(cursor, a)
                if has_word(text):
                    col = src.col(row, cursor - line_start)
                    chunks.extend(Chunk(row, row, piece, ChunkKind.CODE, None, "", at)
                                  for at, piece in pieces(text, col))
            cursor = max(cursor, b)
    return chunks


def _drop_repeats(chunks: list[Chunk]) -> list[Chunk]:
    """`typedef struct Q {...} Q;` defines two symbols over the same text: index it once."""
    seen: set[tuple[int, int, str]] = set()
    kept: list[Chunk] = []
    for chunk in chunks:
        key = (chunk.start_line, chunk.end_line, chunk.text)
        if key not in seen:
            seen.add(key)
            kept.append(chunk)
    return kept


def _definition_chunks(
    src: SourceText, syntax: SyntaxWindows, d: Definition, index: int,
    inner: list[tuple[int, int]],
) -> list[Chunk]:
    lines = src.lines
    span = (d.lead_row, d.end_row)
    kind = ChunkKind.DEFINITION
    if span[0] == span[1] and len(lines[span[0]]) > MAX_DEF_CHARS:
        # One definition among many on a minified line: its own text, not the whole line.
        text = src.slice(d.lead_byte, d.node.end_byte).removesuffix("\r")
        return [Chunk(*span, piece, kind, index, d.qualified, col)
                for col, piece in pieces(text, d.lead_col)]
    if not too_long(lines, *span):
        return window_chunks(lines, span, kind, index, d.qualified, max_lines=span[1] - span[0] + 1)
    chunks: list[Chunk] = []
    for run in gaps(*span, inner):
        chunks.extend(syntax.chunks(run, kind, index, d.qualified, definition=True))
    return chunks
