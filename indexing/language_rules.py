"""What the extractor needs to know about a language beyond its grammar: the definition
patterns of `queries/<lang>.scm` and the rules of `queries/<lang>.toml`.

Both are data, and both are ours (the grammar package ships no queries). A language that
`extends` another (C++ extends C, TSX extends TypeScript, Objective-C extends C) gets its
parent's patterns first, then its own, and its parent's rules unless it sets them; a parent
may also be a file of patterns shared by languages without being one (`ecmascript.scm`).
A rule file that says something this loader does not know is refused with the file's name,
so a typo cannot silently turn a rule off.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

QUERY_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True, slots=True)
class LanguageRules:
    """What differs between languages beyond their query patterns. Every field defaults to
    what most languages want, so a file only says how its language is different."""

    #: A language whose patterns (and rules) this one starts from; or a file of patterns that
    #: languages share without being one (`ecmascript.scm`).
    extends: str | None = None
    #: `code` resolves definition patterns; `markdown` and `rst` build an outline of headings.
    extractor: Literal["code", "markdown", "rst"] = "code"
    #: Where a definition's documentation is: the comments directly above it, a docstring
    #: (Python), `@doc`/`@moduledoc` attributes (Elixir), or a child node (`doc_node`).
    doc: Literal["comments", "docstring", "attributes", "child"] = "comments"
    #: A comment above a definition documents it only if this matches its start (Rust: `///`,
    #: `/**`); None: every comment does.
    doc_comment: re.Pattern[str] | None = None
    #: With `doc = "child"`, the type of the child that documents a definition (GraphQL's
    #: `description`).
    doc_node: str | None = None
    #: Definition nodes documented by the doc comment right after them, not above: Elm's
    #: `module_declaration`, whose `{-| -}` follows the `module ... exposing` line.
    doc_after_nodes: frozenset[str] = frozenset()
    #: Node types that count as comments above a definition besides those named `*comment`:
    #: Haskell's `haddock`, Perl's `pod`, a Julia docstring (`string_literal`).
    comment_nodes: frozenset[str] = frozenset()
    #: Blank lines that may separate a documenting comment from its definition (Perl's POD
    #: block usually stands one blank line above the `sub`).
    doc_gap: int = 0
    #: Node types above a definition that belong to it, between it and its comment (Rust's
    #: `#[derive]`, C#'s `[Serializable]`, Erlang's `-spec`).
    attribute_nodes: frozenset[str] = frozenset({"attribute_item", "attribute_list"})
    #: `xml`: documentation is written in XML tags (C#'s `<summary>`), dropped from the text.
    doc_markup: Literal["none", "xml"] = "none"
    #: A top-level node whose first named child names the package that qualifies the
    #: definitions after it, up to the next one (Go's `package` clause, Perl's `package`).
    package_node: str | None = None
    #: Definition nodes whose `receiver` field names the type a method belongs to (Go).
    receiver_nodes: frozenset[str] = frozenset()
    #: Definition nodes written in a callable's parameters that are members of the type
    #: around it (PHP's promoted constructor parameters): they belong to the type, not the
    #: callable.
    member_parameters: frozenset[str] = frozenset()
    #: Definition nodes that may declare a callable without its body, which they hold in a
    #: `body` field (or a `function_body` child) when they have one: one without is
    #: `Symbol.bodiless` (Go's `method_elem`, Java's abstract `method_declaration`, a C
    #: prototype's `declaration`).
    signature_nodes: frozenset[str] = frozenset()
    #: Definition nodes whose kind holds no members elsewhere that hold them here: the members
    #: of the object type a TypeScript type alias names (`type Options = { retries: number }`)
    #: are its own. Not every language's: a C typedef holds the struct it names.
    container_nodes: frozenset[str] = frozenset()
    #: A line this matches whole is a macro the grammar misreads (Objective-C's
    #: `NS_ASSUME_NONNULL_BEGIN`, an export macro on the line above a declaration): a file
    #: with syntax errors is parsed again without such lines (`indexing.extract.recovery`).
    macro_lines: re.Pattern[str] | None = None
    #: A method named like its container is its constructor (C++).
    constructor_named_like_container: bool = False
    #: The type of a definition's next sibling that is its body, when the grammar does not
    #: nest the body in the definition (Dart's `function_body`).
    body_sibling: str | None = None
    #: Adjacent definitions of the same name and kind are clauses of one definition (Erlang
    #: and Elixir function clauses, a Haskell signature and its equations).
    merge_clauses: bool = False
    #: `scripts`: the file embeds code in `<script>` blocks (and Astro's frontmatter), read
    #: with that code's grammar (HTML, Vue, Svelte, Astro).
    embedded: Literal["none", "scripts"] = "none"
    #: A name that binds nothing: Go's blank identifier, the wildcard `_` of Rust, OCaml,
    #: Haskell and others (`var _ io.Reader = (*R)(nil)`, `const _: () = ...`, `let _ = ...`).
    #: A definition so named defines nothing a search or `workspace/symbol` could name; what
    #: it holds stays (`module _ = struct ... end`), and its lines are code between definitions.
    blank_name: str | None = None
    #: A name followed by this mark invokes the macro of that name (Rust's `vec!` is the macro
    #: `vec`): a search for `vec!` names that macro's definition, which is spelled without it.
    macro_mark: str | None = None


_LIST_RULES = frozenset(
    {"receiver_nodes", "comment_nodes", "attribute_nodes", "member_parameters",
     "signature_nodes", "container_nodes", "doc_after_nodes"}
)
_RULE_TYPES: dict[str, type] = {
    "extends": str, "extractor": str, "doc": str, "doc_comment": str, "doc_node": str,
    "comment_nodes": list, "attribute_nodes": list, "doc_gap": int, "doc_markup": str,
    "package_node": str,
    "receiver_nodes": list, "member_parameters": list, "signature_nodes": list,
    "container_nodes": list, "doc_after_nodes": list,
    "constructor_named_like_container": bool, "body_sibling": str,
    "merge_clauses": bool, "embedded": str, "macro_lines": str, "macro_mark": str,
    "blank_name": str,
}
_RULE_CHOICES: dict[str, tuple[str, ...]] = {
    "extractor": ("code", "markdown", "rst"),
    "doc": ("comments", "docstring", "attributes", "child"),
    "doc_markup": ("none", "xml"),
    "embedded": ("none", "scripts"),
}


@cache
def language_rules(lang: str) -> LanguageRules:
    """The rules for `lang` (its parent's, overridden by its own file); raises ValueError
    naming the file when the file says something this loader does not know."""
    path = QUERY_DIR / f"{lang}.toml"
    raw: dict[str, Any] = tomllib.loads(path.read_text("utf-8")) if path.is_file() else {}
    for key, value in raw.items():
        expected = _RULE_TYPES.get(key)
        if expected is None:
            known = ", ".join(f.name for f in fields(LanguageRules))
            raise ValueError(f"{path}: unknown rule {key!r}; known: {known}")
        valid = isinstance(value, expected) and value in _RULE_CHOICES.get(key, (value,))
        if key in _LIST_RULES:
            valid = valid and all(isinstance(v, str) for v in value)
        if key == "extends":
            valid = valid and value != lang and (QUERY_DIR / f"{value}.scm").is_file()
        if key == "doc_gap":
            valid = valid and not isinstance(value, bool) and value >= 0
        if not valid:
            raise ValueError(f"{path}: {key} = {value!r} is not valid")
    parent = raw.get("extends")
    base = language_rules(parent) if parent else LanguageRules()
    for key in ("doc_comment", "macro_lines"):
        if key in raw:
            raw[key] = re.compile(raw[key])
    for key in _LIST_RULES & raw.keys():
        raw[key] = frozenset(raw[key])
    if "attribute_nodes" in raw:  # added to the usual ones (or the parent's), not instead
        raw["attribute_nodes"] |= base.attribute_nodes
    return replace(base, **raw)


@cache
def has_definitions(lang: str) -> bool:
    """Whether `lang` has definition patterns (its own file or a parent's)."""
    return bool(own_query_source(lang).strip())


@cache
def own_query_source(lang: str) -> str:
    """Our patterns for `lang`: its parent's (if it extends one), then those of its own file
    (if it has one)."""
    parent = language_rules(lang).extends
    path = QUERY_DIR / f"{lang}.scm"
    own = path.read_text(encoding="utf-8") if path.is_file() else ""
    return "\n".join(s for s in (own_query_source(parent) if parent else "", own) if s)
