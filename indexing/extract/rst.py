"""reStructuredText headings for the outline. A section's level is not written in it: the
first adornment style met (its character, and whether it has an overline) is level 1, the
next new one level 2, and so on, as docutils reads them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from indexing.extract.nodes import MAX_DOC_CHARS, cap, collapse
from indexing.extract.outline import Heading, outline
from indexing.grammars import parse
from indexing.positions import SourceText
from indexing.records import Extraction

if TYPE_CHECKING:
    from tree_sitter import Node


def extract_rst(src: SourceText) -> Extraction:
    tree = parse("rst", src.data)
    styles: dict[tuple[bool, str], int] = {}
    headings: list[Heading] = []
    for node in _sections(tree.root_node):
        title = next((c for c in node.named_children if c.type == "title"), None)
        adornments = [c for c in node.children if c.type == "adornment"]
        if title is None or not adornments:
            continue
        name = cap(collapse(src.node_text(title)))
        if not name:
            continue
        overlined = adornments[0].start_byte < title.start_byte
        style = (overlined, src.node_text(adornments[-1]).strip()[:1])
        level = styles.setdefault(style, len(styles) + 1)
        headings.append(Heading(node, level, name, src.span(title),
                                _first_paragraph(src, node)))
    return outline(src, "rst", tree.root_node, headings)


def _sections(root: Node) -> list[Node]:
    """Section headings in document order, wherever the grammar nests them."""
    found: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "section":
            found.append(node)
        stack.extend(reversed(node.named_children))
    return found


def _first_paragraph(src: SourceText, section: Node) -> str:
    sibling = section.next_named_sibling
    while sibling is not None and sibling.type != "section":
        if sibling.type == "paragraph":
            lines = src.node_text(sibling).split("\n")
            return "\n".join(line.strip() for line in lines if line.strip())[:MAX_DOC_CHARS]
        sibling = sibling.next_named_sibling
    return ""
