"""Documents as outlines: every heading is a symbol (qualified by its heading path), every
section a chunk, from its heading to the next heading of any level (a subsection has its own
chunk). Text before the first heading is a section chunk with no symbol. The formats
(`markdown`, `rst`) only say where their headings are and how deep."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from indexing.chunking import LineSpan, clean_line, gaps
from indexing.extract.embedded import Region, region_extraction
from indexing.extract.nodes import MAX_SIGNATURE_CHARS, end_row
from indexing.extract.syntax_windows import SyntaxWindows
from indexing.positions import SourceText
from indexing.records import Chunk, ChunkKind, Extraction, Ref, Span, Symbol, SymbolKind

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass
class Heading:
    """A heading as its format reads it; the outline fills in its path and section end."""

    node: Node  # the whole heading: its section starts on its first row
    level: int
    name: str
    selection: Span  # the heading's text
    doc: str = ""
    path: list[str] = field(default_factory=list)
    end_row: int = -1


def outline(
    src: SourceText, lang: str, root: Node, headings: list[Heading],
    regions: list[Region] | None = None,
) -> Extraction:
    """Symbols and section chunks for `headings`, given in document order; a long section is
    cut between its blocks (`syntax_windows`), never inside a list or a code block. Code
    blocks in a language with a grammar (`regions`) are chunked as that code, labelled with
    their section and language, and their definitions are symbols of the document."""
    stack: list[Heading] = []
    for h in headings:
        while stack and stack[-1].level >= h.level:
            stack.pop()
        h.path = [*(stack[-1].path if stack else []), h.name]
        stack.append(h)
    last = len(src.lines) - 1
    _section_ends(headings, last)
    symbols = [_heading_symbol(src, h) for h in headings]
    chunks: list[Chunk] = []
    refs: list[Ref] = []
    syntax = SyntaxWindows(src.lines, root)
    blocks = [r.lines for r in regions or ()]
    first_row = headings[0].node.start_point.row if headings else last + 1
    sections: list[tuple[LineSpan, int | None, str]] = []
    if first_row > 0:
        sections.append(((0, first_row - 1), None, ""))
    for i, h in enumerate(headings):
        start = h.node.start_point.row
        end = headings[i + 1].node.start_point.row - 1 if i + 1 < len(headings) else last
        sections.append(((start, end), i, symbols[i].qualified_name))
    for span, index, context in sections:
        for run in gaps(*span, [b for b in blocks if span[0] <= b[0] <= span[1]]):
            chunks.extend(syntax.chunks(run, ChunkKind.SECTION, index, context,
                                        definition=index is not None))
    for region in regions or ():
        row = region.lines[0]
        label = next((c for (s, e), _, c in sections if s <= row <= e), "")
        found, region_chunks, region_refs = region_extraction(src, region, len(symbols),
                                                              label)
        symbols.extend(found)
        chunks.extend(region_chunks)
        refs.extend(region_refs)
    chunks.sort(key=lambda c: (c.start_line, -c.end_line))
    return Extraction(lang=lang, symbols=symbols, chunks=chunks, refs=refs)


def _section_ends(headings: list[Heading], last: int) -> None:
    """Each heading's section ends before the next heading of the same or a higher level."""
    open_: list[Heading] = []
    for h in headings:
        row = h.node.start_point.row
        while open_ and open_[-1].level >= h.level:
            open_.pop().end_row = row - 1
        open_.append(h)
    for h in open_:
        h.end_row = last


def _heading_symbol(src: SourceText, h: Heading) -> Symbol:
    node = h.node
    last_row = h.end_row
    while last_row > end_row(node) and not src.lines[last_row].strip():
        last_row -= 1
    last_row = max(last_row, end_row(node))
    start = src.point(node.start_point)
    title_row = h.selection.start_line
    return Symbol(
        name=h.name,
        kind=SymbolKind.STRING,
        container=" > ".join(h.path[:-1]) or None,
        qualified_name=" > ".join(h.path),
        range=Span(*start, last_row, src.line_utf16_len(last_row)),
        selection=h.selection,
        signature=clean_line(src.lines[title_row]).strip()[:MAX_SIGNATURE_CHARS],
        doc=h.doc,
    )
