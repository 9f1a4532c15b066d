"""Which grammar reads which file, and the compiled tree-sitter objects for it.

Grammars come from the per-language PyPI wheels (nothing is fetched at run time). Definition
queries are each wheel's own `queries/tags.scm`, read from the installed package so that we
track the grammar's authors, reduced to its `@definition.*` patterns (the reference patterns
would only cost match time), followed by our supplementary patterns. The extractor relies on
that order: pattern indices at or above `DefinitionQuery.base_count` are ours and win over the
wheel's when both describe the same name.

Our patterns and rules live in `queries/`, one pair of files per language: `<lang>.scm` holds
patterns, `<lang>.toml` (optional) the rules the extractor applies beyond them (see
`LanguageRules`). A language that `extends` another (C++ extends C, TSX extends TypeScript)
gets its parent's patterns first, then its own, and its parent's rules unless it sets them.

`Parser` is not thread-safe and `Query` compilation is the expensive part, so parsers and
queries are cached per thread; `Language` objects are immutable and shared by the process.
"""

from __future__ import annotations

import importlib
import importlib.resources
import logging
import os
import re
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

from tree_sitter import Language, Parser, Query, Tree

log = logging.getLogger(__name__)

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

#: Language id to (module name, name of the function returning the grammar pointer).
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "markdown": ("tree_sitter_markdown", "language"),
}

#: Packages whose `queries/tags.scm` form the base query. TypeScript's own tags.scm only
#: covers what TypeScript adds; its grammar extends JavaScript's, so JavaScript's comes first.
_BASE_TAGS: dict[str, tuple[str, ...]] = {
    "python": ("tree_sitter_python",),
    "javascript": ("tree_sitter_javascript",),
    "typescript": ("tree_sitter_javascript", "tree_sitter_typescript"),
    "tsx": ("tree_sitter_javascript", "tree_sitter_typescript"),
    "go": ("tree_sitter_go",),
    "rust": ("tree_sitter_rust",),
    "java": ("tree_sitter_java",),
    "c": ("tree_sitter_c",),
    "cpp": ("tree_sitter_cpp",),
    "markdown": (),
}

_QUERY_DIR = Path(__file__).parent / "queries"


@dataclass(frozen=True, slots=True)
class LanguageRules:
    """What differs between languages beyond their query patterns, read from
    `queries/<lang>.toml`. Every field defaults to what most languages want, so a file only
    says how its language is different."""

    #: A language whose patterns (and rules) this one starts from.
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
            valid = valid and value in _GRAMMARS and value != lang
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
    module_name, func_name = _GRAMMARS[lang]
    factory: Callable[[], object] = getattr(importlib.import_module(module_name), func_name)
    return Language(factory())


@dataclass(frozen=True, slots=True)
class DefinitionQuery:
    """A compiled definition query and where the wheel's patterns end and ours begin."""

    query: Query
    base_count: int


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.parsers: dict[str, Parser] = {}
        self.queries: dict[str, DefinitionQuery] = {}


_local = _PerThread()


def get_parser(lang: str) -> Parser:
    """This thread's parser for `lang`."""
    parser = _local.parsers.get(lang)
    if parser is None:
        parser = Parser(get_language(lang))
        _local.parsers[lang] = parser
    return parser


#: CPU seconds (of the parsing thread) one file's parse may take. Code parses at about a
#: microsecond a byte, so a 1 MiB file in about a second; error recovery on junk is far
#: slower (1 MB of random bytes: 20 s in the Go grammar). Past the limit the parse is given
#: up and the caller indexes the file as plain text.
PARSE_CPU_SECONDS = 5.0
_READ_BYTES = 1 << 16


class ParseTimeout(Exception):
    """A parse took longer than `PARSE_CPU_SECONDS`."""


def parse(lang: str, data: bytes) -> Tree:
    """`data` parsed by this thread's parser for `lang`, within `PARSE_CPU_SECONDS`."""
    started = time.thread_time()

    def read(offset: int, _point: object) -> bytes:
        return data[offset : offset + _READ_BYTES]

    def give_up(_offset: int, _has_error: bool) -> bool:
        return time.thread_time() - started > PARSE_CPU_SECONDS

    try:  # progress is only reported to a parse that reads through a callback
        return get_parser(lang).parse(read, progress_callback=give_up)
    except ValueError as exc:  # "Parsing failed": given up
        raise ParseTimeout(f"parsing took over {PARSE_CPU_SECONDS:g} s of CPU") from exc


def get_query(lang: str) -> DefinitionQuery:
    """This thread's compiled definition query for `lang` (compiled once per thread)."""
    compiled = _local.queries.get(lang)
    if compiled is None:
        compiled = _compile(lang)
        _local.queries[lang] = compiled
    return compiled


def _compile(lang: str) -> DefinitionQuery:
    language = get_language(lang)
    base = "\n".join(definition_patterns(_read_tags(pkg)) for pkg in _BASE_TAGS[lang])
    own = own_query_source(lang)
    try:
        base_query = Query(language, base) if base.strip() else None
        query = Query(language, base + "\n" + own)
    except Exception:
        # A wheel upgrade that breaks its tags.scm must not cost us every file of the language.
        log.warning("base tags.scm for %s does not compile; using our queries only", lang)
        return DefinitionQuery(Query(language, own), 0)
    return DefinitionQuery(query, base_query.pattern_count if base_query else 0)


def own_query_source(lang: str) -> str:
    """Our patterns for `lang`: its parent's (if it extends one), then those of its own file
    (if it has one)."""
    parent = language_rules(lang).extends
    path = _QUERY_DIR / f"{lang}.scm"
    own = path.read_text(encoding="utf-8") if path.is_file() else ""
    return "\n".join(s for s in (own_query_source(parent) if parent else "", own) if s)


@cache
def _read_tags(package: str) -> str:
    try:
        resource = importlib.resources.files(package) / "queries" / "tags.scm"
        return resource.read_text(encoding="utf-8")
    except (OSError, ModuleNotFoundError):
        log.warning("no tags.scm in %s", package)
        return ""


def definition_patterns(source: str) -> str:
    """Keep only the top-level patterns of a query that capture a `@definition.*` node.

    Reference patterns (calls, type uses) are the bulk of a tags.scm match count and we never
    read them; patterns with no definition capture (Go's bare `@name` ones) would only
    produce names without a node to cite.
    """
    return "\n".join(p for p in split_patterns(source) if "@definition." in p)


def split_patterns(source: str) -> list[str]:
    """Split query source into its top-level patterns (each with its trailing captures and
    predicates), skipping comments and strings while counting brackets."""
    patterns: list[str] = []
    depth = 0
    start = 0
    i = 0
    n = len(source)
    while i < n:
        ch = source[i]
        if ch == ";":
            end = source.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch == '"':
            i = _skip_string(source, i)
            continue
        if ch in "([":
            # A top-level `(#pred? ...)` belongs to the pattern before it.
            if depth == 0 and i > start and not source.startswith("(#", i):
                patterns.append(source[start:i])
                start = i
            depth += 1
        elif ch in ")]":
            depth = max(0, depth - 1)
        i += 1
    patterns.append(source[start:])
    return [p for p in (_strip_comments(p) for p in patterns) if p.strip()]


def _skip_string(source: str, i: int) -> int:
    i += 1
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source[i] == '"':
            return i + 1
        i += 1
    return i


def _strip_comments(pattern: str) -> str:
    """Drop whole-line `;` comments so a pattern's text is only query syntax."""
    return "\n".join(line for line in pattern.splitlines() if not line.lstrip().startswith(";"))
