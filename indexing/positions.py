"""LSP positions: 0-based lines and columns counted in UTF-16 code units.

LSP clients count columns in UTF-16 by default, Python counts code points and tree-sitter
counts UTF-8 bytes. Every conversion between them lives here, so that a column means the same
thing to the extractor that stores it and to the search code that cites it.

Importing this module never loads tree-sitter (its types are only named for the checker): the
command-line search path imports `utf16_len` and must stay fast.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import TYPE_CHECKING

from indexing.records import Span

if TYPE_CHECKING:
    from tree_sitter import Node, Point

_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def utf16_len(text: str) -> int:
    """How many UTF-16 code units `text` takes: its length as an LSP column."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def char_index(text: str, col: int) -> int:
    """The character index in `text` of UTF-16 column `col` (the inverse of `utf16_len` of a
    prefix), in C time, because long lines are where it is needed."""
    if text.isascii():
        return min(col, len(text))
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * col]
    return len(units.decode("utf-16-le", "surrogatepass"))


def split_lines(text: str) -> list[str]:
    """Lines as tree-sitter counts rows: only "\\n" ends a line (`indexing.text.decode` made
    every line end one, as LSP counts them)."""
    return text.split("\n")


class SourceText:
    """A file as str lines and UTF-8 bytes, with byte-to-UTF-16 column conversion that is
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

    def line_utf16_len(self, row: int) -> int:
        """The UTF-16 length of line `row`, without a trailing "\\r": where the line ends."""
        return utf16_len(self.lines[row].removesuffix("\r") if row < len(self.lines) else "")
