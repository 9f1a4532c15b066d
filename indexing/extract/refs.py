"""Uses of names, read off the syntax tree: imports, calls (the called name and the text it is
called on), other identifier occurrences, and short string literals.

The rules are derived from node types, so they hold for every grammar with definitions
without a table per language: an identifier is a leaf whose type is `identifier` or ends in
`_identifier` (`type_identifier`, `field_identifier`, …); a call is a node whose type names a
call, an invocation or a construction, its callee the `function`/`constructor`/`macro`/`type`
field (or `name`/`method` with `object`/`receiver`, as Java and Ruby spell it); an import is
anything under a node whose type names an import, a `use` or an `#include`; a string is a
node whose type ends in `string` or `string_literal`. Comments are skipped, and so is a
string that is a statement of its own (a docstring). A definition's own name is not a use.

Every ref carries the innermost definition it sits in, found by a sweep over the definitions
in position order (they nest, and the tree is walked in position order).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from indexing.extract.definition import Definition
from indexing.extract.nodes import cap, collapse
from indexing.positions import SourceText
from indexing.records import Ref, RefKind

if TYPE_CHECKING:
    from tree_sitter import Node

#: A pathological (generated) file cannot flood the index: refs past this many are dropped.
MAX_REFS_PER_FILE = 50_000
#: Strings longer than this, or spanning lines, are text rather than names: not refs.
MAX_STRING_CHARS = 200

_IDENTIFIER_TYPES = frozenset({"identifier", "constant", "simple_identifier"})
_CALL_SUFFIXES = ("call", "call_expression", "invocation", "new_expression",
                  "creation_expression")
_CALLEE_FIELDS = ("function", "constructor", "macro", "type")
_NAME_FIELDS = ("name", "field", "property", "attribute", "method", "function")
_IMPORT_MARKS = ("import", "use_declaration", "using_directive", "preproc_include",
                 "extern_crate")
_SEPARATORS = " \t\n.:->?&*"
_QUOTED = re.compile(r"^[A-Za-z@$]*(#*)(\"\"\"|'''|\"|'|`)(.*)\2\1$", re.DOTALL)


def is_identifier(node: Node) -> bool:
    kind = node.type
    return node.child_count == 0 and (kind in _IDENTIFIER_TYPES or kind.endswith("_identifier"))


def _is_call(kind: str) -> bool:
    return kind.endswith(_CALL_SUFFIXES)


def _is_import(kind: str) -> bool:
    return any(mark in kind for mark in _IMPORT_MARKS)


def _is_string(kind: str) -> bool:
    return kind.endswith(("string", "string_literal"))


def _name_in(node: Node) -> Node | None:
    """The identifier a callee names: itself, or its rightmost name (`a.b.c` -> `c`,
    `x::y` -> `y`, `f::<T>` -> `f`)."""
    current: Node | None = node
    for _ in range(32):
        if current is None:
            return None
        if is_identifier(current):
            return current
        inner = None
        for name in _NAME_FIELDS:
            inner = current.child_by_field_name(name)
            if inner is not None:
                break
        current = inner
    return None


def _callee(src: SourceText, call: Node) -> tuple[Node, str | None] | None:
    """(name node, receiver text) of a call, or None when it calls no name (`f()()`)."""
    for field in _CALLEE_FIELDS:
        callee = call.child_by_field_name(field)
        if callee is None:
            continue
        name = _name_in(callee)
        if name is None:
            return None
        receiver = src.slice(callee.start_byte, name.start_byte).rstrip(_SEPARATORS)
        return name, collapse(receiver)[:200] or None
    for field in ("name", "method"):  # Java's method_invocation, Ruby's call
        name = call.child_by_field_name(field)
        if name is not None and is_identifier(name):
            obj = call.child_by_field_name("object") or call.child_by_field_name("receiver")
            return name, collapse(src.node_text(obj))[:200] if obj is not None else None
    return None


def string_content(text: str) -> str | None:
    """A literal's text without its quotes and prefix (`b"x"`, `r#"x"#`, `@"x"`), or None
    when it is not one quoted piece."""
    found = _QUOTED.match(text)
    return found.group(3) if found else None


class _Enclosing:
    """The innermost definition around a byte offset, for offsets given in rising order."""

    def __init__(self, defs: Sequence[Definition]) -> None:
        self._defs = defs
        self._next = 0
        self._stack: list[int] = []

    def at(self, offset: int) -> int | None:
        defs, stack = self._defs, self._stack
        while self._next < len(defs) and defs[self._next].node.start_byte <= offset:
            start = defs[self._next].node.start_byte
            while stack and defs[stack[-1]].node.end_byte <= start:
                stack.pop()
            stack.append(self._next)
            self._next += 1
        while stack and defs[stack[-1]].node.end_byte <= offset:
            stack.pop()
        return stack[-1] if stack else None


def extract_refs(src: SourceText, root: Node, defs: Sequence[Definition]) -> list[Ref]:
    """Every use of a name in the tree, in position order (see the module docstring)."""
    names = {(d.name_node.start_byte, d.name_node.end_byte) for d in defs}
    enclosing = _Enclosing(defs)
    calls: dict[tuple[int, int], str | None] = {}  # callee name node -> receiver
    refs: list[Ref] = []
    cursor = root.walk()
    imports = 0  # how many import nodes are open above the cursor
    open_imports: list[int] = []  # their end bytes
    while True:
        node = cursor.node
        assert node is not None
        kind = node.type
        descend = True
        while open_imports and open_imports[-1] <= node.start_byte:
            open_imports.pop()
            imports -= 1
        if "comment" in kind:
            descend = False
        elif is_identifier(node):
            key = (node.start_byte, node.end_byte)
            if key not in names:
                if imports:
                    ref_kind, receiver = RefKind.IMPORT, None
                elif key in calls:
                    ref_kind, receiver = RefKind.CALL, calls.pop(key)
                else:
                    ref_kind, receiver = RefKind.IDENTIFIER, None
                refs.append(Ref(cap(src.node_text(node)), ref_kind, src.span(node),
                                enclosing.at(node.start_byte), receiver))
        elif _is_string(kind) and node.is_named:
            descend = _string(src, node, imports > 0, enclosing, refs)
        else:
            if _is_import(kind) and node.end_byte > node.start_byte:
                imports += 1
                open_imports.append(node.end_byte)
            elif _is_call(kind):
                found = _callee(src, node)
                if found is not None:
                    calls[(found[0].start_byte, found[0].end_byte)] = found[1]
        if len(refs) >= MAX_REFS_PER_FILE:
            break
        if descend and cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return refs
    return refs


def _string(src: SourceText, node: Node, in_import: bool, enclosing: _Enclosing,
            refs: list[Ref]) -> bool:
    """Record a short one-line string literal; returns whether to look inside it (for the
    names in its interpolations)."""
    parent = node.parent
    if parent is not None and parent.type == "expression_statement" \
            and parent.named_child_count == 1:
        return False  # a docstring, or a string statement: prose, not a use
    if node.start_point.row != node.end_point.row:
        return True
    text = src.node_text(node)
    content = string_content(text)
    if content is None or len(content) > MAX_STRING_CHARS or not content.strip():
        return True
    refs.append(Ref(cap(content), RefKind.IMPORT if in_import else RefKind.STRING,
                    src.span(node), enclosing.at(node.start_byte)))
    return True
