"""The doc at the top of a file (a module docstring, a package comment, a leading comment
block): what the file says it is for. One home for it because two sides read it: indexing
embeds it in the file's vector, and search shows it in the `files` group of an answer.
"""

from __future__ import annotations

import re

MAX_DOC_CHARS = 500
#: A top doc is read from a file's first this many characters: all the file vector's head
#: holds, so the `files` group shows the doc that vector embedded, and a file of megabytes
#: costs no more than a short one.
FILE_HEAD_CHARS = 4000
#: `//!` is Rust's; `#include` and the other C preprocessor lines are code, not comments.
_COMMENT = re.compile(
    r"^\s*(?:#!.*|#(?!(?:include|import|define|undef|ifn?def|if|elif|else|endif|pragma|error"
    r"|region|endregion)\b)|//+!?|/\*+!?|--|;+|%)\s?")
#: A line inside a `/* ... */` block, led by its `*`s. Only there: a line that opens with `*`
#: elsewhere is a glob in an ignore file or a Markdown bullet, not a comment.
_BLOCK_LINE = re.compile(r"^\s*\*+/?\s?")
#: Any other line inside a `/* ... */` block: Go writes a package doc so, without `*`s.
_INDENT = re.compile(r"\s*")
_DOCSTRING = re.compile(r'\s*[rRuUbB]?("""|\'\'\')(.*?)\1', re.DOTALL)
#: A line for a tool, not a reader: a shebang, Rust's attributes, an editor's mode line, a
#: source encoding, Go's build constraints and directives, Ruby's and Python's magic comments,
#: linters' and type checkers' switches, and an SPDX license tag. ESLint's settings and globals
#: are only `/* */` comments: a `// global ...` line is a reader's.
_TOOL_LINE = re.compile(
    r"\s*(?:#!|#\[|#.*-\*-.*-\*-|#\s*(?:vim?|ex):|#\s*(?:en)?coding[:=]|//\s*\+build\b|//go:"
    r"|#\s*(?:frozen_string_literal|typed|warn_indent|shareable_constant_value):"
    r"|#\s*(?:pylint|mypy|flake8|type|fmt|cython|pyright|ruff)\s*:"
    r"|/[/*]\s*(?:eslint-|@ts-|@flow\b|prettier-ignore|jshint\b)|/\*\s*(?:eslint|globals?)\s"
    r"|//\s*swift-tools-version|(?:#|//+|/\*+|--|;+)?\s*SPDX-License-Identifier:)")
#: A license header, read over one comment block.
_LICENSE = re.compile(
    r"\bcopyright\b|\(c\)\s*(?:19|20)\d\d|\b(?:licensed|released|distributed) (?:under|to)\b"
    r"|\ball rights reserved\b"
    r"|\bpermission is hereby granted\b|\bis free software\b|\bunder the terms of the\b",
    re.IGNORECASE)


def top_doc_lines(text: str) -> list[str]:
    """The top doc's lines as they stand in `text`, comment markers left out: the pieces to
    blank when a test wants a tree without its top docs. What precedes a file's doc and is not
    one is passed over: a license header (every file of a Go or Java project opens with the
    same one, which made every file vector alike and every `files` entry read "Copyright"),
    and tool lines such as a shebang, `//go:build`, `# -*- coding -*-` or Ruby's
    `# frozen_string_literal: true`. A Python docstring below them is still the module's."""
    doc: list[str] = []  # the first comment block that is neither a license nor empty
    block: list[str] = []
    in_block = False
    at = 0
    for line in text.split("\n"):
        start, at = at, at + len(line) + 1
        if in_block and not line.strip():  # a paragraph break inside `/* ... */`
            continue
        marker = (_BLOCK_LINE.match(line) or _INDENT.match(line)) if in_block \
            else _COMMENT.match(line)
        if not line.strip() or marker is None:
            doc, block = _first_doc(doc, block), []
            if not line.strip():
                continue
            found = _DOCSTRING.match(text, start)
            if found is None:
                return doc
            return [piece.strip() for piece in found.group(2).split("\n") if piece.strip()]
        opened = line.lstrip()
        if opened.startswith("/*"):
            in_block = "*/" not in opened[2:]
        elif in_block and "*/" in opened:
            in_block = False
        if _TOOL_LINE.match(line):
            continue
        piece = line[marker.end():].rstrip("*/ ").strip()
        # A rule of dashes is no words: a separator inside a comment block, or the `---` that
        # opens a Markdown file's front matter (which would be the doc "-").
        if any(ch.isalnum() for ch in piece):
            block.append(piece)
    return _first_doc(doc, block)


def _first_doc(doc: list[str], block: list[str]) -> list[str]:
    """The doc found so far, or else the comment block just ended unless it is a license."""
    return doc or ([] if _LICENSE.search(" ".join(block)) else block)


def top_doc(text: str) -> str:
    """The doc at the top of a file as one line of at most `MAX_DOC_CHARS`, or ''."""
    return " ".join(" ".join(top_doc_lines(text[:FILE_HEAD_CHARS])).split())[:MAX_DOC_CHARS]
