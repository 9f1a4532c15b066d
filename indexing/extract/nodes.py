"""What both extractors read off a tree-sitter node the same way: the last row it fills, and
its text as a one-line name. The caps keep one pathological file from bloating the index."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_SIGNATURE_CHARS = 200
MAX_NAME_CHARS = 256
MAX_DOC_CHARS = 4000
#: How deep in the syntax tree a definition may start. Real code stays far above it (34 levels
#: at most in Django, rxjs, mobx, click and the Go and Rust corpora); past it, 100k nested
#: brackets made tree-sitter's query cursor quadratic (a 40k-deep TypeScript object took 11 s,
#: 20k nested C++ namespaces 157 s) and nested names grow quadratically too. What lies deeper
#: is still indexed, in its enclosing definition's chunks.
MAX_DEF_DEPTH = 256

_WHITESPACE = re.compile(r"\s+")


def end_row(node: Node) -> int:
    """The last row with content. A node ending at column 0 ends on the row before. A node
    whose last real token ends on an earlier row than the node, with only whitespace after
    it, ends with that token: grammars with indentation blocks end them at the next line's
    indentation, or take the blank lines after a statement as a token."""
    end = node.end_point
    start_row = node.start_point.row
    row = end.row - 1 if end.column == 0 and end.row > start_row else end.row
    if row == start_row or not node.child_count:
        return row
    current = node  # the usual case: a closing token at the node's very end
    while current.child_count:
        last = current.child(current.child_count - 1)
        if last is None or last.end_byte != node.end_byte:
            break
        if not last.child_count:
            if last.text and last.text.strip():
                return row
            break
        current = last
    leaf = _last_text_leaf(node)
    if leaf is None:
        return row
    leaf_end = leaf.end_point
    leaf_row = leaf_end.row - 1 if leaf_end.column == 0 else leaf_end.row
    if leaf_row >= row:
        return row
    text = node.text or b""
    if text[leaf.end_byte - node.start_byte :].strip():
        return row  # text the grammar keeps out of its tokens (Julia's closing quotes)
    return max(leaf_row, start_row)


def _last_text_leaf(node: Node) -> Node | None:
    """The last token under `node` that is more than whitespace (an empty dedent, a newline
    token and the like are not)."""
    for i in range(node.child_count - 1, -1, -1):
        child = node.child(i)
        if child is None or child.end_byte == child.start_byte:
            continue
        if child.child_count:
            found = _last_text_leaf(child)
            if found is not None:
                return found
        elif child.text and child.text.strip():
            return child
    return None


def collapse(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def cap(text: str) -> str:
    return text[:MAX_NAME_CHARS]
