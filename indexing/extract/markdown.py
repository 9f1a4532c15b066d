"""Markdown: headings are symbols (qualified by their heading path), sections are chunks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tree_sitter import QueryCursor

from indexing.chunking import clean_line, definition_windows, window_chunks
from indexing.extract.nodes import MAX_DOC_CHARS, MAX_SIGNATURE_CHARS, cap, collapse, end_row
from indexing.languages import get_parser, get_query
from indexing.positions import SourceText
from indexing.records import Chunk, ChunkKind, Extraction, Span, Symbol, SymbolKind

if TYPE_CHECKING:
    from tree_sitter import Node

_ATX_CLOSING = re.compile(r"(^|\s+)#+\s*$")


@dataclass
class _Heading:
    node: Node
    level: int
    name: str
    path: list[str]
    end_row: int = -1


def extract_markdown(src: SourceText) -> Extraction:
    tree = get_parser("markdown").parse(src.data)
    headings = _headings(src, tree.root_node)
    last = len(src.lines) - 1
    _section_ends(headings, last)
    symbols = [_heading_symbol(src, h) for h in headings]
    chunks: list[Chunk] = []
    first_row = headings[0].node.start_point.row if headings else last + 1
    if first_row > 0:
        chunks.extend(window_chunks(src.lines, (0, first_row - 1), ChunkKind.SECTION))
    for i, h in enumerate(headings):
        start = h.node.start_point.row
        end = headings[i + 1].node.start_point.row - 1 if i + 1 < len(headings) else last
        context = symbols[i].qualified_name
        chunks.extend(definition_windows(src.lines, (start, end), i, context, ChunkKind.SECTION))
    return Extraction(lang="markdown", symbols=symbols, chunks=chunks)


def _headings(src: SourceText, root: Node) -> list[_Heading]:
    found = QueryCursor(get_query("markdown")).captures(root).get("heading", [])
    headings: list[_Heading] = []
    stack: list[_Heading] = []
    for node in sorted(found, key=lambda n: n.start_byte):
        if _quoted(node):
            continue
        name = _heading_name(src, node)
        if not name:
            continue
        level = _heading_level(node)
        while stack and stack[-1].level >= level:
            stack.pop()
        parent_path = stack[-1].path if stack else []
        heading = _Heading(node, level, name, [*parent_path, name])
        headings.append(heading)
        stack.append(heading)
    return headings


def _quoted(node: Node) -> bool:
    """Headings inside quotes and list items are content, not the document's outline."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("block_quote", "list_item"):
            return True
        parent = parent.parent
    return False


def _heading_level(node: Node) -> int:
    for child in node.children:
        if child.type.startswith("atx_h") and child.type.endswith("_marker"):
            return int(child.type[len("atx_h")])
        if child.type == "setext_h1_underline":
            return 1
    return 2


def _heading_name(src: SourceText, node: Node) -> str:
    content = node.child_by_field_name("heading_content")
    if content is None:
        return ""
    text = src.node_text(content)
    if node.type == "atx_heading":
        text = _ATX_CLOSING.sub("", text)
    return cap(collapse(text))


def _section_ends(headings: list[_Heading], last: int) -> None:
    """Each heading's section ends before the next heading of the same or a higher level."""
    open_: list[_Heading] = []
    for h in headings:
        row = h.node.start_point.row
        while open_ and open_[-1].level >= h.level:
            open_.pop().end_row = row - 1
        open_.append(h)
    for h in open_:
        h.end_row = last


def _heading_symbol(src: SourceText, h: _Heading) -> Symbol:
    node = h.node
    content = node.child_by_field_name("heading_content")
    last_row = h.end_row
    while last_row > end_row(node) and not src.lines[last_row].strip():
        last_row -= 1
    last_row = max(last_row, end_row(node))
    start = src.point(node.start_point)
    return Symbol(
        name=h.name,
        kind=SymbolKind.STRING,
        container=" > ".join(h.path[:-1]) or None,
        qualified_name=" > ".join(h.path),
        range=Span(*start, last_row, src.line_utf16_len(last_row)),
        selection=src.span(_heading_text_node(content) if content is not None else node),
        signature=clean_line(src.lines[node.start_point.row]).strip()[:MAX_SIGNATURE_CHARS],
        doc=_first_paragraph(src, node),
    )


def _heading_text_node(content: Node) -> Node:
    """A setext heading's content is a paragraph ending in a newline; its inline text is
    the name."""
    inline = content.named_children[0] if content.named_child_count else None
    return inline if content.type == "paragraph" and inline is not None else content


def _first_paragraph(src: SourceText, heading: Node) -> str:
    sibling = heading.next_named_sibling
    while sibling is not None and sibling.type not in ("atx_heading", "setext_heading", "section"):
        if sibling.type == "paragraph":
            lines = src.node_text(sibling).split("\n")
            return "\n".join(line.strip() for line in lines if line.strip())[:MAX_DOC_CHARS]
        sibling = sibling.next_named_sibling
    return ""
