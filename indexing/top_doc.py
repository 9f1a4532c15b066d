"""The doc at the top of a file (a module docstring, a package comment, a leading comment
block): what the file says it is for. One home for it because two sides read it: indexing
embeds it in the file's vector, and search shows it in the `files` group of an answer.
"""

from __future__ import annotations

import re

MAX_DOC_CHARS = 500
_COMMENT = re.compile(r"^\s*(?:#!.*|#|//+!?|/\*+!?|--|;+|%)\s?")  # `//!` is Rust's
#: A line inside a `/* ... */` block, led by its `*`s. Only there: a line that opens with `*`
#: elsewhere is a glob in an ignore file or a Markdown bullet, not a comment.
_BLOCK_LINE = re.compile(r"^\s*\*+/?\s?")
_DOCSTRING = re.compile(r'^\s*[rRuUbB]?("""|\'\'\')(.*?)\1', re.DOTALL)


def top_doc_lines(text: str) -> list[str]:
    """The top doc's lines as they stand in `text`, comment markers left out: the pieces to
    blank when a test wants a tree without its top docs."""
    found = _DOCSTRING.match(text)
    if found:
        return [line.strip() for line in found.group(2).split("\n") if line.strip()]
    lines: list[str] = []
    in_block = False
    for line in text.split("\n"):
        if not line.strip():
            if lines:
                break
            continue
        marker = (_BLOCK_LINE.match(line) if in_block else None) or _COMMENT.match(line)
        if marker is None:
            break
        opened = line.lstrip()
        if opened.startswith("#!"):
            continue
        if opened.startswith("/*"):
            in_block = "*/" not in opened[2:]
        elif in_block and "*/" in opened:
            in_block = False
        piece = line[marker.end():].rstrip("*/ ").strip()
        # A rule of dashes is no words: a separator inside a comment block, or the `---` that
        # opens a Markdown file's front matter (which would be the doc "-").
        if any(ch.isalnum() for ch in piece):
            lines.append(piece)
    return lines


def top_doc(text: str) -> str:
    """The doc at the top of a file as one line of at most `MAX_DOC_CHARS`, or ''."""
    return " ".join(" ".join(top_doc_lines(text)).split())[:MAX_DOC_CHARS]
