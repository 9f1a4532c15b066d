"""Where a definition's chunk starts, and what documents it: the comments and attributes
directly above it, a Python docstring, Elixir's `@doc`, or a documenting child (GraphQL's
description). Comment text loses its markers in `indexing.extract.comments`."""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING

from indexing.extract.comments import strip_comment, strip_xml
from indexing.extract.nodes import MAX_DOC_CHARS, end_row
from indexing.language_rules import LanguageRules
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
_PY_STRING_PREFIX = re.compile(r"^[rRuUbBfF]*")
#: Elixir module attributes that stand between a definition and its `@doc`.
_ELIXIR_DOC = {"doc", "moduledoc", "typedoc"}


def is_comment(node: Node, rules: LanguageRules) -> bool:
    return node.type.endswith("comment") or node.type in rules.comment_nodes


def lead(node: Node, rules: LanguageRules) -> tuple[Node, list[Node]]:
    """Where a definition's chunk starts (its outermost wrapper, or the attributes and
    comments directly above it) and those comments. Only siblings count, so the chunk never
    starts inside another node."""
    top_node = node
    while top_node.parent is not None and top_node.parent.type in _LEAD_WRAPPERS:
        top_node = top_node.parent
    comments: list[Node] = []
    top = top_node
    previous = top_node.prev_named_sibling
    while previous is not None and end_row(previous) >= top.start_point.row - 1 - rules.doc_gap:
        if previous.type in rules.attribute_nodes:
            top = previous
        elif is_comment(previous, rules) and not _is_trailing(previous):
            comments.insert(0, previous)
            top = previous
        elif not _notes_attribute(previous, rules):
            break
        previous = previous.prev_named_sibling
    return top, comments


def _notes_attribute(node: Node, rules: LanguageRules) -> bool:
    """A comment at the end of an attribute's line (`#[cfg(x)] // rustc <1.39`) is a note on
    the attribute: the walk goes on past it to the attribute and the doc above both."""
    before = node.prev_sibling
    return (is_comment(node, rules) and _is_trailing(node) and before is not None
            and before.type in rules.attribute_nodes)


def stray_comments(top: Node, rules: LanguageRules) -> list[Node]:
    """Comments directly above `top` that the grammar filed elsewhere: at the end of the node
    before it (Kotlin hands a KDoc after the package line to the package header, Haskell a
    haddock after the imports to the imports), or before an ancestor that starts where `top`
    does (Terraform's first block sits in a body after the file's first comment). They
    document the definition but stay out of its chunk, which may not cut those nodes."""
    anchor = top
    while (anchor.prev_named_sibling is None and anchor.parent is not None
           and anchor.parent.start_byte == anchor.start_byte):
        anchor = anchor.parent
    candidate = anchor.prev_named_sibling
    while candidate is not None and not is_comment(candidate, rules):
        candidate = candidate.named_children[-1] if candidate.named_child_count else None
    found: list[Node] = []
    row = top.start_point.row
    while candidate is not None and is_comment(candidate, rules):
        if end_row(candidate) < row - 1 - rules.doc_gap or _is_trailing(candidate):
            break
        found.insert(0, candidate)
        row = candidate.start_point.row
        candidate = candidate.prev_named_sibling
    return found


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
    return string_doc(src.node_text(string))


def string_doc(literal: str) -> str:
    """A string literal's text without its prefix and quotes, dedented."""
    literal = _PY_STRING_PREFIX.sub("", literal.strip())
    quote = literal[:3] if literal[:3] in ('"""', "'''") else literal[:1]
    if quote == "`":  # Janet's long string: a run of backticks either side
        quote = literal[: len(literal) - len(literal.lstrip("`"))]
    if len(literal) >= 2 * len(quote) and literal.endswith(quote):
        literal = literal[len(quote) : len(literal) - len(quote)]
    return inspect.cleandoc(literal)[:MAX_DOC_CHARS]


def comment_doc(src: SourceText, rules: LanguageRules, comments: list[Node]) -> str:
    """The comments' text without their markers; only those matching `doc_comment` (the
    language's rule for which comments are docs) when there is one."""
    lines: list[str] = []
    for comment in comments:
        text = src.node_text(comment).strip()
        if rules.doc_comment is not None and not rules.doc_comment.match(text):
            continue
        lines.extend(strip_comment(text))
    text = "\n".join(lines)
    if rules.doc_markup == "xml":
        text = strip_xml(text)
    return text.strip("\n")[:MAX_DOC_CHARS]


def child_doc(src: SourceText, rules: LanguageRules, node: Node) -> str:
    """The documenting child of `node` (`doc_node`), as a string's text; or, when that child
    is a comment (Nim's `##` lines, one child each), all of them without their markers."""
    children = [c for c in node.named_children if c.type == rules.doc_node]
    if not children:
        return ""
    if not str(rules.doc_node).endswith("comment"):
        return string_doc(src.node_text(children[0]))
    lines = [line for c in children for line in strip_comment(src.node_text(c).strip())]
    return "\n".join(lines).strip("\n")[:MAX_DOC_CHARS]


def attribute_doc(src: SourceText, node: Node) -> str:
    """Elixir: the `@doc` among the module attributes right above a `def` (past `@spec`,
    `@impl` and the like), or a `defmodule`'s `@moduledoc`, the first thing in its body."""
    if _elixir_target(node) in ("defmodule", "defprotocol", "defimpl"):
        block = next((c for c in node.named_children if c.type == "do_block"), None)
        first = block.named_children[0] if block is not None and block.named_child_count else None
        return _attribute_text(src, first, {"moduledoc"}) if first is not None else ""
    previous = node.prev_named_sibling
    while previous is not None and previous.type == "unary_operator":
        text = _attribute_text(src, previous, _ELIXIR_DOC)
        if text:
            return text
        previous = previous.prev_named_sibling
    return ""


def _elixir_target(node: Node) -> str:
    target = node.child_by_field_name("target")
    return target.text.decode("utf-8", "replace") if target is not None and target.text else ""


def _attribute_text(src: SourceText, node: Node, names: set[str]) -> str:
    """The string of `@name "..."` when `name` is one of `names`."""
    if node.type != "unary_operator":
        return ""
    call = node.child_by_field_name("operand")
    if call is None or call.type != "call" or _elixir_target(call) not in names:
        return ""
    args = next((c for c in call.named_children if c.type == "arguments"), None)
    string = args.named_children[0] if args is not None and args.named_child_count else None
    if string is None or string.type not in ("string", "sigil"):
        return ""
    return string_doc(src.node_text(string))
