"""Definitions of programming languages: query hits resolved into symbols with their ranges,
containers, qualified names and docs (the conventions are in the package docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tree_sitter import QueryCursor

from indexing.extract.code_chunks import code_chunks
from indexing.extract.definition import CONTAINER_KINDS, TYPE_KINDS, Definition
from indexing.extract.docs import (
    attribute_doc,
    child_doc,
    comment_doc,
    is_comment,
    lead,
    python_doc,
    stray_comments,
    string_doc,
)
from indexing.extract.nodes import MAX_DEF_DEPTH, MAX_SIGNATURE_CHARS, cap, collapse
from indexing.extract.refs import extract_refs
from indexing.grammars import get_query, parse
from indexing.language_rules import LanguageRules, has_definitions, language_rules
from indexing.positions import SourceText
from indexing.records import CALLABLE_KINDS, Extraction, Span, Symbol, SymbolKind

if TYPE_CHECKING:
    from tree_sitter import Node

K = SymbolKind
#: Kind names patterns may use beyond `SymbolKind`'s: `extension` is a Swift-style block that
#: adds to a type named elsewhere (an `object` named `extension T`, like Rust's `impl T`).
_KIND_ALIASES = {"macro": K.FUNCTION, "type": K.TYPE_PARAMETER, "extension": K.OBJECT}
#: When two patterns name the same identifier, the more specific kind wins.
#: A value bound to a function or a type (`const f = () => ...`, Zig's `const P = struct {}`)
#: is that function or type.
_KIND_RANK = {
    "constructor": 4, "method": 3, "function": 2, "macro": 2,
    "class": 2, "struct": 2, "enum": 2, "interface": 2, "object": 2, "module": 2,
    "namespace": 2, "constant": 1,
}

_C_DECLARATION_TYPES = frozenset(
    {"function_definition", "declaration", "field_declaration", "type_definition"}
)
_SPECIFIERS = frozenset(
    {"struct_specifier", "union_specifier", "enum_specifier", "class_specifier"}
)
#: A spec alone in its declaration widens to it, so the range includes `type`/`const`/`let`.
#: Alone among specs of every type here, comments aside: one `alias = T` among the structs of
#: a Go `type ( ... )` block is not alone, and does not take the block's range and comment.
_SPEC_PARENTS: dict[str, tuple[str, ...]] = {
    "type_spec": ("type_declaration",),
    "type_alias": ("type_declaration",),
    "const_spec": ("const_declaration",),
    "var_spec": ("var_declaration",),
    "variable_declarator": ("lexical_declaration", "variable_declaration"),
    "let_binding": ("value_definition",),
    "type_binding": ("type_definition",),
    "module_binding": ("module_definition",),
    "class_binding": ("class_definition",),
}


def extract_code(lang: str, src: SourceText) -> Extraction:
    rules = language_rules(lang)
    tree = parse(lang, src.data)
    root = tree.root_node
    if rules.embedded == "none" and root.has_error:
        from indexing.extract.embedded import with_regions
        from indexing.extract.recovery import isolated_regions, without_macro_lines

        blocks = without_macro_lines(lang, src, root) or isolated_regions(lang, src, root)
        if blocks is not None:
            return with_regions(lang, src, root, blocks, [], [], [])
    defs = definitions(lang, src, root)
    symbols = [to_symbol(src, rules, d) for d in defs]
    refs = extract_refs(src, root, defs, tree.language)
    if rules.embedded == "none":
        return Extraction(lang=lang, symbols=symbols, chunks=code_chunks(src, defs, root),
                          refs=refs)
    from indexing.extract.embedded import script_regions, with_regions

    return with_regions(lang, src, root, script_regions(root, src), symbols, defs, refs)


def definitions(lang: str, src: SourceText, root: Node) -> list[Definition]:
    """The definitions `lang`'s patterns find under `root`, resolved and linked, in position
    order. `root` may be a tree parsed over part of the file (a `<script>` block)."""
    rules = language_rules(lang)
    defs: list[Definition] = []
    if has_definitions(lang):
        hits = _best_hits(lang, root)
        defs = [d for d in (_resolve(rules, src, *hit) for hit in hits)
                if d and d.name != rules.blank_name]
    defs.sort(key=lambda d: (d.node.start_byte, -d.node.end_byte, d.name_node.start_byte))
    defs = _without_restated(defs)
    if rules.merge_clauses:
        defs = _merge_clauses(defs)
    _link(defs, _package_scopes(rules, src, root), rules)
    return defs


Hit = tuple[str, "Node", "Node", list["Node"], "Node | None"]


def _best_hits(lang: str, root: Node) -> list[Hit]:
    """(kind, definition node, name node, scope nodes, doc node) with one hit per name node:
    the more specific kind wins, then the earlier pattern. `@scope` captures name the scope
    written in the definition itself (Lua's `M` in `function M.f`, Terraform's resource
    type); `@doc` the docstring written inside it where a grammar has no field for one
    (Lisp's `(defn name "doc" [args] ...)`). `@inert` captures code the language reads and
    throws away (Clojure's `(comment ...)` and `#_`, Scheme's `#;`): nothing in it is
    defined."""
    best: dict[tuple[int, int], tuple[tuple[int, int], Hit]] = {}
    inert: list[tuple[int, int]] = []
    cursor = QueryCursor(get_query(lang))
    cursor.set_max_start_depth(MAX_DEF_DEPTH)
    for index, captures in cursor.matches(root):
        inert.extend((n.start_byte, n.end_byte) for n in captures.get("inert", ()))
        def_key = next((k for k in captures if k.startswith("definition.")), None)
        names = captures.get("name")
        if def_key is None or not names or not captures[def_key]:
            continue
        kind = def_key.removeprefix("definition.")
        score = (_KIND_RANK.get(kind, 0), -index)
        scopes = sorted(captures.get("scope", []), key=lambda n: n.start_byte)
        doc = captures.get("doc", [None])[0]
        for raw_name in names:
            name_node = _innermost_name(raw_name)
            key = (name_node.start_byte, name_node.end_byte)
            if key not in best or score > best[key][0]:
                best[key] = (score, (kind, captures[def_key][0], name_node, scopes, doc))
    return [hit for _, hit in best.values()
            if not any(start <= hit[1].start_byte and hit[1].end_byte <= end
                       for start, end in inert)]


def _innermost_name(node: Node) -> Node:
    """C++ `a::b::c` and `f<int>`: the identifier itself, so each name is seen once."""
    while node.type in ("qualified_identifier", "template_function"):
        inner = node.child_by_field_name("name")
        if inner is None:
            break
        node = inner
    return node


def _resolve(
    rules: LanguageRules, src: SourceText, kind_name: str, node: Node, name_node: Node,
    scopes: list[Node], doc: Node | None,
) -> Definition | None:
    range_node = _range_node(node, name_node)
    if range_node is None:
        return None
    kind = _to_kind(kind_name)
    d = Definition(range_node, name_node, kind, _name_text(src, name_node))
    if range_node.type == "impl_item":
        _name_impl(src, d)
    elif kind_name == "extension":
        _name_extension(src, d)
    d.scope_parts = _scope_parts(rules, src, range_node, name_node, scopes)
    if rules.body_sibling is not None:
        body = range_node.next_named_sibling
        if body is not None and body.type == rules.body_sibling:
            d.end_node = body
    top, comments = lead(range_node, rules)
    d.lead_row, d.lead_col = src.point(top.start_point)
    d.lead_byte = top.start_byte
    if doc is not None:  # a docstring the pattern captured (`@doc`)
        d.doc = string_doc(src.node_text(doc))
    else:
        d.doc = _doc(rules, src, range_node, top, comments)
    return d


def _content_end(src: SourceText, node: Node, rules: LanguageRules) -> Node | None:
    """Where a definition's own text ends when the grammar lets its node run on over comments
    that belong to what follows (Scala's indented bodies take the comments, at the
    definition's own indentation or less, up to the next member); None when it ends at its
    node's end. Only comments that nothing but whitespace follows inside the node count.
    This trims the symbol's range; its chunk follows the tree, comments and all."""
    column = node.start_point.column
    end: Node | None = None
    current = node
    while current.named_child_count:
        children = current.named_children
        last = children[-1]
        if src.data[last.end_byte : current.end_byte].strip():
            break  # a closing token follows: the node ends where it should
        while children and is_comment(children[-1], rules):
            if children[-1].start_point.column > column:
                return end
            children.pop()
        if not children:
            break
        if len(children) < current.named_child_count:
            end = children[-1]
        current = children[-1]
    return end


def _doc(
    rules: LanguageRules, src: SourceText, node: Node, top: Node, comments: list[Node]
) -> str:
    if rules.doc == "docstring":
        return python_doc(src, node)
    if rules.doc == "attributes":
        return attribute_doc(src, node)
    if rules.doc == "child":
        return child_doc(src, rules, node)
    if node.type in rules.doc_after_nodes:
        after = node.next_named_sibling
        return comment_doc(src, rules, [after]) if after and is_comment(after, rules) else ""
    return comment_doc(src, rules, comments or stray_comments(top, rules))


def _name_text(src: SourceText, node: Node) -> str:
    """A name as people write it elsewhere: Ruby's `attr_reader :items` defines `items`, a
    Zig `test "parses"` is `parses`."""
    text = cap(collapse(src.node_text(node)))
    if node.type == "simple_symbol":
        return text[1:]
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


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
        specs = [c for c in outer.named_children if outer.type in _SPEC_PARENTS.get(c.type, ())]
        if len(specs) == 1:
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


#: Type nodes around the name of the type they are about: generics, pointers, references.
_TYPE_WRAPPERS = frozenset({
    "generic_type", "reference_type", "pointer_type", "template_type", "user_type",
    "receiver_type", "nullable_type", "string_lit",
})


def _name_extension(src: SourceText, d: Definition) -> None:
    """`extension Circle: Drawable`: the block's name (the heading up to its body, as written),
    and the bare type its members hang on."""
    body = d.node.child_by_field_name("body")
    end = body.start_byte if body is not None else d.name_node.end_byte
    heading = collapse(src.slice(d.name_node.start_byte, end))
    d.name = cap(f"extension {heading}")
    d.impl_type = _base_type_name(src, d.name_node)


def _base_type_name(src: SourceText, node: Node) -> str:
    """`&mut Vec<T>` -> `Vec`, `*T[K]` -> `T`: the named type without generics or pointers."""
    current = node
    for _ in range(16):
        if current.type not in _TYPE_WRAPPERS:
            break
        inner = current.child_by_field_name("type") or current.child_by_field_name("name")
        if inner is None and current.named_child_count:
            inner = current.named_children[0]
        if inner is None:
            break
        current = inner
    return collapse(src.node_text(current)).replace("::", ".")


def _scope_parts(
    rules: LanguageRules, src: SourceText, node: Node, name_node: Node, scopes: list[Node]
) -> list[str]:
    """Scopes written in the definition itself: C++ `K::m`, Go method receivers, and what
    patterns capture as `@scope`."""
    if node.type in rules.receiver_nodes:
        receiver = node.child_by_field_name("receiver")
        param = receiver.named_children[0] if receiver and receiver.named_child_count else None
        type_node = param.child_by_field_name("type") if param else None
        return [_base_type_name(src, type_node)] if type_node else []
    if scopes:
        return [_base_type_name(src, scope) for scope in scopes]
    parts: list[str] = []
    parent = name_node.parent
    while parent is not None and parent.type == "qualified_identifier":
        scope = parent.child_by_field_name("scope")
        if scope is not None:
            parts.insert(0, _base_type_name(src, scope))
        parent = parent.parent
    return parts


def _package_scopes(rules: LanguageRules, src: SourceText, root: Node) -> list[tuple[int, str]]:
    """(start byte, package) of each top-level package statement, for languages whose
    packages qualify the definitions after them (Go's one `package`, Perl's and PHP's any
    number); `::` and `\\` separators become ".", like every qualified name."""
    if rules.package_node is None:
        return []
    found: list[tuple[int, str]] = []
    for child in root.named_children:
        if child.type == rules.package_node and child.named_child_count:
            name = src.node_text(child.named_children[0]).strip()
            found.append((child.start_byte, name.replace("::", ".").replace("\\", ".")))
    return found


def _package_at(packages: list[tuple[int, str]], byte: int) -> str:
    current = ""
    for start, name in packages:
        if start >= byte:
            break
        current = name
    return current


def _without_restated(defs: list[Definition]) -> list[Definition]:
    """`app.init = function init() {}` and `const f = function f() {}` name one function
    twice: the named function is the value bound to the same name, one definition (the
    binding, whose range and comment hold both), not a second one nested in the first. In a
    chain (`res.contentType = res.type = function contentType()`) that binding is the one
    before the last."""
    kept: list[Definition] = []
    for d in defs:  # in position order: the binding comes right before its value
        if not any(_restates(binding, d) for binding in kept[-2:]):
            kept.append(d)
    return kept


def _restates(binding: Definition, d: Definition) -> bool:
    """Whether `d` is the value (`right`, `value`) of the binding of its own name, itself or
    wrapped in calls (`const Input = forwardRef(function Input() {})`, `memo(...)`) or at
    the end of a chain of assignments."""
    if d.name != binding.name:
        return False
    value = d.node
    while (bound := value.parent) is not None:
        if bound in (binding.node, binding.name_node.parent):
            return any(bound.child_by_field_name(f) == value for f in ("value", "right"))
        if bound.type == "arguments" and bound.parent is not None \
                and bound.parent.type == "call_expression":
            value = bound.parent
        elif bound.type == "assignment_expression" \
                and bound.child_by_field_name("right") == value:
            value = bound
        else:
            return False
    return False


def _merge_clauses(defs: list[Definition]) -> list[Definition]:
    """Adjacent definitions of one name and kind under one parent are clauses of one
    definition: the first stands for all, its range running to the end of the last."""
    kept: list[Definition] = []
    for d in defs:
        last = kept[-1] if kept else None
        if (last is not None and last.name == d.name and last.kind == d.kind
                and last.node.parent == d.node.parent
                and last.last_node.end_byte <= d.node.start_byte
                and _adjacent(last.last_node, d.node)):
            last.end_node = d.last_node
            continue
        kept.append(d)
    return kept


def _adjacent(first: Node, second: Node) -> bool:
    """Nothing but comments stands between two sibling nodes."""
    between = first.next_named_sibling
    while between is not None and between != second:
        if not between.type.endswith("comment"):
            return False
        between = between.next_named_sibling
    return between == second


def _link(defs: list[Definition], packages: list[tuple[int, str]], rules: LanguageRules) -> None:
    """Parents, final kinds, containers and qualified names, in one pass over the
    definitions in position order."""
    stack: list[Definition] = []
    for d in defs:
        while stack and not _encloses(stack[-1], d):
            stack.pop()
        d.parent = stack[-1] if stack else None
        if d.node.type in rules.member_parameters and d.parent and d.parent.kind in CALLABLE_KINDS:
            d.parent = d.parent.parent  # the type around the constructor
        _refine_kind(d, rules)
        if d.parent is not None:
            scope = d.parent.child_scope
        elif d.node.type == rules.package_node:
            scope = ""  # a package is named in full, not inside the one before it
        else:
            scope = _package_at(packages, d.node.start_byte)
        parts = [p for p in (scope, *d.scope_parts) if p]
        d.qualified = ".".join([*parts, d.name])
        d.child_scope = ".".join([*parts, d.impl_type or d.name]).replace("::", ".")
        if d.kind in CONTAINER_KINDS or d.node.type in rules.container_nodes:
            stack.append(d)


def _encloses(outer: Definition, inner: Definition) -> bool:
    start, end = outer.node.start_byte, outer.last_node.end_byte
    same = start == inner.node.start_byte and end == inner.last_node.end_byte
    return not same and start <= inner.node.start_byte and inner.last_node.end_byte <= end


def _refine_kind(d: Definition, rules: LanguageRules) -> None:
    """Whether a function is a method depends on where it sits, which patterns can't see: a
    `function` (Python's `def`, Rust's `fn`) inside a type is a method. A `method` stays one
    wherever it sits, as its pattern matched a node only methods are (Ruby's `def`, Java's
    `method_declaration`): a `def` in a Ruby module (a mixin) and a method of a Java
    anonymous class (whose parent definition is the method that makes it) are methods too."""
    if (d.kind == K.FUNCTION and d.parent is not None and not d.scope_parts
            and d.parent.kind in TYPE_KINDS):
        d.kind = K.METHOD
    constructor = rules.constructor_named_like_container
    if constructor and d.kind == K.METHOD and d.name == _container(d):
        d.kind = K.CONSTRUCTOR


def _container(d: Definition) -> str | None:
    if d.scope_parts:
        return d.scope_parts[-1]
    return d.parent.name if d.parent else None


def to_symbol(src: SourceText, rules: LanguageRules, d: Definition) -> Symbol:
    last = d.end_node or _content_end(src, d.node, rules) or d.node
    return Symbol(
        name=d.name,
        kind=d.kind,
        container=_container(d),
        qualified_name=d.qualified,
        range=Span(*src.point(d.node.start_point), *src.point(last.end_point)),
        selection=src.span(d.name_node),
        signature=_signature(src, d.node, d.name_node),
        doc=d.doc,
        bodiless=_bodiless(d, rules),
    )


def _bodiless(d: Definition, rules: LanguageRules) -> bool:
    """A body is a `body` field in most grammars, a `function_body` child in Kotlin's and D's,
    the next sibling in Dart's (`Definition.end_node`). D's `function_body` is there without
    one too, as the `;` alone of an interface's or an abstract method. A Python body of `...`
    alone (after its docstring) is none either: an `@overload` stub, a `Protocol`'s method, a
    `.pyi` declaration. A decorated definition's body is its definition's."""
    node = d.node.child_by_field_name("definition") or d.node
    return (d.kind in CALLABLE_KINDS and node.type in rules.signature_nodes
            and d.end_node is None and (not _has_body(node) or _only_ellipsis(node))
            and not any(c.type == "function_body" and c.text != b";"
                        for c in node.named_children))


def _only_ellipsis(node: Node) -> bool:
    body = node.child_by_field_name("body")
    said = [s.named_children[0].type
            if s.type == "expression_statement" and s.named_child_count == 1 else s.type
            for s in (body.named_children if body else []) if s.type != "comment"]
    return "ellipsis" in said and all(t in ("ellipsis", "string") for t in said)


def _signature(src: SourceText, node: Node, name_node: Node) -> str:
    row = name_node.start_point.row
    start = name_node.start_byte - name_node.start_point.column
    if node.start_point.row == row:
        start = max(start, node.start_byte)
    limit = min(start + 4 * MAX_SIGNATURE_CHARS, node.end_byte)
    end = src.data.find(b"\n", start, limit)
    line = src.data[start : limit if end < 0 else end].decode("utf-8", "ignore")
    return line.strip()[:MAX_SIGNATURE_CHARS]
