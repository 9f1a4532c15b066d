"""Cutting a file's lines into searchable chunks.

Chunks must be small enough to embed and to show as a hit, yet every non-blank line of a file
must land in at least one chunk, or some text could never be found. Everything here works on
a list of lines (split on "\\n" only, like tree-sitter's rows) and on inclusive 0-based line
spans, and is linear in the number of lines so large files stay cheap.

Text reaches here through `indexing.text.decode`, which has already made every line end "\\n"
(LSP's "\\r\\n" and lone "\\r" included), so these lines are the lines a client counts. Chunk
text still drops a trailing "\\r", for text that did not come that way.

A line longer than `MAX_LINE_CHARS` (minified code, data) is cut into pieces, each its own
chunk on that line that records the column it starts at, so all of the line is searchable and
cited where it is, without any chunk carrying megabytes.
"""

from __future__ import annotations

from collections.abc import Iterable

from indexing.positions import split_lines, utf16_len
from indexing.records import Chunk, ChunkKind

#: A definition longer than either limit is split between its statements
#: (`indexing.extract.syntax_windows`).
MAX_DEF_LINES = 60
MAX_DEF_CHARS = 3000

#: Code outside definitions, and plain-text files, are cut into line windows.
WINDOW_LINES = 40
WINDOW_CHARS = 3000
WINDOW_OVERLAP_LINES = 5

#: The most characters of a single line that one chunk keeps. A longer line gets chunks of
#: its own, one per piece of this size, overlapping by `PIECE_OVERLAP_CHARS` so that a word
#: cut at a boundary is whole in one of them, until the whole line is covered: the work is
#: linear in the line's length, which `maxFileBytes` bounds.
MAX_LINE_CHARS = 20_000
PIECE_OVERLAP_CHARS = 200

LineSpan = tuple[int, int]


def clean_line(line: str) -> str:
    if line.endswith("\r"):
        line = line[:-1]
    return line[:MAX_LINE_CHARS]


def pieces(text: str, col: int = 0) -> list[tuple[int, str]]:
    """`text` cut into overlapping pieces of at most `MAX_LINE_CHARS` characters that cover all
    of it, each with the UTF-16 column it starts at, `text` itself starting at column `col`."""
    if len(text) <= MAX_LINE_CHARS:
        return [(col, text)]
    step = MAX_LINE_CHARS - PIECE_OVERLAP_CHARS
    out: list[tuple[int, str]] = []
    done = 0
    for start in range(0, len(text) - PIECE_OVERLAP_CHARS, step):
        col += utf16_len(text[done:start])
        done = start
        out.append((col, text[start : start + MAX_LINE_CHARS]))
    return out


def join_lines(lines: list[str], start: int, end: int) -> str:
    return "\n".join(clean_line(lines[i]) for i in range(start, end + 1))


def trim_blank(lines: list[str], start: int, end: int) -> LineSpan | None:
    """The span without its leading and trailing blank lines, or None if all are blank."""
    while start <= end and not lines[start].strip():
        start += 1
    while end >= start and not lines[end].strip():
        end -= 1
    return (start, end) if start <= end else None


def too_long(lines: list[str], start: int, end: int) -> bool:
    if end - start + 1 > MAX_DEF_LINES:
        return True
    return _cost(lines, start, end) > MAX_DEF_CHARS


def _cost(lines: list[str], start: int, end: int) -> int:
    return sum(min(len(lines[i]), MAX_LINE_CHARS) + 1 for i in range(start, end + 1))


def windows(
    lines: list[str], start: int, end: int, max_lines: int, max_chars: int, overlap: int
) -> list[LineSpan]:
    """Cover [start, end] with windows of at most `max_lines` lines and about `max_chars`
    characters (a single longer line still gets a window of its own), each starting
    `overlap` lines before the previous one ended so that text cut at a boundary is whole in
    at least one window. The overlap never exceeds a third of the window just made, which
    keeps the total linear even when few long lines fill a window."""
    spans: list[LineSpan] = []
    i = start
    while i <= end:
        j = i
        chars = 0
        while j <= end and j - i < max_lines:
            cost = min(len(lines[j]), MAX_LINE_CHARS) + 1
            if j > i and chars + cost > max_chars:
                break
            chars += cost
            j += 1
        spans.append((i, j - 1))
        if j > end:
            break
        i = max(i + 1, j - min(overlap, (j - i) // 3))
    return spans


def gaps(start: int, end: int, covered: Iterable[LineSpan]) -> list[LineSpan]:
    """The runs of lines in [start, end] outside every span of `covered`."""
    runs: list[LineSpan] = []
    cursor = start
    for s, e in sorted(covered):
        if s > cursor:
            runs.append((cursor, min(s - 1, end)))
        cursor = max(cursor, e + 1)
        if cursor > end:
            break
    if cursor <= end:
        runs.append((cursor, end))
    return runs


def window_chunks(
    lines: list[str],
    span: LineSpan,
    kind: ChunkKind,
    symbol: int | None = None,
    context: str = "",
    *,
    max_lines: int = WINDOW_LINES,
    max_chars: int = WINDOW_CHARS,
    overlap: int = WINDOW_OVERLAP_LINES,
) -> list[Chunk]:
    """Windows over a span, each trimmed of blank edges; blank-only windows are dropped."""
    trimmed = trim_blank(lines, *span)
    if trimmed is None:
        return []
    chunks: list[Chunk] = []
    for window in windows(lines, *trimmed, max_lines, max_chars, overlap):
        kept = trim_blank(lines, *window)
        if kept is None:
            continue
        first, last = kept
        line = lines[first].removesuffix("\r")
        if first == last and len(line) > MAX_LINE_CHARS:
            chunks.extend(Chunk(first, last, text, kind, symbol, context, col)
                          for col, text in pieces(line))
        else:
            chunks.append(Chunk(first, last, join_lines(lines, first, last), kind, symbol, context))
    return chunks


def text_chunks(text: str) -> list[Chunk]:
    """Line windows of `TEXT` kind for a file no grammar understands, so none of it is
    unsearchable."""
    lines = split_lines(text)
    return window_chunks(lines, (0, len(lines) - 1), ChunkKind.TEXT)
