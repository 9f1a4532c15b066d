"""A comment's text without its markers, in every comment syntax the languages use: `//`,
`///`, `#`, `#'` (roxygen), `--`, `-- |` (Haddock), `---` (LDoc), `%%` (EDoc), `;;`, `!`
(Fortran), and the blocks `/* */`, `/** */`, `(* *)`, `(** *)`, `{- -}`, `{-| -}`, `{ }`
(Pascal), `/+ +/` (D), `--[[ ]]`, `#[[ ]]` (CMake), `=begin =end`,
POD (`=head2 ... =cut`) and a docstring's quotes. The text a reader sees is what gets indexed
and shown as a definition's doc, not the syntax around it."""

from __future__ import annotations

import inspect
import re

#: Block comment delimiters, longest opener first so `/**` wins over `/*`.
_BLOCKS: tuple[tuple[str, str], ...] = (
    ("/**", "*/"), ("/*!", "*/"), ("/*", "*/"),
    ("(**", "*)"), ("(*", "*)"),
    ("{-|", "-}"), ("{-", "-}"),
    ("--[[", "]]"), ("#[[", "]]"), ("#|", "|#"), ("<!--", "-->"),
    ("/++", "+/"), ("/+", "+/"), ("{", "}"),
    ('"""', '"""'), ("'''", "'''"), ('"', '"'),
)
#: One line's comment marker: `///`, `//!`, `//`, `#'`, `###`, `-- |`, `---`, `%%`, `;;`,
#: and Fortran's `!`, `!>` (FORD) and `!!`.
_LINE_MARKER = re.compile(r"^(?://[/!]?|#+'?|--+(?:\s*[|^](?=\s|$))?|%+|;+|!+>?)")
#: A block line's decoration: Javadoc's leading `*`s.
_BLOCK_DECORATION = re.compile(r"^\*+")
_XML_REFERENCE = re.compile(
    r"""<(?:see|seealso|paramref|typeparamref)\s+\w+\s*=\s*"([^"]*)"\s*/>""")
_XML_TAG = re.compile(r"</?[A-Za-z][^<>]*>")


def strip_comment(text: str) -> list[str]:
    """The lines of one comment (or a run of line comments in one node) without markers."""
    lines = _strip_markers(text.strip())
    if lines and lines[0].startswith("@doc "):  # EDoc's tag for the text that follows
        lines[0] = lines[0][5:].lstrip()
    return lines


def _strip_markers(text: str) -> list[str]:
    if text.startswith("=") and re.match(r"=[a-zA-Z]", text):
        return _strip_pod(text)
    for opener, closer in _BLOCKS:
        if text.startswith(opener):
            body = text[len(opener):]
            if body.endswith(closer) and len(body) >= len(closer):
                body = body[: len(body) - len(closer)]
            if opener in ('"""', "'''", '"'):
                return inspect.cleandoc(body).split("\n")
            return [_BLOCK_DECORATION.sub("", line.strip(), count=1).strip()
                    for line in body.split("\n")]
    return [_LINE_MARKER.sub("", line.strip(), count=1).strip() for line in text.split("\n")]


def _strip_pod(text: str) -> list[str]:
    """Perl's POD (and Ruby's `=begin`): directive lines go (`=head2 name`, `=cut`), the
    paragraphs stay."""
    return [line.strip() for line in text.split("\n") if not line.startswith("=")]


def strip_xml(text: str) -> str:
    """C#'s XML documentation as plain text: `<see cref="X"/>` becomes X, other tags go, and
    lines left empty by a tag (`<summary>`) are dropped."""
    text = _XML_REFERENCE.sub(r"\1", text)
    kept = []
    for line in text.split("\n"):
        stripped = _XML_TAG.sub("", line).strip()
        if stripped or not _XML_TAG.search(line):
            kept.append(stripped)
    return "\n".join(kept)
