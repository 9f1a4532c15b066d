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

Lines are counted as tree-sitter counts rows, by "\\n" only: the indexer's text comes through
`indexing.text.decode`, which made "\\r\\n" and a lone "\\r" "\\n" as well (LSP's three line
ends), and dropped a leading byte-order mark, so rows and columns are those a client counts.

The package: `code` (definitions of programming languages), `docs` (where a definition's
chunk starts and the comments or docstring that document it), `code_chunks` (definitions to
chunks), `markdown` (headings and sections), `definition` and `nodes` (what those share).
"""

from __future__ import annotations

import logging

from indexing.chunking import text_chunks as text_chunks
from indexing.detect import LANGUAGE_HEAD_CHARS as LANGUAGE_HEAD_CHARS
from indexing.detect import Overrides, detect_language
from indexing.extract.code import extract_code
from indexing.extract.markdown import extract_markdown
from indexing.extract.rst import extract_rst
from indexing.grammars import ParseTimeout
from indexing.language_rules import language_rules
from indexing.positions import SourceText
from indexing.records import Extraction

log = logging.getLogger(__name__)


def extract(path: str, text: str, languages: Overrides = ()) -> Extraction | None:
    """Symbols and chunks for `path`, or None when no grammar applies (use `text_chunks`).
    `languages` are the user's globs to a language (`indexing.detect`).

    Never raises: on an unexpected failure the file still gets plain line-window chunks, so
    one odd file cannot stop indexing or become unsearchable."""
    lang = detect_language(path, text[:LANGUAGE_HEAD_CHARS], languages)
    if lang is None:
        return None
    try:
        extractor = language_rules(lang).extractor
        if extractor == "markdown":
            return extract_markdown(SourceText(text))
        if extractor == "rst":
            return extract_rst(SourceText(text))
        return extract_code(lang, SourceText(text))
    except ParseTimeout as exc:
        log.warning("%s: %s; indexing it as plain text", path, exc)
        return Extraction(lang=lang, chunks=text_chunks(text), fallback="parse timed out")
    except Exception:
        log.warning("extraction failed for %s; indexing it as plain text", path, exc_info=True)
        return Extraction(lang=lang, chunks=text_chunks(text), fallback="extraction failed")
