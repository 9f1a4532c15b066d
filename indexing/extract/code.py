"""Definitions of programming languages: query hits resolved into symbols with their ranges,
containers, qualified names and docs (the conventions are in the package docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import QueryCursor

from indexing.extract.code_chunks import code_chunks
from indexing.extract.definition import CONTAINER_KINDS, TYPE_KINDS, Definition
from indexing.extract.docs import comment_doc, lead, python_doc
from indexing.extract.nodes import MAX_SIGNATURE_CHARS, cap, collapse
from indexing.languages import LanguageRules, get_parser, get_query, language_rules
from indexing.positions import SourceText
from indexing.records import Extraction, Symbol, SymbolKind

if TYPE_CHECKING:
    from tree_sitter import Node

K = SymbolKind
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


def extract_code(lang: str, src: SourceText) -> Extraction:
    rules = language_rules(lang)
    tree = get_parser(lang).parse(src.data)
    root = tree.root_node
    defs = [d for d in (_resolve(rules, src, *hit) for hit in _best_hits(lang, root)) if d]
    defs.sort(key=lambda d: (d.node.start_byte, -d.node.end_byte, d.name_node.start_byte))
    _link(defs, _root_scope(rules, src, root), rules)
    symbols = [_to_symbol(src, d) for d in defs]
    chunks = code_chunks(src, defs)
    return Extraction(lang=lang, symbols=symbols, chunks=chunks)


def _best_hits(lang: str, root: Node) -> list[tuple[str, Node, Node]]:
    """(kind, definition node, name node) with one hit per name node: the more specific kind
    wins, then the earlier pattern."""
    best: dict[tuple[int, int], tuple[tuple[int, int], str, Node, Node]] = {}
    for index, captures in QueryCursor(get_query(lang)).matches(root):
        def_key = next((k for k in captures if k.startswith("definition.")), None)
        names = captures.get("name")
        if def_key is None or not names or not captures[def_key]:
            continue
        kind = def_key.removeprefix("definition.")
        score = (_KIND_RANK.get(kind, 0), -index)
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


def _resolve(
    rules: LanguageRules, src: SourceText, kind_name: str, node: Node, name_node: Node
) -> Definition | None:
    range_node = _range_node(node, name_node)
    if range_node is None:
        return None
    kind = _to_kind(kind_name)
    d = Definition(range_node, name_node, kind, cap(collapse(src.node_text(name_node))))
    if range_node.type == "impl_item":
        _name_impl(src, d)
    d.scope_parts = _scope_parts(rules, src, range_node, name_node)
    top, comments = lead(range_node)
    d.lead_row, d.lead_byte = top.start_point.row, top.start_byte
    if rules.doc == "docstring":
        d.doc = python_doc(src, range_node)
    else:
        d.doc = comment_doc(src, rules.doc_comment, comments)
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


def _name_impl(src: SourceText, d: Definition) -> None:
    """`impl Trait for X` / `impl X`: the block's name, and the bare type its items hang on."""
    trait = d.node.child_by_field_name("trait")
    type_node = d.node.child_by_field_name("type") or d.name_node
    type_text = collapse(src.node_text(type_node))
    if trait is not None:
        d.name = cap(f"impl {collapse(src.node_text(trait))} for {type_text}")
    else:
        d.name = cap(f"impl {type_text}")
    d.impl_type = _base_type_name(src, type_node)


def _base_type_name(src: SourceText, node: Node) -> str:
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
    return collapse(src.node_text(current)).replace("::", ".")


def _scope_parts(
    rules: LanguageRules, src: SourceText, node: Node, name_node: Node
) -> list[str]:
    """Scopes written in the definition itself: C++ `K::m`, Go method receivers."""
    if node.type in rules.receiver_nodes:
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


def _root_scope(rules: LanguageRules, src: SourceText, root: Node) -> str:
    """The package that qualifies every name, for languages that say so (Go)."""
    if rules.package_node is None:
        return ""
    for child in root.named_children:
        if child.type == rules.package_node and child.named_child_count:
            return src.node_text(child.named_children[0]).strip()
    return ""


def _link(defs: list[Definition], root_scope: str, rules: LanguageRules) -> None:
    """Parents, final kinds, containers and qualified names, in one pass over the
    definitions in position order."""
    stack: list[Definition] = []
    for d in defs:
        while stack and not _encloses(stack[-1].node, d.node):
            stack.pop()
        d.parent = stack[-1] if stack else None
        _refine_kind(d, rules)
        scope = d.parent.child_scope if d.parent else root_scope
        parts = [p for p in (scope, *d.scope_parts) if p]
        d.qualified = ".".join([*parts, d.name])
        d.child_scope = ".".join([*parts, d.impl_type or d.name]).replace("::", ".")
        if d.kind in CONTAINER_KINDS:
            stack.append(d)


def _encloses(outer: Node, inner: Node) -> bool:
    same = outer.start_byte == inner.start_byte and outer.end_byte == inner.end_byte
    return not same and outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _refine_kind(d: Definition, rules: LanguageRules) -> None:
    """Whether a function is a method depends on where it sits, which patterns can't see."""
    if d.kind in (K.FUNCTION, K.METHOD) and d.parent is not None and not d.scope_parts:
        d.kind = K.METHOD if d.parent.kind in TYPE_KINDS else K.FUNCTION
    constructor = rules.constructor_named_like_container
    if constructor and d.kind == K.METHOD and d.name == _container(d):
        d.kind = K.CONSTRUCTOR


def _container(d: Definition) -> str | None:
    if d.scope_parts:
        return d.scope_parts[-1]
    return d.parent.name if d.parent else None


def _to_symbol(src: SourceText, d: Definition) -> Symbol:
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


def _signature(src: SourceText, node: Node, name_node: Node) -> str:
    row = name_node.start_point.row
    start = name_node.start_byte - name_node.start_point.column
    if node.start_point.row == row:
        start = max(start, node.start_byte)
    limit = min(start + 4 * MAX_SIGNATURE_CHARS, node.end_byte)
    end = src.data.find(b"\n", start, limit)
    line = src.data[start : limit if end < 0 else end].decode("utf-8", "ignore")
    return line.strip()[:MAX_SIGNATURE_CHARS]
