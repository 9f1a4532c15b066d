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

The nodes are found by one tree-sitter query per grammar, built from the grammar's own list
of node types by those rules, so the walk over the tree runs in tree-sitter. Every ref carries
the innermost definition it sits in, found by a sweep over the definitions in position order
(they nest, and the refs are taken in position order).
"""

from __future__ import annotations

import logging
import re
import threading
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from tree_sitter import Language, Query, QueryCursor

from indexing.extract.definition import Definition
from indexing.extract.nodes import MAX_DEF_DEPTH, cap, collapse
from indexing.positions import SourceText
from indexing.records import Ref, RefKind

if TYPE_CHECKING:
    from tree_sitter import Node

log = logging.getLogger(__name__)

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
#: Kinds as plain strings: a StrEnum member pickles several times slower.
_IMPORT_REF, _CALL_REF = RefKind.IMPORT.value, RefKind.CALL.value
_IDENTIFIER_REF, _STRING_REF = RefKind.IDENTIFIER.value, RefKind.STRING.value
_QUOTED = re.compile(r"^[A-Za-z@$]*(#*)(\"\"\"|'''|\"|'|`)(.*)\2\1$", re.DOTALL)


def is_identifier(node: Node) -> bool:
    kind = node.type
    return node.child_count == 0 and (kind in _IDENTIFIER_TYPES or kind.endswith("_identifier"))


# What a node type is, decided once per type name.
_OTHER, _COMMENT, _NAME, _STRING, _IMPORT, _CALL = range(6)
_CATEGORY: dict[str, int] = {}
_CAPTURED = {_COMMENT: "comment", _NAME: "name", _STRING: "string", _IMPORT: "import",
             _CALL: "call"}
_local = threading.local()


def _category(kind: str) -> int:
    found = _CATEGORY.get(kind)
    if found is None:
        if "comment" in kind:
            found = _COMMENT
        elif kind in _IDENTIFIER_TYPES or kind.endswith("_identifier"):
            found = _NAME
        elif _is_string(kind):
            found = _STRING
        elif _is_import(kind):
            found = _IMPORT
        elif _is_call(kind):
            found = _CALL
        else:
            found = _OTHER
        _CATEGORY[kind] = found
    return found


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


def _query(language: Language) -> Query | None:
    """One query per grammar capturing every node the rules above care about, built from the
    grammar's own node types, so the walk over the tree happens in tree-sitter, not here."""
    cache: dict[int, Query | None] = _local.__dict__.setdefault("queries", {})
    key = id(language)
    if key not in cache:
        groups: dict[int, set[str]] = {}
        for i in range(language.node_kind_count):
            if language.node_kind_is_named(i) and language.node_kind_is_visible(i):
                kind = language.node_kind_for_id(i)
                if kind is not None and _category(kind) in _CAPTURED:
                    groups.setdefault(_category(kind), set()).add(kind)
        cache[key] = _compile(language, groups)
    return cache[key]


def _compile(language: Language, groups: dict[int, set[str]]) -> Query | None:
    """The query, leaving out any node type the grammar's query syntax refuses."""
    def pattern(kinds: Iterable[str], category: int) -> str:
        return f"[{' '.join(f'({k})' for k in sorted(kinds))}] @{_CAPTURED[category]}"

    text = " ".join(pattern(kinds, c) for c, kinds in sorted(groups.items()))
    if not text:
        return None
    try:
        return Query(language, text)
    except Exception:  # noqa: BLE001 - a kind that cannot be queried; find it below
        log.info("refs query: some node types of this grammar cannot be queried; skipping them")
    kept: dict[int, set[str]] = {}
    for category, kinds in groups.items():
        for kind in kinds:
            try:
                Query(language, pattern([kind], category))
            except Exception:  # noqa: BLE001, S112 - that kind is left out
                continue
            kept.setdefault(category, set()).add(kind)
    text = " ".join(pattern(kinds, c) for c, kinds in sorted(kept.items()))
    return Query(language, text) if text else None


def extract_refs(src: SourceText, root: Node, defs: Sequence[Definition],
                 language: Language) -> list[Ref]:
    """Every use of a name in the tree, in position order (see the module docstring). Never
    raises: a failure here costs the file its refs, not its symbols and chunks."""
    try:
        return _refs(src, root, defs, language)
    except Exception:
        log.warning("refs extraction failed; the file is indexed without refs", exc_info=True)
        return []


def _refs(src: SourceText, root: Node, defs: Sequence[Definition],
          language: Language) -> list[Ref]:
    query = _query(language)
    if query is None:
        return []
    cursor = QueryCursor(query)
    # The same depth bound as definitions: 100k nested brackets must cost no more than a
    # flat file, and no real use of a name sits that deep.
    cursor.set_max_start_depth(MAX_DEF_DEPTH)
    found = cursor.captures(root)
    names = {(d.name_node.start_byte, d.name_node.end_byte) for d in defs}
    imports = _union((n.start_byte, n.end_byte) for n in found.get("import", ()))
    calls: dict[tuple[int, int], str | None] = {}  # callee name node -> receiver
    for call in found.get("call", ()):
        callee = _callee(src, call)
        if callee is not None:
            calls[(callee[0].start_byte, callee[0].end_byte)] = callee[1]
    prose = _union([*((n.start_byte, n.end_byte) for n in found.get("comment", ())),
                    *((n.start_byte, n.end_byte) for n in found.get("string", ())
                      if _statement(n))])
    uses = [(n.start_byte, 0, n) for n in found.get("name", ()) if n.child_count == 0]
    uses += [(n.start_byte, 1, n) for n in found.get("string", ())]
    uses.sort(key=lambda item: (item[0], item[1]))
    enclosing = _Enclosing(defs)
    refs: list[Ref] = []
    # In an ASCII file a byte column is a UTF-16 column: no conversion per position.
    ascii_file = src.data.isascii()
    for start, is_string, node in uses[: MAX_REFS_PER_FILE]:
        end = node.end_byte
        if _inside(prose, start, end) or (not is_string and (start, end) in names):
            continue
        in_import = _inside(imports, start, end)
        if is_string:
            _string(src, node, in_import, enclosing, refs)
            continue
        if in_import:
            ref_kind, receiver = _IMPORT_REF, None
        elif (start, end) in calls:
            ref_kind, receiver = _CALL_REF, calls[(start, end)]
        else:
            ref_kind, receiver = _IDENTIFIER_REF, None
        first: tuple[int, int] = node.start_point
        last: tuple[int, int] = node.end_point
        if not ascii_file:
            first, last = src.point(node.start_point), src.point(node.end_point)
        refs.append(Ref(cap(src.data[start:end].decode("utf-8", "replace")), ref_kind,
                        first[0], first[1], last[0], last[1], enclosing.at(start), receiver))
    return refs


_STATEMENT_BLOCKS = frozenset({"block", "module"})


def _statement(node: Node) -> bool:
    """A string that is a statement of its own: a docstring, prose rather than a use. Python's
    grammar in the language pack puts it straight in the block (or module), without an
    `expression_statement` around it."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type in _STATEMENT_BLOCKS:
        return True
    return parent.type == "expression_statement" and parent.named_child_count == 1


def _union(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Byte ranges merged into disjoint ones, in order (imports nest: a statement, its
    clause, its specifiers)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(r for r in ranges if r[1] > r[0]):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _inside(ranges: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) lies in one of `ranges` (disjoint, in order)."""
    index = bisect_right(ranges, (start, 1 << 62)) - 1
    return index >= 0 and ranges[index][0] <= start and end <= ranges[index][1]


def _string(src: SourceText, node: Node, in_import: bool, enclosing: _Enclosing,
            refs: list[Ref]) -> None:
    """Record a short one-line string literal."""
    if node.start_point.row != node.end_point.row:
        return
    content = string_content(src.node_text(node))
    if content is None or len(content) > MAX_STRING_CHARS or not content.strip():
        return
    refs.append(Ref(cap(content), _IMPORT_REF if in_import else _STRING_REF,
                    *src.point(node.start_point), *src.point(node.end_point),
                    enclosing.at(node.start_byte)))
