"""Which grammar reads which file, and the compiled tree-sitter objects for it.

Every grammar comes from one package, `tree-sitter-language-pack` (0.13, which bundles them
as compiled libraries: nothing is fetched at run time; its 1.x releases download grammars on
first use and fail offline). The pack ships no queries, so each language's definition query
is entirely ours: `queries/<lang>.scm` holds its patterns, `queries/<lang>.toml` (optional)
the rules the extractor applies beyond them (see `LanguageRules`). A language that `extends`
another (C++ extends C, TSX extends TypeScript) gets its parent's patterns first, then its
own, and its parent's rules unless it sets them.

`Parser` is not thread-safe and `Query` compilation is the expensive part, so parsers and
queries are cached per thread; `Language` objects are immutable and shared by the process.
"""

from __future__ import annotations

import os
import re
import threading
import tomllib
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

from tree_sitter import Language, Parser, Query

#: File extension (lower-cased, with the dot) to language id.
EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".md": "markdown",
    ".markdown": "markdown",
}

#: Language id to the name of its grammar in `tree_sitter_language_pack`.
_GRAMMARS: dict[str, str] = {
    "python": "python",
    "javascript": "javascript",
    "typescript": "typescript",
    "tsx": "tsx",
    "go": "go",
    "rust": "rust",
    "java": "java",
    "c": "c",
    "cpp": "cpp",
    "markdown": "markdown",
}

_QUERY_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True, slots=True)
class LanguageRules:
    """What differs between languages beyond their query patterns, read from
    `queries/<lang>.toml`. Every field defaults to what most languages want, so a file only
    says how its language is different."""

    #: A language whose patterns (and rules) this one starts from; or a file of patterns that
    #: languages share without being one (`ecmascript.scm`).
    extends: str | None = None
    #: `markdown` builds an outline from headings; `code` resolves definition patterns.
    extractor: Literal["code", "markdown"] = "code"
    #: Where a definition's documentation is: the comments directly above it, or a docstring.
    doc: Literal["comments", "docstring"] = "comments"
    #: A comment above a definition documents it only if this matches its start (Rust: `///`,
    #: `/**`); None: every comment does.
    doc_comment: re.Pattern[str] | None = None
    #: A top-level node whose first named child names the package that qualifies every
    #: definition (Go's `package` clause).
    package_node: str | None = None
    #: Definition nodes whose `receiver` field names the type a method belongs to (Go).
    receiver_nodes: frozenset[str] = frozenset()
    #: A method named like its container is its constructor (C++).
    constructor_named_like_container: bool = False


_RULE_TYPES: dict[str, type] = {
    "extends": str, "extractor": str, "doc": str, "doc_comment": str, "package_node": str,
    "receiver_nodes": list, "constructor_named_like_container": bool,
}
_RULE_CHOICES: dict[str, tuple[str, ...]] = {
    "extractor": ("code", "markdown"), "doc": ("comments", "docstring"),
}


@cache
def language_rules(lang: str) -> LanguageRules:
    """The rules for `lang` (its parent's, overridden by its own file); raises ValueError
    naming the file when the file says something this loader does not know."""
    path = _QUERY_DIR / f"{lang}.toml"
    raw: dict[str, Any] = tomllib.loads(path.read_text("utf-8")) if path.is_file() else {}
    for key, value in raw.items():
        expected = _RULE_TYPES.get(key)
        if expected is None:
            known = ", ".join(f.name for f in fields(LanguageRules))
            raise ValueError(f"{path}: unknown rule {key!r}; known: {known}")
        valid = isinstance(value, expected) and value in _RULE_CHOICES.get(key, (value,))
        if key == "receiver_nodes":
            valid = valid and all(isinstance(v, str) for v in value)
        if key == "extends":
            valid = valid and value != lang and (_QUERY_DIR / f"{value}.scm").is_file()
        if not valid:
            raise ValueError(f"{path}: {key} = {value!r} is not valid")
    parent = raw.get("extends")
    base = language_rules(parent) if parent else LanguageRules()
    if "doc_comment" in raw:
        raw["doc_comment"] = re.compile(raw["doc_comment"])
    if "receiver_nodes" in raw:
        raw["receiver_nodes"] = frozenset(raw["receiver_nodes"])
    return replace(base, **raw)


#: Languages whose grammar reads a programming language (Markdown is a document format).
CODE_LANGUAGES: frozenset[str] = frozenset(
    lang for lang in _GRAMMARS if language_rules(lang).extractor == "code"
)


def language_for_path(path: str) -> str | None:
    """The language id for `path`, or None when no grammar applies (the caller falls back to
    plain-text chunks)."""
    ext = os.path.splitext(path)[1].lower()
    return EXTENSIONS.get(ext)


@cache
def get_language(lang: str) -> Language:
    """The grammar of `lang` from the language pack (loaded once per process). Imported here:
    a command that only searches never parses."""
    import tree_sitter_language_pack as pack

    name: Any = _GRAMMARS[lang]  # the pack types its names as a Literal of all of them
    return Language(pack.get_binding(name))


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.parsers: dict[str, Parser] = {}
        self.queries: dict[str, Query] = {}


_local = _PerThread()


def get_parser(lang: str) -> Parser:
    """This thread's parser for `lang`."""
    parser = _local.parsers.get(lang)
    if parser is None:
        parser = Parser(get_language(lang))
        _local.parsers[lang] = parser
    return parser


def get_query(lang: str) -> Query:
    """This thread's compiled definition query for `lang` (compiled once per thread)."""
    compiled = _local.queries.get(lang)
    if compiled is None:
        compiled = Query(get_language(lang), own_query_source(lang))
        _local.queries[lang] = compiled
    return compiled


def own_query_source(lang: str) -> str:
    """Our patterns for `lang`: its parent's (if it extends one), then those of its own file
    (if it has one)."""
    parent = language_rules(lang).extends
    path = _QUERY_DIR / f"{lang}.scm"
    own = path.read_text(encoding="utf-8") if path.is_file() else ""
    return "\n".join(s for s in (own_query_source(parent) if parent else "", own) if s)
