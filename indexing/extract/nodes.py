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
    """The last row with content: a node ending at column 0 ends on the row before."""
    end = node.end_point
    if end.column == 0 and end.row > node.start_point.row:
        return end.row - 1
    return end.row


def collapse(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def cap(text: str) -> str:
    return text[:MAX_NAME_CHARS]
