"""What a chunk calls and which string literals it spells, as full-text surfaces of their own.

A call's name and a literal's text move out of a chunk's `body` column into `calls` and
`strings`, read off the syntax tree (the file's refs, `indexing.extract.refs`), so a call
inside a comment or a string is not a call. A raw query can then aim at them
(`'calls:flush'` finds the code that calls `flush`, not the code that mentions it). They
move rather than being copied: bm25 counts every column's tokens in a chunk's length, so a
copy would lengthen every chunk with calls and reorder answers that do not ask for calls
(measured: a definition's exact name lost to a case variant with fewer calls). Moved, with
the same weight as the body, each chunk has the same tokens at the same weights, and every
ranking is what it was.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from indexing.positions import char_index
from indexing.records import Ref, RefKind

_CALL, _STRING = RefKind.CALL.value, RefKind.STRING.value


class TokenFacts:
    """A file's calls and strings, by line, so each chunk takes the ones inside its text."""

    def __init__(self, refs: Sequence[Ref]) -> None:
        kept = sorted((r for r in refs if r.kind in (_CALL, _STRING)
                       and r.start_line == r.end_line),
                      key=lambda r: (r.start_line, r.start_col))
        self._lines = [r.start_line for r in kept]
        self._refs = kept

    def split(self, text: str, start_line: int, start_col: int = 0) -> tuple[str, str, str]:
        """(body, calls, strings) of a chunk whose `text` starts at `start_line`, UTF-16
        column `start_col`: the body with each call's name and each literal's text blanked,
        and those names and texts, space-joined. A ref whose text is not where it says (a
        chunk that holds only part of its line) stays in the body."""
        lines = text.split("\n")
        lo = bisect_left(self._lines, start_line)
        hi = bisect_left(self._lines, start_line + len(lines), lo)
        calls: list[str] = []
        strings: list[str] = []
        for ref in self._refs[lo:hi]:
            row = ref.start_line - start_line
            line = lines[row]
            base = start_col if row == 0 else 0
            if ref.start_col < base:
                continue
            a, b = char_index(line, ref.start_col - base), char_index(line, ref.end_col - base)
            if ref.kind == _CALL:
                if line[a:b] != ref.name:
                    continue
                calls.append(ref.name)
            else:
                inner = line.find(ref.name, a, b) if ref.name else -1
                if inner < 0:
                    continue
                a, b = inner, inner + len(ref.name)
                strings.append(ref.name)
            lines[row] = line[:a] + " " * (b - a) + line[b:]
        return "\n".join(lines), " ".join(calls), " ".join(strings)
