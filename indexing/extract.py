"""Symbols and chunks from one file's text, with tree-sitter.

Conventions (other layers rely on them):

* Positions are LSP positions: 0-based lines, UTF-16 columns, exclusive ends. `range` is the
  definition node (Python: including decorators; Go/JS/TS: the whole `type`/`const`/`let`
  declaration when it declares only this name; C/C++: the whole function definition or
  prototype), `selection` is the name node.
* `container` is the name of the enclosing definition (class, struct, impl, namespace,
  function), or the scope written in the name itself (C++ `void K::m()` -> `K`; Go method
  receiver `func (t *T) M()` -> `T`); None at top level.
* `qualified_name` joins the enclosing scopes with ".", whatever the language's own separator:
  `Class.method`, `ns.K.m` (C++), `Outer.Inner.m` (Java, no package). Go prefixes the package
  from the `package` clause: `pkg.Func`, `pkg.Type`, `pkg.Type.Method`. A Rust `impl` block is
  a symbol of kind `object` named `impl Trait for X` / `impl X` (type text as written); the
  items inside it have that name as container and `X.item` as qualified name (`X` without
  generics), mod-prefixed when inside `mod`. Markdown headings: qualified name is the heading
  path joined with " > ", container the parent's path.
* `signature` is the line holding the name (so `def f(...)` rather than its decorator),
  starting at the definition when it begins mid-line, stripped, at most 200 characters.
* `doc` is the Python docstring; the contiguous comment block directly above the definition
  (markers stripped) for the brace languages, Rust keeping only `///` and `/** */` lines; the
  first paragraph under a Markdown heading.
* A definition chunk runs from its leading comments, decorators and attributes to its end.
  Value symbols (constants, variables, fields, enum members) get no chunk of their own, nor
  do nested definitions that fit on one line: their container's chunk, or the module's code
  chunks, carry their text. A definition longer than the limits in `indexing.chunking` is cut
  into overlapping windows; when it has chunked children, only the lines outside them are.
* Markdown: one `section` chunk per heading, from the heading to the next heading of any
  level (subsections have their own chunks); text before the first heading is a section
  chunk with no symbol.

Lines are counted as tree-sitter counts rows, by "\\n" only; a lone "\\r" does not end a line.
"""

from __future__ import annotations

import inspect
import logging
import re
from bisect import bisect_left
from dataclasses import dataclass, field

from tree_sitter import Node, Point, QueryCursor

from indexing.chunking import (
    MAX_DEF_CHARS,
    clean_line,
    definition_windows,
    gaps,
    pieces,
    split_lines,
    too_long,
    window_chunks,
)
from indexing.chunking import text_chunks as text_chunks
from indexing.languages import get_parser, get_query, language_for_path
from indexing.records import Chunk, ChunkKind, Extraction, Span, Symbol, SymbolKind

log = logging.getLogger(__name__)

MAX_SIGNATURE_CHARS = 200
MAX_NAME_CHARS = 256
MAX_DOC_CHARS = 4000

K = SymbolKind
#: Kinds whose range can enclose other definitions.
CONTAINER_KINDS = frozenset(
    {K.CLASS, K.STRUCT, K.INTERFACE, K.ENUM, K.NAMESPACE, K.MODULE, K.OBJECT}
    | {K.FUNCTION, K.METHOD, K.CONSTRUCTOR}
)
#: Kinds inside which a function is a method.
TYPE_KINDS = frozenset({K.CLASS, K.STRUCT, K.INTERFACE, K.ENUM, K.OBJECT})
#: Kinds that name a value rather than a body of code: no chunk of their own.
VALUE_KINDS = frozenset({K.CONSTANT, K.VARIABLE, K.FIELD, K.ENUM_MEMBER, K.PROPERTY})

_KIND_ALIASES = {"macro": K.FUNCTION, "type": K.TYPE_PARAMETER}
#: When two patterns name the same identifier, the more specific kind wins.
_KIND_RANK = {"constructor": 4, "method": 3, "function": 2, "constant": 1}

_C_DECLARATION_TYPES = frozenset(
    {"function_definition", "declaration", "field_declaration", "type_definition"}
)
_SPECIFIERS = frozenset(
    {"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}
)
#: Single-name specs widen to their declaration, so the range includes `type`/`const`/`let`.
_SPEC_PARENTS: dict[str, tuple[str, ...]] = {
    "type_spec": ("type_declaration",),
    "type_alias": ("type_declaration",),
    "const_spec": ("const_declaration",),
    "var_spec": ("var_declaration",),
    "variable_declarator": ("lexical_declaration", "variable_declaration"),
}
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
_ATX_CLOSING = re.compile(r"(^|\s+)#+\s*$")
_WHITESPACE = re.compile(r"\s+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def extract(path: str, text: str) -> Extraction | None:
    """Symbols and chunks for `path`, or None when no grammar applies (use `text_chunks`).

    Never raises: on an unexpected failure the file still gets plain line-window chunks, so
    one odd file cannot stop indexing or become unsearchable."""
    lang = language_for_path(path)
    if lang is None:
        return None
    try:
        if lang == "markdown":
            return _extract_markdown(_Source(text))
        return _extract_code(lang, _Source(text))
    except Exception:
        log.warning("extraction failed for %s; indexing it as plain text", path, exc_info=True)
        return Extraction(lang=lang, chunks=text_chunks(text))


class _Source:
    """The file as str lines and UTF-8 bytes, with byte-to-UTF-16 column conversion that is
    free on ASCII lines and logarithmic (after one linear pass) on the others."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.data = text.encode("utf-8", "surrogatepass")
        self.lines = split_lines(text)
        self._maps: dict[int, tuple[list[int], list[int]]] = {}

    def col(self, row: int, byte_col: int) -> int:
        if row >= len(self.lines) or self.lines[row].isascii():
            return byte_col
        positions, deficits = self._line_map(row)
        return byte_col - deficits[bisect_left(positions, byte_col)]

    def _line_map(self, row: int) -> tuple[list[int], list[int]]:
        """Byte offsets of the line's non-ASCII characters and, before each, how many more
        UTF-8 bytes than UTF-16 units the line has used so far."""
        cached = self._maps.get(row)
        if cached is not None:
            return cached
        positions: list[int] = []
        deficits = [0]
        extra_bytes = 0
        for match in _NON_ASCII.finditer(self.lines[row]):
            code = ord(match.group())
            utf8 = 2 if code < 0x800 else 3 if code < 0x10000 else 4
            positions.append(match.start() + extra_bytes)
            extra_bytes += utf8 - 1
            deficits.append(deficits[-1] + utf8 - (2 if code > 0xFFFF else 1))
        self._maps[row] = (positions, deficits)
        return positions, deficits

    def point(self, point: Point) -> tuple[int, int]:
        return point.row, self.col(point.row, point.column)

    def span(self, node: Node) -> Span:
        return Span(*self.point(node.start_point), *self.point(node.end_point))

    def slice(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def node_text(self, node: Node) -> str:
        return self.slice(node.start_byte, node.end_byte)

    def utf16_len(self, row: int) -> int:
        line = clean_line(self.lines[row]) if row < len(self.lines) else ""
        return len(line.encode("utf-16-le", "surrogatepass")) // 2


@dataclass
class _Def:
    """A definition while it is being resolved; becomes a `Symbol`."""

    node: Node
    name_node: Node
    kind: SymbolKind
    name: str
    scope_parts: list[str] = field(default_factory=list)
    impl_type: str | None = None
    lead_row: int = 0
    lead_byte: int = 0
    doc: str = ""
    parent: _Def | None = None
    qualified: str = ""
    child_scope: str = ""

    @property
    def end_row(self) -> int:
        return _end_row(self.node)


def _end_row(node: Node) -> int:
    """The last row with content: a node ending at column 0 ends on the row before."""
    end = node.end_point
    if end.column == 0 and end.row > node.start_point.row:
        return end.row - 1
    return end.row


# ---------------------------------------------------------------------------------------
# Code languages


def _extract_code(lang: str, src: _Source) -> Extraction:
    tree = get_parser(lang).parse(src.data)
    root = tree.root_node
    defs = [d for d in (_resolve(lang, src, *hit) for hit in _best_hits(lang, root)) if d]
    defs.sort(key=lambda d: (d.node.start_byte, -d.node.end_byte, d.name_node.start_byte))
    _link(defs, _root_scope(lang, src, root), lang)
    symbols = [_to_symbol(src, d) for d in defs]
    chunks = _code_chunks(src, defs)
    return Extraction(lang=lang, symbols=symbols, chunks=chunks)


def _best_hits(lang: str, root: Node) -> list[tuple[str, Node, Node]]:
    """(kind, definition node, name node) with one hit per name node: ours beat the wheel's
    tags.scm, then the more specific kind, then the earlier pattern."""
    dq = get_query(lang)
    best: dict[tuple[int, int], tuple[tuple[bool, int, int], str, Node, Node]] = {}
    for index, captures in QueryCursor(dq.query).matches(root):
        def_key = next((k for k in captures if k.startswith("definition.")), None)
        names = captures.get("name")
        if def_key is None or not names or not captures[def_key]:
            continue
        kind = def_key.removeprefix("definition.")
        score = (index >= dq.base_count, _KIND_RANK.get(kind, 0), -index)
        for raw_name in names:
            name_node = _innermost_name(raw_name)
            key = (name_node.start_byte, name_node.end_byte)
            if key not in best or score > best[key][0]:
                best[key] = (score, kind, captures[def_key][0], name_node)
    return [(kind, node, name) for _, kind, node, name in best.values()]


def _innermost_name(node: Node) -> Node:
    """C++ `a::b::c` and `f<int>`: the identifier itself, so each name is seen once."""
    while node.type in ("qualified_identifier", "template_function"):
        inner = node.child_by_field_name("name")
        if inner is None:
            break
        node = inner
    return node


def _resolve(lang: str, src: _Source, kind_name: str, node: Node, name_node: Node) -> _Def | None:
    range_node = _range_node(node, name_node)
    if range_node is None:
        return None
    kind = _to_kind(kind_name)
    d = _Def(range_node, name_node, kind, _cap(_collapse(src.node_text(name_node))))
    if range_node.type == "impl_item":
        _name_impl(src, d)
    d.scope_parts = _scope_parts(lang, src, range_node, name_node)
    top, comments = _lead(range_node)
    d.lead_row, d.lead_byte = top.start_point.row, top.start_byte
    d.doc = _python_doc(src, range_node) if lang == "python" else _comment_doc(src, lang, comments)
    return d


def _to_kind(name: str) -> SymbolKind:
    alias = _KIND_ALIASES.get(name)
    if alias is not None:
        return alias
    try:
        return SymbolKind(name)
    except ValueError:
        return K.VARIABLE


def _range_node(node: Node, name_node: Node) -> Node | None:
    """The node a definition's range covers, or None when the hit is not a definition."""
    parent = name_node.parent
    if parent is not None and parent.type in _SPECIFIERS and not _has_body(parent):
        return None  # `struct S s;` uses S, it does not define it
    if node.type == "function_declarator":
        return _c_declaration(node)
    wanted = _SPEC_PARENTS.get(node.type)
    outer = node.parent
    if wanted and outer is not None and outer.type in wanted:
        siblings = [c for c in outer.named_children if c.type == node.type]
        if len(siblings) == 1:
            return outer
    return node


def _has_body(node: Node) -> bool:
    return node.child_by_field_name("body") is not None


def _c_declaration(node: Node) -> Node | None:
    """From a C/C++ function declarator up to its definition or prototype; None for
    function-typed parameters and for declarations local to a function body."""
    current: Node | None = node
    while current is not None and current.type not in _C_DECLARATION_TYPES:
        if current.type == "parameter_declaration" or not (
            current.type.endswith("declarator") or current.type == "qualified_identifier"
        ):
            return None
        current = current.parent
    if current is None:
        return None
    parent = current.parent
    if current.type == "declaration" and parent is not None and parent.type == "compound_statement":
        return None
    return current


def _name_impl(src: _Source, d: _Def) -> None:
    """`impl Trait for X` / `impl X`: the block's name, and the bare type its items hang on."""
    trait = d.node.child_by_field_name("trait")
    type_node = d.node.child_by_field_name("type") or d.name_node
    type_text = _collapse(src.node_text(type_node))
    if trait is not None:
        d.name = _cap(f"impl {_collapse(src.node_text(trait))} for {type_text}")
    else:
        d.name = _cap(f"impl {type_text}")
    d.impl_type = _base_type_name(src, type_node)


def _base_type_name(src: _Source, node: Node) -> str:
    """`&mut Vec<T>` -> `Vec`, `*T[K]` -> `T`: the named type without generics or pointers."""
    current = node
    for _ in range(16):
        if current.type not in ("generic_type", "reference_type", "pointer_type", "template_type"):
            break
        inner = current.child_by_field_name("type") or current.child_by_field_name("name")
        if inner is None and current.named_child_count:
            inner = current.named_children[0]
        if inner is None:
            break
        current = inner
    return _collapse(src.node_text(current)).replace("::", ".")


def _scope_parts(lang: str, src: _Source, node: Node, name_node: Node) -> list[str]:
    """Scopes written in the definition itself: C++ `K::m`, Go method receivers."""
    if lang == "go" and node.type == "method_declaration":
        receiver = node.child_by_field_name("receiver")
        param = receiver.named_children[0] if receiver and receiver.named_child_count else None
        type_node = param.child_by_field_name("type") if param else None
        return [_base_type_name(src, type_node)] if type_node else []
    parts: list[str] = []
    parent = name_node.parent
    while parent is not None and parent.type == "qualified_identifier":
        scope = parent.child_by_field_name("scope")
        if scope is not None:
            parts.insert(0, _base_type_name(src, scope))
        parent = parent.parent
    return parts


def _lead(node: Node) -> tuple[Node, list[Node]]:
    """Where a definition's chunk starts (its outermost wrapper, or the attributes and
    comments directly above it) and those comments."""
    lead = node
    while lead.parent is not None and lead.parent.type in _LEAD_WRAPPERS:
        lead = lead.parent
    comments: list[Node] = []
    top = lead
    previous = lead.prev_named_sibling
    while previous is not None and _end_row(previous) >= top.start_point.row - 1:
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
    return before is not None and _end_row(before) == comment.start_point.row


def _python_doc(src: _Source, node: Node) -> str:
    core = node.child_by_field_name("definition") if node.type == "decorated_definition" else node
    body = core.child_by_field_name("body") if core is not None else None
    if body is None:
        return ""
    first = next((c for c in body.named_children if c.type != "comment"), None)
    if first is None or first.type != "expression_statement" or not first.named_child_count:
        return ""
    string = first.named_children[0]
    if string.type != "string":
        return ""
    literal = _PY_STRING_PREFIX.sub("", src.node_text(string))
    quote = literal[:3] if literal[:3] in ('"""', "'''") else literal[:1]
    if len(literal) >= 2 * len(quote) and literal.endswith(quote):
        literal = literal[len(quote) : len(literal) - len(quote)]
    return inspect.cleandoc(literal)[:MAX_DOC_CHARS]


def _comment_doc(src: _Source, lang: str, comments: list[Node]) -> str:
    lines: list[str] = []
    for comment in comments:
        text = src.node_text(comment).strip()
        if lang == "rust" and not _is_rust_doc(text):
            continue
        lines.extend(_strip_comment(text))
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)[:MAX_DOC_CHARS]


def _is_rust_doc(text: str) -> bool:
    if text.startswith("///"):
        return not text.startswith("////")
    return text.startswith("/**") and not text.startswith("/***") and text != "/**/"


def _strip_comment(text: str) -> list[str]:
    if text.startswith("/*"):
        body = text[2:-2] if text.endswith("*/") and len(text) >= 4 else text[2:]
        return [line.strip().lstrip("*").strip() for line in body.split("\n")]
    marker = "/" if text.startswith("//") else "#"
    return [line.strip().lstrip(marker).lstrip("!").strip() for line in text.split("\n")]


def _root_scope(lang: str, src: _Source, root: Node) -> str:
    """Go qualifies every name with its package."""
    if lang != "go":
        return ""
    for child in root.named_children:
        if child.type == "package_clause" and child.named_child_count:
            return src.node_text(child.named_children[0]).strip()
    return ""


def _link(defs: list[_Def], root_scope: str, lang: str) -> None:
    """Parents, final kinds, containers and qualified names, in one pass over the
    definitions in position order."""
    stack: list[_Def] = []
    for d in defs:
        while stack and not _encloses(stack[-1].node, d.node):
            stack.pop()
        d.parent = stack[-1] if stack else None
        _refine_kind(d, lang)
        scope = d.parent.child_scope if d.parent else root_scope
        parts = [p for p in (scope, *d.scope_parts) if p]
        d.qualified = ".".join([*parts, d.name])
        d.child_scope = ".".join([*parts, d.impl_type or d.name]).replace("::", ".")
        if d.kind in CONTAINER_KINDS:
            stack.append(d)


def _encloses(outer: Node, inner: Node) -> bool:
    same = outer.start_byte == inner.start_byte and outer.end_byte == inner.end_byte
    return not same and outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _refine_kind(d: _Def, lang: str) -> None:
    """Whether a function is a method depends on where it sits, which patterns can't see."""
    if d.kind in (K.FUNCTION, K.METHOD) and d.parent is not None and not d.scope_parts:
        d.kind = K.METHOD if d.parent.kind in TYPE_KINDS else K.FUNCTION
    if lang == "cpp" and d.kind == K.METHOD and d.name == _container(d):
        d.kind = K.CONSTRUCTOR


def _container(d: _Def) -> str | None:
    if d.scope_parts:
        return d.scope_parts[-1]
    return d.parent.name if d.parent else None


def _to_symbol(src: _Source, d: _Def) -> Symbol:
    return Symbol(
        name=d.name,
        kind=d.kind,
        container=_container(d),
        qualified_name=d.qualified,
        range=src.span(d.node),
        selection=src.span(d.name_node),
        signature=_signature(src, d.node, d.name_node),
        doc=d.doc,
    )


def _signature(src: _Source, node: Node, name_node: Node) -> str:
    row = name_node.start_point.row
    start = name_node.start_byte - name_node.start_point.column
    if node.start_point.row == row:
        start = max(start, node.start_byte)
    limit = min(start + 4 * MAX_SIGNATURE_CHARS, node.end_byte)
    end = src.data.find(b"\n", start, limit)
    line = src.data[start : limit if end < 0 else end].decode("utf-8", "ignore")
    return line.strip()[:MAX_SIGNATURE_CHARS]


def _owns_chunk(d: _Def) -> bool:
    if d.kind in VALUE_KINDS:
        return False
    return d.parent is None or d.lead_row != d.end_row


def _code_chunks(src: _Source, defs: list[_Def]) -> list[Chunk]:
    owners = sorted(
        (i for i, d in enumerate(defs) if _owns_chunk(d)),
        key=lambda i: (defs[i].lead_row, -defs[i].end_row, i),
    )
    children: dict[int, list[tuple[int, int]]] = {i: [] for i in owners}
    roots: list[tuple[int, int]] = []
    stack: list[int] = []
    for i in owners:
        d = defs[i]
        while stack and defs[stack[-1]].end_row < d.end_row:
            stack.pop()
        (children[stack[-1]] if stack else roots).append((d.lead_row, d.end_row))
        stack.append(i)
    chunks: list[Chunk] = []
    for i in owners:
        chunks.extend(_definition_chunks(src, defs[i], i, children[i]))
    last = len(src.lines) - 1
    for run in gaps(0, last, roots):
        chunks.extend(window_chunks(src.lines, run, ChunkKind.CODE))
    chunks.sort(key=lambda c: (c.start_line, -c.end_line, -1 if c.symbol is None else c.symbol))
    return _drop_repeats(chunks)


def _drop_repeats(chunks: list[Chunk]) -> list[Chunk]:
    """`typedef struct Q {...} Q;` defines two symbols over the same text: index it once."""
    seen: set[tuple[int, int, str]] = set()
    kept: list[Chunk] = []
    for chunk in chunks:
        key = (chunk.start_line, chunk.end_line, chunk.text)
        if key not in seen:
            seen.add(key)
            kept.append(chunk)
    return kept


def _definition_chunks(
    src: _Source, d: _Def, index: int, inner: list[tuple[int, int]]
) -> list[Chunk]:
    lines = src.lines
    span = (d.lead_row, d.end_row)
    kind = ChunkKind.DEFINITION
    if span[0] == span[1] and len(lines[span[0]]) > MAX_DEF_CHARS:
        # One definition among many on a minified line: its own text, not the whole line.
        text = src.slice(d.lead_byte, d.node.end_byte).removesuffix("\r")
        return [Chunk(*span, piece, kind, index, d.qualified) for piece in pieces(text)]
    if not too_long(lines, *span):
        return window_chunks(lines, span, kind, index, d.qualified, max_lines=span[1] - span[0] + 1)
    if not inner:
        return definition_windows(lines, span, index, d.qualified, kind)
    chunks: list[Chunk] = []
    for run in gaps(*span, inner):
        chunks.extend(definition_windows(lines, run, index, d.qualified, kind))
    return chunks


def _collapse(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


def _cap(text: str) -> str:
    return text[:MAX_NAME_CHARS]


# ---------------------------------------------------------------------------------------
# Markdown


@dataclass
class _Heading:
    node: Node
    level: int
    name: str
    path: list[str]
    end_row: int = -1


def _extract_markdown(src: _Source) -> Extraction:
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


def _headings(src: _Source, root: Node) -> list[_Heading]:
    found = QueryCursor(get_query("markdown").query).captures(root).get("heading", [])
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


def _heading_name(src: _Source, node: Node) -> str:
    content = node.child_by_field_name("heading_content")
    if content is None:
        return ""
    text = src.node_text(content)
    if node.type == "atx_heading":
        text = _ATX_CLOSING.sub("", text)
    return _cap(_collapse(text))


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


def _heading_symbol(src: _Source, h: _Heading) -> Symbol:
    node = h.node
    content = node.child_by_field_name("heading_content")
    end_row = h.end_row
    while end_row > _end_row(node) and not src.lines[end_row].strip():
        end_row -= 1
    end_row = max(end_row, _end_row(node))
    start = src.point(node.start_point)
    return Symbol(
        name=h.name,
        kind=K.STRING,
        container=" > ".join(h.path[:-1]) or None,
        qualified_name=" > ".join(h.path),
        range=Span(*start, end_row, src.utf16_len(end_row)),
        selection=src.span(_heading_text_node(content) if content is not None else node),
        signature=clean_line(src.lines[node.start_point.row]).strip()[:MAX_SIGNATURE_CHARS],
        doc=_first_paragraph(src, node),
    )


def _heading_text_node(content: Node) -> Node:
    """A setext heading's content is a paragraph ending in a newline; its inline text is
    the name."""
    inline = content.named_children[0] if content.named_child_count else None
    return inline if content.type == "paragraph" and inline is not None else content


def _first_paragraph(src: _Source, heading: Node) -> str:
    sibling = heading.next_named_sibling
    while sibling is not None and sibling.type not in ("atx_heading", "setext_heading", "section"):
        if sibling.type == "paragraph":
            lines = src.node_text(sibling).split("\n")
            return "\n".join(line.strip() for line in lines if line.strip())[:MAX_DOC_CHARS]
        sibling = sibling.next_named_sibling
    return ""
