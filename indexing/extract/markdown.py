"""Markdown headings (ATX and setext) for the outline; headings inside quotes and list items
are content, not the document's outline."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tree_sitter import QueryCursor

from indexing.chunking import text_chunks
from indexing.extract.embedded import fence_regions
from indexing.extract.nodes import MAX_DEF_DEPTH, MAX_DOC_CHARS, cap, collapse
from indexing.extract.outline import Heading, outline
from indexing.grammars import get_query, parse
from indexing.positions import SourceText, utf16_len
from indexing.records import Extraction, Span

if TYPE_CHECKING:
    from tree_sitter import Node

_ATX_CLOSING = re.compile(r"(^|\s+)#+\s*$")
#: What opens block containers at a line's start: quote markers, list markers, indentation.
_CONTAINER_PREFIX = re.compile(r"[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+[ \t>]*)*")
_LIST_MARKER = re.compile(r"(?:[-+*]|\d{1,9}[.)])[ \t]")
#: Block containers (quotes, list items) nested about 256 deep crash the Markdown grammar's
#: scanner (tree-sitter-language-pack 0.13: a segfault at 300 nested quotes or list items).
#: A file whose lines open more than this many, by a generous count, is read as plain text.
MAX_CONTAINER_DEPTH = 192


def container_depth(line: str) -> int:
    """About how deep `line` nests block containers: its quote and list markers, and its
    indentation in pairs of columns (a nested list item is indented under its parent)."""
    prefix = _CONTAINER_PREFIX.match(line)
    if prefix is None:
        return 0
    text = prefix.group()
    indent = text[: len(text) - len(text.lstrip(" \t"))]
    return (text.count(">") + len(_LIST_MARKER.findall(text))
            + (indent.count(" ") + 4 * indent.count("\t")) // 2)


def extract_markdown(src: SourceText) -> Extraction:
    if any(container_depth(line) > MAX_CONTAINER_DEPTH for line in src.lines):
        return Extraction(lang="markdown", chunks=text_chunks(src.text),
                          fallback="nested too deep")
    tree = parse("markdown", src.data)
    root = tree.root_node
    return outline(src, "markdown", root, _headings(src, root), fence_regions(root, src))


def _headings(src: SourceText, root: Node) -> list[Heading]:
    cursor = QueryCursor(get_query("markdown"))
    cursor.set_max_start_depth(MAX_DEF_DEPTH)
    found = cursor.captures(root).get("heading", [])
    headings: list[Heading] = []
    for node in sorted(found, key=lambda n: n.start_byte):
        if _quoted(node):
            continue
        name = _heading_name(src, node)
        content = node.child_by_field_name("heading_content")
        if not name or content is None:
            continue
        headings.append(Heading(node, _heading_level(node), name,
                                _heading_text_span(src, node, content),
                                _first_paragraph(src, node)))
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


def _heading_text_node(content: Node) -> Node:
    """A setext heading's content is a paragraph ending in a newline; its inline text is
    the name."""
    inline = content.named_children[0] if content.named_child_count else None
    return inline if content.type == "paragraph" and inline is not None else content


def _heading_text_span(src: SourceText, node: Node, content: Node) -> Span:
    """Where the heading's text is: without an ATX heading's closing `#`s, nor the spaces
    that end it (the grammar keeps those when the file ends on the heading's line)."""
    text_node = _heading_text_node(content)
    text = src.node_text(text_node)
    if node.type == "atx_heading":
        text = _ATX_CLOSING.sub("", text)
    text = text.rstrip()
    start_line, start_col = src.point(text_node.start_point)
    lines = text.split("\n")
    if len(lines) == 1:
        return Span(start_line, start_col, start_line, start_col + utf16_len(text))
    return Span(start_line, start_col, start_line + len(lines) - 1, utf16_len(lines[-1]))


def _first_paragraph(src: SourceText, heading: Node) -> str:
    sibling = heading.next_named_sibling
    while sibling is not None and sibling.type not in ("atx_heading", "setext_heading", "section"):
        if sibling.type == "paragraph":
            lines = src.node_text(sibling).split("\n")
            return "\n".join(line.strip() for line in lines if line.strip())[:MAX_DOC_CHARS]
        sibling = sibling.next_named_sibling
    return ""
