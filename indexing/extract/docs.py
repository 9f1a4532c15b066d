"""Where a definition's chunk starts, and what documents it: the comments and attributes
directly above it, or a Python docstring."""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING

from indexing.extract.nodes import MAX_DOC_CHARS, end_row
from indexing.positions import SourceText

if TYPE_CHECKING:
    from tree_sitter import Node

#: Nodes that wrap a definition without being one: part of its chunk, not of its range.
_LEAD_WRAPPERS = frozenset(
    {
        "export_statement",
        "expression_statement",
        "template_declaration",
        "ambient_declaration",
        "decorated_definition",
    }
)
_ATTRIBUTES = frozenset({"attribute_item"})
_PY_STRING_PREFIX = re.compile(r"^[rRuUbBfF]*")


def lead(node: Node) -> tuple[Node, list[Node]]:
    """Where a definition's chunk starts (its outermost wrapper, or the attributes and
    comments directly above it) and those comments."""
    top_node = node
    while top_node.parent is not None and top_node.parent.type in _LEAD_WRAPPERS:
        top_node = top_node.parent
    comments: list[Node] = []
    top = top_node
    previous = top_node.prev_named_sibling
    while previous is not None and end_row(previous) >= top.start_point.row - 1:
        if previous.type in _ATTRIBUTES:
            top = previous
        elif previous.type.endswith("comment") and not _is_trailing(previous):
            comments.insert(0, previous)
            top = previous
        else:
            break
        previous = previous.prev_named_sibling
    return top, comments


def _is_trailing(comment: Node) -> bool:
    """A comment sharing a line with the code before it describes that code."""
    before = comment.prev_sibling
    return before is not None and end_row(before) == comment.start_point.row


def python_doc(src: SourceText, node: Node) -> str:
    core = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
    body = core.child_by_field_name("body") if core is not None else None
    if body is None:
        return ""
    string = next((c for c in body.named_children if c.type != "comment"), None)
    if string is not None and string.type == "expression_statement" and string.named_child_count:
        string = string.named_children[0]  # grammars that show the statement around it
    if string is None or string.type != "string":
        return ""
    literal = _PY_STRING_PREFIX.sub("", src.node_text(string))
    quote = literal[:3] if literal[:3] in ('"""', "'''") else literal[:1]
    if len(literal) >= 2 * len(quote) and literal.endswith(quote):
        literal = literal[len(quote) : len(literal) - len(quote)]
    return inspect.cleandoc(literal)[:MAX_DOC_CHARS]


def comment_doc(src: SourceText, doc_comment: re.Pattern[str] | None, comments: list[Node]) -> str:
    """The comments' text without their markers; only those matching `doc_comment` (the
    language's rule for which comments are docs) when there is one."""
    lines: list[str] = []
    for comment in comments:
        text = src.node_text(comment).strip()
        if doc_comment is not None and not doc_comment.match(text):
            continue
        lines.extend(_strip_comment(text))
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)[:MAX_DOC_CHARS]


def _strip_comment(text: str) -> list[str]:
    if text.startswith("/*"):
        body = text[2:-2] if text.endswith("*/") and len(text) >= 4 else text[2:]
        return [line.strip().lstrip("*").strip() for line in body.split("\n")]
    marker = "/" if text.startswith("//") else "#"
    return [line.strip().lstrip(marker).lstrip("!").strip() for line in text.split("\n")]
